# SPDX-License-Identifier: BSD-3-Clause
"""Private kernel SVMs through random Fourier features, and their references.

Every model here solves the bias-free problem of both papers (Rubinstein et al.,
arXiv:0911.5708, eq. (2.1) with C = 1/Λ; Sarwate et al., arXiv:0912.0071, eq. (1)),

    minimise_w  (1/n) Σᵢ ℓ(yᵢ ⟨w, z(xᵢ)⟩) + (Λ/2)‖w‖²,

on a feature map z: the random features of :mod:`dpsvm.kernels` for the private
and random-feature models, the kernel's own RKHS for :class:`NonPrivateKernelSVC`.
Rubinstein et al.'s C is 1/Λ (its dual box is 0 ≤ αᵢ ≤ C/n = 1/(nΛ)).

* :class:`DPKernelSVC` — random features (public frequencies, drawn without
  looking at the data) followed by one of the private linear mechanisms of
  :class:`~dpsvm.models.DPLinearSVC` on the features, which it composes rather
  than re-implements:

  - ``"rubinstein"``: PRIVATESVM (Rubinstein et al., Alg. 3) = cos-sin features and the
    linear ``"output-laplace"`` mechanism with ``data_norm`` = κ = 1 and
    F = 2d̂ coordinates: λ = 4LC√(2d̂)/(βn) = 2^{2.5}·L·C·√d̂/(βn) (Cor. 9);
  - ``"objective"``: Sarwate et al. Alg. 2 (cos-phase features) with the corrected
    objective perturbation of Chaudhuri, Monteleoni & Sarwate (JMLR 2011);
  - ``"objective-2009"``: the same with Sarwate et al.'s uncorrected calibration —
    **not private**, for reproducing its figures only;
  - ``"output"``: L2 output perturbation (Gamma-norm noise, Δ₂ = 2LR/(nΛ)).

* :class:`NonPrivateRandomFeatureSVC` — the same problem on the same features
  without noise (Sarwate et al.'s "RR-Gaussian" baseline).
* :class:`NonPrivateKernelSVC` — the exact kernel hinge SVM (Rubinstein et al.
  Alg. 1),
  solved in the dual with the box 0 ≤ αᵢ ≤ C/n and **no** equality constraint
  (libsvm's ``SVC`` fits a bias and solves a different problem),
  certified by its duality gap.

The feature map, prediction and model-file state that the two random-feature
models share are in :mod:`dpsvm.models._random_features`; the exact kernel SVM
is defined in :mod:`dpsvm.models._exact_kernel_svc` and imports from here.
"""

from __future__ import annotations

import dataclasses
import math
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.multiclass import check_classification_targets

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import charge, warn_not_private
from ..accounting.events import NonPrivateEvent, PrivacyEvent
from ..bounds.rubinstein import rff_noise_scale
from ..losses import get_loss
from ..perturbation import AUTO_CORRECTION_SHARE_KERNEL, auto_regularization
from ..solvers import RowScaledDesign
from ..solvers import solve_kernel_hinge_dual as solve_kernel_hinge_dual  # re-exported
from ..utils._random import random_state_constraint
from ..utils._types import FloatArray
from ..validation import check_epsilon, n_rows, resolve_delta
from ._exact_kernel_svc import NonPrivateKernelSVC
from ._random_features import _RandomFeatureClassifierBase
from ._weights import public_weight_bound, resolve_class_weight
from .base import NoisyFitTagsMixin
from .base import model_file as _model_file
from .linear import DPLinearSVC, NonPrivateLinearClassifier

__all__ = [
    "DPKernelSVC",
    "NonPrivateKernelSVC",
    "NonPrivateRandomFeatureSVC",
    "solve_kernel_hinge_dual",
]


#: The linear mechanism each kernel mechanism composes.
_LINEAR_MECHANISM = {
    "rubinstein": "output-laplace",
    "objective": "objective",
    "objective-2009": "objective-2009",
    "output": "output",
}

