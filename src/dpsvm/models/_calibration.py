# SPDX-License-Identifier: BSD-3-Clause
"""Noise calibrations of the linear mechanisms, each at its source.

All formulas are stated for the *internal* problem on the unit ball:

    J(w) = (1/n) Σ ℓ(yᵢ wᵀx̃ᵢ) + (λ/2)‖w‖²,   ‖x̃ᵢ‖ ≤ 1,

with ℓ L-Lipschitz (and |ℓ″| ≤ c where stated). Estimators map a public row-norm
bound R to this form by x̃ = x/R, λ = Λ/R² (then wᵀx̃ = (w/R)ᵀx), so that the
released coefficients w/R have sensitivity Δ/R.

Neighbouring relation throughout: replace-one (datasets of equal size n that
differ in one record), as in both papers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "ObjectiveCalibration",
    "objective_perturbation_calibration",
    "output_l2_sensitivity",
    "output_laplace_scale",
    "rubinstein_l2_sensitivity",
]


@dataclass(frozen=True)
class ObjectiveCalibration:
    """Calibration of objective perturbation.

    Attributes
    ----------
    epsilon_prime : float
        The ε′ the noise is drawn for: b has density ∝ exp(−(ε′/2)‖b‖).
    extra_regularization : float
        The Δ added to λ (0 unless the JMLR fallback applies).
    noise_scale : float
        Scale 2/ε′ of ‖b‖ ~ Gamma(d, 2/ε′).
    variant : str
        ``"jmlr2011"`` or ``"sarwate2009"``.
    """

    epsilon_prime: float
    extra_regularization: float
    noise_scale: float
    variant: str


def objective_perturbation_calibration(
    epsilon: float, n: int, lam: float, c: float, *, variant: str = "jmlr2011"
) -> ObjectiveCalibration:
    """Calibrate objective perturbation for ε-DP (replace-one, ‖x‖ ≤ 1, L ≤ 1).

    ``variant="jmlr2011"`` (default, private): Chaudhuri, Monteleoni & Sarwate,
    "Differentially private empirical risk minimization", JMLR 12 (2011),
    Algorithm 2 / Theorem 9, which needs |ℓ″| ≤ c:

    1. ε′ = ε − ln(1 + 2c/(nλ) + c²/(n²λ²));
    2. if ε′ > 0, Δ = 0; else Δ = c/(n(e^{ε/4} − 1)) − λ and ε′ = ε/2;
    3. b has density ∝ exp(−(ε′/2)‖b‖), i.e. ‖b‖ ~ Gamma(d, 2/ε′);
    4. minimise J(w) + (1/n)bᵀw + (Δ/2)‖w‖².

    ``variant="sarwate2009"``: the self-consistent reading of Sarwate, Chaudhuri
    & Monteleoni, arXiv:0912.0071, Alg. 1 (spec S.1): ε′ = ε, Δ = 0. Its proof
    omits the Jacobian of b ↦ f_priv (spec S-P3), so it is **not** guaranteed
    ε-DP; it exists only to reproduce that paper's tables. The literal β = ε·n of
    the printed Alg. 1 (n times too little noise, spec S-P1) is not offered.

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    n : int
        Number of training rows (public under replace-one neighbours).
    lam : float
        Regularisation λ > 0 of the unit-ball problem.
    c : float
        Bound on |ℓ″| (Huber: 1/(2h); logistic: 1/4).
    variant : {"jmlr2011", "sarwate2009"}, default="jmlr2011"
        Which calibration.

    Returns
    -------
    ObjectiveCalibration
        ε′, Δ and the Gamma scale of ‖b‖.

    Examples
    --------
    >>> cal = objective_perturbation_calibration(0.2, 30162, 1e-3, 1.0)
    >>> round(cal.epsilon_prime, 4), cal.extra_regularization
    (0.1348, 0.0)
    """
    if variant == "sarwate2009":
        # spec S.1: density ∝ exp(−(ε/2)‖b‖) with the (1/n)bᵀf term, no correction.
        return ObjectiveCalibration(epsilon, 0.0, 2.0 / epsilon, variant)
    if variant != "jmlr2011":
        raise ValueError(f"Unknown objective-perturbation variant {variant!r}.")
    ratio = c / (n * lam)
    # CMS11 Algorithm 2, step 1: ε′ = ε − ln(1 + 2c/(nλ) + c²/(n²λ²)).
    eps_prime = epsilon - math.log1p(2.0 * ratio + ratio * ratio)
    delta_reg = 0.0
    if eps_prime <= 0:
        # CMS11 Algorithm 2, step 2: Δ = c/(n(e^{ε/4} − 1)) − λ, ε′ = ε/2.
        denom = n * math.expm1(epsilon / 4.0)
        if not denom > 0 or not math.isfinite(c / denom):
            raise ValueError(
                f"epsilon = {epsilon:g} is too small for objective perturbation "
                "in floating point."
            )
        delta_reg = c / denom - lam
        eps_prime = epsilon / 2.0
    # CMS11 Algorithm 2, step 3: ν(b) ∝ exp(−(ε′/2)‖b‖) ⇒ ‖b‖ ~ Gamma(d, 2/ε′).
    return ObjectiveCalibration(
        eps_prime, max(delta_reg, 0.0), 2.0 / eps_prime, variant
    )


def output_l2_sensitivity(n: int, lam: float, lipschitz: float = 1.0) -> float:
    """L2 sensitivity 2L/(nλ) of the regularised ERM minimiser on the unit ball.

    Chaudhuri, Monteleoni & Sarwate (2011), Corollary 8, and spec S.2 of paper
    001's "sensitivity method". The strong-convexity argument (sum the two
    λ-strong-convexity inequalities; the loss difference of the replaced record is
    2L-Lipschitz in w) needs only subgradients, so it covers the hinge too. With a
    row-norm bound R the released w/R has sensitivity 2LR/(nΛ).

    Parameters
    ----------
    n : int
        Number of rows.
    lam : float
        Regularisation λ > 0 of the unit-ball problem.
    lipschitz : float, default=1.0
        The loss's Lipschitz constant L.

    Returns
    -------
    float
        2L/(nλ).

    Examples
    --------
    >>> output_l2_sensitivity(100, 0.1)
    0.2
    """
    return 2.0 * lipschitz / (n * lam)


def rubinstein_l2_sensitivity(n: int, lam: float, lipschitz: float = 1.0) -> float:
    """L2 sensitivity 4LCκ/n of Rubinstein et al. Lemma 6 / 21 with C = 1/λ, κ = 1.

    Rubinstein, Bartlett, Huang & Taft, arXiv:0911.5708, Lemma 6 (Lemma 21 for
    subgradients). It is a factor 2 looser than :func:`output_l2_sensitivity`; the
    paper's constant is kept for PRIVATESVM-FINITE (spec R.2).

    Parameters
    ----------
    n : int
        Number of rows.
    lam : float
        Regularisation λ > 0 of the unit-ball problem (C = 1/λ).
    lipschitz : float, default=1.0
        The loss's Lipschitz constant L.

    Returns
    -------
    float
        4L/(nλ).

    Examples
    --------
    >>> rubinstein_l2_sensitivity(100, 0.1)
    0.4
    """
    return 4.0 * lipschitz / (n * lam)


def output_laplace_scale(
    epsilon: float, n: int, lam: float, n_features: int, lipschitz: float = 1.0
) -> float:
    """Laplace scale λ_L = 4LCκ√F/(εn) of PRIVATESVM-FINITE (paper 000 Thm 7).

    Rubinstein et al., arXiv:0911.5708, Theorem 7: per-coordinate Laplace noise
    with scale λ_L ≥ 4LCκ√F/(βn) gives β-DP, using ‖·‖₁ ≤ √F‖·‖₂ on the Lemma 6
    bound. Here C = 1/λ and κ = 1 (unit ball).

    Parameters
    ----------
    epsilon : float
        Target ε (the paper's β) > 0.
    n : int
        Number of rows.
    lam : float
        Regularisation λ > 0 (C = 1/λ).
    n_features : int
        Feature dimension F.
    lipschitz : float, default=1.0
        The loss's Lipschitz constant L.

    Returns
    -------
    float
        The Laplace scale.

    Examples
    --------
    >>> output_laplace_scale(1.0, 100, 0.1, 4)
    0.8
    """
    # Rubinstein et al. Thm 7: λ_L = 4·L·C·κ·√F / (β·n).
    return (
        rubinstein_l2_sensitivity(n, lam, lipschitz) * math.sqrt(n_features) / epsilon
    )
