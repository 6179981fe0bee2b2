# SPDX-License-Identifier: BSD-3-Clause
"""Differentially private linear SVM and logistic regression.

Regularisation convention (one public parameter, ``regularization`` = Λ):

    minimise  (1/n) Σᵢ ℓ(yᵢ wᵀxᵢ) + (Λ/2)‖w‖²    (Sarwate et al., arXiv:0912.0071,
                                                 eq. (1))

Conversions (also in docs/conventions.md):

* Rubinstein et al. (arXiv:0911.5708), ½‖w‖² + (C/n)Σℓ:  C = 1/Λ;
* Sarwate et al. (arXiv:0912.0071), (Λ/2)‖f‖² + (1/n)Σℓ:  Λ itself;
* Nie & Wang, (1/m)Σℓ + λ_NW‖f‖²:  λ_NW = Λ/2;
* Jain & Thakurta, (1/n)Σℓ + (λ_JT/2)‖w‖²:  λ_JT = Λ;
* scikit-learn ``LinearSVC`` / ``LogisticRegression`` (``fit_intercept=False``),
  ½‖w‖² + C_sk Σℓ:  C_sk = 1/(nΛ).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

from .._compat import Interval, StrOptions, _fit_context
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import charge, warn_not_private
from ..accounting.events import NonPrivateEvent, PrivacyEvent
from ..losses import Loss, get_loss
from ..perturbation import (
    AUTO_CORRECTION_SHARE_COORDINATE_NOISE,
    AUTO_CORRECTION_SHARE_LINEAR,
    GaussianObjectivePerturbation,
    LaplaceObjectivePerturbation,
    ObjectivePerturbation,
    OutputPerturbation,
    auto_regularization,
    output_l2_sensitivity,
    rubinstein_l2_sensitivity,
)
from ..perturbation import CERTIFICATE_RTOL as CERTIFICATE_RTOL  # re-exported
from ..solvers import (
    RowScaledDesign,
    SolverResult,
    is_dask_array,
    solve_hinge,
    solve_smooth,
)
from ..utils._params import estimator_init
from ..utils._random import check_random_state, random_state_constraint
from ..utils._types import FloatArray
from ..validation import check_epsilon, n_rows, resolve_delta
from ._docs import model_doc
from ._weights import (
    class_index,
    public_weight_bound,
    resolve_class_weight,
    row_weights,
)
from .base import (
    LINEAR_PARAMETERS,
    LinearModelBase,
    NoisyFitTagsMixin,
    PublicParameterFitMixin,
    reference_label_set,
    release_one_vs_rest,
)
from .base import model_file as _model_file

__all__ = ["DPLinearSVC", "DPLogisticRegression", "NonPrivateLinearClassifier"]


_REFERENCES = {
    "objective": (
        "Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), Algorithm 2 / Theorem 9 "
        "(corrects Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Alg. 1); "
        "certified solver residual charged as in Iyengar et al., IEEE S&P 2019, "
        "Thm 1 (pure-DP analogue)"
    ),
    "objective-2009": (
        "Sarwate, Chaudhuri & Monteleoni, arXiv:0912.0071, Alg. 1, self-consistent "
        "reading ((1/n)bᵀf, density ∝ exp(−(ε/2)‖b‖)); NOT private: the proof of "
        "its Theorem 1 omits the Jacobian of b ↦ f_priv (corrected in Chaudhuri, "
        "Monteleoni & Sarwate 2011, Theorem 9)"
    ),
    "objective-gaussian": (
        "Kifer, Smith & Thakurta, COLT 2012, Algorithm 1 / Theorem 2 (Gaussian b, "
        "replace-one gradient difference 2L, rank-one Jacobian bound "
        "ln(1 + c/(n lambda))); certified solver residual charged as in Iyengar "
        "et al., IEEE S&P 2019, Thm 1 (pure-DP analogue)"
    ),
    "objective-laplace": (
        "Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), Algorithm 2 / Theorem 9 "
        "with the Laplace density exp(-eps'||b||_1/Delta_1), Delta_1 = 2L B_1 for "
        "rows of public L1 bound B_1, and the rank-one Jacobian bound "
        "ln(1 + c/(n lambda)); certified solver residual charged as in Iyengar et "
        "al., IEEE S&P 2019, Thm 1 (pure-DP analogue)"
    ),
    "output": (
        "Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), Algorithm 1 / Corollary 8 "
        "(the 'sensitivity method' of arXiv:0912.0071)"
    ),
    "output-laplace": (
        "Rubinstein, Bartlett, Huang & Taft, arXiv:0911.5708, Algorithm 2 "
        "(PRIVATESVM-FINITE), Lemma 6 and Theorem 7"
    ),
}


#: The ``mechanism`` of each binary release's event, per ``mechanism`` option.
_EVENT_NAMES = {
    "objective": "objective-perturbation",
    "objective-2009": "objective-perturbation-2009",
    "objective-gaussian": "objective-perturbation-gaussian",
    "objective-laplace": "objective-perturbation-laplace",
    "output": "output-perturbation-l2",
    "output-laplace": "output-perturbation-laplace",
}


def _solve(
    Xt: RowScaledDesign,
    y: FloatArray,
    loss: Loss,
    lam: float,
    *,
    tol: float,
    max_iter: int,
    linear: FloatArray | None = None,
    target_distance: float = 0.0,
    sample_weight: FloatArray | None = None,
) -> SolverResult:
    if loss.differentiable:
        return solve_smooth(
            Xt,
            y,
            loss,
            lam,
            linear=linear,
            tol=tol,
            max_iter=max_iter,
            sample_weight=sample_weight,
        )
    if linear is not None:  # pragma: no cover - guarded by the mechanism checks
        raise ValueError("A linear term needs a differentiable loss.")
    if loss.name != "hinge":
        # Rescale the ρ-hinge to the hinge: ℓ(z) = h(z/ρ); w = ρ·v solves it.
        rho = 1.0 / loss.lipschitz
        res = solve_hinge(
            Xt,
            y,
            lam * rho * rho,
            tol=tol,
            target_distance=target_distance / rho,
            sample_weight=sample_weight,
        )
        return SolverResult(
            res.coef * rho,
            res.distance_bound * rho,
            res.grad_norm,
            res.gap,
            res.n_iter,
            res.method,
        )
    return solve_hinge(
        Xt,
        y,
        lam,
        tol=tol,
        target_distance=target_distance,
        sample_weight=sample_weight,
    )


#: The mechanisms that perturb the objective (they need a smooth loss).
_OBJECTIVE_MECHANISMS = (
    "objective",
    "objective-2009",
    "objective-gaussian",
    "objective-laplace",
)


#: The smooth-loss choice of the hinge-family classifiers.
HUBER_LOSS_PARAMETERS: dict[str, Any] = {"loss": "huber", "huber_h": 0.5}

#: The parameters (with their defaults) of the private linear classifiers.
DP_LINEAR_PARAMETERS: dict[str, Any] = {
    "epsilon": 1.0,
    "delta": 0.0,
    "mechanism": "objective",
    **LINEAR_PARAMETERS,
    "regularization": "auto",
    "fit_intercept": True,
    "class_weight": None,
    "class_priors": None,
    "max_weight": 1.0,
    "data_norm_l1": None,
    "accountant": None,
    "random_state": None,
}


class _DPLinearBase(NoisyFitTagsMixin, LinearModelBase):
    """Common ``fit`` of the private linear classifiers."""

    _parameter_constraints: dict[str, list[Any]] = {
        **LinearModelBase._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "regularization": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "mechanism": [
            StrOptions(
                {
                    "objective",
                    "objective-2009",
                    "objective-gaussian",
                    "objective-laplace",
                    "output",
                    "output-laplace",
                }
            )
        ],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "class_priors": ["array-like", None],
        "max_weight": [Interval(Real, 0, None, closed="neither")],
        "data_norm_l1": [Interval(Real, 0, None, closed="neither"), None],
        "accountant": [BudgetAccountant, None],
        "random_state": random_state_constraint(),
    }

    #: Not written to model files (a dict is no JSON scalar); the event records
    #: the public weight bound they give (details["weight_bound"]).
    _unsaved_params = ("class_weight", "class_priors", "max_weight")
    #: Parameters older model files lack (read with their defaults).
    _params_added_later = ("data_norm_l1",)

    def _get_loss(self) -> Loss:
        raise NotImplementedError

    def _class_weights(self) -> dict[Any, float] | None:
        """The public class weights (dict or ``None``), from the parameters."""
        return resolve_class_weight(self.class_weight, self.class_priors, self.classes)

    def _weight_bound(self) -> float:
        """The public bound W on every example weight (parameters only)."""
        return public_weight_bound(
            self._class_weights(), float(self.max_weight), self.classes
        )

    #: Whether fit warns about a non-private mode (off for the inner linear step
    #: of a kernel model, which warns itself).
    _warn_not_private = True

    def _non_private_reason(self) -> str | None:
        # Read by dpsvm.accounting.non_private_reason (selectors, accountants).
        if self.mechanism == "objective-2009":
            return (
                "mechanism='objective-2009' is Sarwate, Chaudhuri & Monteleoni "
                "(arXiv:0912.0071) Alg. 1 as printed, whose privacy proof omits the "
                "Jacobian term; use mechanism='objective' (the corrected "
                "calibration of Chaudhuri, Monteleoni & Sarwate 2011, Thm 9)."
            )
        return None

    def _resolve_regularization(
        self, n: int, R: float, n_problems: int, weight_bound: float | None = None
    ) -> float:
        """Λ of this fit; ``"auto"`` applies the public a-priori rule.

        ``"auto"``: λ = max(W·c/(n(e^{fε_k/2} − 1)), 1/n) on the unit-ball problem
        (:func:`~dpsvm.perturbation._calibration.auto_regularization`, f = 0.1), with
        ε_k = ε/K the ε of each of the K one-vs-rest problems, W the public weight
        bound (``weight_bound``, else from the parameters; 1 unweighted) and
        Λ = λ·R². Reads n (public under replace-one), ε, K, R, W and the loss only.
        """
        if not (isinstance(self.regularization, str) and self.regularization == "auto"):
            return float(self.regularization)
        if weight_bound is None:
            weight_bound = self._weight_bound()
        eps_k = float(self.epsilon) / n_problems
        # The per-coordinate noises (Laplace, Gaussian) are smaller, and their
        # best λ is too: f = 0.3 (cross-validated on the Adult training file).
        share = (
            AUTO_CORRECTION_SHARE_COORDINATE_NOISE
            if self.mechanism in ("objective-laplace", "objective-gaussian")
            else AUTO_CORRECTION_SHARE_LINEAR
        )
        lam = auto_regularization(
            eps_k, n, self._get_loss().smoothness, share, max_weight=weight_bound
        )
        return lam * R * R

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _DPLinearBase:
        """Fit the private classifier.

        The accountant (if any) is checked before the data are read and charged
        only after the model is computed; a failed fit spends nothing.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows; rows longer than ``data_norm`` are projected onto the
            ball of that radius.
        y : array-like of shape (n_samples,)
            Labels; two classes, or more through one-vs-rest with ε split evenly.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Per-row weights, clipped to [0, ``max_weight``] (never refused; NaN
            counts as 0) and multiplied by the class weights. The objective stays
            divided by n; the noise scales with the public bound W.

        Returns
        -------
        self
            The fitted estimator.
        """
        loss = self._get_loss()
        mechanism = self.mechanism
        if mechanism in _OBJECTIVE_MECHANISMS and not loss.differentiable:
            raise ValueError(
                f"mechanism={mechanism!r} needs a twice-differentiable loss; the "
                f"{loss.name} loss breaks objective perturbation (Sarwate et al. "
                "2009, §3.1 counter-example). Use loss='huber', or "
                "mechanism='output' / 'output-laplace' for the hinge."
            )
        if not math.isfinite(loss.lipschitz):
            raise ValueError(
                f"The {loss.name} loss is not Lipschitz; no mechanism applies."
            )
        epsilon = check_epsilon(self.epsilon)
        # The public row count (shape only); only objective-gaussian spends δ.
        delta = resolve_delta(
            self.delta,
            lambda: n_rows(X),
            uses_delta=mechanism == "objective-gaussian",
        )
        if mechanism == "objective-gaussian" and not delta > 0:
            raise ValueError(
                "mechanism='objective-gaussian' is (epsilon, delta)-DP and needs "
                "delta > 0 (for example delta=1e-6, well below 1/n); use "
                "mechanism='objective' for pure epsilon-DP."
            )
        not_private = self._non_private_reason()
        # Public weights: resolved (and refused if invalid) before any budget.
        class_weights = self._class_weights()
        weight_bound = self._weight_bound()
        if mechanism in ("objective-laplace", "objective-gaussian") and (
            weight_bound > 1.0
        ):
            # Weights in [0, 1] keep the per-example loss's L and c bounds, so
            # the unit-weight calibration holds; a larger W is not calibrated.
            raise ValueError(
                f"mechanism={mechanism!r} takes example weights of at most 1 (its "
                f"calibration is for W = 1; these give W = {weight_bound:g}): use "
                "mechanism='objective' or 'output' for larger class weights, or "
                "max_weight <= 1."
            )
        # Checked before reading any data; spent only after a successful fit.
        ticket = charge(
            resolve_accountant(self.accountant),
            epsilon,
            delta,
            non_private_reason=not_private,
            owner=self,
        )
        if not_private is not None and self._warn_not_private:
            warn_not_private(not_private, stacklevel=4)
        weighted = (
            class_weights is not None
            or sample_weight is not None
            or float(self.max_weight) < 1.0  # every unit weight clipped below 1
        )
        if weighted and is_dask_array(X):
            raise ValueError(
                "sample_weight / class_weight are not supported on out-of-core "
                "(dask) rows; fit in memory without them."
            )
        Xt, targets, lam = self._prepare_fit(X, y)
        if mechanism == "objective-laplace":
            Xt = self._clip_l1(Xt)
        omega = None
        if weighted:
            omega = row_weights(
                class_index(targets),
                self.classes_,
                class_weights,
                sample_weight,
                float(self.max_weight),
            )
        rng = check_random_state(self.random_state)
        infos = release_one_vs_rest(
            self,
            lambda yk, eps_k, delta_k: self._fit_binary(
                Xt, yk, lam, loss, eps_k, delta_k, rng, omega, weight_bound
            ),
            targets,
            epsilon,
            delta,
            ticket,
        )
        self.n_iter_ = np.array([i["n_iter"] for i in infos])
        return self

    def _perturbation(
        self,
        mech: str,
        n: int,
        d: int,
        lam: float,
        loss: Loss,
        eps: float,
        weight_bound: float = 1.0,
        delta: float = 0.0,
    ) -> ObjectivePerturbation | GaussianObjectivePerturbation | OutputPerturbation:
        """The public calibration of one binary release on the unit-ball problem.

        Used by :meth:`_fit_binary` and, to recompute a recorded event, by
        :meth:`_check_privacy_event`. ``weight_bound`` is the public W ≥ every
        example weight: each calibration scales its loss constants by it
        (:func:`~dpsvm.perturbation.weighted_loss_constants`); the
        coordinate-noise mechanisms take W ≤ 1 only (a larger W is refused).
        ``delta`` is read by ``"objective-gaussian"`` only.
        """
        if mech in ("objective-laplace", "objective-gaussian") and weight_bound > 1:
            raise ValueError(
                f"mechanism={mech!r} is calibrated for example weights of at most 1."
            )
        if mech == "objective-laplace":
            assert loss.smoothness is not None
            # CMS11 Alg. 2 / Thm 9 with Laplace b on rows of L1 bound B₁.
            return LaplaceObjectivePerturbation.calibrate(
                eps,
                n=n,
                dim=d,
                regularization=lam,
                smoothness=loss.smoothness,
                lipschitz=loss.lipschitz,
                l1_bound=self._internal_l1_bound(d),
                tol=float(self.tol),
            )
        if mech == "objective-gaussian":
            assert loss.smoothness is not None
            # Kifer, Smith & Thakurta 2012, Alg. 1 / Thm 2 with Gaussian b.
            return GaussianObjectivePerturbation.calibrate(
                eps,
                delta,
                n=n,
                dim=d,
                regularization=lam,
                smoothness=loss.smoothness,
                lipschitz=loss.lipschitz,
                tol=float(self.tol),
            )
        if mech in ("objective", "objective-2009"):
            assert loss.smoothness is not None
            return ObjectivePerturbation.calibrate(
                eps,
                n=n,
                dim=d,
                regularization=lam,
                smoothness=loss.smoothness,
                tol=float(self.tol),  # the public tolerance the solver certifies
                variant="jmlr2011" if mech == "objective" else "sarwate2009",
                max_weight=weight_bound,
            )
        if mech == "output":
            # Chaudhuri, Monteleoni & Sarwate 2011, Alg. 1 / Cor. 8: Δ₂ = 2L/(nλ),
            # Gamma-norm noise.
            return OutputPerturbation.calibrate(
                "gamma-norm",
                epsilon=eps,
                l2_sensitivity=output_l2_sensitivity(
                    n, lam, loss.lipschitz, weight_bound
                ),
                dim=d,
            )
        # Rubinstein et al. Lemma 6 / Thm 7: Δ₂ = 4L/(nλ), Laplace on Δ₁ = √d·Δ₂.
        return OutputPerturbation.calibrate(
            "laplace",
            epsilon=eps,
            l2_sensitivity=rubinstein_l2_sensitivity(
                n, lam, loss.lipschitz, weight_bound
            ),
            dim=d,
        )

    def _fit_binary(
        self,
        Xt: RowScaledDesign,
        y: FloatArray,
        lam: float,
        loss: Loss,
        eps: float,
        delta: float,
        rng: np.random.Generator,
        sample_weight: FloatArray | None = None,
        weight_bound: float = 1.0,
    ) -> tuple[FloatArray, PrivacyEvent, dict[str, Any]]:
        n, d = Xt.shape
        R = self.data_norm_
        mech = self.mechanism
        details: dict[str, Any] = {
            "loss": repr(loss),
            "regularization": self.regularization_,
            "data_norm": R,
            "fit_intercept": self.fit_intercept,
            "n_samples": n,
            "n_features": d,
            "solver_tol": self.tol,
        }
        if weight_bound != 1.0:  # public W (unweighted events are unchanged)
            details["weight_bound"] = weight_bound
        plan = self._perturbation(mech, n, d, lam, loss, eps, weight_bound, delta)
        solve: Any  # the plan's solver contract: (strong, linear) or (cap)
        if isinstance(plan, ObjectivePerturbation | GaussianObjectivePerturbation):
            # J(w) + linear·w at the strong convexity the plan asks for (Δ fallback).
            def perturbed_objective(
                strong: float, linear: FloatArray | None
            ) -> SolverResult:
                return _solve(
                    Xt,
                    y,
                    loss,
                    strong,
                    tol=plan.tol,
                    max_iter=self.max_iter,
                    linear=linear,
                    sample_weight=sample_weight,
                )

            solve = perturbed_objective
            event_terms: dict[str, Any] = {"lipschitz": loss.lipschitz}
        else:
            # The exact minimiser, to the distance the plan charges for.
            def exact_minimiser(cap: float) -> SolverResult:
                return _solve(
                    Xt,
                    y,
                    loss,
                    lam,
                    tol=min(self.tol, lam * cap),
                    max_iter=self.max_iter,
                    target_distance=cap,
                    sample_weight=sample_weight,
                )

            solve = exact_minimiser
            event_terms = {"data_norm": R}  # released w/R (module dpsvm.perturbation)
        out = plan.perturb(solve, rng, max_iter=self.max_iter)
        details.update(plan.details(R))
        if type(plan) is ObjectivePerturbation:
            event_terms["non_private_reason"] = self._non_private_reason()
        event = plan.event(
            _EVENT_NAMES[mech],
            reference=_REFERENCES[mech],
            details=details,
            **event_terms,
        )
        w, res = out.value, out.solution
        info = {
            "method": res.method,
            "n_iter": res.n_iter,
            "grad_norm": res.grad_norm,
            "distance_bound": res.distance_bound,
        }
        return w, event, info

    def _check_privacy_event(
        self,
        event: PrivacyEvent,
        data_norm: float,
        *,
        non_private: bool | None = None,
    ) -> None:
        """Raise ValueError unless ``event`` is what ``fit`` records for these params.

        Recomputes the calibration of each binary release through the same
        functions as :meth:`_fit_binary` (for a model file read back by
        :func:`dpsvm.io.load_model`). ``non_private`` overrides whether the event
        must be a :class:`~dpsvm.accounting.NonPrivateEvent`.
        """
        if non_private is None:
            non_private = self._non_private_reason() is not None
        epsilon = float(self.epsilon)
        parts = event.children if event.children else (event,)
        k = len(parts)
        if event.children and (
            event.mechanism != f"one-vs-rest({parts[0].mechanism})"
            or event.details.get("n_classes") != k
        ):
            raise ValueError(f"a one-vs-rest event of {k} classes is malformed.")
        loss = self._get_loss()
        R = float(data_norm)
        if self.data_norm is not None and not _close(self.data_norm, R):
            raise ValueError(
                f"data_norm is {R!r} but params.data_norm is {self.data_norm!r}."
            )
        sizes = set()
        for part in (event, *parts) if event.children else parts:
            if isinstance(part, NonPrivateEvent) != non_private:
                raise ValueError(
                    f"event {part.mechanism!r} is {type(part).__name__}, but the "
                    f"parameters give a {'non-' if non_private else ''}private fit."
                )
            top = part is event and bool(event.children)
            if non_private and top:
                continue  # ε = ∞; the children carry the nominal ε
            share = 1 if top else k
            got = part.details.get("nominal_epsilon") if non_private else part.epsilon
            if not _close(got, epsilon / share):
                raise ValueError(
                    f"event {part.mechanism!r} has epsilon {got!r}; the "
                    f"parameters give {epsilon / share!r}."
                )
            # Every mechanism but "objective-gaussian" is pure.
            want_delta = self._event_delta(share)
            if not non_private and not (
                part.delta == want_delta or _close(part.delta, want_delta)
            ):
                raise ValueError(
                    f"event {part.mechanism!r} has delta {part.delta!r}; the "
                    f"parameters give {want_delta!r}."
                )
        for part in parts:
            det = part.details
            if part.mechanism != _EVENT_NAMES[self.mechanism]:
                raise ValueError(
                    f"event mechanism {part.mechanism!r} does not match "
                    f"mechanism={self.mechanism!r}."
                )
            n, d = det.get("n_samples"), det.get("n_features")
            if not (isinstance(n, int) and n >= 1 and isinstance(d, int) and d >= 1):
                raise ValueError("the event lacks n_samples / n_features.")
            sizes.add(n)
            # Λ as fit resolves it (a number, or the public "auto" rule of n, ε
            # and the number k of one-vs-rest releases); λ = Λ/R² as in
            # LinearModelBase._internal_lambda.
            # The public weight bound W recorded by a weighted fit (1 otherwise).
            wb = det.get("weight_bound", 1.0)
            if not (isinstance(wb, int | float) and math.isfinite(wb) and wb > 0):
                raise ValueError("event details.weight_bound must be a number > 0.")
            wb = float(wb)
            reg = self._resolve_regularization(n, R, k, wb)
            lam = reg / (R * R)
            for key, want in (
                ("regularization", reg),
                ("data_norm", R),
                ("loss", repr(loss)),
                ("fit_intercept", self.fit_intercept),
            ):
                if det.get(key) != want and not _close(det.get(key), want):
                    raise ValueError(
                        f"event details.{key} is {det.get(key)!r}; the parameters "
                        f"give {want!r}."
                    )
            plan = self._perturbation(
                self.mechanism,
                n,
                d,
                lam,
                loss,
                epsilon / k,
                wb,
                self._event_delta(k),
            )
            expected = plan.details(R)
            if isinstance(plan, OutputPerturbation):
                want_sens = plan.noise.sensitivity / R
                if not _close(part.sensitivity, want_sens):
                    raise ValueError(
                        f"event sensitivity {part.sensitivity!r}; the parameters "
                        f"give {want_sens!r}."
                    )
            for key, want in expected.items():
                same = det.get(key) == want if isinstance(want, str) else None
                if not (same or _close(det.get(key), want)):
                    raise ValueError(
                        f"event details.{key} is {det.get(key)!r}; recomputed from "
                        f"the parameters it is {want!r}."
                    )
        if len(sizes) > 1:
            raise ValueError("the per-class events disagree on n_samples.")

    def _internal_l1_bound(self, d: int) -> float:
        """Public bound B₁ on ‖x̃‖₁ of the internal rows [x/R, s/R] (d columns).

        The x part, projected onto radius √(R² − s²) and clipped to
        ``data_norm_l1`` in L1 (:meth:`_clip_l1`), then divided by R, has
        ‖·‖₁ ≤ min(data_norm_l1/R, √d_x·√(1 − (s/R)²)) (Cauchy–Schwarz gives
        the second); the constant column adds s/R.
        """
        const = float(self.intercept_scaling) if self.fit_intercept else 0.0
        d_x = d - 1 if self.fit_intercept else d
        bound = math.sqrt(d_x) * math.sqrt(max(1.0 - const * const, 0.0))
        if self.data_norm_l1 is not None:
            bound = min(bound, float(self.data_norm_l1) / float(self.data_norm_))
        return bound + const

    def _clip_l1(self, Xt: RowScaledDesign) -> RowScaledDesign:
        """Scale down rows whose x part exceeds ``data_norm_l1`` in L1 (public map).

        A per-row factor min(1, B₁/‖x‖₁) after the L2 projection: it keeps the
        row in the L2 ball and enforces the L1 bound the Laplace objective
        perturbation is calibrated to. ``data_norm_l1=None`` clips nothing.
        """
        if self.data_norm_l1 is None:
            return Xt
        X = Xt.X
        if scipy.sparse.issparse(X):
            l1 = np.asarray(abs(X).sum(axis=1), dtype=np.float64).ravel()
        elif isinstance(X, np.ndarray):
            with np.errstate(over="ignore"):
                l1 = np.abs(X).sum(axis=1, dtype=np.float64)
        else:
            raise ValueError(
                "mechanism='objective-laplace' with data_norm_l1 needs the rows in "
                "memory (a numpy array or a scipy.sparse CSR matrix)."
            )
        scale = np.ones(len(l1)) if Xt.scale is None else np.asarray(Xt.scale)
        bound = float(self.data_norm_l1) / float(self.data_norm_)  # on x/R
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            internal = scale * l1
            factor = np.where(internal <= bound, 1.0, bound / internal)
        factor = np.nan_to_num(factor, nan=0.0, posinf=0.0)
        return RowScaledDesign(X, scale * factor, Xt.const)

    def _event_delta(self, share: int) -> float:
        """δ of an event covering 1/``share`` of the fit (0 if pure)."""
        if self.mechanism != "objective-gaussian":
            return 0.0
        return float(self.delta) / share

    # -- model file (dpsvm.io) ------------------------------------------------
    def _check_saved_event(self, event: PrivacyEvent) -> None:
        """Raise ValueError unless a loaded ``event`` is what fit records."""
        self._check_privacy_event(event, float(self.data_norm_))


def _close(value: Any, want: Any) -> bool:
    """``value`` is a finite real equal to ``want`` up to rounding."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(want, bool) or not isinstance(want, int | float):
        return False
    return math.isclose(float(value), float(want), rel_tol=1e-9, abs_tol=0.0)