_REFERENCES = {
    "rubinstein": (
        "Rubinstein, Bartlett, Huang & Taft, arXiv:0911.5708, Algorithm 3 "
        "(PRIVATESVM) and Corollary 9: λ = 2^2.5·L·C·√d̂/(βn) on the cos-sin map "
        "(4.1), κ = 1, F = 2d̂"
    ),
    "objective": (
        "Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Algorithm 2 / Theorem 3 "
        "(random features, data-independent θ), with the objective perturbation "
        "of Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), Algorithm 2"
    ),
    "objective-2009": (
        "Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Algorithm 2 with "
        "Algorithm 1 as printed (self-consistent reading); NOT private: the proof "
        "of its Theorem 1 omits the Jacobian (corrected in Chaudhuri, Monteleoni & "
        "Sarwate 2011, Theorem 9)"
    ),
    "output": (
        "Random features (data-independent) + output perturbation, Chaudhuri, "
        "Monteleoni & Sarwate, JMLR 12 (2011), Algorithm 1 / Corollary 8"
    ),
}


class _InnerDPLinearSVC(DPLinearSVC):
    """DPLinearSVC as the linear step of :class:`DPKernelSVC` (which warns itself)."""

    _warn_not_private = False


class _UnprojectedDPLinearSVC(_InnerDPLinearSVC):
    """DPLinearSVC without the row projection — ``norm_handling="paper"`` only.

    Sarwate et al. Alg. 2 as printed feeds features of norm up to √2 to a mechanism
    calibrated for norm 1 (correction: its Theorem 3 assumes rows of norm ≤ 1, which the
    √(2/D)·cos features do not satisfy; docs/kernels.md). Reproducing that needs the
    rows unprojected; the release is then **not** covered by the guarantee, which
    :class:`DPKernelSVC` states in a :class:`~dpsvm.exceptions.NotPrivateWarning` and in
    its ``privacy_event_`` (a :class:`~dpsvm.accounting.NonPrivateEvent`).
    """

    def _design(
        self, X: FloatArray, R: float, norms: FloatArray | None
    ) -> RowScaledDesign:
        # The rows as given (no clipping, no constant column), divided by R.
        return RowScaledDesign(X, None if R == 1.0 else np.full(X.shape[0], 1.0 / R))


