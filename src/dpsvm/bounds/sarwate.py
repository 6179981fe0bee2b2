# SPDX-License-Identifier: BSD-3-Clause
"""Calculators for Sarwate, Chaudhuri & Monteleoni, "Differentially private support
vector machines" (arXiv:0912.0071, 2009), plus the calibration helpers of the
journal version (Chaudhuri, Monteleoni & Sarwate, JMLR 12, 2011) that the
objective- and output-perturbation estimators use.

Notation ([S]'s, which clashes with [R]'s): ``eps_p`` is the privacy level
(pure ε_p-DP), ``eps_g`` a generalisation (excess-risk) gap, ``delta`` a failure
probability of a utility bound (not a DP δ), ``lam`` / ``Lam`` the regularisation
weight Λ of (1/n)Σℓ + (Λ/2)‖f‖², ``d`` the feature dimension (use D for the
random-feature algorithm), ``c`` a bound on |ℓ″| (Huber: 1/(2h), logistic: ¼).

Noise convention (correction: [S] eq. (9), Algorithm 1 and the proof of Theorem 1
use three different scalings; this is the consistent one): the objective is
J(f) + (1/n)·bᵀf with b of density ∝ exp(−(ε_p/2)‖b‖), so ‖b‖ ∼ Gamma(d,
scale 2/ε_p). The paper's literal "β = ε_p·n" together with (1/n)bᵀf would add
n times too little noise.

The sample complexities of Cor. 2, Lemma 1, Thm 4 and Thm 5 are **order-only**
statements (n = Ω(·)) without constants: the functions return the expression
inside Ω(·), multiplied by a user-supplied ``constant`` (default 1). They are not
sufficient sample sizes.

References
----------
.. [S] A. D. Sarwate, K. Chaudhuri, C. Monteleoni, "Differentially private support
   vector machines", arXiv:0912.0071 (2009).
.. [CMS11] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially private
   empirical risk minimization", JMLR 12:1069–1109 (2011).
"""

from __future__ import annotations

import math

from scipy.special import gammainccinv

from ..perturbation import (
    objective_perturbation_calibration,
    output_l2_sensitivity,
)
from ..utils._checks import check_int, check_open_unit, check_positive

__all__ = [
    "cor2_sample_complexity",
    "lemma1_sample_complexity",
    "objective_perturbation_epsilon_prime",
    "objpert_excess_risk_bound",
    "objpert_noise_norm_quantile",
    "output_perturbation_l2_sensitivity",
    "thm4_sample_complexity",
    "thm5_sample_complexity",
    "tuning_error_slack",
    "unit_ball_volume",
]

# Every formula first checks the ranges that its Parameters section states, in
# that order.


def objpert_excess_risk_bound(
    d: int, n: int, Lam: float, eps_p: float, delta: float
) -> float:
    """Excess regularised empirical risk of objective perturbation ([S] Thm 2).

    Parameters
    ----------
    d : int
        Dimension of the perturbed parameter (D for the random-feature
        Algorithm 2).
    n : int
        Number of records.
    Lam : float
        Regularisation weight Λ (strong-convexity modulus of (Λ/2)‖f‖²).
    eps_p : float
        Privacy level ε_p > 0.
    delta : float
        Failure probability δ ∈ (0, 1), over the noise b (the paper says "over
        P"; the randomness is the noise).

    Returns
    -------
    float
        8·d²·ln²(d/δ)/(Λ·n²·ε_p²): with probability ≥ 1 − δ,
        J(f_priv) ≤ J(f₀) + this.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    Derivation: ‖f_priv − f*‖ ≤ 2‖b/n‖/Λ (eq. 62) and ‖b‖ ≤ 2d ln(d/δ)/ε_p with
    probability 1 − δ (the CM08 lemma, see :func:`objpert_noise_norm_quantile`),
    so J(f_priv) − J(f*) ≤ ‖b/n‖·‖f_priv − f*‖ ≤ 2‖b‖²/(n²Λ).

    References
    ----------
    [S] Theorem 2, eq. (14), arXiv:0912.0071.

    Examples
    --------
    >>> round(objpert_excess_risk_bound(1, 100, 0.1, 1.0, math.exp(-1)), 12)
    0.008
    """
    n = check_int(n, "n")
    eps_p = check_positive(eps_p, "eps_p")
    d = check_int(d, "d")
    Lam = check_positive(Lam, "Lam")
    delta = check_open_unit(delta, "delta")
    # [S] Thm 2, eq. (14): J(f_priv) ≤ J(f₀) + 8d² ln²(d/δ)/(Λ n² ε_p²).
    return 8.0 * d**2 * math.log(d / delta) ** 2 / (Lam * n**2 * eps_p**2)