_PRIVACY_NOTES = """
    Privacy: neighbouring datasets have the same size n and differ in one record
    (replace-one); features and labels of that record are both protected. The
    guarantee assumes ‖x‖₂ ≤ ``data_norm`` (enforced by projecting longer rows onto
    the ball, a per-row public map; with ``fit_intercept`` the row is [x, s] with
    the public constant s = ``intercept_scaling``·R and x projected onto radius
    √(R² − s²), so the augmented row still has norm ≤ R), labels in the public
    set ``classes``, an
    L-Lipschitz convex loss (L = 1 here) and Λ > 0. ``"objective"``,
    ``"objective-laplace"`` (which also assumes, and enforces by scaling rows
    down, ‖x‖₁ ≤ ``data_norm_l1``) and ``"output"`` give pure ε-DP;
    ``"objective-gaussian"`` gives (ε, δ)-DP; ``"output-laplace"`` gives pure
    ε-DP with the looser constant of Rubinstein et al.; ``"objective-2009"``
    is **not** a DP mechanism (reproduction only). Released: ``coef_``, ``intercept_``,
    ``classes_``; ``solver_info_`` is a diagnostic that reads the data and must not
    be published. With more than two classes, one-vs-rest spends ε/K per class.
    ``n_samples`` is public under replace-one neighbours.
"""


