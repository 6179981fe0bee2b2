# SPDX-License-Identifier: BSD-3-Clause
"""Noise calibrations of the linear mechanisms, each at its source.

All formulas are stated for the *internal* problem on the unit ball:

    J(w) = (1/n) Σ ℓ(yᵢ wᵀx̃ᵢ) + (λ/2)‖w‖²,   ‖x̃ᵢ‖ ≤ 1,

with ℓ L-Lipschitz (and |ℓ″| ≤ c where stated). Estimators map a public row-norm
bound R to this form by x̃ = x/R, λ = Λ/R² (then wᵀx̃ = (w/R)ᵀx), so that the
released coefficients w/R have sensitivity Δ/R.

Neighbouring relation throughout: replace-one (datasets of equal size n that
differ in one record), as in both papers.

Public weights. A weighted fit minimises (1/n) Σ ωᵢ ℓ(yᵢwᵀx̃ᵢ) + (λ/2)‖w‖² (divided
by n, never by Σωᵢ, which is private) with every ωᵢ in [0, W] for a *public*
bound W (class weights × clipped sample weights). The weight is part of the
record, so each per-example loss ωℓ is W·L-Lipschitz with |(ωℓ)″| ≤ W·c:
every calibration below takes ``max_weight`` = W and uses the constants of
:func:`weighted_loss_constants` (written once, there).

CMS11 = Chaudhuri, Monteleoni & Sarwate, "Differentially private empirical risk
minimization", JMLR 12 (2011).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "AUTO_CORRECTION_SHARE_KERNEL",
    "AUTO_CORRECTION_SHARE_LINEAR",
    "RESIDUAL_EPSILON_FRACTION",
    "ObjectiveCalibration",
    "ResidualCalibration",
    "approximate_minimiser_calibration",
    "auto_regularization",
    "check_max_weight",
    "objective_perturbation_calibration",
    "output_l2_sensitivity",
    "output_laplace_scale",
    "rubinstein_l2_sensitivity",
    "weighted_loss_constants",
]


def check_max_weight(max_weight: float) -> float:
    """The public weight bound W as a float, refused unless finite and > 0.

    Parameters
    ----------
    max_weight : float
        The public bound W on every example weight.

    Returns
    -------
    float
        W.

    Examples
    --------
    >>> check_max_weight(2)
    2.0
    """
    w = float(max_weight)
    if not (math.isfinite(w) and w > 0):
        raise ValueError(
            "The public maximum weight must be a finite number > 0; got "
            f"{max_weight!r}."
        )
    return w


def weighted_loss_constants(
    lipschitz: float, smoothness: float | None, max_weight: float = 1.0
) -> tuple[float, float | None]:
    """Lipschitz constant and curvature bound of a weighted per-example loss.

    A weighted ERM multiplies each example's loss by its weight ωᵢ ∈ [0, W]
    (W public). Under replace-one neighbours the replaced record carries its own
    weight, so the per-example loss ωℓ is ω·L ≤ W·L Lipschitz and
    |(ωℓ)″| = ω|ℓ″| ≤ W·c. Every calibration of this module is stated for a loss
    with these constants: Chaudhuri, Monteleoni & Sarwate (2011), Theorem 9
    (objective perturbation; its proof uses only ‖∇ℓ‖ ≤ L‖x‖ and |ℓ″| ≤ c, which
    hold with W·L and W·c), Corollary 8 (output perturbation, Δ₂ = 2·W·L/(nλ)) and
    Rubinstein et al. Lemma 6 (4·W·L/(nλ)). Correction to the papers as applied
    to weights: they assume unit weights (L ≤ 1 and c as stated); with weights
    both constants scale by the public bound W, never by the weights' private
    sum, and the objective stays divided by n.

    Parameters
    ----------
    lipschitz : float
        L of the unweighted loss.
    smoothness : float or None
        c ≥ |ℓ″| of the unweighted loss (``None``: no curvature bound).
    max_weight : float, default=1.0
        The public bound W on every weight.

    Returns
    -------
    tuple of (float, float or None)
        (W·L, W·c).

    Examples
    --------
    >>> weighted_loss_constants(1.0, 0.25, 4.0)
    (4.0, 1.0)
    """
    w = check_max_weight(max_weight)
    # CMS11 Thm 9 / Cor. 8 with the weighted loss ωℓ, ω ≤ W: L → W·L, c → W·c.
    return w * lipschitz, None if smoothness is None else w * smoothness


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
    max_weight : float
        The public weight bound W (1 for an unweighted fit): the gradient of the
        replaced record moves by at most 2W, so b has density ∝ exp(−(ε′/(2W))‖b‖).
    """

    epsilon_prime: float
    extra_regularization: float
    noise_scale: float
    variant: str
    max_weight: float = 1.0