def objpert_noise_norm_quantile(
    d: int, eps_p: float, delta: float, *, exact: bool = False
) -> float:
    """High-probability bound on ‖b‖ for b with density ∝ exp(−(ε_p/2)‖b‖) on ℝ^d.

    Parameters
    ----------
    d : int
        Dimension of b.
    eps_p : float
        Privacy level ε_p > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    exact : bool, default=False
        False: the bound used by the paper (CM08 Lemma), 2d·ln(d/δ)/ε_p.
        True: the exact (1 − δ)-quantile of ‖b‖ ∼ Gamma(d, scale 2/ε_p) (not in
        paper), which is never larger for δ ∈ (0, 1).

    Returns
    -------
    float
        A value t with P(‖b‖ ≤ t) ≥ 1 − δ (= 1 − δ for ``exact=True``).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [S] proof of Theorem 2 (via Chaudhuri & Monteleoni 2008, Lemma 5),
    arXiv:0912.0071.

    Examples
    --------
    >>> round(objpert_noise_norm_quantile(1, 2.0, 0.5), 12)
    0.69314718056
    >>> round(objpert_noise_norm_quantile(1, 2.0, 0.5, exact=True), 12)
    0.69314718056
    """
    eps_p = check_positive(eps_p, "eps_p")
    delta = check_open_unit(delta, "delta")
    d = check_int(d, "d")
    if exact:
        # Not in paper: ‖b‖ ∼ Gamma(d, scale 2/ε_p); its (1 − δ)-quantile.
        return (2.0 / eps_p) * float(gammainccinv(d, delta))
    # [S] Thm 2 proof / CM08: ‖b‖ ≤ 2d ln(d/δ)/ε_p with probability ≥ 1 − δ.
    return 2.0 * d * math.log(d / delta) / eps_p


def tuning_error_slack(m: int, eps_p: float, delta: float) -> float:
    """Slack of the private parameter-tuning step ([S] Thm 7).

    Parameters
    ----------
    m : int
        Number of candidate regularisation values.
    eps_p : float
        Privacy level ε_p > 0 of the exponential mechanism.
    delta : float
        Failure probability δ ∈ (0, 1).

    Returns
    -------
    float
        (2/ε_p)·ln(m/δ): with probability ≥ 1 − δ the chosen classifier makes at
        most z_min + this many mistakes on the validation part.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [S] Theorem 7 (Algorithm 3), arXiv:0912.0071.

    Examples
    --------
    >>> round(tuning_error_slack(7, 1.0, 0.07), 6)
    9.21034
    """
    delta = check_open_unit(delta, "delta")
    m = check_int(m, "m")
    eps_p = check_positive(eps_p, "eps_p")
    # [S] Thm 7: z ≤ z_min + (2/ε_p) ln(m/δ) w.p. ≥ 1 − δ.
    return (2.0 / eps_p) * math.log(m / delta)


def unit_ball_volume(d: int) -> float:
    """Volume of the Euclidean unit ball in ℝ^d, π^{d/2}/Γ(d/2 + 1).

    Parameters
    ----------
    d : int
        Dimension.

    Returns
    -------
    float
        Vol(𝒳) for 𝒳 the unit ball (used in [S] Thm 4 and Thm 5).

    Raises
    ------
    ValueError
        If d < 1.

    References
    ----------
    [S] Section 4.4, arXiv:0912.0071.

    Examples
    --------
    >>> round(unit_ball_volume(3), 12)
    4.188790204786
    """
    d = check_int(d, "d")
    # Vol = π^{d/2}/Γ(d/2 + 1), in logs so large d does not overflow.
    return math.exp(0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1.0))