@_model_file("DPKernelSVC")
class DPKernelSVC(NoisyFitTagsMixin, _RandomFeatureClassifierBase):
    """Differentially private kernel SVM on random Fourier features.

    Draws public random frequencies for a translation-invariant kernel, maps the
    rows to random features z(x) and releases a private linear classifier on
    them, fitted by :class:`~dpsvm.models.DPLinearSVC` (composed, not
    duplicated): f(x) = ⟨w, z(x)⟩, no bias.

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}, default="rbf"
        exp(−γ‖x − y‖²), exp(−γ‖x − y‖₁) or ∏ 1/(1 + γ(xᵢ − yᵢ)²).
    gamma : float, default=1.0
        Public kernel width γ > 0 (Sarwate et al.'s nested balls use γ = 0.5, i.e.
        σ = 1). Strings (data-dependent ``"scale"``/``"auto"``) are refused: γ
        must come from public knowledge, never from the data. Guidance: for
        features scaled to a public range of width about 1 per coordinate (e.g.
        :class:`~dpsvm.preprocessing` output in [−1, 1]), γ ≈ 1/d is the
        "unit variance per coordinate" width (scikit-learn's ``"scale"`` with a
        public variance instead of the data's); γ = 1/(2σ²) for a known length
        scale σ. Choosing γ on the private data costs privacy
        (:mod:`dpsvm.model_selection`).
    n_components : int, default=100
        Number of frequencies: d̂ for cos-sin (2d̂ features), D for cos-phase.
        The noise norm grows like D/ε while the kernel approximation error
        shrinks like 1/√D; D = 100 was best on the validation draw of the
        nested balls at ε = 0.1 (D ∈ {50, 100, 150, 200}, docs/kernels.md).
    feature_map : {"auto", "cos-sin", "cos-phase"}, default="auto"
        ``"auto"``: cos-sin (Rubinstein et al. eq. (4.1)) for ``"rubinstein"`` and
        ``"output"``, cos-phase (Sarwate et al. Alg. 2) for the objective mechanisms.
    norm_handling : {"scale", "bound", "clip", "paper"}, default="clip"
        How the cos-phase features' norm bound √2 is handled (Sarwate et al.'s
        Alg. 2 scales them by √(2/D) but its Theorem 3 assumes norm ≤ 1; ignored
        for cos-sin, whose norm is exactly 1). The default
        ``"clip"`` is private and keeps typical rows at norm ≈ 1, twice the
        signal of ``"scale"`` (whose rows have norm ≈ 1/√2) for the same noise:
        0.097 against 0.119 test error on the nested balls (docs/kernels.md).

        * ``"scale"`` (private): features √(1/D)·cos(ωᵀx + ψ), norm ≤ 1, noise
          calibrated for 1. Equivalent to the paper's √(2/D) features with Λ
          doubled.
        * ``"bound"`` (private): features √(2/D)·cos(…), noise calibrated for
          ``data_norm`` = √2 (the noise scaled to the true bound). Identical to
          ``"scale"`` with Λ halved.
        * ``"clip"`` (private): features √(2/D)·cos(…) projected onto the unit
          ball (a fixed per-row map), noise calibrated for 1. Closest private
          variant of the paper: ‖v‖² − 1 is of order 1/√(2D), so few rows move
          much.
        * ``"paper"`` (**not private**): features √(2/D)·cos(…) unprojected with
          noise calibrated for norm 1, as printed in Sarwate et al. Emits a
          :class:`~dpsvm.exceptions.NotPrivateWarning` and records a
          :class:`~dpsvm.accounting.NonPrivateEvent`; refused by accountants
          with a finite budget; for reproducing Fig. 2(b) only.
    mechanism : {"objective", "objective-2009", "rubinstein", "output"}, \
            default="objective"
        ``"rubinstein"``: PRIVATESVM, Rubinstein et al. Alg. 3 (2d̂ Laplace draws of
        scale 2^{2.5}·L·C·√d̂/(βn), C = 1/Λ). ``"objective"``: Sarwate et al.
        Alg. 2 with corrected objective perturbation. ``"objective-2009"``:
        Sarwate et al.'s uncorrected calibration (not private). ``"output"``: L2 output
        perturbation.
    loss : {"auto", "hinge", "huber", "logistic"}, default="auto"
        ``"auto"``: hinge for ``"rubinstein"``/``"output"``, Huber for the
        objective mechanisms (which refuse the hinge).
    huber_h : float, default=1.0
        Half-width h of the Huber loss (c = 1/(2h)). h = 1 halves the curvature
        bound c of Sarwate et al.'s h = 0.5, and with it the correction
        ln(1 + 2c/(nΛ) + …) that objective perturbation pays; best of
        h ∈ {0.5, 1, 2} on the nested-balls validation draw.
    regularization : float or "auto", default="auto"
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖w‖² (Rubinstein et al.'s C = 1/Λ). ``"auto"`` resolves
        in ``fit``, from public quantities only (n, ε, K classes, the loss's c and the
        features' norm bound R), to Λ = R²·max(c/(n(e^{ε_k/4} − 1)), 1/n), c = max(1,
        the loss's curvature bound), ε_k = ε/K: Chaudhuri et al.'s own fallback value
        (Chaudhuri et al. 2011, Alg. 2 step 2) at c = 1, ≈ 4/(nε). With h = 1 it keeps
        ε′ ≈ 3ε/4. Random-feature models want about five times less regularisation than
        the linear rule (f = 1/2 instead of 1/10); chosen on a validation draw of the
        nested balls, never on test rows (docs/defaults.md). The resolved value is
        ``regularization_``.
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit (Rubinstein et al.'s β,
        Sarwate et al.'s ε_p).
    delta : float or "auto", default=0.0
        δ of the fit (every mechanism here is pure; recorded only; ``"auto"``
        is 0; δ ≥ 1/n is refused).
    classes : array-like or None, default=None
        The public label set. ``None`` reads it from y and emits a
        :class:`~dpsvm.PrivacyLeakWarning`.
    class_weight : dict, "balanced" or None, default=None
        Public class weights, as in :class:`~dpsvm.models.DPLinearSVC`
        (``"balanced"`` from the public ``class_priors``).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions in the order of ``classes``.
    max_weight : float, default=1.0
        Public bound on ``sample_weight`` (clipped to [0, max_weight]); the
        noise scales with W = (largest class weight) × max_weight.
    accountant : BudgetAccountant or None, default=None
        Budget checked before the data are read and charged after a successful
        fit with ``privacy_event_``. Shared by clones.
    tol : float, default=1e-10
        Solver tolerance (see :class:`~dpsvm.models.DPLinearSVC`).
    max_iter : int, default=200
        Solver iteration cap.
    feature_random_state : None or int, default=None
        Seed of the frequencies and phases. They are public and data-independent,
        so an int seed is allowed here. A generator object is refused at
        ``fit``, as for every public seed.
    random_state : None or int, default=None
        Privacy noise. ``None``: ChaCha20 CSPRNG keyed by the OS. An int makes
        the noise reproducible — **for tests and documentation only**. A
        generator object is refused at ``fit`` (kept as a parameter, it would
        replay the noise).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_random_features) or (n_classes, ...)
        Released weights on the random features.
    frequencies_ : ndarray of shape (n_features_in_, n_components)
        Released frequencies ωⱼ.
    phases_ : ndarray of shape (n_components,) or None
        Released phases ψⱼ (cos-phase only).
    feature_scale_ : float
        Feature multiplier (d̂^{−1/2}, √(1/D) or √(2/D)).
    feature_map_ : str
        The resolved feature map.
    feature_norm_bound_ : float
        True bound on ‖z(x)‖ (1 or √2).
    data_norm_ : float
        The norm bound the noise is calibrated for.
    regularization_ : float
        The Λ used (``regularization``, or the value ``"auto"`` resolved to).
    projection_radius_ : float or None
        Radius the features are projected onto (``None`` for ``"paper"``).
    classes_ : ndarray
        The label set.
    privacy_event_ : PrivacyEvent
        The linear mechanism's record with the feature map added to ``details``.
    solver_info_ : list of dict
        Solver diagnostics (reads the data: do not publish).
    n_iter_ : ndarray
        Solver iterations per binary problem.
    n_features_in_ : int
        Number of input columns.

    See Also
    --------
    NonPrivateRandomFeatureSVC : The same problem without noise.
    NonPrivateKernelSVC : The exact kernel SVM.
    dpsvm.kernels.RandomFourierFeatures : The feature map.

    Notes
    -----
    Privacy: replace-one neighbours (datasets of equal size n differing in one record;
    its features and label are protected). The frequencies (and phases) are drawn
    independently of the data and released with the model, so they cost nothing
    (Rubinstein et al. Cor. 9; Sarwate et al. Thm 3): the guarantee is that of the
    linear mechanism on the features, whose public norm bound is 1 for cos-sin (exactly)
    and for cos-phase with ``norm_handling="scale"`` or ``"clip"`` (enforced by
    projection), and √2 for ``"bound"``. The loss must be convex and 1-Lipschitz, Λ > 0,
    and the labels in the public set ``classes``. ``"rubinstein"``, ``"objective"`` and
    ``"output"`` give pure ε-DP; ``"objective-2009"`` and ``norm_handling="paper"`` are
    **not** DP (reproduction only; the latter warns). Released: ``coef_``,
    ``frequencies_``, ``phases_``, ``feature_scale_``, ``classes_``; ``solver_info_``
    reads the data and must not be published. With K > 2 classes, one-vs-rest spends ε/K
    each.

    References
    ----------
    .. [1] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
       large function space: privacy-preserving mechanisms for SVM learning",
       arXiv:0911.5708, 2009, Algorithm 3, Corollaries 9 and 15.
    .. [2] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009, Algorithm 2, Theorem 3.
    .. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
       empirical risk minimization", JMLR 12:1069–1109, 2011.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import DPKernelSVC
    >>> clf = DPKernelSVC(gamma=0.5, n_components=50, mechanism="rubinstein",
    ...                   regularization=0.1, epsilon=1.0, classes=[-1, 1],
    ...                   feature_random_state=0, random_state=0).fit(X, y)
    >>> clf.coef_.shape, clf.privacy_event_.epsilon
    ((1, 100), 1.0)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **_RandomFeatureClassifierBase._parameter_constraints,
        "mechanism": [StrOptions(set(_LINEAR_MECHANISM))],
        "regularization": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "class_priors": ["array-like", None],
        "max_weight": [Interval(Real, 0, None, closed="neither")],
        "accountant": [BudgetAccountant, None],
        "random_state": random_state_constraint(),
    }

    def __init__(
        self,
        *,
        kernel: str = "rbf",
        gamma: float = 1.0,
        n_components: int = 100,
        feature_map: str = "auto",
        norm_handling: str = "clip",
        loss: str = "auto",
        huber_h: float = 1.0,
        regularization: float | str = "auto",
        classes: ArrayLike | None = None,
        tol: float = 1e-10,
        max_iter: int = 200,
        feature_random_state: int | None = None,
        mechanism: str = "objective",
        epsilon: float = 1.0,
        delta: float | str = 0.0,
        class_weight: dict[Any, float] | str | None = None,
        class_priors: ArrayLike | None = None,
        max_weight: float = 1.0,
        accountant: BudgetAccountant | None = None,
        random_state: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.feature_map = feature_map
        self.norm_handling = norm_handling
        self.loss = loss
        self.huber_h = huber_h
        self.regularization = regularization
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter
        self.feature_random_state = feature_random_state
        self.mechanism = mechanism
        self.epsilon = epsilon
        self.delta = delta
        self.class_weight = class_weight
        self.class_priors = class_priors
        self.max_weight = max_weight
        self.accountant = accountant
        self.random_state = random_state

    #: Not written to model files; the event records their public bound W.
    _unsaved_params = ("class_weight", "class_priors", "max_weight")

    def _weight_bound(self) -> float:
        """The public bound W on every example weight (parameters only)."""
        cw = resolve_class_weight(self.class_weight, self.class_priors, self.classes)
        return public_weight_bound(cw, float(self.max_weight), self.classes)

    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> DPKernelSVC:
        """Fit the estimator (the accountant is charged only after success).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Labels.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Per-row weights, clipped to [0, ``max_weight``] (never refused).

        Returns
        -------
        self
            The fitted estimator.
        """
        self._check_public_parameters()
        return self._fit(X, y, sample_weight)

    def _resolved_feature_map(self) -> str:
        if self.feature_map != "auto":
            return str(self.feature_map)
        return "cos-sin" if self.mechanism in ("rubinstein", "output") else "cos-phase"

    def _resolved_loss(self) -> str:
        if self.loss != "auto":
            return str(self.loss)
        return "hinge" if self.mechanism in ("rubinstein", "output") else "huber"

    def _unprojected_reason(self) -> str | None:
        cos_phase = self._resolved_feature_map() == "cos-phase"
        if self.norm_handling == "paper" and cos_phase:
            return (
                "norm_handling='paper' feeds cos-phase features of norm up to √2 "
                "(√(2/D) scaling, Sarwate, Chaudhuri & Monteleoni 2009, Alg. 2) to "
                "a mechanism calibrated for norm 1; use norm_handling='scale', "
                "'bound' or 'clip'."
            )
        return None

    def _non_private_reason(self) -> str | None:
        # Read by dpsvm.accounting.non_private_reason (selectors, accountants).
        reasons = [
            r
            for r in (
                self._unprojected_reason(),
                DPLinearSVC(
                    mechanism=_LINEAR_MECHANISM[self.mechanism]
                )._non_private_reason(),
            )
            if r is not None
        ]
        return " ".join(reasons) if reasons else None

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: Any, y: Any, sample_weight: Any = None) -> DPKernelSVC:
        loss_name = self._resolved_loss()
        loss = get_loss(loss_name, huber_h=self.huber_h)
        if (
            self.mechanism in ("objective", "objective-2009")
            and not loss.differentiable
        ):
            raise ValueError(
                f"mechanism={self.mechanism!r} needs a twice-differentiable loss; "
                f"the {loss_name} loss breaks objective perturbation (Sarwate et "
                "al. 2009, §3.1 counter-example). Use loss='huber' or 'logistic', "
                "or mechanism='rubinstein' / 'output' for the hinge."
            )
        epsilon = check_epsilon(self.epsilon)
        # The public row count (shape only); every mechanism here is pure.
        delta = resolve_delta(self.delta, lambda: n_rows(X), uses_delta=False)
        weight_bound = self._weight_bound()  # public weights checked before budget
        # Checked before reading any data; spent only after a successful fit.
        ticket = charge(
            resolve_accountant(self.accountant),
            epsilon,
            delta,
            non_private_reason=self._non_private_reason(),
            owner=self,  # a refused spend puts the estimator back as it was
        )
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        rff, R = self._feature_setup(X.shape[1])
        self._store_features(rff, R)
        paper = self.projection_radius_ is None
        not_private = self._non_private_reason()
        if not_private is not None:
            warn_not_private(not_private, stacklevel=4)
        Z = rff.transform(X)
        self.regularization_ = self._resolve_regularization(
            X.shape[0], R, y, loss, weight_bound
        )
        inner_cls = _UnprojectedDPLinearSVC if paper else _InnerDPLinearSVC
        inner = inner_cls(
            epsilon=epsilon,
            delta=delta,
            mechanism=_LINEAR_MECHANISM[self.mechanism],
            loss=loss_name,
            huber_h=self.huber_h,
            regularization=self.regularization_,
            data_norm=R,
            fit_intercept=False,
            classes=self.classes,
            class_weight=self.class_weight,
            class_priors=self.class_priors,
            max_weight=self.max_weight,
            accountant=None,  # charged here, with the feature map in the event
            tol=self.tol,
            max_iter=self.max_iter,
            random_state=self.random_state,
        )
        inner.fit(Z, y, sample_weight=sample_weight)
        self.classes_ = inner.classes_
        self.coef_ = inner.coef_
        self.solver_info_ = inner.solver_info_
        self.n_iter_ = inner.n_iter_
        self.privacy_event_ = self._event(
            inner.privacy_event_, R, X.shape[0], loss, weight_bound
        )
        ticket.spend(self.privacy_event_)
        return self

    def _check_privacy_event(self, event: PrivacyEvent, data_norm: float) -> None:
        """Raise ValueError unless ``event`` is what ``fit`` records for these params.

        The linear step's calibration is recomputed by
        ``DPLinearSVC._check_privacy_event`` (for :func:`dpsvm.io.load_model`).
        """
        prefix = f"random-fourier-features[{self._resolved_feature_map()}]+"
        if not event.mechanism.startswith(prefix):
            raise ValueError(
                f"event mechanism {event.mechanism!r} does not start with {prefix!r}."
            )
        # Λ as fit resolved it (the kernel's own "auto" rule needs n, recorded in
        # the event, and the public label set).
        first = (event.children[0] if event.children else event).details
        n = first.get("n_samples")
        if not (isinstance(n, int) and n >= 1):
            raise ValueError("the event lacks n_samples.")
        wb = first.get("weight_bound", 1.0)  # the public W of a weighted fit
        if not (isinstance(wb, int | float) and math.isfinite(wb) and wb > 0):
            raise ValueError("event details.weight_bound must be a number > 0.")
        loss = self._resolved_loss()
        reg = self._resolve_regularization(
            n,
            data_norm,
            np.asarray(self.classes_),
            get_loss(loss, huber_h=self.huber_h),
            float(wb),
        )
        inner = DPLinearSVC(
            epsilon=self.epsilon,
            delta=self.delta,
            mechanism=_LINEAR_MECHANISM[self.mechanism],
            loss=loss,
            huber_h=self.huber_h,
            regularization=reg,
            data_norm=data_norm,
            fit_intercept=False,
        )
        inner._check_privacy_event(
            dataclasses.replace(event, mechanism=event.mechanism[len(prefix) :]),
            data_norm,
            non_private=self._non_private_reason() is not None,
        )

    def _resolve_regularization(
        self, n: int, R: float, y: np.ndarray, loss: Any, weight_bound: float = 1.0
    ) -> float:
        """Λ of this fit; ``"auto"`` applies the public a-priori rule.

        λ = max(c/(n(e^{ε_k/4} − 1)), 1/n) with c = max(1, the loss's curvature
        bound) (:func:`~dpsvm.perturbation._calibration.auto_regularization`, f = 1/2)
        and Λ = λ·R², R the features' calibrated norm bound. The number of
        one-vs-rest problems K comes from ``classes`` (from y only when
        ``classes=None``, which already warns). A weighted fit scales c by the
        public weight bound W (``weight_bound``).
        """
        if not (isinstance(self.regularization, str) and self.regularization == "auto"):
            return float(self.regularization)
        labels = np.unique(y if self.classes is None else np.asarray(self.classes))
        k = labels.size if labels.size > 2 else 1
        lam = auto_regularization(
            float(self.epsilon) / k,
            n,
            loss.smoothness,
            share=AUTO_CORRECTION_SHARE_KERNEL,
            max_weight=weight_bound,
        )
        return lam * R * R

    def _event(
        self,
        linear: PrivacyEvent,
        R: float,
        n: int,
        loss: Any,
        weight_bound: float = 1.0,
    ) -> PrivacyEvent:
        details = dict(linear.details)
        details.update(self._feature_details(R))
        k = len(self.classes_) if len(self.classes_) > 2 else 1
        if self.mechanism == "rubinstein" and self.feature_map_ == "cos-sin":
            # Rubinstein et al. Cor. 9: λ = 2^{2.5}·L·C·√d̂/(βn), C = 1/Λ, per
            # binary problem (β = ε/K under one-vs-rest). The linear mechanism
            # adds the public solver-certificate cap on top
            # (details["noise_scale_internal"]).
            details["laplace_scale_cor9"] = rff_noise_scale(
                linear.epsilon / k,
                n,
                1.0 / self.regularization_,
                loss.lipschitz * weight_bound,  # weighted loss: W·L
                int(self.n_components),
            )
            details["n_laplace_draws"] = 2 * int(self.n_components)
        name = f"random-fourier-features[{self.feature_map_}]+{linear.mechanism}"
        reference = _REFERENCES[self.mechanism]
        reason = self._non_private_reason()
        if self.projection_radius_ is None:
            reference += "; norm_handling='paper' voids the guarantee"
        # The linear step's event, renamed (same ε, δ, sensitivity, children).
        renamed = dataclasses.replace(
            linear,
            mechanism=name,
            reference=f"{reference}; linear step: {linear.reference}",
            details=details,
        )
        if reason is None:
            return renamed
        # Non-private (ε = ∞, nominal ε in details) for objective-2009 or an
        # unprojected √2-norm feature map calibrated as norm 1.
        fields = dataclasses.fields(PrivacyEvent)
        return NonPrivateEvent(
            **{f.name: getattr(renamed, f.name) for f in fields}, reason=reason
        )

    # -- model file (dpsvm.io) ------------------------------------------------
    def _check_saved_event(self, event: PrivacyEvent) -> None:
        """Raise ValueError unless a loaded ``event`` is what fit records."""
        self._check_privacy_event(event, float(self.data_norm_))


@_model_file("NonPrivateRandomFeatureSVC")
class NonPrivateRandomFeatureSVC(_RandomFeatureClassifierBase):
    """Non-private linear SVM on random Fourier features (the "RR" baseline).

    Solves exactly the problem that :class:`DPKernelSVC` perturbs, on the same
    features when given the same ``feature_random_state`` and feature options:
    (1/n)Σℓ(yᵢ⟨w, z(xᵢ)⟩) + (Λ/2)‖w‖², bias-free, by
    :class:`~dpsvm.models.NonPrivateLinearClassifier`. **It offers no privacy.**

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}, default="rbf"
        The kernel.
    gamma : float, default=1.0
        Kernel width γ > 0 (strings refused, as for :class:`DPKernelSVC`).
    n_components : int, default=100
        Number of frequencies.
    feature_map : {"auto", "cos-sin", "cos-phase"}, default="auto"
        ``"auto"`` is cos-sin.
    norm_handling : {"scale", "bound", "clip", "paper"}, default="scale"
        As in :class:`DPKernelSVC` (cos-phase only); ``"paper"`` solves the
        unprojected problem on the √(2/D) features.
    loss : {"auto", "hinge", "huber", "logistic"}, default="auto"
        ``"auto"`` is the hinge.
    huber_h : float, default=0.5
        Huber half-width.
    regularization : float, default=0.01
        Λ > 0.
    classes : array-like or None, default=None
        Label set (``None``: read from y; nothing here is private).
    tol : float, default=1e-10
        Solver tolerance.
    max_iter : int, default=200
        Solver iteration cap.
    feature_random_state : None or int, default=None
        Seed of the frequencies and phases (a generator object is refused at
        ``fit``, as for every public seed).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_random_features) or (n_classes, ...)
        Weights on the random features.
    frequencies_ : ndarray of shape (n_features_in_, n_components)
        Frequencies ωⱼ.
    phases_ : ndarray of shape (n_components,) or None
        Phases ψⱼ (cos-phase only).
    feature_scale_ : float
        Feature multiplier.
    feature_map_ : str
        The resolved feature map.
    feature_norm_bound_ : float
        Bound on ‖z(x)‖.
    data_norm_ : float
        Norm bound of the internal problem.
    projection_radius_ : float or None
        Projection radius of the features (``None`` for ``"paper"``).
    classes_ : ndarray
        The label set.
    n_iter_ : ndarray
        Solver iterations per binary problem.
    n_features_in_ : int
        Number of input columns.

    Examples
    --------
    >>> from dpsvm.datasets import make_nested_balls
    >>> X, y = make_nested_balls(2000, random_state=0)
    >>> from dpsvm.models import NonPrivateRandomFeatureSVC
    >>> clf = NonPrivateRandomFeatureSVC(gamma=0.5, n_components=50, loss="huber",
    ...                                  regularization=1e-5,
    ...                                  feature_random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    def __init__(
        self,
        *,
        kernel: str = "rbf",
        gamma: float = 1.0,
        n_components: int = 100,
        feature_map: str = "auto",
        norm_handling: str = "scale",
        loss: str = "auto",
        huber_h: float = 0.5,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        tol: float = 1e-10,
        max_iter: int = 200,
        feature_random_state: int | None = None,
    ) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.feature_map = feature_map
        self.norm_handling = norm_handling
        self.loss = loss
        self.huber_h = huber_h
        self.regularization = regularization
        self.classes = classes
        self.tol = tol
        self.max_iter = max_iter
        self.feature_random_state = feature_random_state

    def _resolved_feature_map(self) -> str:
        return "cos-sin" if self.feature_map == "auto" else str(self.feature_map)

    def _resolved_loss(self) -> str:
        return "hinge" if self.loss == "auto" else str(self.loss)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: Any, y: Any) -> NonPrivateRandomFeatureSVC:
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        rff, R = self._feature_setup(X.shape[1])
        self._store_features(rff, R)
        inner = NonPrivateLinearClassifier(
            loss=self._resolved_loss(),
            huber_h=self.huber_h,
            regularization=self.regularization,
            # None: R = the largest row norm, i.e. the unprojected problem with
            # the same Λ (x̃ = x/R, λ = Λ/R² is a change of variables).
            data_norm=None if self.projection_radius_ is None else R,
            fit_intercept=False,
            classes=self.classes,
            tol=self.tol,
            max_iter=self.max_iter,
        )
        inner.fit(rff.transform(X), y)
        self.classes_ = inner.classes_
        self.coef_ = inner.coef_
        self.n_iter_ = inner.n_iter_
        return self