def objective_perturbation_calibration(
    epsilon: float,
    n: int,
    lam: float,
    c: float,
    *,
    variant: str = "jmlr2011",
    max_weight: float = 1.0,
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
    & Monteleoni, arXiv:0912.0071, Alg. 1 with eq. (9)'s (1/n)bᵀf term and
    density ∝ exp(−(ε/2)‖b‖): ε′ = ε, Δ = 0. The proof of their Theorem 1
    omits the Jacobian of b ↦ f_priv, so it is **not** guaranteed
    ε-DP; it exists only to reproduce that paper's tables. The literal β = ε·n of
    the printed Alg. 1 (correction: with the (1/n)bᵀf term it adds n times too
    little noise) is not offered.

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
    max_weight : float, default=1.0
        Public bound W on the example weights: the loss constants become
        (W·L, W·c) (:func:`weighted_loss_constants`), so c is replaced by W·c in
        steps 1-2 and ‖b‖ ~ Gamma(d, 2W/ε′) in step 3.

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
    # Weighted losses (ωᵢ ≤ W): gradient bound L = 1 → W, curvature c → W·c.
    lip_w, c_w = weighted_loss_constants(1.0, c, max_weight)
    assert c_w is not None
    if variant == "sarwate2009":
        # Sarwate et al. Alg. 1 + eq. (9): density ∝ exp(−(ε/2)‖b‖), (1/n)bᵀf term.
        return ObjectiveCalibration(epsilon, 0.0, 2.0 * lip_w / epsilon, variant, lip_w)
    if variant != "jmlr2011":
        raise ValueError(f"Unknown objective-perturbation variant {variant!r}.")
    c = c_w
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
    # CMS11 Algorithm 2, step 3: ν(b) ∝ exp(−(ε′/2)‖b‖) ⇒ ‖b‖ ~ Gamma(d, 2/ε′);
    # with weights ≤ W the replaced gradient moves by 2W: ‖b‖ ~ Gamma(d, 2W/ε′).
    return ObjectiveCalibration(
        eps_prime, max(delta_reg, 0.0), 2.0 * lip_w / eps_prime, variant, lip_w
    )


#: Share of ε that objective perturbation spends on the certified residual of the
#: solver (:func:`approximate_minimiser_calibration`); the rest, ε_op = (1 − f)·ε,
#: goes to the mechanism of Chaudhuri, Monteleoni & Sarwate (2011), Alg. 2.
RESIDUAL_EPSILON_FRACTION = 0.01


@dataclass(frozen=True)
class ResidualCalibration:
    """Calibration of the noise that covers an approximate minimiser.

    Attributes
    ----------
    epsilon_residual : float
        The ε_r charged for the residual.
    sensitivity : float
        Δ_r = 2τ/Λ, twice the certified distance to the exact minimiser.
    noise_scale : float
        Scale Δ_r/ε_r of ‖Z‖ ~ Gamma(d, Δ_r/ε_r).
    """

    epsilon_residual: float
    sensitivity: float
    noise_scale: float


def approximate_minimiser_calibration(
    epsilon_residual: float, tol: float, strong_convexity: float
) -> ResidualCalibration:
    """Noise that makes a release from a certified approximate minimiser private.

    Let J be Λ-strongly convex with exact minimiser w*, and let the solver return
    w with ‖∇J(w)‖₂ ≤ τ, τ a *public* tolerance. Strong convexity gives
    (∇J(w) − ∇J(w*))ᵀ(w − w*) ≥ Λ‖w − w*‖², and ∇J(w*) = 0, so by
    Cauchy–Schwarz ‖w − w*‖₂ ≤ τ/Λ. Releasing w + Z with Z of density
    ∝ exp(−ε_r‖z‖₂/Δ_r), Δ_r = 2τ/Λ, the triangle inequality bounds the ratio of
    the densities of w + Z and w* + Z at every point by exp(ε_r·(τ/Λ)/Δ_r) =
    exp(ε_r/2) in each direction. If w* (as a function of the data and of the
    mechanism's own noise) is ε_op-DP, then w + Z is (ε_op + ε_r)-DP: one factor
    e^{ε_r/2} to pass from D to the exact minimiser, e^{ε_op} for w* + Z (a
    post-processing of w*), and e^{ε_r/2} back to D'. This is the pure-DP analogue
    of Iyengar et al. (2019), Theorem 1 ("approximate minima perturbation", which
    uses Gaussian noise); the proof is written out in docs/privacy.md (section 4).

    Parameters
    ----------
    epsilon_residual : float
        ε_r > 0 charged for the residual.
    tol : float
        The public tolerance τ > 0 that the solver certifies on ‖∇J‖₂ (never the
        achieved, data-dependent value).
    strong_convexity : float
        Λ > 0, the strong-convexity modulus of J (regularisation plus any Δ).

    Returns
    -------
    ResidualCalibration
        ε_r, Δ_r and the Gamma scale of ‖Z‖.

    References
    ----------
    .. [1] R. Iyengar, J. P. Near, D. Song, O. Thakkar, A. Thakurta, L. Wang,
       "Towards practical differentially private convex optimization", IEEE S&P
       2019, Theorem 1.

    Examples
    --------
    >>> cal = approximate_minimiser_calibration(0.01, 1e-10, 1e-3)
    >>> cal.sensitivity, round(cal.noise_scale, 12)
    (2e-07, 2e-05)
    """
    # ‖w − w*‖ ≤ τ/Λ (Λ-strong convexity); both neighbours' approximate
    # minimisers may be off by it, so Δ_r = 2τ/Λ and ‖Z‖ ~ Gamma(d, Δ_r/ε_r)
    # (pure-DP analogue of Iyengar et al. 2019, Thm 1).
    sens = 2.0 * tol / strong_convexity
    return ResidualCalibration(epsilon_residual, sens, sens / epsilon_residual)


def output_l2_sensitivity(
    n: int, lam: float, lipschitz: float = 1.0, max_weight: float = 1.0
) -> float:
    """L2 sensitivity 2L/(nλ) of the regularised ERM minimiser on the unit ball.

    Chaudhuri, Monteleoni & Sarwate (2011), Corollary 8 (the "sensitivity method"
    baseline of Sarwate et al., arXiv:0912.0071). The strong-convexity argument (sum the
    two λ-strong-convexity inequalities; the loss difference of the replaced record is
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
    max_weight : float, default=1.0
        Public bound W on the example weights (:func:`weighted_loss_constants`).

    Returns
    -------
    float
        2LW/(nλ).

    Examples
    --------
    >>> output_l2_sensitivity(100, 0.1)
    0.2
    """
    lip_w, _ = weighted_loss_constants(lipschitz, None, max_weight)
    # CMS11 Cor. 8 for the weighted loss: Δ₂ = 2·(W·L)/(nλ).
    return 2.0 * lip_w / (n * lam)


def rubinstein_l2_sensitivity(
    n: int, lam: float, lipschitz: float = 1.0, max_weight: float = 1.0
) -> float:
    """L2 sensitivity 4LCκ/n of Rubinstein et al. Lemma 6 / 21 with C = 1/λ, κ = 1.

    Rubinstein, Bartlett, Huang & Taft, arXiv:0911.5708, Lemma 6 (Lemma 21 for
    subgradients). It is a factor 2 looser than :func:`output_l2_sensitivity`; the
    paper's constant is kept for PRIVATESVM-FINITE (their Algorithm 2).

    Parameters
    ----------
    n : int
        Number of rows.
    lam : float
        Regularisation λ > 0 of the unit-ball problem (C = 1/λ).
    lipschitz : float, default=1.0
        The loss's Lipschitz constant L.
    max_weight : float, default=1.0
        Public bound W on the example weights (:func:`weighted_loss_constants`).

    Returns
    -------
    float
        4LW/(nλ).

    Examples
    --------
    >>> rubinstein_l2_sensitivity(100, 0.1)
    0.4
    """
    lip_w, _ = weighted_loss_constants(lipschitz, None, max_weight)
    # Rubinstein et al. Lemma 6 for the weighted loss: 4·(W·L)/(nλ).
    return 4.0 * lip_w / (n * lam)


def output_laplace_scale(
    epsilon: float,
    n: int,
    lam: float,
    n_features: int,
    lipschitz: float = 1.0,
    max_weight: float = 1.0,
) -> float:
    """Laplace scale λ_L = 4LCκ√F/(εn) of PRIVATESVM-FINITE (Rubinstein et al. Thm 7).

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
    max_weight : float, default=1.0
        Public bound W on the example weights (:func:`weighted_loss_constants`).

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
        rubinstein_l2_sensitivity(n, lam, lipschitz, max_weight)
        * math.sqrt(n_features)
        / epsilon
    )


#: ``regularization="auto"`` of the linear estimators: the share f of ε that the
#: CMS11 correction may take (tuned on a validation split of the Adult training
#: rows; docs/defaults.md).
AUTO_CORRECTION_SHARE_LINEAR = 0.1
#: ``regularization="auto"`` of :class:`~dpsvm.models.DPKernelSVC`: f = 1/2 is
#: CMS11's own fallback value c/(n(e^{ε/4} − 1)) (Alg. 2, step 2) at c = 1, the
#: smallest λ that algorithm ever uses (chosen on a validation draw of the
#: nested balls, never on test rows; docs/defaults.md).
AUTO_CORRECTION_SHARE_KERNEL = 0.5


def auto_regularization(
    epsilon: float,
    n: int,
    c: float | None,
    share: float = AUTO_CORRECTION_SHARE_LINEAR,
    max_weight: float = 1.0,
) -> float:
    """A-priori λ of the unit-ball problem from public quantities only.

    The λ at which the objective-perturbation correction of Chaudhuri,
    Monteleoni & Sarwate (JMLR 12, 2011, Algorithm 2, step 1) takes the share f
    of ε, floored at 1/n:

        ln(1 + 2c/(nλ) + c²/(n²λ²)) = 2 ln(1 + c/(nλ)) = f·ε
        ⇔ λ = c / (n (e^{fε/2} − 1))  ≈ 2c/(f·n·ε)  for small fε,

    so ε′ = (1 − f)ε and the fallback Δ of step 2 never applies. λ ∝ 1/(nε) is
    the scaling of the privacy term of their utility bound (Theorem 18: the
    condition n > C·c‖w₀‖²/(ε_g ε_p) with Λ = ε_g/‖w₀‖² reads Λ > C·c/(nε_p)),
    and the same 1/(nε) scaling makes the output-perturbation noise
    ‖b‖ ∝ d/(nλε) (Corollary 8) independent of n and ε. The floor 1/n
    (scikit-learn's C = 1) keeps the problem regularised when ε is large. Only
    public quantities enter: n (public under replace-one neighbours), ε, and the
    loss's curvature bound c, used as max(c, 1): the noise term ‖b‖/(nλ) does
    not involve c, so a smoother loss (logistic c = 1/4) keeps the λ of c = 1
    and its correction simply costs less than fε; losses without a curvature
    bound (the hinge, output mechanisms only) take c = 1.

    Parameters
    ----------
    epsilon : float
        ε of one binary problem (ε/K under one-vs-rest).
    n : int
        Number of training rows.
    c : float or None
        Bound on |ℓ″| of the loss (used as max(c, 1)).
    share : float, default=AUTO_CORRECTION_SHARE_LINEAR
        f in (0, 1).
    max_weight : float, default=1.0
        Public bound W on the example weights: the weighted loss has curvature
        bound W·max(c, 1) (:func:`weighted_loss_constants`), so λ scales by W
        (the floor 1/n does not).

    Returns
    -------
    float
        λ of the unit-ball problem (the estimator's Λ is λ·R²).

    Examples
    --------
    >>> lam = auto_regularization(0.5, 30162, 1.0)
    >>> round(lam * 30162 * 0.5, 2)  # ≈ 2/f = 20
    19.75
    """
    c = 1.0 if c is None else max(float(c), 1.0)
    c = weighted_loss_constants(1.0, c, max_weight)[1] or c  # W·max(c, 1)
    # CMS11 Alg. 2 step 1 solved for λ at ε − ε′ = f·ε: λ = c/(n(e^{fε/2} − 1)).
    x = share * epsilon / 2.0
    lam = c / (n * math.expm1(x)) if x < 700.0 else 0.0  # e^{700} ≈ 1e304
    return max(lam, 1.0 / n) if math.isfinite(lam) else 1.0 / n