def cor2_sample_complexity(
    f_norm: float,
    d: int,
    eps_p: float,
    eps_g: float,
    delta: float,
    constant: float = 1.0,
) -> float:
    """Order-only sample complexity of the private linear SVM ([S] Cor. 2).

    Parameters
    ----------
    f_norm : float
        ‖f*‖₂ of the reference classifier.
    d : int
        Feature dimension.
    eps_p : float
        Privacy level ε_p > 0.
    eps_g : float
        Target excess (Huber) risk ε_g > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    constant : float, default=1.0
        Multiplier for the unknown constant of Ω(·).

    Returns
    -------
    float
        The expression constant · max{‖f*‖²/ε_g², ‖f*‖·d·ln(d/δ)/(ε_p ε_g)}.
        Order only: the paper gives no constant, so this is not a sufficient n.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [S] Corollary 2, eq. (15), arXiv:0912.0071.

    Examples
    --------
    >>> round(cor2_sample_complexity(1.0, 1, 1.0, 0.1, math.exp(-1)), 9)
    100.0
    """
    eps_p = check_positive(eps_p, "eps_p")
    delta = check_open_unit(delta, "delta")
    constant = check_positive(constant, "constant")
    f_norm = check_positive(f_norm, "f_norm")
    d = check_int(d, "d")
    eps_g = check_positive(eps_g, "eps_g")
    # [S] Cor. 2, eq. (15): n = Ω(max{‖f*‖²/ε_g², ‖f*‖ d log(d/δ)/(ε_p ε_g)}).
    return constant * max(
        f_norm**2 / eps_g**2, f_norm * d * math.log(d / delta) / (eps_p * eps_g)
    )


def lemma1_sample_complexity(
    a_bound: float,
    eps_p: float,
    eps_g: float,
    delta: float,
    constant: float = 1.0,
) -> float:
    """Order-only sample complexity of the private kernel SVM ([S] Lemma 1).

    Parameters
    ----------
    a_bound : float
        The bound C on |a*(θ)| in f*(x) = ∫a*(θ)φ(x; θ)p(θ)dθ ([S]'s C, not a
        regularisation weight).
    eps_p : float
        Privacy level ε_p > 0.
    eps_g : float
        Target excess risk ε_g > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    constant : float, default=1.0
        Multiplier for the unknown constant of Ω(·).

    Returns
    -------
    float
        The expression constant · C²√ln(1/δ)/(ε_p ε_g²) · ln(C ln(1/δ)/(ε_g δ)).
        Order only.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [S] Lemma 1, eq. (25), arXiv:0912.0071.

    Examples
    --------
    >>> round(lemma1_sample_complexity(1.0, 1.0, 1.0, math.exp(-1)), 9)
    1.0
    """
    eps_p = check_positive(eps_p, "eps_p")
    eps_g = check_positive(eps_g, "eps_g")
    delta = check_open_unit(delta, "delta")
    constant = check_positive(constant, "constant")
    a_bound = check_positive(a_bound, "a_bound")
    log_inv = math.log(1.0 / delta)
    # [S] Lemma 1, eq. (25):
    # n = Ω(C²√log(1/δ)/(ε_p ε_g²) · log(C log(1/δ)/(ε_g δ))).
    return (
        constant
        * a_bound**2
        * math.sqrt(log_inv)
        / (eps_p * eps_g**2)
        * math.log(a_bound * log_inv / (eps_g * delta))
    )


def _volume(d: int, volume: float | None) -> float:
    return unit_ball_volume(d) if volume is None else check_positive(volume, "volume")


def _feature_bound_sample_complexity(
    norm: float,
    norm_name: str,
    power: int,
    zeta: float,
    d: int,
    eps_p: float,
    eps_g: float,
    delta: float,
    constant: float,
    volume: float | None,
) -> float:
    """The common form of [S] Theorems 4 and 5, eqs. (38)-(39) (``norm`` checked).

    constant · norm^p ζ² Vol² √log(1/δ)/(ε_p ε_g^p)
    · log(norm · Vol · ζ · log(1/δ)/(ε_g δ Γ(d/2 + 1))), p = ``power``.
    """
    norm = check_positive(norm, norm_name)
    vol = _volume(d, volume)
    log_inv = math.log(1.0 / delta)
    log_term = math.log(norm * vol * zeta * log_inv / (eps_g * delta)) - math.lgamma(
        0.5 * d + 1.0
    )
    return (
        constant
        * norm**power
        * zeta**2
        * vol**2
        * math.sqrt(log_inv)
        / (eps_p * eps_g**power)
        * log_term
    )