@model_doc
@_model_file("DPLinearSVC")
class DPLinearSVC(_DPLinearBase):
    """Differentially private linear SVM (Huber or hinge loss).

    Solves (1/n)Σℓ(yᵢwᵀxᵢ) + (Λ/2)‖w‖² privately with one of four mechanisms.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit.
    delta : float or "auto", default=0.0
        δ of the fit; spent by ``mechanism="objective-gaussian"`` only (every
        other mechanism is pure: δ is recorded, not used; ``"auto"`` is 0 for
        them and n^-1.5 for objective-gaussian). A δ ≥ 1/n is refused where it
        is spent (:func:`dpsvm.validation.resolve_delta`).
    mechanism : {"objective", "objective-laplace", "objective-gaussian", \
            "objective-2009", "output", "output-laplace"}, default="objective"
        ``"objective"``: objective perturbation, corrected form of Chaudhuri,
        Monteleoni & Sarwate (JMLR 2011): ε′ = ε − ln(1 + 2c/(nΛ) + c²/(n²Λ²)),
        the Δ fallback when ε′ ≤ 0, noise density ∝ exp(−(ε′/2)‖b‖) and the term
        (1/n)bᵀw. ``"objective-laplace"``: the same ε′ and Δ with i.i.d. Laplace
        b of scale 2L·B₁/ε′, B₁ the public L1 bound of the internal rows
        (``data_norm_l1``/R plus the intercept constant); pure ε-DP, and the
        better choice at small ε for one-hot encoded rows (``dpsvm train
        --schema`` sets ``data_norm_l1`` to the number of columns).
        ``"objective-gaussian"``: (ε, δ)-DP objective perturbation with Gaussian
        b (Kifer, Smith & Thakurta, COLT 2012, Alg. 1 / Thm 2, replace-one);
        needs ``delta`` > 0. Both take Λ = ``"auto"`` with f = 0.3.
        ``"objective-2009"``: the self-consistent reading of Sarwate et al.
        as printed, **without the Jacobian correction and not private**, for
        reproducing its tables only. ``"output"``: the sensitivity method, L2
        sensitivity 2LR/(nΛ), Gamma-norm noise. ``"output-laplace"``: Rubinstein
        et al.'s PRIVATESVM-FINITE, per-coordinate Laplace with scale 4LR√F/(nΛε).
    loss : {"huber", "hinge", "logistic"}, default="huber"
        The loss. ``"hinge"`` is refused by the objective mechanisms.
    huber_h : float, default=0.5
        Half-width h of the Huber loss (Sarwate et al., eq. (2)); c = 1/(2h).
    regularization : float or "auto", default="auto"
        Λ > 0 in (1/n)Σℓ + (Λ/2)‖w‖². Rubinstein et al.'s C = 1/Λ; scikit-learn's
        C_sk = 1/(nΛ). ``"auto"`` (the default) resolves in ``fit``, from public
        quantities only, to Λ = R²·max(c/(n(e^{fε_k/2} − 1)), 1/n) with f = 0.1:
        the Λ at which the objective-perturbation correction of Chaudhuri et al.
        (2011, Alg. 2) costs a tenth of ε (ε′ ≥ 0.9ε, never the Δ fallback),
        ≈ 20c/(nε) for small ε — the 1/(nε) scaling of the privacy term of their
        utility bound (Thm 18). n is public under replace-one neighbours; c is
        max(1, the loss's curvature bound) (1 for losses without one); ε_k = ε/K
        under one-vs-rest; R = ``data_norm``. f was tuned on a validation split
        of the Adult training rows and checked on other data (docs/defaults.md).
        The resolved value is ``regularization_``.
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂; longer rows are projected onto the ball. ``None``
        reads it from the data and emits a :class:`~dpsvm.PrivacyLeakWarning`.
    data_norm_l1 : float or None, default=None
        Public bound B₁ on ‖x‖₁ for ``mechanism="objective-laplace"`` (ignored
        by the other mechanisms): after the L2 projection, rows are scaled down
        to ‖x‖₁ ≤ B₁ (a public per-row map). ``None``: no clipping, and the
        calibration uses the Cauchy–Schwarz bound √d·R instead.
    fit_intercept : bool, default=True
        Append a public constant feature s = ``intercept_scaling``·R to every
        row, counted inside the norm bound: the x part is projected onto radius
        √(R² − s²), so ‖[x, s]‖ ≤ R and every calibration holds unchanged with
        d + 1 coordinates. The intercept is w_{d+1}·s/R, regularised like the
        other weights. Cost: the features keep √(1 − (s/R)²) (0.87 at the
        default s/R = 0.5) of their norm budget. On by default because most
        data are not centred (Adult: +0.01–0.02 accuracy, docs/defaults.md).
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        The public label set. ``None`` reads it from y and emits a
        :class:`~dpsvm.PrivacyLeakWarning`.
    class_weight : dict, "balanced" or None, default=None
        Public weight of each class, multiplying its rows' loss terms (the
        objective stays divided by n): a dict {class: weight} (weights ≥ 0; a
        class not listed weighs 1), or ``"balanced"``: w_c = 1/(k·p_c) from the
        *public* proportions ``class_priors``, never from the private class
        counts (scikit-learn's ``"balanced"``).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions p_c (> 0, summing to 1) in the order of
        ``classes``; needed by ``class_weight="balanced"`` only.
    max_weight : float, default=1.0
        Public upper bound on ``sample_weight``: sample weights are clipped to
        [0, max_weight] (never refused). Every sensitivity scales by the public
        W = (largest class weight) × max_weight (recorded in ``privacy_event_``
        as ``details["weight_bound"]``; docs/privacy.md, "Public weights").
    accountant : BudgetAccountant or None, default=None
        Budget to check before and charge after a successful fit. Shared by
        clones (it is not copied).
    tol : float, default=1e-10
        Public tolerance τ on ‖∇J‖₂ that the solver must certify. Objective
        perturbation pays for the residual ‖w − w*‖ ≤ τ/Λ′ (Λ′ the strong
        convexity of the perturbed objective) with 1% of ε and noise of L2
        sensitivity 2τ/Λ′; output perturbation certifies a distance of at most
        1e-3 of its sensitivity whatever ``tol`` is, and charges it. A fit that
        cannot certify its tolerance raises instead of releasing. Recorded in
        ``privacy_event_``.
    max_iter : int, default=200
        Solver iteration cap.
    random_state : None or int, default=None
        ``None`` draws noise from a ChaCha20 CSPRNG keyed by the OS. An int makes
        the noise reproducible — **for tests and documentation only, never for a
        real release**. A generator object is refused at ``fit`` (kept as a
        parameter, it would replay the noise).

    Attributes
    ----------
    %(dp_linear_attributes)s

    See Also
    --------
    DPLogisticRegression : The same mechanisms with the logistic loss.
    NonPrivateLinearClassifier : The same problem without noise.

    Notes
    -----
    {privacy}

    References
    ----------
    %(reference_cms11)s
    .. [1] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private
       support vector machines", arXiv:0912.0071, 2009.
    .. [2] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
       large function space: privacy-preserving mechanisms for SVM learning",
       arXiv:0911.5708, 2009.

    %(examples_nested_balls)s
    >>> from dpsvm.models import DPLinearSVC
    >>> clf = DPLinearSVC(epsilon=1.0, classes=[-1, 1], random_state=0).fit(X, y)
    >>> clf.privacy_event_.epsilon
    1.0
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **_DPLinearBase._parameter_constraints,
        "loss": [StrOptions({"huber", "hinge", "logistic"})],
        "huber_h": [Interval(Real, 0, None, closed="neither")],
    }

    __init__ = estimator_init(DP_LINEAR_PARAMETERS, HUBER_LOSS_PARAMETERS)

    def _get_loss(self) -> Loss:
        return get_loss(self.loss, huber_h=self.huber_h)


@model_doc
@_model_file("DPLogisticRegression")
class DPLogisticRegression(_DPLinearBase):
    """Differentially private logistic regression.

    Solves (1/n)Σ log(1 + e^{−yᵢwᵀxᵢ}) + (Λ/2)‖w‖² privately. With
    ``mechanism="objective"`` this is objective perturbation for the logistic loss
    (Chaudhuri & Monteleoni 2008, in the corrected form of Chaudhuri, Monteleoni &
    Sarwate 2011 with c = 1/4), the private comparator of Sarwate et al.
    (arXiv:0912.0071).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound ε > 0 of the whole fit.
    delta : float or "auto", default=0.0
        δ of the fit (spent by ``mechanism="objective-gaussian"`` only;
        ``"auto"`` resolves from the public n; δ ≥ 1/n is refused where spent).
    mechanism : {"objective", "objective-laplace", "objective-gaussian", \
            "objective-2009", "output", "output-laplace"}, default="objective"
        See :class:`DPLinearSVC`; ``"objective-2009"`` is not private.
    regularization : float or "auto", default="auto"
        Λ > 0. scikit-learn's ``LogisticRegression`` C_sk = 1/(nΛ). ``"auto"``:
        the public a-priori rule of :class:`DPLinearSVC` (≈ 20/(nε); with
        c = 1/4 the correction costs only about ε/40); resolved value in
        ``regularization_``.
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂ (rows projected onto the ball).
    data_norm_l1 : float or None, default=None
        Public L1 bound of ``mechanism="objective-laplace"`` (see
        :class:`DPLinearSVC`).
    fit_intercept : bool, default=True
        Public constant feature inside the norm bound (see :class:`DPLinearSVC`).
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        The public label set.
    class_weight : dict, "balanced" or None, default=None
        Public class weights (see :class:`DPLinearSVC`).
    class_priors : array-like of shape (n_classes,) or None, default=None
        Public class proportions in the order of ``classes`` (for
        ``"balanced"``).
    max_weight : float, default=1.0
        Public bound on ``sample_weight`` (clipped to [0, max_weight]); the
        noise scales with W = (largest class weight) × max_weight.
    accountant : BudgetAccountant or None, default=None
        Budget to check before and charge after a successful fit.
    tol : float, default=1e-10
        Public certified solver tolerance, charged in the noise (see
        :class:`DPLinearSVC`).
    max_iter : int, default=200
        Solver iteration cap.
    %(random_state_noise)s

    Attributes
    ----------
    %(dp_linear_attributes)s

    See Also
    --------
    DPLinearSVC : Huber/hinge losses.

    Notes
    -----
    {privacy}

    References
    ----------
    .. [1] K. Chaudhuri, C. Monteleoni, "Privacy-preserving logistic regression",
       NIPS 2008.
    %(reference_cms11)s

    %(examples_nested_balls)s
    >>> from dpsvm.models import DPLogisticRegression
    >>> clf = DPLogisticRegression(epsilon=0.5, classes=[-1, 1], random_state=0)
    >>> clf.fit(X, y).predict_proba(X[:2]).shape
    (2, 2)
    """

    __init__ = estimator_init(DP_LINEAR_PARAMETERS)

    def _get_loss(self) -> Loss:
        return get_loss("logistic")

    @model_doc
    def predict_proba(self, X: ArrayLike) -> FloatArray:
        """Class probabilities σ(score) (one-vs-rest, normalised, for K > 2).

        %(rows_to)s
        ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        return self._predict_proba_from_scores(self.decision_function(X))

    @model_doc
    def predict_log_proba(self, X: ArrayLike) -> FloatArray:
        """Logarithm of :meth:`predict_proba`.

        %(rows_to)s
        ndarray of shape (n_samples, n_classes)
            Log-probabilities.
        """
        return np.log(self.predict_proba(X))


