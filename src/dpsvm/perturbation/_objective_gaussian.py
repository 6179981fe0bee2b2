# SPDX-License-Identifier: BSD-3-Clause
"""Approximate (ε, δ) objective perturbation: Gaussian b, certified minimiser.

Kifer, Smith & Thakurta, "Private convex empirical risk minimization and
high-dimensional regression", COLT 2012 (KST12), Algorithm 1 / Theorem 2: the
objective perturbation of Chaudhuri, Monteleoni & Sarwate (JMLR 12, 2011,
Alg. 2) with the linear term b drawn from N(0, σ²I) instead of the Gamma-norm
density, for (ε, δ)-DP. ‖b‖ then grows like σ√d instead of 2d/ε′, which is what
pays at small ε and many features. The solver residual is charged as in
:mod:`._objective` (pure-DP analogue of Iyengar et al., IEEE S&P 2019, Thm 1).

The calibration is written for the replace-one relation and the unit-ball
problem J(w) = (1/n)Σℓ(yᵢwᵀx̃ᵢ) + (λ/2)‖w‖² + (1/n)bᵀw, ‖x̃ᵢ‖ ≤ 1,
|ℓ′| ≤ L, 0 ≤ ℓ″ ≤ c (proof in docs/privacy.md, "Objective perturbation with
Gaussian noise"):

* the map b ↦ w is a bijection, b = −Σᵢℓ′(yᵢwᵀx̃ᵢ)yᵢx̃ᵢ − nλw, so the output
  density is ν(b(w)) |det ∇b(w)|;
* Jacobian: the ratio of the two determinants is within a factor
  1 + c/(nλ) either way (matrix determinant lemma on the rank-one record
  Hessians, :func:`~._objective_laplace.rank_one_jacobian_calibration`), so
  ε_J = ln(1 + c/(nλ)) — half of the 2 ln(1 + c/(nλ)) of CMS11 Thm 9;
* noise: b(w; D) − b(w; D′) = v = αx̃ − βx̃′ (|α|, |β| ≤ L, the replaced
  record's ℓ′ terms), ‖v‖ ≤ 2L, so ln ν(b)/ν(b − v) = (‖v‖² − 2bᵀv)/(2σ²)
  ≤ u²/2 + u·S/2 with u = 2L/σ and S = (|bᵀx̃| + |bᵀx̃′|)/σ; x̃, x̃′ are fixed
  by the pair, not by b;
* tail of S: S = max(|g₁ + g₂|, |g₁ − g₂|) with g₁ = bᵀx̃/σ, g₂ = bᵀx̃′/σ
  jointly Gaussian, Var(g₁ + g₂) + Var(g₁ − g₂) ≤ 4; x ↦ Φ̄(s/√x) is convex
  on [0, s²/3] and 0 at 0, hence superadditive, so P(S > s) ≤ 2Φ̄(s/2) =
  P(2|g| > s) for every s ≥ 2√3 (g ~ N(0, 1));
* δ: P_D(E) − e^ε P_D′(E) ≤ E[(1 − e^{ε − loss})₊] ≤ E[(1 − e^{ε_G − u²/2 −
  u·S/2})₊], an increasing function of S that vanishes below
  s₀ = 2(ε_G − u²/2)/u; if s₀ ≥ 2√3 the tail bound holds wherever it matters,
  so the expectation is at most the one with S/2 replaced by |g|, i.e. twice
  the δ of the Gaussian mechanism of sensitivity ratio u at ε_G:
  2[Φ(u/2 − ε_G/u) − e^{ε_G}Φ(−u/2 − ε_G/u)] (Balle & Wang, ICML 2018,
  Thm 8). σ is therefore the analytic Gaussian σ of Balle & Wang for
  (ε_G, δ/2) at sensitivity 2L, kept when s₀ ≥ 2√3 (it is for every ε_G in
  [0.01, 100] at δ ≤ 1e-5, not when ε_G ≪ δ); otherwise the tail bound of
  KST12, proof of Thm 2 (‖Pb‖²/σ² is χ²₂, the loss is ≤ ε_J + t·u + u²/2
  except with probability δ, t = √(2 ln(1/δ)), σ = 2L/(√(t² + 2ε_G) − t)) is
  used. The analytic σ is about 1.4 times smaller than the tail σ at
  ε_G = 0.08, δ = 1e-6.

As in CMS11 step 2, when ε_J would take more than half of ε the problem gets
the extra regularisation Δ with c/(n(λ + Δ)) = e^{ε/2} − 1, so ε_J = ε/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..mechanisms import AnalyticGaussian
from ._calibration import (
    RESIDUAL_EPSILON_FRACTION,
    ResidualCalibration,
    approximate_minimiser_calibration,
)
from ._objective import FloatArray, _CertifiedObjectiveRelease, split_residual_epsilon
from ._objective_laplace import rank_one_jacobian_calibration

__all__ = [
    "GaussianObjectiveCalibration",
    "GaussianObjectivePerturbation",
    "gaussian_objective_calibration",
]


@dataclass(frozen=True)
class GaussianObjectiveCalibration:
    """Calibration of objective perturbation with Gaussian b.

    Attributes
    ----------
    epsilon_jacobian : float
        ε_J = ln(1 + c/(n(λ + Δ))), the Jacobian share.
    epsilon_noise : float
        ε_G = ε − ε_J, the share the Gaussian term is calibrated for.
    delta : float
        δ of the Gaussian term.
    extra_regularization : float
        Δ added to λ (0 unless ε_J would exceed ε/2).
    sigma : float
        Standard deviation of each coordinate of b.
    method : {"analytic", "tail"}, default="analytic"
        Which bound σ comes from: ``"analytic"`` (Balle & Wang 2018, Thm 8, at
        (ε_G, δ/2) and sensitivity 2L, valid when s₀ ≥ 2√3) or ``"tail"``
        (the χ²₂ tail bound of KST12, proof of Thm 2).
    """

    epsilon_jacobian: float
    epsilon_noise: float
    delta: float
    extra_regularization: float
    sigma: float
    method: str = "analytic"


#: The S-tail lemma of :func:`gaussian_objective_calibration` holds for
#: s ≥ 2√3, i.e. for (ε_G − u²/2)/u ≥ √3 (where x ↦ Φ̄(s/√x) is convex on
#: [0, 4]).
_ANALYTIC_MIN_THRESHOLD = math.sqrt(3.0)


def gaussian_objective_calibration(
    epsilon: float, delta: float, n: int, lam: float, c: float, lipschitz: float = 1.0
) -> GaussianObjectiveCalibration:
    """Calibrate objective perturbation with Gaussian noise for (ε, δ)-DP.

    Kifer, Smith & Thakurta (COLT 2012), Algorithm 1 / Theorem 2, written for
    replace-one neighbours (gradient difference v = αx̃ − βx̃′, |α|, |β| ≤ L)
    on the unit ball, with the noise term bounded through the exact δ of the
    Gaussian mechanism (Balle & Wang, ICML 2018, Thm 8) instead of a tail
    probability (proof in the module docstring and docs/privacy.md):

    1. ε_J = ln(1 + c/(nλ)) (rank-one Jacobian ratio,
       :func:`~._objective_laplace.rank_one_jacobian_calibration`); if
       ε_J > ε/2, Δ = c/(n(e^{ε/2} − 1)) − λ and ε_J = ε/2;
    2. ε_G = ε − ε_J; σ is the analytic Gaussian σ of Balle & Wang for
       (ε_G, δ/2) at L2 sensitivity 2L, i.e. the smallest σ with
       2[Φ(u/2 − ε_G/u) − e^{ε_G}Φ(−u/2 − ε_G/u)] ≤ δ, u = 2L/σ;
    3. it is kept if (ε_G − u²/2)/u ≥ √3 (where the tail lemma
       P(|bᵀx̃| + |bᵀx̃′| > sσ) ≤ 2Φ̄(s/2) holds); otherwise, or if larger,
       the χ²₂ tail calibration of KST12's proof of Thm 2 is used:
       t = √(2 ln(1/δ)), σ = 2L/(√(t² + 2ε_G) − t).

    Parameters
    ----------
    epsilon : float
        ε > 0 of the objective-perturbation step.
    delta : float
        δ in (0, 1) of that step.
    n : int
        Number of rows (public under replace-one neighbours).
    lam : float
        λ > 0 of the unit-ball problem.
    c : float
        Bound on ℓ″ (Huber 1/(2h), logistic 1/4).
    lipschitz : float, default=1.0
        L, the bound on |ℓ′|.

    Returns
    -------
    GaussianObjectiveCalibration
        ε_J, ε_G, δ, Δ, σ and which bound gave σ.

    Examples
    --------
    >>> cal = gaussian_objective_calibration(0.1, 1e-6, 30162, 6e-3, 1.0)
    >>> round(cal.epsilon_jacobian, 5), cal.extra_regularization, cal.method
    (0.00551, 0.0, 'analytic')
    >>> round(cal.sigma, 2)
    79.87
    """
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a finite number > 0; got {epsilon!r}.")
    if not 0 < delta < 1:
        raise ValueError(
            f"mechanism 'objective-gaussian' needs 0 < delta < 1; got {delta!r}."
        )
    # Rank-one Jacobian bound ε_J = ln(1 + c/(nλ)), with the Δ fallback.
    jac = rank_one_jacobian_calibration(epsilon, n, lam, c)
    extra = jac.extra_regularization
    eps_g = jac.epsilon_prime
    eps_j = epsilon - eps_g
    # KST12 Thm 2 (replace-one, ‖v‖ ≤ 2L): loss ≤ t·u + u²/2 with u = 2L/σ and
    # t = √(2 ln(1/δ)) (χ²₂ tail); solve t·u + u²/2 = ε_G for u.
    t = math.sqrt(2.0 * math.log(1.0 / delta))
    u_tail = 2.0 * eps_g / (math.sqrt(t * t + 2.0 * eps_g) + t)  # √(t²+2ε_G) − t
    sigma_tail = 2.0 * lipschitz / u_tail
    # Exact δ of the noise term (docs/privacy.md, section 4): twice the δ of the
    # Gaussian mechanism of sensitivity 2L at ε_G (Balle & Wang 2018, Thm 8),
    # valid when (ε_G − u²/2)/u ≥ √3.
    sigma = AnalyticGaussian(
        epsilon=eps_g, delta=delta / 2.0, sensitivity=2.0 * lipschitz, method="naive"
    ).sigma
    u = 2.0 * lipschitz / sigma
    if (eps_g - u * u / 2.0) / u >= _ANALYTIC_MIN_THRESHOLD and sigma <= sigma_tail:
        return GaussianObjectiveCalibration(eps_j, eps_g, delta, extra, sigma)
    return GaussianObjectiveCalibration(eps_j, eps_g, delta, extra, sigma_tail, "tail")


@dataclass(frozen=True)
class GaussianObjectivePerturbation(_CertifiedObjectiveRelease):
    """Objective perturbation with Gaussian b of one unit-ball ERM problem.

    ε is split into ε_op (Kifer, Smith & Thakurta 2012, Alg. 1 with Gaussian
    b, :func:`gaussian_objective_calibration`) and ε_r = ``residual_fraction``·ε
    (the certified solver residual, pure). δ_op = δ·e^{−ε_r/2}: passing from the
    approximate to the exact minimiser and back multiplies the δ of the exact
    mechanism by at most e^{ε_r/2}, so the release is (ε, δ)-DP.

    Attributes
    ----------
    epsilon, delta : float
        (ε, δ) of the release.
    epsilon_objective : float
        ε_op.
    n, dim : int
        Number of rows and dimension of w.
    regularization : float
        λ of the unit-ball problem.
    smoothness : float
        c ≥ ℓ″.
    lipschitz : float
        L ≥ |ℓ′|.
    tol : float
        Public tolerance τ the solver certifies on the gradient norm.
    calibration : GaussianObjectiveCalibration
        ε_J, ε_G, δ_op, Δ and σ.
    residual : ResidualCalibration
        ε_r, Δ_r = 2τ/(λ + Δ) and the Gamma scale of the residual noise.

    Examples
    --------
    >>> op = GaussianObjectivePerturbation.calibrate(
    ...     0.1, 1e-6, n=30162, dim=5, regularization=6e-3, smoothness=1.0,
    ...     tol=1e-10)
    >>> round(op.epsilon_objective, 6), op.strong_convexity
    (0.099, 0.006)
    """

    epsilon: float
    delta: float
    epsilon_objective: float
    n: int
    dim: int
    regularization: float
    smoothness: float
    lipschitz: float
    tol: float
    calibration: GaussianObjectiveCalibration
    residual: ResidualCalibration
    _private_noise_name: ClassVar[str | None] = "Gaussian"

    @classmethod
    def calibrate(
        cls,
        epsilon: float,
        delta: float,
        *,
        n: int,
        dim: int,
        regularization: float,
        smoothness: float,
        tol: float,
        lipschitz: float = 1.0,
        residual_fraction: float = RESIDUAL_EPSILON_FRACTION,
    ) -> GaussianObjectivePerturbation:
        """Calibrate from public quantities (nothing is drawn).

        Parameters
        ----------
        epsilon : float
            ε of the release.
        delta : float
            δ in (0, 1) of the release.
        n : int
            Number of rows.
        dim : int
            Dimension of w.
        regularization : float
            λ > 0 of the unit-ball problem.
        smoothness : float
            c ≥ ℓ″.
        tol : float
            Public τ > 0 the solver certifies on the gradient norm.
        lipschitz : float, default=1.0
            L ≥ |ℓ′|.
        residual_fraction : float, default=RESIDUAL_EPSILON_FRACTION
            ε_r/ε.

        Returns
        -------
        GaussianObjectivePerturbation
            The calibration.
        """
        eps_op, eps_r = split_residual_epsilon(epsilon, residual_fraction)
        # The residual step multiplies δ of the exact mechanism by ≤ e^{ε_r/2}.
        delta_op = delta * math.exp(-eps_r / 2.0)
        cal = gaussian_objective_calibration(
            eps_op, delta_op, n, regularization, smoothness, lipschitz
        )
        residual = approximate_minimiser_calibration(
            eps_r, tol, regularization + cal.extra_regularization
        )
        return cls(
            epsilon,
            delta,
            eps_op,
            n,
            dim,
            regularization,
            smoothness,
            lipschitz,
            tol,
            cal,
            residual,
        )

    @property
    def private(self) -> bool:
        """Always ``True``: the calibration is an (ε, δ)-DP guarantee."""
        return True

    def details(self, data_norm: float = 1.0) -> dict[str, Any]:
        """Calibration facts for the event, on the scale of the released w/R.

        Parameters
        ----------
        data_norm : float, default=1.0
            Row-norm bound R (the estimator's Λ = λR², released w/R).

        Returns
        -------
        dict
            ε_J, ε_G, δ_op, Δ·R², σ and its bound (``"analytic"`` or
            ``"tail"``), c, ε_op, ε_r, τ, Δ_r/R and the residual noise scale.

        Examples
        --------
        >>> op = GaussianObjectivePerturbation.calibrate(
        ...     1.0, 1e-6, n=100, dim=2, regularization=0.1, smoothness=1.0,
        ...     tol=1e-10)
        >>> op.details()["variant"]
        'gaussian'
        """
        R = data_norm
        cal = self.calibration
        out: dict[str, Any] = {
            "variant": "gaussian",
            "epsilon_jacobian": cal.epsilon_jacobian,
            "epsilon_noise": cal.epsilon_noise,
            "delta_objective": cal.delta,
            "extra_regularization": cal.extra_regularization * R * R,
            "noise_sigma": cal.sigma,
            "noise_calibration": cal.method,
            "smoothness_c": self.smoothness,
        }
        out.update(self._residual_details(R))
        return out

    def _draw_linear_term(self, gen: np.random.Generator) -> FloatArray:
        """b ~ N(0, σ²I_d) (KST12 Alg. 1 step 2)."""
        # KST12 Alg. 1 step 2 (δ > 0): b ~ N(0, σ²I_d).
        sigma = self.calibration.sigma
        return np.asarray(gen.normal(0.0, sigma, size=self.dim), dtype=np.float64)

    def _event_terms(self, lipschitz: float) -> tuple[float, float, str]:
        """δ and the L2 gradient sensitivity 2L (replace-one, ‖x̃‖ ≤ 1)."""
        return self.delta, 2.0 * lipschitz, "gradient-l2"