def thm4_sample_complexity(
    f_inf_norm: float,
    zeta: float,
    d: int,
    eps_p: float,
    eps_g: float,
    delta: float,
    constant: float = 1.0,
    volume: float | None = None,
) -> float:
    """Order-only sample complexity against a bounded ‖f*‖_∞ ([S] Thm 4).

    Parameters
    ----------
    f_inf_norm : float
        ‖f*‖_∞ of the reference classifier.
    zeta : float
        Bound ζ on |φ(x; θ)| (√2 for the random-phase cosine map).
    d : int
        Input dimension.
    eps_p : float
        Privacy level ε_p > 0.
    eps_g : float
        Target excess risk ε_g > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    constant : float, default=1.0
        Multiplier for the unknown constant of Ω(·).
    volume : float, optional
        Vol(𝒳); defaults to :func:`unit_ball_volume` (d).

    Returns
    -------
    float
        The expression constant · ‖f*‖²_∞ζ²Vol²√ln(1/δ)/(ε_p ε_g²)
        · ln(‖f*‖_∞ Vol ζ ln(1/δ)/(ε_g δ Γ(d/2 + 1))), as printed in eq. (38).
        Order only.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    The proof substitutes C = Vol(𝒳)·ζ·‖f*‖_∞ into Lemma 1; the printed eq. (38)
    additionally divides the argument of the logarithm by Γ(d/2 + 1). This
    function follows the printed statement.

    References
    ----------
    [S] Theorem 4, eq. (38), arXiv:0912.0071.

    Examples
    --------
    >>> f"{thm4_sample_complexity(1.0, math.sqrt(2), 2, 1.0, 0.1, 0.01):.6g}"
    '42047.2'
    """
    zeta = check_positive(zeta, "zeta")
    d = check_int(d, "d")
    eps_p = check_positive(eps_p, "eps_p")
    eps_g = check_positive(eps_g, "eps_g")
    delta = check_open_unit(delta, "delta")
    constant = check_positive(constant, "constant")
    # [S] Thm 4, eq. (38): n = Ω(‖f*‖²_∞ζ²Vol²√log(1/δ)/(ε_p ε_g²)
    #                          · log(‖f*‖_∞ Vol ζ log(1/δ)/(ε_g δ Γ(d/2+1)))).
    return _feature_bound_sample_complexity(
        f_inf_norm, "f_inf_norm", 2, zeta, d, eps_p, eps_g, delta, constant, volume
    )


def thm5_sample_complexity(
    f_h_norm: float,
    zeta: float,
    d: int,
    eps_p: float,
    eps_g: float,
    delta: float,
    constant: float = 1.0,
    volume: float | None = None,
) -> float:
    """Order-only sample complexity against a bounded ‖f*‖_H ([S] Thm 5).

    Parameters
    ----------
    f_h_norm : float
        RKHS norm ‖f*‖_H of the reference classifier.
    zeta : float
        Bound ζ on |φ(x; θ)| (√2 for the random-phase cosine map).
    d : int
        Input dimension.
    eps_p : float
        Privacy level ε_p > 0.
    eps_g : float
        Target excess risk ε_g > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    constant : float, default=1.0
        Multiplier for the unknown constant of Ω(·).
    volume : float, optional
        Vol(𝒳); defaults to :func:`unit_ball_volume` (d).

    Returns
    -------
    float
        The expression constant · ‖f*‖⁴_H ζ²Vol²√ln(1/δ)/(ε_p ε_g⁴)
        · ln(‖f*‖_H Vol ζ ln(1/δ)/(ε_g δ Γ(d/2 + 1))), as printed in eq. (39).
        Order only.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    The proof's eq. (45) has ‖f*‖²_H and ε_g² inside the logarithm; this function
    follows the statement, eq. (39).

    References
    ----------
    [S] Theorem 5, eq. (39), arXiv:0912.0071.

    Examples
    --------
    >>> f"{thm5_sample_complexity(1.0, math.sqrt(2), 2, 1.0, 0.1, 0.01):.6g}"
    '4.20472e+06'
    """
    zeta = check_positive(zeta, "zeta")
    d = check_int(d, "d")
    eps_p = check_positive(eps_p, "eps_p")
    eps_g = check_positive(eps_g, "eps_g")
    delta = check_open_unit(delta, "delta")
    constant = check_positive(constant, "constant")
    # [S] Thm 5, eq. (39): n = Ω(‖f*‖⁴_H ζ² Vol² √log(1/δ)/(ε_p ε_g⁴)
    #                          · log(‖f*‖_H Vol ζ log(1/δ)/(ε_g δ Γ(d/2+1)))).
    return _feature_bound_sample_complexity(
        f_h_norm, "f_h_norm", 4, zeta, d, eps_p, eps_g, delta, constant, volume
    )


# ---------------------------------------------------------------------------
# Calibration helpers used by the estimators
# ---------------------------------------------------------------------------


