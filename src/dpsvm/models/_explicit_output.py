# SPDX-License-Identifier: BSD-3-Clause
"""Private output perturbation of a certified ERM in an explicit feature space.

Nie & Wang's Theorem 2 bounds the change of the regularised minimiser in the
feature (RKHS) norm, ‖w_z − w_z̄‖ ≤ Δ_H = 2κC_L/(λγm), for *any* convex
C_L-Lipschitz loss (hinge, pinball, absolute: no differentiability needed) and any
γ-strongly convex regulariser. When the feature map φ is explicit, finite and
data-independent (the identity, random Fourier features drawn without the data,
polynomial features, Nyström with public landmarks), the minimiser is a vector in
ℝ^D and adding vector noise calibrated to Δ_H is a genuine ε-DP (or (ε, δ)-DP)
release of the whole model — unlike the paper's scalar offset
(:class:`~dpsvm.models.NonPrivateScalarOffsetRelease`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from numbers import Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import Charge, charge
from ..accounting.events import PrivacyEvent
from ..perturbation import OutputPerturbation, weighted_loss_constants
from ..utils._random import check_random_state, random_state_constraint
from ..utils._types import FloatArray
from ..validation import check_epsilon, n_rows, project_rows_to_ball, resolve_delta
from ._weights import class_index, public_weight_bound, resolve_class_weight
from ._weights import row_weights as _row_weights
from .base import (
    NoisyFitTagsMixin,
    SavedAttribute,
    ScoreColumnsMixin,
    check_one_vs_rest_event,
    one_vs_rest_targets,
    release_one_vs_rest,
    resolve_label_set,
)
from .base import model_file as _model_file
from .kernel_erm import (
    NW_GAMMA,
    SENSITIVITY_REFERENCE,
    Calibration,
    calibrate,
    loss_lipschitz,
    resolve_domain,
    solve_features,
)

__all__ = ["DPOutputPerturbationRegressor", "DPOutputPerturbationSVC"]


_NOISE_REFERENCES = {
    "gamma-norm": (
        "density ∝ exp(−ε‖b‖₂/Δ_H): Chaudhuri, Monteleoni & Sarwate, JMLR 12 "
        "(2011), Alg. 1 (output perturbation), with Δ_H from " + SENSITIVITY_REFERENCE
    ),
    "laplace": (
        "i.i.d. Laplace(√D·Δ_H/ε), ‖·‖₁ ≤ √D‖·‖₂: Dwork, McSherry, Nissim & Smith "
        "(2006), Prop. 1, as in Rubinstein et al. arXiv:0911.5708 Thm 7, with Δ_H "
        "from " + SENSITIVITY_REFERENCE
    ),
    "gaussian": (
        "N(0, σ²I) with the analytic calibration of Balle & Wang (2018), "
        "arXiv:1805.06530v1, Thm 8 (= a Gaussian-process release with kernel "
        "φ(x)ᵀφ(x′), Hall, Rinaldo & Wasserman, JMLR 14 (2013), Cor. 9), with Δ_H "
        "from " + SENSITIVITY_REFERENCE
    ),
}


class _ExplicitOutputBase(BaseEstimator):
    """Shared ``fit`` of the explicit-feature output perturbation estimators."""

    _parameter_constraints: dict[str, Any] = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "noise": [StrOptions({"gamma-norm", "laplace", "gaussian"})],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "l1_regularization": [Interval(Real, 0, None, closed="left")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
        "feature_map": "no_validation",
        "feature_norm": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, 1, closed="neither")],
        "max_weight": [Interval(Real, 0, None, closed="neither")],
        "accountant": [BudgetAccountant, None],
        "random_state": random_state_constraint(),
    }

    #: Not written to model files; a weighted fit's event records their public
    #: bound W (details["weight_bound"]).
    _unsaved_params = ("class_weight", "class_priors", "max_weight")

    def _loss_spec(self) -> tuple[str, float, float | None]:
        """(loss, τ, M) of the ERM: the hinge here; the regressor's parameters."""
        return "hinge", 0.5, None

    def _calibration(self, n: int, weight_bound: float = 1.0) -> Calibration:
        """Nie & Wang's calibration of one release on n rows (κ = feature_norm_).

        Weights ω ≤ W (public) scale the loss's Lipschitz constant C_L to W·C_L
        (:func:`~dpsvm.perturbation.weighted_loss_constants`), hence Thm 2's
        Δ_H = 2κC_L/(nΛ) by W.
        """
        loss, quantile, y_bound = self._loss_spec()
        lam = float(self.regularization)
        C_L = loss_lipschitz(
            loss, quantile=quantile, y_bound=y_bound, kappa=self.feature_norm_, lam=lam
        )
        lip_w, _ = weighted_loss_constants(C_L, None, weight_bound)
        return calibrate(self.feature_norm_, lip_w, lam, n)

    # -- model file (dpsvm.io) ---------------------------------------------
    # Only the identity map is written: a transformer parameter (feature_map)
    # is refused by dpsvm.io ("only None, booleans, numbers and strings").
    def _read_feature_state(self, state: dict[str, Any], codec: Any) -> None:
        """Cross-field checks of a read file; the map is the identity."""
        if self.feature_map is not None:  # pragma: no cover - refused on writing
            raise codec.fail("only models with feature_map=None are read.")
        self.feature_map_ = None
        if self.data_norm is not None:
            # κ = data_norm for the identity map (see _prepare_features).
            where = codec.where("feature_norm")
            codec.derived(state["feature_norm"], float(self.data_norm), where)
        if not self.fit_intercept and np.any(np.asarray(self.intercept_) != 0):
            raise ValueError(
                "intercept must be zero when params.fit_intercept is false."
            )

    def _check_saved_event(self, event: PrivacyEvent) -> None:
        """Refuse an event that is not what ``fit`` records for these parameters.

        Recomputes each release's calibration (Nie & Wang Thm 2 through
        :meth:`_calibration`, noise through
        :class:`~dpsvm.perturbation.OutputPerturbation`) from the parameters
        and the event's public n, and compares ε, δ and the sensitivity.
        """
        name = f"nw-output-perturbation-vector({self.noise})"
        coef = np.atleast_2d(np.asarray(self.coef_))
        k, dim = coef.shape[0], coef.shape[1] + int(bool(self.fit_intercept))
        # One-vs-rest: the top-level event must compose its children (each
        # checked below against the parameters), so it cannot under-report.
        releases = check_one_vs_rest_event(event, k) if k > 1 else (event,)
        eps_k = float(self.epsilon) / k
        for child in releases:
            d = child.details
            n = d.get("n_samples")
            if child.mechanism != name or not isinstance(n, int) or n < 1:
                raise ValueError(f"expected {name!r} with an integer n_samples.")
            wb = d.get("weight_bound", 1.0)  # the public W of a weighted fit
            if not (isinstance(wb, int | float) and math.isfinite(wb) and wb > 0):
                raise ValueError("details.weight_bound must be a number > 0.")
            delta_k = (
                resolve_delta(self.delta, n, uses_delta=self.noise == "gaussian") / k
            )
            plan = OutputPerturbation.calibrate(
                self.noise,
                epsilon=eps_k,
                l2_sensitivity=self._calibration(n, float(wb)).rkhs,
                dim=dim,
                delta=delta_k,
            )
            pairs = (
                ("epsilon", child.epsilon, eps_k),
                ("delta", child.delta, delta_k),
                ("sensitivity", child.sensitivity, plan.noise.sensitivity),
                ("kappa", d.get("kappa"), self.feature_norm_),
                ("n_features", d.get("n_features"), dim),
                ("l1", d.get("l1_regularization"), self.l1_regularization),
            )
            for what, got, want in pairs:
                if not (
                    isinstance(got, int | float)
                    and math.isclose(got, float(want), rel_tol=1e-12, abs_tol=0.0)
                ):
                    raise ValueError(f"{what} is {got!r}; the parameters give {want}.")

    # -- feature space -----------------------------------------------------
    def _prepare_map(self, n_features: int) -> None:
        fmap = self.feature_map
        if fmap is None:
            self.feature_map_ = None
            return
        if not hasattr(fmap, "transform"):
            raise TypeError(
                "feature_map must be a transformer with a transform method (e.g. "
                f"sklearn.kernel_approximation.RBFSampler), got {type(fmap).__name__}."
            )
        try:
            check_is_fitted(fmap)
        except NotFittedError:
            # Fit on a public placeholder, never on the private rows: only
            # data-independent maps (random features, polynomial features) are
            # meaningful here.
            self.feature_map_ = clone(fmap).fit(np.zeros((1, n_features)))
            return
        except TypeError:
            pass  # not a scikit-learn estimator: used as given
        self.feature_map_ = copy.deepcopy(fmap)

    def _raw_features(self, X: FloatArray) -> FloatArray:
        if self.feature_map_ is None:
            return X
        return np.asarray(self.feature_map_.transform(X), dtype=np.float64)

    def _features(self, X: FloatArray) -> FloatArray:
        """Rows [proj(φ(x)), s] with norm ≤ κ (s only with an intercept)."""
        kappa = self.feature_norm_
        Phi = self._raw_features(X)
        if not self.fit_intercept:
            return np.asarray(project_rows_to_ball(Phi, kappa), dtype=np.float64)
        s = self.intercept_scaling * kappa
        Pp = project_rows_to_ball(Phi, math.sqrt(kappa * kappa - s * s))
        return np.hstack([Pp, np.full((Pp.shape[0], 1), s)])

    def _set_coef(self, W: FloatArray) -> None:
        if self.fit_intercept:
            s = self.intercept_scaling * self.feature_norm_
            self.coef_ = W[:, :-1]
            self.intercept_ = W[:, -1] * s
        else:
            self.coef_ = W
            self.intercept_ = np.zeros(W.shape[0])

    def _scores(self, X: ArrayLike) -> FloatArray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Phi = self._features(np.asarray(X, dtype=np.float64))
        if self.fit_intercept:
            Phi = Phi[:, :-1]
        return np.asarray(Phi @ self.coef_.T + self.intercept_, dtype=np.float64)

    # -- the release -------------------------------------------------------
    def _check_privacy_parameters(
        self, n_samples: int | Callable[[], int]
    ) -> tuple[float, float]:
        epsilon = check_epsilon(self.epsilon)
        delta = resolve_delta(
            self.delta, n_samples, uses_delta=self.noise == "gaussian"
        )
        if self.noise == "gaussian" and delta == 0.0:
            raise ValueError(
                "noise='gaussian' gives (ε, δ)-DP and needs delta > 0 (e.g. 1e-6, "
                "well below 1/n); use noise='gamma-norm' for pure ε-DP."
            )
        if self.noise != "gaussian" and delta != 0.0:
            raise ValueError(
                f"noise={self.noise!r} is pure ε-DP: set delta=0 (or use "
                "noise='gaussian')."
            )
        return epsilon, delta

    def _release(
        self,
        Phi: FloatArray,
        r: FloatArray,
        eps: float,
        delta: float,
        rng: np.random.Generator,
        sample_weight: FloatArray | None = None,
        weight_bound: float = 1.0,
    ) -> tuple[FloatArray, PrivacyEvent, dict[str, Any]]:
        n, D = Phi.shape
        loss, quantile, _ = self._loss_spec()
        cal = self._calibration(n, weight_bound)
        # Nie & Wang Thm 2 gives the L2 sensitivity Δ_H of the exact minimiser;
        # the layer solves to the public cap, checks the certificate and adds
        # noise calibrated to Δ_H + 2·cap (Gamma-norm: Chaudhuri et al. 2011,
        # Alg. 1; Laplace on Δ₁ = √D·Δ₂: Rubinstein et al. 2012, Thm 7;
        # Gaussian: Balle & Wang 2018, Thm 8).
        plan = OutputPerturbation.calibrate(
            self.noise, epsilon=eps, l2_sensitivity=cal.rkhs, dim=D, delta=delta
        )
        out = plan.perturb(
            lambda cap: solve_features(
                Phi,
                r,
                loss,
                quantile=quantile,
                lam=float(self.regularization),
                l1=float(self.l1_regularization),
                target_distance=cap,
                sample_weight=sample_weight,
            ),
            rng,
        )
        details: dict[str, Any] = {
            "loss": loss,
            "lipschitz": cal.lipschitz,
            "kappa": cal.kappa,
            "regularization": float(self.regularization),
            "lambda_nw": float(self.regularization) / 2.0,
            "gamma_nw": NW_GAMMA,
            "l1_regularization": float(self.l1_regularization),
            "n_samples": n,
            "n_features": D,
            "rkhs_sensitivity": cal.rkhs,
            "certificate_cap": cal.cap,
            "noise": self.noise,
        }
        if weight_bound != 1.0:  # public W (unweighted events are unchanged)
            details["weight_bound"] = weight_bound
        event = plan.noise.event(
            f"nw-output-perturbation-vector({self.noise})",
            reference=_NOISE_REFERENCES[self.noise],
            details={**plan.noise.details(), **details},
        )
        sol = out.solution
        info = {
            "method": sol.method,
            "n_iter": sol.n_iter,
            "gap": sol.gap,
            "distance_bound": sol.distance_bound,
        }
        return out.value, event, info

    def _begin_fit(self, X: ArrayLike) -> tuple[float, float, Charge]:
        # The row count is public (its shape; no value is read).
        epsilon, delta = self._check_privacy_parameters(lambda: n_rows(X))
        # Checked before reading any data; spent only after a successful fit.
        ticket = charge(resolve_accountant(self.accountant), epsilon, delta, owner=self)
        return epsilon, delta, ticket

    def _prepare_features(self, X: FloatArray) -> FloatArray:
        self._prepare_map(X.shape[1])
        if self.feature_map_ is None:
            R = resolve_domain("linear", self.data_norm, X)
            assert R is not None
            self.feature_norm_ = float(R)
        elif self.feature_norm is not None:
            self.feature_norm_ = float(self.feature_norm)
        else:
            # A public bound published by the map itself (dpsvm's
            # RandomFourierFeatures and PolynomialFeatureMap: a constant of the
            # map, valid for every x, not read from the data).
            bound = getattr(self.feature_map_, "feature_norm_bound_", None)
            if bound is None:
                raise ValueError(
                    "feature_map needs feature_norm, a public bound κ on ‖φ(x)‖₂ "
                    "(e.g. √2 for RBFSampler); rows of φ(X) are projected onto it."
                )
            self.feature_norm_ = float(bound)
        return self._features(X)