@model_doc
@_model_file("NonPrivateLinearClassifier")
class NonPrivateLinearClassifier(PublicParameterFitMixin, LinearModelBase):
    """The non-private reference: the same bias-free problem, solved exactly.

    Minimises (1/n)Σℓ(yᵢwᵀxᵢ) + (Λ/2)‖w‖² on rows projected onto the ball of
    radius ``data_norm``, with no noise. It is what the private estimators
    approximate, and the baseline in benchmarks and reproductions. **It offers no
    privacy.**

    Parameters
    ----------
    loss : {"huber", "hinge", "logistic"}, default="huber"
        The loss.
    huber_h : float, default=0.5
        Half-width of the Huber loss.
    regularization : float, default=0.01
        Λ > 0.
    data_norm : float or None, default=1.0
        Row-norm bound R (rows projected onto the ball).
    fit_intercept : bool, default=False
        Constant feature inside the norm bound.
    intercept_scaling : float, default=0.5
        s/R, in (0, 1).
    classes : array-like or None, default=None
        Label set (``None``: read from y; no warning, nothing here is private).
    tol : float, default=1e-10
        Solver tolerance.
    max_iter : int, default=200
        Solver iteration cap.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    classes_ : ndarray
        The label set.
    data_norm_ : float
        The row-norm bound used.
    regularization_ : float
        The Λ used.
    n_iter_ : ndarray
        Solver iterations per binary problem.
    n_features_in_ : int
        Number of features seen in ``fit``.

    %(examples_nested_balls)s
    >>> from dpsvm.models import NonPrivateLinearClassifier
    >>> NonPrivateLinearClassifier(loss="hinge").fit(X, y).coef_.shape
    (1, 5)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        **LinearModelBase._parameter_constraints,
        "loss": [StrOptions({"huber", "hinge", "logistic"})],
        "huber_h": [Interval(Real, 0, None, closed="neither")],
    }

    __init__ = estimator_init(HUBER_LOSS_PARAMETERS, LINEAR_PARAMETERS)

    def _resolve_classes(self, y: np.ndarray, all_public: bool = False) -> np.ndarray:
        return reference_label_set(self.classes, y, all_public=all_public)

    def _resolve_data_norm(self, norms: FloatArray) -> float:
        if self.data_norm is None:
            norm = float(np.max(norms)) if norms.size else 1.0
            return norm if norm > 0 else 1.0
        return float(self.data_norm)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: Any, y: Any) -> NonPrivateLinearClassifier:
        loss = get_loss(self.loss, huber_h=self.huber_h)
        Xt, targets, lam = self._prepare_fit(X, y)
        W = np.empty((len(targets), Xt.shape[1]))
        iters = []
        for j, yk in enumerate(targets):
            res = _solve(Xt, yk, loss, lam, tol=self.tol, max_iter=self.max_iter)
            W[j] = res.coef
            iters.append(res.n_iter)
        self._set_coef(W)
        self.n_iter_ = np.array(iters)
        return self


for _cls in (DPLinearSVC, DPLogisticRegression):
    _cls.__doc__ = (_cls.__doc__ or "").replace("{privacy}", _PRIVACY_NOTES.strip())