def objective_perturbation_epsilon_prime(
    epsilon: float, n: int, lam: float, c: float
) -> tuple[float, float]:
    """Privacy level of the noise and extra regulariser for objective perturbation.

    Implements the correction of [CMS11] Algorithm 2 for the Jacobian of
    b ↦ f_priv that the proof of [S] Theorem 1 omits ([CMS11] Theorem 9 bounds it):

    1. ε′ = ε − ln(1 + 2c/(nΛ) + c²/(n²Λ²));
    2. if ε′ > 0, Δ = 0; otherwise Δ = c/(n(e^{ε/4} − 1)) − Λ and ε′ = ε/2;
    3. the noise b has density ∝ exp(−(ε′/2)‖b‖) and the objective gains
       (1/n)bᵀf + (Δ/2)‖f‖².

    Parameters
    ----------
    epsilon : float
        Target privacy level ε > 0.
    n : int
        Number of records.
    lam : float
        Regularisation weight Λ > 0 of (1/n)Σℓ + (Λ/2)‖f‖².
    c : float
        Bound on |ℓ″| (Huber with half-width h: 1/(2h); logistic: ¼).

    Returns
    -------
    eps_prime : float
        The level ε′ > 0 used to calibrate the noise.
    Delta : float
        Δ ≥ 0, the extra ridge weight (0 when ε′ > 0 in step 1).

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    Privacy: replace-one neighbours; ε-DP for the minimiser of
    (1/n)Σℓ + (Λ/2)‖f‖² + (Δ/2)‖f‖² + (1/n)bᵀf when ‖x‖ ≤ 1, the loss is convex,
    differentiable with |ℓ′| ≤ 1 and |ℓ″| ≤ c, and the minimiser is exact. In
    the second branch ln(1 + c/(n(Λ + Δ)))² = ε/2 exactly.

    References
    ----------
    [CMS11] Algorithm 2 and Theorem 9, JMLR 12 (2011); [S] Theorem 1,
    arXiv:0912.0071 (the uncorrected version).

    Examples
    --------
    >>> eps_prime, Delta = objective_perturbation_epsilon_prime(0.05, 40000, 1e-3, 1.0)
    >>> round(eps_prime, 6), Delta
    (0.000615, 0.0)
    """
    n = check_int(n, "n")
    lam = check_positive(lam, "lam")
    epsilon = check_positive(epsilon, "epsilon")
    c = check_positive(c, "c")
    # [CMS11] Alg. 2 / Thm 9, written once in dpsvm.perturbation.
    cal = objective_perturbation_calibration(epsilon, n, lam, c)
    return cal.epsilon_prime, cal.extra_regularization


def output_perturbation_l2_sensitivity(
    n: int, lam: float, L: float = 1.0, R: float = 1.0
) -> float:
    """L2 sensitivity of the regularised ERM minimiser (output perturbation).

    Parameters
    ----------
    n : int
        Number of records.
    lam : float
        Regularisation weight Λ > 0 of (1/n)Σℓ + (Λ/2)‖f‖².
    L : float, default=1.0
        Lipschitz constant of the loss in its prediction argument.
    R : float, default=1.0
        Public bound on the feature norm ‖x‖₂.

    Returns
    -------
    float
        2LR/(nΛ). Releasing f* + b with ‖b‖ ∼ Gamma(d, scale 2LR/(nΛε)) and a
        uniform direction (density ∝ exp(−ε‖b‖/Δ₂)) is ε-DP.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    Privacy: replace-one neighbours; the objective is Λ-strongly convex and one
    replaced record moves the loss gradient by at most 2LR/n, so the exact
    minimiser moves by at most 2LR/(nΛ). Holds for any convex L-Lipschitz loss,
    hinge included. Needs a data-independent R and the exact minimiser.

    References
    ----------
    [CMS11] Corollary 8, JMLR 12 (2011); Chaudhuri & Monteleoni (NIPS 2008);
    [S] Section 2 ("sensitivity method"), arXiv:0912.0071.

    Examples
    --------
    >>> output_perturbation_l2_sensitivity(100, 0.1)
    0.2
    """
    n = check_int(n, "n")
    lam = check_positive(lam, "lam")
    L = check_positive(L, "L")
    R = check_positive(R, "R")
    # [CMS11] Cor. 8: ‖f*(D) − f*(D′)‖₂ ≤ 2LR/(nΛ) (2L/(nΛ) on the unit ball,
    # written once in dpsvm.perturbation, times the row-norm bound R).
    return output_l2_sensitivity(n, lam, L) * R