@_model_file("DPOutputPerturbationSVC")
class DPOutputPerturbationSVC(
    NoisyFitTagsMixin, ScoreColumnsMixin, ClassifierMixin, _ExplicitOutputBase
):
    """Private bias-free hinge SVM by Nie–Wang vector output perturbation.

    Solves (1/n)Σ max(0, 1 − yᵢ⟨w, φ(xᵢ)⟩) + (Λ/2)‖w‖² + μ‖w‖₁ exactly (to a
    certified tolerance) and releases w + b with b calibrated to Nie & Wang's
    Theorem 2 sensitivity Δ_H = 2κ/(nΛ) (C_L = 1).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit.
    delta : float or "auto", default=0.0
        δ; must be 0 for the pure mechanisms and in (0, 1/n) for
        ``noise="gaussian"``. ``"auto"``: n^−1.5 for ``"gaussian"``, else 0
        (:func:`dpsvm.validation.resolve_delta`).
    noise : {"gamma-norm", "laplace", "gaussian"}, default="gamma-norm"
        ``"gamma-norm"``: density ∝ exp(−ε‖b‖₂/Δ_H) (‖b‖ ~ Gamma(D, Δ_H/ε),
        uniform direction), pure ε-DP. ``"laplace"``: i.i.d. Laplace with scale
        √D·Δ_H/ε (the L1 version), pure ε-DP. ``"gaussian"``: N(0, σ²I) with the
        analytic (ε, δ) calibration of Balle & Wang; for a finite feature map this
        is the Gaussian-process release of :class:`DPGaussianProcessRelease`.
    regularization : float, default=0.01
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖w‖²; Nie & Wang's λ = Λ/2 with Ω = ‖w‖², γ = 2.
    l1_regularization : float, default=0.0
        μ ≥ 0 of an extra μ‖w‖₁ (elastic net). The objective stays Λ-strongly
        convex, so the sensitivity does not change (Nie & Wang Thm 2 needs only a
        strongly convex Ω).
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂ when ``feature_map`` is None (κ = R; rows are
        projected onto the ball). ``None`` reads it from the data and emits a
        :class:`~dpsvm.PrivacyLeakWarning`.
    feature_map : transformer or None, default=None
        An explicit, data-independent feature map φ with ``transform`` (e.g.
        ``RBFSampler(random_state=0)``). If it is not fitted, it is fitted on a
        public placeholder ``np.zeros((1, n_features))``, never on the data. A
        map fitted on the private data (e.g. Nyström on private landmarks) voids
        the guarantee.
    feature_norm : float or None, default=None
        Public bound κ on ‖φ(x)‖₂ for ``feature_map`` (√2 for ``RBFSampler``);
        rows of φ(X) are projected onto the ball. ``None`` uses the map's own
        ``feature_norm_bound_`` (dpsvm's
        :class:`~dpsvm.kernels.RandomFourierFeatures`) and is an error for maps
        without one.
    fit_intercept : bool, default=False
        Append a constant feature s = ``intercept_scaling``·κ inside the norm
        bound (regularised like the other weights: Nie & Wang's Theorem 2 has
        no unregularised bias).
    intercept_scaling : float, default=0.5
        s/κ, in (0, 1).
    classes : array-like or None, default=None
        Public label set; ``None`` reads it from y (with a
        :class:`~dpsvm.PrivacyLeakWarning`). More than two classes: one-vs-rest
        with (ε/K, δ/K) per class.
    max_weight : float, default=1.0
        Public bound on ``sample_weight`` (clipped to [0, max_weight]). Δ_H
        scales by W = (largest class weight) × max_weight (Nie & Wang Thm 2 with
        C_L → W·C_L).
    class_weight : dict, "balanced" or None, default=None
        Public class weights, as in :class:`~dpsvm.models.DPLinearSVC`
        (``"balanced"`` from the public ``class_priors``).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions in the order of ``classes``.
    accountant : BudgetAccountant or None, default=None
        Checked before reading the data, charged after a successful fit.
    random_state : None or int, default=None
        ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
        only**. A generator object is refused at ``fit`` (kept as a parameter,
        it would replay the noise).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features_out) or (n_classes, n_features_out)
        Released weights on φ(x).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Released intercepts (zeros without ``fit_intercept``).
    classes_ : ndarray
        The label set.
    feature_map_ : transformer or None
        The (copied) feature map.
    feature_norm_ : float
        κ used.
    privacy_event_ : PrivacyEvent
        Frozen record of the release.
    solver_info_ : list of dict
        Solver diagnostics. Reads the data: do not publish.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    DPOutputPerturbationRegressor : Pinball, absolute and bounded squared loss.
    dpsvm.models.DPLinearSVC : The same release with ``mechanism="output"``.

    Notes
    -----
    Privacy: replace-one neighbours (datasets of equal size n differing in one
    record, features and target). The released vector (``coef_``,
    ``intercept_``) is ε-DP (``noise="gamma-norm"`` or ``"laplace"``) or
    (ε, δ)-DP (``noise="gaussian"``) provided: the feature map is fixed without
    the private data; its rows are bounded by κ (enforced: φ(x) is projected onto
    the ball of radius κ = ``feature_norm``, or x onto radius ``data_norm`` for
    the identity map); the loss is convex and C_L-Lipschitz in f(x) (hinge,
    absolute: 1; pinball: max(τ, 1 − τ); squared: 2M(κ+1)/√λ_NW with |y| ≤ M
    enforced by clipping); Λ > 0. Nie & Wang Thm 2 gives
    ‖w_z − w_z̄‖₂ ≤ Δ_H = 2κC_L/(λ_NW·γ·n) = 2κC_L/(nΛ) (λ_NW = Λ/2, γ = 2; an
    added μ‖w‖₁ keeps the modulus Λ). The solver certifies ‖ŵ − w*‖ ≤ cap =
    10⁻³·Δ_H (else :class:`~dpsvm.exceptions.DPSVMConvergenceError`, nothing
    spent) and the noise is calibrated to Δ_H + 2·cap. ``solver_info_`` reads the
    data: do not publish it. Floating-point caveat: see
    :mod:`dpsvm.mechanisms.base`.

    With the identity map, C_L = 1 and κ = 1 this is Chaudhuri et al.'s output
    perturbation (scale 2/(nΛε)); Nie & Wang's contribution is that Theorem 2
    needs neither a differentiable loss nor the squared-norm regulariser.

    References
    ----------
    .. [1] W. Nie, C. Wang, "Perturbation of convex risk minimization and its
       application in differential private learning algorithms", J. Inequal.
       Appl., Theorem 2.
    .. [2] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12:1069–1109, 2011, Algorithm 1.
    .. [3] B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for
       differential privacy", ICML 2018, arXiv:1805.06530v1, Theorem 8.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import DPOutputPerturbationSVC
    >>> clf = DPOutputPerturbationSVC(epsilon=1.0, classes=[-1, 1], random_state=0)
    >>> clf.fit(X, y).privacy_event_.mechanism
    'nw-output-perturbation-vector(gamma-norm)'
    """

    _parameter_constraints: dict[str, Any] = {
        **_ExplicitOutputBase._parameter_constraints,
        "classes": ["array-like", None],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        noise: str = "gamma-norm",
        regularization: float = 0.01,
        l1_regularization: float = 0.0,
        data_norm: float | None = 1.0,
        feature_map: Any = None,
        feature_norm: float | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
        max_weight: float = 1.0,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        classes: ArrayLike | None = None,
        class_weight: dict[Any, float] | str | None = None,
        class_priors: ArrayLike | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.regularization = regularization
        self.l1_regularization = l1_regularization
        self.data_norm = data_norm
        self.feature_map = feature_map
        self.feature_norm = feature_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_weight = max_weight
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes
        self.class_weight = class_weight
        self.class_priors = class_priors

    # -- model file (dpsvm.io): the released weights -------------------------
    _saved_attributes: ClassVar[tuple[SavedAttribute, ...]] = (
        SavedAttribute("classes", "classes_", "labels"),
        SavedAttribute("n_features_in", "n_features_in_", "count"),
        SavedAttribute("feature_norm", "feature_norm_", "positive"),
        SavedAttribute("coef", "coef_", "array", ("n_outputs", "n_features_in")),
        SavedAttribute("intercept", "intercept_", "array", ("n_outputs",)),
    )

    def _state_from_dict(self, state: dict[str, Any], codec: Any) -> None:
        self._read_feature_state(state, codec)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> DPOutputPerturbationSVC:
        """Fit and release the private SVM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Labels from the public set ``classes``.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Per-row weights, clipped to [0, ``max_weight``] (never refused) and
            multiplied by the class weights; Δ_H scales by the public bound W.

        Returns
        -------
        self
            The fitted estimator.
        """
        class_weights = resolve_class_weight(
            self.class_weight, self.class_priors, self.classes
        )
        weight_bound = public_weight_bound(
            class_weights, float(self.max_weight), self.classes
        )
        epsilon, delta, ticket = self._begin_fit(X)
        X, y = validate_data(self, X, y, dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        check_classification_targets(y)
        self.classes_ = resolve_label_set(self.classes, y)
        Phi = self._prepare_features(X)
        rng = check_random_state(self.random_state)
        targets = one_vs_rest_targets(y, self.classes_)
        omega = _row_weights(
            class_index(targets),
            self.classes_,
            class_weights,
            sample_weight,
            float(self.max_weight),
        )
        release_one_vs_rest(
            self,
            lambda r, eps_k, delta_k: self._release(
                Phi, r, eps_k, delta_k, rng, omega, weight_bound
            ),
            targets,
            epsilon,
            delta,
            ticket,
        )
        return self


@_model_file("DPOutputPerturbationRegressor")
class DPOutputPerturbationRegressor(
    NoisyFitTagsMixin, RegressorMixin, _ExplicitOutputBase
):
    """Private bias-free quantile / median / bounded least-squares regression.

    Solves (1/n)Σℓ(yᵢ − ⟨w, φ(xᵢ)⟩) + (Λ/2)‖w‖² + μ‖w‖₁ with a certified solver
    and releases w + b, b calibrated to Nie & Wang's Theorem 2 sensitivity
    Δ_H = 2κC_L/(nΛ). The pinball loss, the motivating example of Nie & Wang, is
    not differentiable: its privacy needs exactly their Theorem 2.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the fit.
    delta : float or "auto", default=0.0
        δ; 0 for the pure mechanisms, in (0, 1/n) for ``noise="gaussian"``
        (``"auto"``: n^−1.5, or 0 for the pure ones).
    noise : {"gamma-norm", "laplace", "gaussian"}, default="gamma-norm"
        See :class:`DPOutputPerturbationSVC`.
    loss : {"pinball", "absolute", "squared"}, default="pinball"
        ``"pinball"``: ρ_τ(u) = max(τu, (τ − 1)u), C_L = max(τ, 1 − τ).
        ``"absolute"``: |u|, C_L = 1. ``"squared"``: u² with |y| ≤ M enforced
        (labels clipped to [−M, M]); C_L = 2M(κ + 1)/√λ_NW (Nie & Wang Sec. 5.1),
        which needs Λ ≤ 2 and ``l1_regularization=0``.
    quantile : float, default=0.5
        τ ∈ (0, 1) of the pinball loss.
    y_bound : float or None, default=None
        Public bound M on |y| (``loss="squared"`` only; required there).
    regularization : float, default=0.01
        Λ > 0; Nie & Wang's λ = Λ/2 (Ω = ‖w‖², γ = 2).
    l1_regularization : float, default=0.0
        μ ≥ 0 of an extra μ‖w‖₁ (not with ``loss="squared"``).
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂ for the identity map.
    feature_map : transformer or None, default=None
        Explicit data-independent feature map (see
        :class:`DPOutputPerturbationSVC`).
    feature_norm : float or None, default=None
        Public bound κ on ‖φ(x)‖₂ for ``feature_map`` (``None``: the map's
        ``feature_norm_bound_``, see :class:`DPOutputPerturbationSVC`).
    fit_intercept : bool, default=False
        Constant feature inside the norm bound.
    intercept_scaling : float, default=0.5
        s/κ, in (0, 1).
    max_weight : float, default=1.0
        Public bound on ``sample_weight`` (clipped to [0, max_weight]); Δ_H
        scales by it. Sample weights are refused for ``loss="squared"``.
    accountant : BudgetAccountant or None, default=None
        Checked before reading the data, charged after a successful fit.
    random_state : None or int, default=None
        ``None``: CSPRNG noise. An int: reproducible noise, **tests and docs
        only**. A generator object is refused at ``fit`` (kept as a parameter,
        it would replay the noise).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features_out,)
        Released weights on φ(x).
    intercept_ : float
        Released intercept (0 without ``fit_intercept``).
    feature_map_ : transformer or None
        The (copied) feature map.
    feature_norm_ : float
        κ used.
    privacy_event_ : PrivacyEvent
        Frozen record of the release.
    solver_info_ : dict
        Solver diagnostics. Reads the data: do not publish.
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    DPOutputPerturbationSVC : The hinge-loss classifier.

    Notes
    -----
    Privacy: replace-one neighbours (datasets of equal size n differing in one
    record, features and target). The released vector (``coef_``,
    ``intercept_``) is ε-DP (``noise="gamma-norm"`` or ``"laplace"``) or
    (ε, δ)-DP (``noise="gaussian"``) provided: the feature map is fixed without
    the private data; its rows are bounded by κ (enforced: φ(x) is projected onto
    the ball of radius κ = ``feature_norm``, or x onto radius ``data_norm`` for
    the identity map); the loss is convex and C_L-Lipschitz in f(x) (hinge,
    absolute: 1; pinball: max(τ, 1 − τ); squared: 2M(κ+1)/√λ_NW with |y| ≤ M
    enforced by clipping); Λ > 0. Nie & Wang Thm 2 gives
    ‖w_z − w_z̄‖₂ ≤ Δ_H = 2κC_L/(λ_NW·γ·n) = 2κC_L/(nΛ) (λ_NW = Λ/2, γ = 2; an
    added μ‖w‖₁ keeps the modulus Λ). The solver certifies ‖ŵ − w*‖ ≤ cap =
    10⁻³·Δ_H (else :class:`~dpsvm.exceptions.DPSVMConvergenceError`, nothing
    spent) and the noise is calibrated to Δ_H + 2·cap. ``solver_info_`` reads the
    data: do not publish it. Floating-point caveat: see
    :mod:`dpsvm.mechanisms.base`.

    References
    ----------
    .. [1] W. Nie, C. Wang, "Perturbation of convex risk minimization and its
       application in differential private learning algorithms", J. Inequal.
       Appl., Theorem 2 and Section 5.1.
    .. [2] I. Steinwart, A. Christmann, "Estimating conditional quantiles with
       the help of the pinball loss", Bernoulli 17(1), 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.models import DPOutputPerturbationRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(3000, 2)) / 2
    >>> y = X @ [1.0, -1.0] + 0.1 * rng.standard_normal(3000)
    >>> reg = DPOutputPerturbationRegressor(quantile=0.9, random_state=0)
    >>> reg.fit(X, y).coef_.shape
    (2,)
    """

    _parameter_constraints: dict[str, Any] = {
        **_ExplicitOutputBase._parameter_constraints,
        "loss": [StrOptions({"pinball", "absolute", "squared"})],
        "quantile": [Interval(Real, 0, 1, closed="neither")],
        "y_bound": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        noise: str = "gamma-norm",
        regularization: float = 0.01,
        l1_regularization: float = 0.0,
        data_norm: float | None = 1.0,
        feature_map: Any = None,
        feature_norm: float | None = None,
        fit_intercept: bool = False,
        intercept_scaling: float = 0.5,
        max_weight: float = 1.0,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
        loss: str = "pinball",
        quantile: float = 0.5,
        y_bound: float | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.regularization = regularization
        self.l1_regularization = l1_regularization
        self.data_norm = data_norm
        self.feature_map = feature_map
        self.feature_norm = feature_norm
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_weight = max_weight
        self.accountant = accountant
        self.random_state = random_state
        self.loss = loss
        self.quantile = quantile
        self.y_bound = y_bound

    # -- model file (dpsvm.io): the released weights -------------------------
    _saved_attributes: ClassVar[tuple[SavedAttribute, ...]] = (
        SavedAttribute("n_features_in", "n_features_in_", "count"),
        SavedAttribute("feature_norm", "feature_norm_", "positive"),
        SavedAttribute("coef", "coef_", "array", ("n_features_in",)),
        SavedAttribute("intercept", "intercept_", "custom"),
    )

    def _state_to_dict(self, codec: Any) -> dict[str, Any]:
        return {"intercept": codec.scalar("intercept_", float(self.intercept_))}

    def _state_from_dict(self, state: dict[str, Any], codec: Any) -> None:
        self.intercept_ = codec.number(state["intercept"], codec.where("intercept"))
        self._read_feature_state(state, codec)

    def _loss_spec(self) -> tuple[str, float, float | None]:
        y_bound = None if self.y_bound is None else float(self.y_bound)
        return self.loss, float(self.quantile), y_bound

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> DPOutputPerturbationRegressor:
        """Fit and release the private regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Real targets (clipped to [−M, M] for the squared loss).
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Per-row weights, clipped to [0, ``max_weight``] (never refused); Δ_H
            scales by ``max_weight``. Not for ``loss="squared"``.

        Returns
        -------
        self
            The fitted estimator.
        """
        weighted = sample_weight is not None or float(self.max_weight) < 1.0
        if self.loss == "squared" and weighted:
            raise ValueError(
                "loss='squared' takes no sample weights: its Lipschitz constant "
                "(Nie & Wang Sec. 5.1) bounds the minimiser for unit weights only; "
                "use loss='pinball' or 'absolute' with weights."
            )
        if self.loss == "squared":
            if self.y_bound is None:
                raise ValueError(
                    "loss='squared' needs y_bound, a public bound M on |y| (labels "
                    "are clipped to [−M, M])."
                )
            if self.l1_regularization > 0:
                raise ValueError("loss='squared' does not support l1_regularization.")
        epsilon, delta, ticket = self._begin_fit(X)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        X = np.asarray(X, dtype=np.float64)
        r = np.asarray(y, dtype=np.float64)
        if self.y_bound is not None and self.loss == "squared":
            # |y| ≤ M is an assumption of Nie & Wang Sec. 5.1: clip the labels (a
            # per-record public map).
            r = np.clip(r, -float(self.y_bound), float(self.y_bound))
        Phi = self._prepare_features(X)
        rng = check_random_state(self.random_state)
        omega = None
        if weighted:
            n = r.shape[0]
            index = np.zeros(n, dtype=np.intp)
            omega = _row_weights(
                index, np.zeros(1), None, sample_weight, float(self.max_weight)
            )
        w, event, info = self._release(
            Phi, r, epsilon, delta, rng, omega, float(self.max_weight)
        )
        ticket.spend(event)  # before the release is stored (see release_one_vs_rest)
        self._set_coef(w[None, :])
        self.coef_ = self.coef_[0]
        self.intercept_ = float(self.intercept_[0])
        self.privacy_event_ = event
        self.solver_info_ = info
        return self

    def predict(self, X: ArrayLike) -> FloatArray:
        """Predictions ⟨coef_, φ(x)⟩ + intercept_.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted values (the τ-quantile for the pinball loss).
        """
        return self._scores(X)  # coef_ is 1-D here: one column of scores
