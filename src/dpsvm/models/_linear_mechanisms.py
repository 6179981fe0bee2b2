# SPDX-License-Identifier: BSD-3-Clause
"""The private linear release: what :class:`~dpsvm.models.DPLinearSVC` and
:class:`~dpsvm.models.DPLogisticRegression` share.

:class:`_DPLinearBase` holds their common ``fit``: the public checks (ε, δ, the
public weights and their bound W) before any data are read, the accountant's
check, the one-vs-rest release of :func:`~dpsvm.models.base.release_one_vs_rest`
and, per binary problem, the calibration of the chosen ``mechanism`` on the
unit-ball problem (:mod:`dpsvm.perturbation`, each formula cited there), the
certified solve (:func:`_solve`) and the event. It also recomputes a recorded
event from the parameters (:meth:`_DPLinearBase._check_privacy_event`) for a
model file read back by :func:`dpsvm.io.load_model`.

The public classes and the regularisation conventions are in
:mod:`dpsvm.models.linear`.
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
from ..losses import Loss
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
from ..solvers import (
    RowScaledDesign,
    SolverResult,
    is_dask_array,
    solve_hinge,
    solve_smooth,
)
from ..utils._random import check_random_state, random_state_constraint
from ..utils._types import FloatArray
from ..validation import check_epsilon, n_rows, resolve_delta
from ._weights import (
    class_index,
    public_weight_bound,
    resolve_class_weight,
    row_weights,
)
from .base import LinearModelBase, NoisyFitTagsMixin, release_one_vs_rest

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
            # One part in 2⁴⁰ below the bound, so that rounding in the product
            # and in later sums never lifts a clipped row above it.
            factor = np.where(
                internal <= bound, 1.0, (bound / internal) * (1.0 - 2.0**-40)
            )
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
