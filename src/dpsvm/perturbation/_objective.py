# SPDX-License-Identifier: BSD-3-Clause
"""Objective perturbation with a certified approximate minimiser.

Chaudhuri, Monteleoni & Sarwate (2011), Algorithm 2 / Theorem 9: draw b with
density ∝ exp(−(ε′/2)‖b‖), minimise J(w) + (1/n)bᵀw + (Δ/2)‖w‖². The solver
returns w with ‖∇‖ ≤ τ (public τ), so ‖w − w*‖ ≤ τ/(λ + Δ); the release
w + Z with Z of density ∝ exp(−ε_r‖z‖/Δ_r), Δ_r = 2τ/(λ + Δ), is
(ε_op + ε_r)-DP (pure-DP analogue of Iyengar et al. 2019, Theorem 1; proof in
docs/privacy.md, section 4). The calibrations are
:func:`~dpsvm.perturbation.objective_perturbation_calibration` and
:func:`~dpsvm.perturbation.approximate_minimiser_calibration`.

CMS11 = Chaudhuri, Monteleoni & Sarwate, "Differentially private empirical risk
minimization", JMLR 12 (2011).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from ..accounting.events import PrivacyEvent
from ..exceptions import DPSVMConvergenceError
from ..utils._random import GeneratorLike, as_generator
from ._calibration import (
    RESIDUAL_EPSILON_FRACTION,
    ObjectiveCalibration,
    ResidualCalibration,
    approximate_minimiser_calibration,
    objective_perturbation_calibration,
)
from ._output import OutputNoise, PerturbedSolution, SolverOutput, release_event

__all__ = ["ObjectivePerturbation"]

FloatArray = NDArray[np.float64]

#: Why the paper-literal variant (``variant="sarwate2009"``) is not private.
SARWATE2009_REASON = (
    "objective perturbation with the calibration of Sarwate, Chaudhuri & "
    "Monteleoni (arXiv:0912.0071) Alg. 1 as printed, whose privacy proof omits "
    "the Jacobian term; use the corrected calibration of Chaudhuri, Monteleoni & "
    "Sarwate 2011, Thm 9."
)


class CertifiedGradient(SolverOutput, Protocol):
    """What an objective-perturbation solver returns: w and its gradient norm."""

    @property
    def grad_norm(self) -> float:  # pragma: no cover - protocol
        """‖∇(perturbed objective)(w)‖₂ (compared with the public τ)."""


def split_residual_epsilon(
    epsilon: float, residual_fraction: float | None
) -> tuple[float, float]:
    """ε_op and ε_r of a certified approximate minimiser, ε = ε_op + ε_r.

    Pure-DP analogue of Iyengar et al. (IEEE S&P 2019), Thm 1 (proof in
    docs/privacy.md, section 4): ε_r = ``residual_fraction``·ε pays for the
    residual noise, ε_op for b; ``None`` charges no residual (ε_r = 0).
    """
    # Approximate minimiser: ε = ε_op + ε_r (pure-DP analogue of Iyengar et
    # al. 2019, Thm 1).
    eps_r = 0.0 if residual_fraction is None else epsilon * residual_fraction
    return epsilon - eps_r, eps_r


class _ExtraRegularization(Protocol):
    """A b-noise calibration: what the shared steps read of it."""

    @property
    def extra_regularization(self) -> float:  # pragma: no cover - protocol
        """Δ added to λ (CMS11 Alg. 2 step 2)."""


class _CertifiedObjectiveRelease:
    """The steps every objective perturbation with a certified minimiser shares.

    Draw b (the variant's density), minimise J(w) + (1/n)bᵀw + (Δ/2)‖w‖² to the
    public gradient norm τ, refuse otherwise, add the residual noise Z of
    density ∝ exp(−ε_r‖z‖/Δ_r), Δ_r = 2τ/(λ + Δ); record the event. A variant
    (a frozen dataclass with the fields below) supplies its calibration, its
    draw of b (:meth:`_draw_linear_term`) and its event terms
    (:meth:`_event_terms`).
    """

    epsilon: float
    epsilon_objective: float
    n: int
    dim: int
    regularization: float
    tol: float
    calibration: _ExtraRegularization
    residual: ResidualCalibration | None
    #: Name of the b noise of a variant that is always private (it then
    #: refuses a ``non_private_reason``); ``None`` accepts one.
    _private_noise_name: ClassVar[str | None] = None

    @property
    def private(self) -> bool:  # pragma: no cover - every variant overrides
        """Whether the calibration is a DP guarantee."""
        raise NotImplementedError

    @property
    def epsilon_residual(self) -> float:
        """ε_r charged for the certified residual (0 for ``"sarwate2009"``)."""
        return 0.0 if self.residual is None else self.residual.epsilon_residual

    @property
    def strong_convexity(self) -> float:
        """λ + Δ, the strong convexity of the perturbed objective."""
        return self.regularization + self.calibration.extra_regularization

    def _draw_linear_term(
        self, gen: np.random.Generator
    ) -> FloatArray:  # pragma: no cover - every variant overrides
        """Draw b from the variant's density."""
        raise NotImplementedError

    def _event_terms(
        self, lipschitz: float
    ) -> tuple[float, float, str]:  # pragma: no cover - every variant overrides
        """δ, the gradient sensitivity and its norm recorded on the event."""
        raise NotImplementedError

    def _residual_details(self, data_norm: float) -> dict[str, Any]:
        """ε_op, ε_r, τ, Δ_r/R and the residual noise scale for the event."""
        assert self.residual is not None
        return {
            "epsilon_objective": self.epsilon_objective,
            "epsilon_residual": self.residual.epsilon_residual,
            "certified_residual": self.tol,
            # released w/R
            "residual_sensitivity": self.residual.sensitivity / data_norm,
            "residual_noise_scale": self.residual.noise_scale,
        }

    def perturb(
        self,
        solve: Callable[[float, FloatArray], CertifiedGradient],
        rng: GeneratorLike = None,
        *,
        max_iter: int | None = None,
    ) -> PerturbedSolution:
        """Draw b, solve the perturbed problem to τ, add the residual noise.

        b has the variant's density: Gamma-norm (:class:`ObjectivePerturbation`),
        i.i.d. Laplace (:class:`LaplaceObjectivePerturbation`) or N(0, σ²I)
        (:class:`GaussianObjectivePerturbation`).

        Parameters
        ----------
        solve : callable
            ``solve(strong_convexity, linear)`` minimises
            (1/n)Σℓ + (strong_convexity/2)‖w‖² + linearᵀw and returns an object
            with ``coef`` and ``grad_norm`` (e.g. a
            :class:`~dpsvm.solvers.SolverResult` of ``solve_smooth(...,
            linear=linear, tol=tau)``); ``linear`` is b/n.
        rng : None, int or numpy.random.Generator, default=None
            Noise source: b is drawn first, then the residual noise Z.
        max_iter : int or None, default=None
            The solver's iteration cap, quoted in the error message when the
            solver's certificate fails.

        Returns
        -------
        PerturbedSolution
            w + Z (w for ``"sarwate2009"``) and the solver result.

        Raises
        ------
        DPSVMConvergenceError
            If the solver's gradient norm exceeds τ (nothing is released).

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> op = ObjectivePerturbation.calibrate(
        ...     1.0, n=100, dim=2, regularization=0.1, smoothness=1.0, tol=1e-10)
        >>> sol = SimpleNamespace(coef=np.zeros(2), grad_norm=0.0)
        >>> op.perturb(lambda lam, lin: sol, rng=0).value.shape
        (2,)
        """
        gen = as_generator(rng)
        b = self._draw_linear_term(gen)
        res = solve(self.strong_convexity, b / self.n)
        if not res.grad_norm <= self.tol:
            # No achieved value is quoted: it is computed from the data.
            within = (
                "" if max_iter is None else f" within max_iter = {max_iter} iterations"
            )
            raise DPSVMConvergenceError(
                "Objective perturbation needs the minimiser to the certified "
                f"tolerance tol = {self.tol:g}, which the solver did not reach"
                f"{within}. Increase max_iter (a larger tol is also accepted and is "
                "paid for with more noise)."
            )
        w = res.coef
        if self.residual is not None:
            # ‖w − w*‖ ≤ τ/(λ + Δ) by strong convexity; Z of density
            # ∝ exp(−ε_r‖z‖/Δ_r), Δ_r = 2τ/(λ + Δ), makes w + Z (ε_op + ε_r)-DP.
            residual_noise = OutputNoise.gamma_norm(
                self.residual.epsilon_residual, self.residual.sensitivity
            )
            w = residual_noise.release(w, gen)
        return PerturbedSolution(w, res)

    def event(
        self,
        mechanism: str,
        *,
        reference: str,
        details: Mapping[str, Any] | None = None,
        lipschitz: float = 1.0,
        non_private_reason: str | None = None,
    ) -> PrivacyEvent:
        """The typed event of :meth:`perturb`.

        Parameters
        ----------
        mechanism : str
            Name recorded in the event.
        reference : str
            Paper and theorem of the calibration.
        details : mapping or None, default=None
            Facts to record, as given (include the calibration's ``details()``).
        lipschitz : float, default=1.0
            L of the loss. The gradient sensitivity recorded is 2LW in L2 for
            the Gamma-norm b (replace-one, ‖x‖ ≤ 1, W the public weight bound),
            2L·B₁ in L1 for the Laplace b and 2L in L2 for the Gaussian b.
        non_private_reason : str or None, default=None
            Reason recorded for ``"sarwate2009"`` (a default text otherwise);
            the Laplace and Gaussian variants are private and refuse one.

        Returns
        -------
        PrivacyEvent
            A :class:`~dpsvm.accounting.PureDpEvent` of ε (an
            :class:`~dpsvm.accounting.ApproximateDpEvent` of (ε, δ) for the
            Gaussian b), or a :class:`~dpsvm.accounting.NonPrivateEvent`
            (nominal ε in details) for ``"sarwate2009"``.

        Examples
        --------
        >>> op = ObjectivePerturbation.calibrate(
        ...     1.0, n=100, dim=2, regularization=0.1, smoothness=1.0, tol=1e-10)
        >>> type(op.event("objective-perturbation", reference="CMS11")).__name__
        'PureDpEvent'
        """
        if non_private_reason is not None and self._private_noise_name is not None:
            raise ValueError(
                f"the {self._private_noise_name} objective perturbation is private."
            )
        delta, sensitivity, sensitivity_norm = self._event_terms(lipschitz)
        # The nominal ε of the 2009 reading is kept as details["nominal_epsilon"].
        return release_event(
            mechanism,
            epsilon=self.epsilon,
            delta=delta,
            sensitivity=sensitivity,
            sensitivity_norm=sensitivity_norm,
            reference=reference,
            details=details,
            non_private_reason=None
            if self.private
            else non_private_reason or SARWATE2009_REASON,
        )


@dataclass(frozen=True)
class ObjectivePerturbation(_CertifiedObjectiveRelease):
    """Objective perturbation of one unit-ball ERM problem (public calibration).

    The problem is J(w) = (1/n)Σℓ(yᵢwᵀx̃ᵢ) + (λ/2)‖w‖² with ‖x̃ᵢ‖ ≤ 1 and
    |ℓ″| ≤ c. ``epsilon`` is split into ε_op (the mechanism of Chaudhuri et al.
    2011, Alg. 2) and ε_r = ``residual_fraction``·ε (the certified residual);
    the paper-literal ``variant="sarwate2009"`` keeps ε_r = 0 and is **not**
    private (its event is a :class:`~dpsvm.accounting.NonPrivateEvent`).

    Attributes
    ----------
    epsilon : float
        ε of the whole release, ε_op + ε_r.
    epsilon_objective : float
        ε_op.
    n : int
        Number of rows.
    dim : int
        Dimension of w.
    regularization : float
        λ of the unit-ball problem.
    smoothness : float
        c ≥ |ℓ″|.
    tol : float
        Public tolerance τ the solver must certify on the gradient norm.
    calibration : ObjectiveCalibration
        ε′, Δ and the Gamma scale 2/ε′ of ‖b‖.
    residual : ResidualCalibration or None
        ε_r, Δ_r = 2τ/(λ + Δ) and the Gamma scale of the residual noise
        (``None`` for ``"sarwate2009"``).
    variant : {"jmlr2011", "sarwate2009"}
        The calibration requested.

    Examples
    --------
    >>> op = ObjectivePerturbation.calibrate(
    ...     0.2, n=30162, dim=5, regularization=1e-3, smoothness=1.0, tol=1e-10)
    >>> round(op.epsilon_objective, 6), round(op.epsilon_residual, 6)
    (0.198, 0.002)
    >>> op.private, op.strong_convexity  # λ + Δ (Δ = 0: ε′ > 0 here)
    (True, 0.001)
    """

    epsilon: float
    epsilon_objective: float
    n: int
    dim: int
    regularization: float
    smoothness: float
    tol: float
    calibration: ObjectiveCalibration
    residual: ResidualCalibration | None
    variant: str = "jmlr2011"

    @classmethod
    def calibrate(
        cls,
        epsilon: float,
        *,
        n: int,
        dim: int,
        regularization: float,
        smoothness: float,
        tol: float,
        variant: str = "jmlr2011",
        residual_fraction: float = RESIDUAL_EPSILON_FRACTION,
        max_weight: float = 1.0,
    ) -> ObjectivePerturbation:
        """Calibrate from public quantities (nothing is drawn).

        Parameters
        ----------
        epsilon : float
            ε of the release.
        n : int
            Number of rows (public under replace-one neighbours).
        dim : int
            Dimension of w.
        regularization : float
            λ > 0 of the unit-ball problem.
        smoothness : float
            c ≥ |ℓ″| (Huber 1/(2h), logistic 1/4).
        tol : float
            Public τ > 0 the solver certifies on the gradient norm.
        variant : {"jmlr2011", "sarwate2009"}, default="jmlr2011"
            ``"jmlr2011"``: Chaudhuri et al. 2011, Alg. 2, plus the residual
            charge. ``"sarwate2009"``: the paper-literal reading of Sarwate et
            al. (arXiv:0912.0071), Alg. 1, ε′ = ε, no residual charge, **not**
            private (reproduction only).
        residual_fraction : float, default=RESIDUAL_EPSILON_FRACTION
            ε_r/ε for ``"jmlr2011"``.
        max_weight : float, default=1.0
            Public bound W on the example weights of a weighted objective
            (1/n)Σωᵢℓ (ωᵢ ≤ W): c becomes W·c and ‖b‖ ~ Gamma(d, 2W/ε′)
            (:func:`~dpsvm.perturbation.weighted_loss_constants`). The residual
            charge is unchanged (it depends on τ and the strong convexity only).

        Returns
        -------
        ObjectivePerturbation
            The calibration.

        Examples
        --------
        >>> op = ObjectivePerturbation.calibrate(
        ...     1.0, n=100, dim=2, regularization=0.1, smoothness=1.0, tol=1e-10,
        ...     variant="sarwate2009")
        >>> op.calibration.epsilon_prime, op.residual, op.private
        (1.0, None, False)
        """
        # The non-private 2009 reading is kept as printed (no residual charge).
        eps_op, eps_r = split_residual_epsilon(
            epsilon, residual_fraction if variant == "jmlr2011" else None
        )
        cal = objective_perturbation_calibration(
            eps_op,
            n,
            regularization,
            smoothness,
            variant=variant,
            max_weight=max_weight,
        )
        residual = (
            approximate_minimiser_calibration(
                eps_r, tol, regularization + cal.extra_regularization
            )
            if variant == "jmlr2011"
            else None
        )
        return cls(
            epsilon,
            eps_op,
            n,
            dim,
            regularization,
            smoothness,
            tol,
            cal,
            residual,
            variant,
        )

    @property
    def private(self) -> bool:
        """Whether the calibration is a DP guarantee (not the 2009 reading)."""
        return self.variant == "jmlr2011"

    def details(self, data_norm: float = 1.0) -> dict[str, Any]:
        """Calibration facts for the event, on the scale of the released w/R.

        Parameters
        ----------
        data_norm : float, default=1.0
            Row-norm bound R (the estimator's Λ = λR², released w/R).

        Returns
        -------
        dict
            ε′, Δ·R², the Gamma scale of ‖b‖, the variant, c and (for
            ``"jmlr2011"``) ε_op, ε_r, τ, Δ_r/R and the residual noise scale.

        Examples
        --------
        >>> op = ObjectivePerturbation.calibrate(
        ...     1.0, n=100, dim=2, regularization=0.1, smoothness=1.0, tol=1e-10)
        >>> op.details()["variant"], op.details()["certified_residual"]
        ('jmlr2011', 1e-10)
        """
        R = data_norm
        cal = self.calibration
        out: dict[str, Any] = {
            "epsilon_prime": cal.epsilon_prime,
            "extra_regularization": cal.extra_regularization * R * R,
            "noise_norm_scale": cal.noise_scale,
            "variant": cal.variant,
            "smoothness_c": self.smoothness,
        }
        if cal.max_weight != 1.0:  # a weighted fit (unweighted events unchanged)
            out["weight_bound"] = cal.max_weight
        if self.residual is not None:
            out.update(self._residual_details(R))
        return out

    def _draw_linear_term(self, gen: np.random.Generator) -> FloatArray:
        """b with ν(b) ∝ exp(−(ε′/2)‖b‖) (CMS11 Alg. 2 step 3)."""
        # ν(b) ∝ exp(−(ε′/2)‖b‖): Gamma-norm noise of "sensitivity" 2 at ε′,
        # ‖b‖ ~ Gamma(d, 2/ε′), uniform direction (CMS11 Alg. 2 step 3).
        cal = self.calibration
        # Weighted losses (ωᵢ ≤ W): the "sensitivity" is 2W (weighted_loss_constants).
        b_noise = OutputNoise(
            "gamma-norm", cal.epsilon_prime, 0.0, 2.0 * cal.max_weight, cal.noise_scale
        )
        return b_noise.sample(self.dim, gen)

    def _event_terms(self, lipschitz: float) -> tuple[float, float, str]:
        """δ = 0 and the L2 gradient sensitivity 2LW (replace-one, ‖x‖ ≤ 1)."""
        return 0.0, 2.0 * lipschitz * self.calibration.max_weight, "gradient-l2"
