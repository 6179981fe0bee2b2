# SPDX-License-Identifier: BSD-3-Clause
"""Calculators for [NW]: W. Nie, C. Wang, "Perturbation of convex risk minimization
and its application in differential private learning algorithms", Journal of
Inequalities and Applications (SpringerOpen).

Setting: f_z = argmin_{f ∈ H_K} (1/m)Σ L(f(xᵢ), yᵢ) + λΩ(f), with Ω γ-strongly
convex w.r.t. ‖·‖_K (Ω = ‖f‖²_K has γ = 2), the loss C_L-Lipschitz in its first
argument, κ = sup √K(x, x), |y| ≤ M, and replace-one neighbours. ``m`` is the
sample size and ``eps`` the (pure) privacy level, assumed < 1 where the paper's
Theorem 3 is used. The regulariser λ here is NW's: the strong-convexity modulus
is λγ (so λ_JT = 2·λ_NW for (λ/2)‖w‖²).

Corrections to the printed paper handled here (see also ``docs/nie_wang.md``,
"Which printed mechanism is not private, and why"):

* Noise scale: Lemma 1 with B_Δ = 2κ²C_L/(λγm) needs Laplace scale B_Δ/ε, but
  Prop. 1 (and Sec. 5) use half of it, which by Lemma 1's own argument is only
  2ε-DP. ``noise_convention="lemma1"`` (default) is the consistent one;
  ``"prop1"`` reproduces the paper.
* Prop. 2 prints B̃ = 2(B₀ + λΩ(0)) in 2B̃ε, but its proof (via Thm 3) and the
  proof of Thm 4 give 2(B₀ + λΩ(0))ε.
* Prop. 3 prints κ²C_L/(λγmε); C_L·E|b| is κ²C_L²/(λγmε) with Prop. 1 noise and
  2κ²C_L²/(λγmε) with Lemma 1 noise (a factor C_L is dropped).
* Thm 4's closed-form constant omits the 2√(2π)B_ρ term of Prop. 4.
* The scalar offset f_z + b of the paper is not differential privacy in the
  standard sense (the outputs of neighbours have disjoint supports); the noise
  scales here are still the right ones for honest variants (per-query Laplace
  answers, vector output perturbation in a finite feature space).
* The parameter rules make ε a decreasing function of m: a theoretical device,
  not a way to choose the privacy level.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Literal

from ..utils._checks import (
    check_int,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from ..utils._docstrings import Check, fill_and_check_params

__all__ = [
    "nw_general_rate_exponent",
    "nw_ls_lipschitz",
    "nw_ls_noise_scale",
    "nw_ls_noise_second_moment",
    "nw_noise_scale",
    "nw_param_rule_general",
    "nw_param_rule_ls",
    "nw_param_rule_svm",
    "nw_prop2_bound",
    "nw_prop3_bound",
    "nw_prop4_bound",
    "nw_sensitivity_thm1",
    "nw_sensitivity_thm2",
    "nw_sup_sensitivity",
    "nw_sup_sensitivity_thm1",
    "nw_svm_noise_scale",
    "nw_svm_rate_exponent",
    "nw_thm3_bound",
    "nw_thm4_bound",
    "nw_thm4_rate_constant",
]

NoiseConvention = Literal["lemma1", "prop1"]
Variant = Literal["printed", "corrected"]

# numpydoc entries of the parameters the [NW] formulas share, and below the check
# of the range each entry states (see fill_and_check_params).
_PARAMS: dict[str, str] = {
    "B0": ("float\nBound with E_z(0) ≤ B₀."),
    "beta": "float\nApproximation-error exponent, 0 < β ≤ 1.",
    "C_L": "float\nLipschitz constant of the loss in its first argument.",
    "eps": "float\nPrivacy level ε > 0.",
    "eps@below_one": "float\nPrivacy level, 0 < ε < 1.",
    "gamma": "float\nStrong-convexity modulus γ of Ω (2 for ‖f‖²_K).",
    "kappa": "float\nKernel bound κ = sup √K(x, x) over the declared input domain.",
    "lam": "float\nRegularisation weight λ > 0.",
    "lam@at_most_one": "float\nRegularisation weight, 0 < λ ≤ 1.",
    "m": "int\nSample size.",
    "M": "float\nBound on |y|.",
    "m@at_least_two": "int\nSample size, m ≥ 2.",
    "noise_convention": (
        '{"lemma1", "prop1"}, default="lemma1"\n'
        'Noise used by the corrected variant (ignored by "printed").'
    ),
    "Omega0": ("float\nΩ(0) (0 for Ω = ‖f‖²_K)."),
}


def _check_convention(
    noise_convention: str, name: str = "noise_convention"
) -> NoiseConvention:
    if noise_convention == "lemma1":
        return "lemma1"
    if noise_convention == "prop1":
        return "prop1"
    raise ValueError(
        f"noise_convention must be 'lemma1' or 'prop1', got {noise_convention!r}."
    )


def _check_variant(variant: str) -> Variant:
    if variant == "printed":
        return "printed"
    if variant == "corrected":
        return "corrected"
    raise ValueError(f"variant must be 'printed' or 'corrected', got {variant!r}.")


def _check_beta(beta: float, name: str = "beta") -> float:
    beta = check_positive(beta, name)
    if beta > 1.0:
        raise ValueError(
            f"beta (approximation-error exponent) must be in (0, 1], got {beta}."
        )
    return beta


def _check_lam_at_most_one(lam: float, name: str) -> float:
    lam = check_positive(lam, name)
    if lam > 1.0:
        raise ValueError(f"[NW] Sec. 5.1 needs lam <= 1, got {lam}.")
    return lam


_CHECKS: dict[str, Check] = {
    "B0": check_nonnegative,
    "beta": _check_beta,
    "C_L": check_positive,
    "eps": check_positive,
    "eps@below_one": check_open_unit,
    "gamma": check_positive,
    "kappa": check_positive,
    "lam": check_positive,
    "lam@at_most_one": _check_lam_at_most_one,
    "m": check_int,
    "m@at_least_two": partial(check_int, minimum=2),
    "noise_convention": _check_convention,
    "Omega0": check_nonnegative,
}

_params = fill_and_check_params(_PARAMS, _CHECKS)


# ---------------------------------------------------------------------------
# Section 3: perturbation (sensitivity) bounds
# ---------------------------------------------------------------------------


@_params
def nw_sensitivity_thm1(B: float, lam: float, gamma: float, m: int) -> float:
    """RKHS-norm sensitivity without a Lipschitz loss ([NW] Thm 1).

    Parameters
    ----------
    B : float
        A bound with λΩ(f_S) ≤ B and |L(f_S(x), y)| ≤ B for every dataset S (of
        any size) and every (x, y).
    {params: lam gamma m}

    Returns
    -------
    float
        √(16B/(λγm)), a bound on ‖f_z − f_z̄‖_K for replace-one neighbours.

    {text: raises_out_of_range}

    References
    ----------
    [NW] Theorem 1.

    Examples
    --------
    >>> nw_sensitivity_thm1(1.0, 0.5, 2.0, 16)
    1.0
    """
    B = check_positive(B, "B")
    # [NW] Thm 1: ‖f_z − f_z̄‖_K ≤ √(16B/(λγm)).
    return math.sqrt(16.0 * B / (lam * gamma * m))


@_params
def nw_sup_sensitivity_thm1(
    kappa: float, B: float, lam: float, gamma: float, m: int
) -> float:
    """Sup-norm sensitivity from [NW] Thm 1: κ·√(16B/(λγm)).

    Parameters
    ----------
    {params: kappa}
    B : float
        The bound of Thm 1 (see :func:`nw_sensitivity_thm1`).
    {params: lam gamma m}

    Returns
    -------
    float
        The bound κ·√(16B/(λγm)) ≥ sup_x |f_z(x) − f_z̄(x)|. Prop. 1 says "assume the
        conditions of Theorem 1" but uses Thm 2; this is the Thm-1-based
        calibration (correction: Prop. 1 with the bound of Theorem 1).

    {text: raises_out_of_range}

    References
    ----------
    [NW] Theorem 1 and the reproducing property ‖f‖_∞ ≤ κ‖f‖_K.

    Examples
    --------
    >>> nw_sup_sensitivity_thm1(2.0, 1.0, 0.5, 2.0, 16)
    2.0
    """
    # ‖f‖_∞ ≤ κ‖f‖_K applied to [NW] Thm 1.
    return kappa * nw_sensitivity_thm1(B, lam, gamma, m)


@_params
def nw_sensitivity_thm2(
    kappa: float, C_L: float, lam: float, gamma: float, m: int
) -> float:
    """RKHS-norm sensitivity for a C_L-Lipschitz loss ([NW] Thm 2).

    Parameters
    ----------
    {params: kappa C_L lam gamma m}

    Returns
    -------
    float
        Δ_H = 2κC_L/(λγm) ≥ ‖f_z − f_z̄‖_K (= 2LR/(λ_JT·n) in Jain–Thakurta's
        convention with λ_JT = λγ).

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours; assumes the exact minimiser, a convex
    C_L-Lipschitz loss, γ-strongly convex Ω and a data-independent κ.

    References
    ----------
    [NW] Theorem 2.

    Examples
    --------
    >>> nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 1000)
    0.01
    """
    # [NW] Thm 2: ‖f_z − f_z̄‖_K ≤ 2κC_L/(λγm).
    return 2.0 * kappa * C_L / (lam * gamma * m)


@_params
def nw_sup_sensitivity(
    kappa: float, C_L: float, lam: float, gamma: float, m: int
) -> float:
    """Sup-norm (prediction) sensitivity B_Δ ([NW] Def. 2 and Prop. 1 proof).

    Parameters
    ----------
    {params: kappa C_L lam gamma m}

    Returns
    -------
    float
        B_Δ = κ·Δ_H = 2κ²C_L/(λγm) ≥ sup_x |f_z(x) − f_z̄(x)|.

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours; the sensitivity of any single prediction
    f_z(x). Same assumptions as :func:`nw_sensitivity_thm2`.

    References
    ----------
    [NW] Definition 2 and the proof of Proposition 1.

    Examples
    --------
    >>> nw_sup_sensitivity(1.0, 1.0, 0.1, 2.0, 1000)
    0.01
    """
    # [NW] Prop. 1 proof: Δf ≤ κ·(2κC_L/(λγm)) = 2κ²C_L/(λγm) = B_Δ.
    return kappa * nw_sensitivity_thm2(kappa, C_L, lam, gamma, m)


# ---------------------------------------------------------------------------
# Noise scales (Lemma 1, Prop. 1, Section 5)
# ---------------------------------------------------------------------------


@_params
def nw_noise_scale(
    kappa: float,
    C_L: float,
    lam: float,
    gamma: float,
    m: int,
    eps: float,
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Laplace scale for perturbing a prediction of f_z ([NW] Lemma 1 / Prop. 1).

    Parameters
    ----------
    {params: kappa C_L lam gamma m eps}
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        ``"lemma1"``: scale B_Δ/ε = 2κ²C_L/(λγmε) (= the paper's α), the
        calibration Lemma 1 proves. ``"prop1"``: scale α/2 = κ²C_L/(λγmε), the
        density (1/α)exp(−2|b|/α) printed in Prop. 1; by Lemma 1 it gives only 2ε.

    Returns
    -------
    float
        The Laplace scale b (density exp(−|x|/b)/(2b)).

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours, pure ε-DP for **one** released value
    f_z(x) + Lap(b) with the "lemma1" scale (k queries compose). The paper adds a
    single scalar b to the whole function f_z, which is not ε-DP in the standard
    sense (correction to [NW] Lemma 1: neighbouring outputs f_z + b have disjoint
    supports).

    References
    ----------
    [NW] Lemma 1 and Proposition 1.

    Examples
    --------
    >>> round(nw_noise_scale(1.0, 1.0, 0.1, 2.0, 1000, 0.1), 12)
    0.1
    >>> round(nw_noise_scale(1.0, 1.0, 0.1, 2.0, 1000, 0.1, "prop1"), 12)
    0.05
    """
    convention = _check_convention(noise_convention)
    b_delta = nw_sup_sensitivity(kappa, C_L, lam, gamma, m)
    # [NW] Lemma 1: Lap(B_Δ/ε); Prop. 1 prints density (1/α)e^{−2|b|/α}, α = B_Δ/ε.
    scale = b_delta / eps
    return scale if convention == "lemma1" else scale / 2.0


@_params
def nw_svm_noise_scale(
    kappa: float,
    lam: float,
    m: int,
    eps: float,
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Laplace scale of the DP hinge SVM of [NW] Sec. 5.2 (C_L = 1, γ = 2).

    Parameters
    ----------
    {params: kappa}
    lam : float
        Regularisation weight λ of (1/m)Σ(1 − yf(x))₊ + λ‖f‖²_K.
    {params: m eps}
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        See :func:`nw_noise_scale`.

    Returns
    -------
    float
        The scale κ²/(λmε) ("lemma1", the paper's α) or κ²/(2λmε) ("prop1",
        as printed).

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: as :func:`nw_noise_scale` with C_L = 1 and γ = 2 (no bias term).

    References
    ----------
    [NW] Section 5.2.

    Examples
    --------
    >>> round(nw_svm_noise_scale(1.0, 0.01, 10**6, 0.01), 12)
    0.01
    """
    # [NW] Sec. 5.2: α = κ²/(λmε) (hinge: C_L = 1, γ = 2).
    return nw_noise_scale(kappa, 1.0, lam, 2.0, m, eps, noise_convention)


@_params
def nw_ls_lipschitz(M: float, kappa: float, lam: float) -> float:
    """Effective Lipschitz constant of the square loss in [NW] Sec. 5.1.

    Parameters
    ----------
    M : float
        Bound on |y| (labels must be clipped to [−M, M]).
    {params: kappa lam@at_most_one}

    Returns
    -------
    float
        C_L = 2M(κ + 1)/√λ, valid on the range the exact minimisers can take
        (‖f_z‖_∞ ≤ κM/√λ).

    Raises
    ------
    ValueError
        If an argument is out of range, including λ > 1 (the bound uses
        κM/√λ + M ≤ M(κ + 1)/√λ).

    References
    ----------
    [NW] Section 5.1.

    Examples
    --------
    >>> nw_ls_lipschitz(1.0, 1.0, 0.25)
    8.0
    """
    M = check_positive(M, "M")
    # [NW] Sec. 5.1: C_L = 2M(κ + 1)/√λ.
    return 2.0 * M * (kappa + 1.0) / math.sqrt(lam)


@_params
def nw_ls_noise_scale(
    M: float,
    kappa: float,
    lam: float,
    m: int,
    eps: float,
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Laplace scale of DP least-squares regularisation ([NW] Sec. 5.1).

    Parameters
    ----------
    {params: M kappa lam@at_most_one m eps}
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        ``"lemma1"``: α_ls = 2Mκ²(κ + 1)/(λ^{3/2}mε); ``"prop1"``: α_ls/2 (the
        printed density (1/α_ls)exp(−2|b|/α_ls)).

    Returns
    -------
    float
        The Laplace scale.

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: as :func:`nw_noise_scale` with C_L from :func:`nw_ls_lipschitz` and
    γ = 2; needs |y| ≤ M enforced and the exact minimiser.

    References
    ----------
    [NW] Section 5.1.

    Examples
    --------
    >>> round(nw_ls_noise_scale(1.0, 1.0, 0.25, 100, 1.0), 12)
    0.32
    """
    C_L = nw_ls_lipschitz(M, kappa, lam)
    # [NW] Sec. 5.1: α_ls = 2Mκ²(κ+1)/(λ^{3/2} m ε) = 2κ²C_L/(λ·2·m·ε).
    return nw_noise_scale(kappa, C_L, lam, 2.0, m, eps, noise_convention)


@_params
def nw_ls_noise_second_moment(
    M: float,
    kappa: float,
    lam: float,
    m: int,
    eps: float,
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """E b² of the least-squares noise, the empirical-risk inflation ([NW] Sec. 5.1).

    Parameters
    ----------
    {params: M kappa lam@at_most_one m eps}
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        See :func:`nw_ls_noise_scale`. The printed value
        2M²κ⁴(κ+1)²/(λ³m²ε²) is the ``"prop1"`` one.

    Returns
    -------
    float
        2·scale² (E b² of a Laplace variable), which equals
        E[E_z(f_{z,A}) − E_z(f_z)] for the square loss.

    {text: raises_out_of_range}

    References
    ----------
    [NW] Section 5.1.

    Examples
    --------
    >>> round(nw_ls_noise_second_moment(1.0, 1.0, 0.25, 100, 1.0, "prop1"), 12)
    0.0512
    """
    scale = nw_ls_noise_scale(M, kappa, lam, m, eps, noise_convention)
    # Var of Lap(s) is 2s²; [NW] Sec. 5.1 prints 2M²κ⁴(κ+1)²/(λ³m²ε²) (= α_ls²/2).
    return 2.0 * scale * scale


# ---------------------------------------------------------------------------
# Section 4: error analysis
# ---------------------------------------------------------------------------


def nw_thm3_bound(G: float, eps: float) -> float:
    """DP concentration bound ([NW] Thm 3).

    Parameters
    ----------
    G : float
        Bound on E[(1/m)Σ g(zᵢ)] for the non-negative output function g.
    eps : float
        Privacy level, 0 < ε < 1 (uses 1 − e^{−ε} ≤ 2ε and e^ε − 1 ≤ 2ε).

    Returns
    -------
    float
        2Gε, a bound on both E[(1/m)Σg(zᵢ) − ∫g dρ] and E[∫g dρ − (1/m)Σg(zᵢ)].

    Raises
    ------
    ValueError
        If G < 0 or ε ∉ (0, 1).

    References
    ----------
    [NW] Theorem 3.

    Examples
    --------
    >>> nw_thm3_bound(2.0, 0.25)
    1.0
    """
    G = check_nonnegative(G, "G")
    eps = check_open_unit(eps, "eps")
    # [NW] Thm 3: both one-sided generalisation gaps ≤ 2Gε.
    return 2.0 * G * eps


@_params
def nw_prop2_bound(
    B0: float,
    lam: float,
    Omega0: float,
    eps: float,
    ER2: float,
    variant: Variant = "corrected",
) -> float:
    """Bound on the random error E R₁ = E[E(f_{z,A}) − E_z(f_{z,A})] ([NW] Prop. 2).

    Parameters
    ----------
    {params: B0 lam Omega0 eps@below_one}
    ER2 : float
        A bound on E R₂ (e.g. :func:`nw_prop3_bound`).
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: 2B̃ε + 2ε·E R₂ with B̃ = 2(B₀ + λΩ(0)). ``"corrected"``:
        2(B₀ + λΩ(0))ε + 2ε·E R₂, what the proof via Thm 3 gives (and what the
        proof of Thm 4 uses).

    Returns
    -------
    float
        The bound.

    {text: raises_out_of_range}

    References
    ----------
    [NW] Proposition 2 and Theorem 3.

    Examples
    --------
    >>> nw_prop2_bound(1.0, 0.5, 0.0, 0.25, 1.0)
    1.0
    >>> nw_prop2_bound(1.0, 0.5, 0.0, 0.25, 1.0, "printed")
    1.5
    """
    ER2 = check_nonnegative(ER2, "ER2")
    variant = _check_variant(variant)
    base = B0 + lam * Omega0
    if variant == "printed":
        # [NW] Prop. 2 as printed: 2B̃ε + 2ε E R₂, B̃ = 2(B₀ + λΩ(0)).
        return 2.0 * (2.0 * base) * eps + 2.0 * eps * ER2
    # [NW] Thm 3 with G = E R₂ + B₀ + λΩ(0): 2(B₀ + λΩ(0))ε + 2ε E R₂.
    return 2.0 * base * eps + 2.0 * eps * ER2


@_params
def nw_prop3_bound(
    kappa: float,
    C_L: float,
    lam: float,
    gamma: float,
    m: int,
    eps: float,
    variant: Variant = "corrected",
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Bound on the random error E R₂ = E[E_z(f_{z,A}) − E_z(f_z)] ([NW] Prop. 3).

    Parameters
    ----------
    {params: kappa C_L lam gamma m eps}
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: κ²C_L/(λγmε) (drops a factor C_L). ``"corrected"``:
        C_L·E|b| = C_L × :func:`nw_noise_scale` (κ²C_L²/(λγmε) for "prop1" noise,
        2κ²C_L²/(λγmε) for "lemma1" noise).
    {params: noise_convention}

    Returns
    -------
    float
        The bound.

    {text: raises_out_of_range}

    References
    ----------
    [NW] Proposition 3.

    Examples
    --------
    >>> round(nw_prop3_bound(1.0, 2.0, 0.1, 2.0, 1000, 0.1), 12)
    0.4
    >>> round(nw_prop3_bound(1.0, 2.0, 0.1, 2.0, 1000, 0.1, "printed"), 12)
    0.1
    """
    if _check_variant(variant) == "printed":
        # [NW] Prop. 3 as printed: E R₂ ≤ κ²C_L/(λγmε).
        return kappa**2 * C_L / (lam * gamma * m * eps)
    # Corrected: E R₂ ≤ C_L·E|b| and E|b| = Laplace scale.
    return C_L * nw_noise_scale(kappa, C_L, lam, gamma, m, eps, noise_convention)


@_params
def nw_prop4_bound(B_rho: float, m: int) -> float:
    """Bound on the sample error E S = E[E_z(f_λ) − E(f_λ)] ([NW] Prop. 4).

    Parameters
    ----------
    B_rho : float
        Bound with L(f_λ(x), y) ≤ B_ρ on Z.
    {params: m}

    Returns
    -------
    float
        2√(2π)·B_ρ/√m (Hoeffding).

    {text: raises_out_of_range}

    References
    ----------
    [NW] Proposition 4.

    Examples
    --------
    >>> round(nw_prop4_bound(1.0, 8), 12) == round(math.sqrt(math.pi), 12)
    True
    """
    B_rho = check_nonnegative(B_rho, "B_rho")
    # [NW] Prop. 4: E S ≤ 2√(2π)B_ρ/√m.
    return 2.0 * math.sqrt(2.0 * math.pi) * B_rho / math.sqrt(m)


@_params
def nw_thm4_bound(
    m: int,
    lam: float,
    eps: float,
    B0: float,
    Omega0: float,
    kappa: float,
    C_L: float,
    gamma: float,
    B_rho: float,
    c_beta: float,
    beta: float,
    variant: Variant = "corrected",
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Total expected excess risk E[E(f_{z,A}) − E(f_ρ)] ([NW] Thm 4, before the rule).

    Parameters
    ----------
    {params: m lam eps@below_one B0 Omega0 kappa C_L gamma}
    B_rho : float
        Bound on L(f_λ(x), y).
    c_beta : float
        Constant of the approximation-error assumption D(λ) ≤ c_β λ^β.
    {params: beta}
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: 2(B₀ + λΩ(0))ε + (1 + 2ε)κ²C_L/(λγmε) + 2√(2π)B_ρ/√m
        + c_βλ^β, the proof's display. ``"corrected"``: the same with E R₂ from
        :func:`nw_prop3_bound` (corrected), i.e. (1 + 2ε)·C_L·E|b|.
    {params: noise_convention}

    Returns
    -------
    float
        R₁ + R₂ + S + D(λ) bounds from Props. 2–4 and (4).

    {text: raises_out_of_range}

    References
    ----------
    [NW] Theorem 4 (proof), error decomposition (3), Propositions 2–4.

    Examples
    --------
    >>> b = nw_thm4_bound(1000, 0.1, 0.1, 1.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0)
    >>> round(b, 12)
    0.42
    """
    c_beta = check_nonnegative(c_beta, "c_beta")
    variant = _check_variant(variant)
    er2 = nw_prop3_bound(kappa, C_L, lam, gamma, m, eps, variant, noise_convention)
    # [NW] Thm 4 proof: 2(B₀+λΩ(0))ε + (1+2ε)·E R₂ + 2√(2π)B_ρ/√m + c_β λ^β.
    r1_plus_r2 = nw_prop2_bound(B0, lam, Omega0, eps, er2, "corrected") + er2
    return r1_plus_r2 + nw_prop4_bound(B_rho, m) + c_beta * lam**beta


@_params
def nw_thm4_rate_constant(
    B0: float,
    Omega0: float,
    kappa: float,
    C_L: float,
    gamma: float,
    B_rho: float,
    c_beta: float,
    variant: Variant = "corrected",
    noise_convention: NoiseConvention = "lemma1",
) -> float:
    """Constant K of Thm 4's rate: the bound is ≤ K·m^{−β/(2β+1)} ([NW] Thm 4).

    Parameters
    ----------
    {params: B0 Omega0 kappa C_L gamma}
    B_rho : float
        Bound on L(f_λ(x), y) (used by the corrected variant only).
    c_beta : float
        Approximation-error constant.
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: 2B₀ + 2Ω(0) + 3κ²C_L/γ + c_β, as stated (omits the
        sample-error term). ``"corrected"``: 2B₀ + 2Ω(0) + 3kκ²C_L²/γ
        + 2√(2π)B_ρ + c_β with k = 2 for "lemma1" noise and 1 for "prop1".
    {params: noise_convention}

    Returns
    -------
    float
        K. Valid under the rule of :func:`nw_param_rule_general` (λ = m^{−1/(2β+1)},
        ε = 1/√(λm), so λ ≤ 1 and ε < 1 for m > 1).

    {text: raises_out_of_range}

    References
    ----------
    [NW] Theorem 4.

    Examples
    --------
    >>> nw_thm4_rate_constant(1.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, "printed")
    4.5
    """
    B_rho = check_nonnegative(B_rho, "B_rho")
    c_beta = check_nonnegative(c_beta, "c_beta")
    if _check_variant(variant) == "printed":
        # [NW] Thm 4 as stated: (2B₀ + 2Ω(0) + 3κ²C_L/γ + c_β).
        return 2.0 * B0 + 2.0 * Omega0 + 3.0 * kappa**2 * C_L / gamma + c_beta
    k = 2.0 if noise_convention == "lemma1" else 1.0
    # Corrected: (1+2ε) ≤ 3, E R₂ ≤ k κ²C_L²/(λγmε) with λmε = (λm)^{1/2};
    # m^{−1/2} ≤ m^{−β/(2β+1)} brings in 2√(2π)B_ρ.
    return (
        2.0 * B0
        + 2.0 * Omega0
        + 3.0 * k * kappa**2 * C_L**2 / gamma
        + 2.0 * math.sqrt(2.0 * math.pi) * B_rho
        + c_beta
    )


# ---------------------------------------------------------------------------
# Parameter rules and rates
# ---------------------------------------------------------------------------


@_params
def nw_general_rate_exponent(beta: float) -> float:
    """Exponent of the general rate m^{−β/(2β+1)} ([NW] Thm 4).

    Parameters
    ----------
    {params: beta}

    Returns
    -------
    float
        The exponent β/(2β + 1).

    Raises
    ------
    ValueError
        If β ∉ (0, 1].

    References
    ----------
    [NW] Theorem 4.

    Examples
    --------
    >>> round(nw_general_rate_exponent(1.0), 12)
    0.333333333333
    """
    # [NW] Thm 4: rate m^{−β/(2β+1)}.
    return beta / (2.0 * beta + 1.0)


@_params
def nw_param_rule_general(m: int, beta: float) -> tuple[float, float]:
    """Theorem 4's choice of (λ, ε) as functions of m ([NW] Thm 4).

    Parameters
    ----------
    {params: m@at_least_two beta}

    Returns
    -------
    lam : float
        The regularisation weight λ = m^{−1/(2β+1)}.
    eps : float
        The privacy level ε = 1/√(λm) = m^{−β/(2β+1)} < 1.

    Raises
    ------
    ValueError
        If m < 2 or β ∉ (0, 1].

    Notes
    -----
    ε decreases with m: this is a device for a rate statement, not a way to choose
    the privacy level (correction: a reading of [NW] Theorem 4's rate, not a
    privacy recommendation).

    References
    ----------
    [NW] Theorem 4.

    Examples
    --------
    >>> lam, eps = nw_param_rule_general(1000, 1.0)
    >>> round(lam, 12), round(eps, 12)
    (0.1, 0.1)
    """
    # [NW] Thm 4: λ = m^{−1/(2β+1)}, ε = 1/√(λm).
    lam = float(m) ** (-1.0 / (2.0 * beta + 1.0))
    return lam, 1.0 / math.sqrt(lam * m)


@_params
def nw_param_rule_ls(m: int, r: float) -> tuple[float, float, float]:
    """Parameter rule and rate of DP least squares ([NW] Sec. 5.1).

    Parameters
    ----------
    {params: m@at_least_two}
    r : float
        Regularity f_ρ ∈ L_K^r(L²_{ρ_X}), r > 0; β = min{1, 2r}.

    Returns
    -------
    lam : float
        The regularisation weight λ = m^{−2/(3(β+1))}.
    eps : float
        The privacy level ε = 1/(λ m^{2/3}) = m^{−2β/(3(β+1))}.
    exponent : float
        The exponent 2β/(3(β + 1)): the excess risk is ≤ C̃·m^{−exponent}
        (1/3 for r ≥ ½).

    Raises
    ------
    ValueError
        If m < 2 or r ≤ 0.

    References
    ----------
    [NW] Section 5.1 ("details omitted" in the paper).

    Examples
    --------
    >>> lam, eps, rate = nw_param_rule_ls(1000, 0.5)
    >>> round(lam, 12), round(eps, 12), round(rate, 12)
    (0.1, 0.1, 0.333333333333)
    """
    r = check_positive(r, "r")
    beta = min(1.0, 2.0 * r)
    # [NW] Sec. 5.1: λ = m^{−2/(3(β+1))}, ε = 1/(λ m^{2/3}), rate 2β/(3(β+1)).
    lam = float(m) ** (-2.0 / (3.0 * (beta + 1.0)))
    eps = 1.0 / (lam * float(m) ** (2.0 / 3.0))
    return lam, eps, 2.0 * beta / (3.0 * (beta + 1.0))


def nw_svm_rate_exponent(r: float) -> float:
    """Exponent of the DP SVM misclassification rate ([NW] Sec. 5.2).

    Parameters
    ----------
    r : float
        Regularity f_c^h ∈ L_K^r(L²_{ρ_X}), r > 0; β = min{r, 1}.

    Returns
    -------
    float
        The exponent β/(2(2β + 1)): E[R(f_{z,A}) − R(f_c)] ≤ C̃·m^{−exponent}
        (1/6 at β = 1).

    Raises
    ------
    ValueError
        If r ≤ 0.

    References
    ----------
    [NW] Section 5.2.

    Examples
    --------
    >>> round(nw_svm_rate_exponent(1.0), 12)
    0.166666666667
    """
    r = check_positive(r, "r")
    beta = min(r, 1.0)
    # [NW] Sec. 5.2: rate m^{−β/(2(2β+1))} (comparison theorem halves Thm 4's).
    return beta / (2.0 * (2.0 * beta + 1.0))


@_params
def nw_param_rule_svm(m: int, r: float) -> tuple[float, float, float]:
    """Parameter rule and rate of the DP SVM ([NW] Sec. 5.2).

    Parameters
    ----------
    {params: m@at_least_two}
    r : float
        Regularity exponent, r > 0; β = min{r, 1}.

    Returns
    -------
    lam : float
        The regularisation weight λ = m^{−1/(2β+1)} (Thm 4's rule).
    eps : float
        The privacy level ε = 1/√(λm).
    exponent : float
        The exponent :func:`nw_svm_rate_exponent` (r).

    Raises
    ------
    ValueError
        If m < 2 or r ≤ 0.

    References
    ----------
    [NW] Section 5.2 and Theorem 4.

    Examples
    --------
    >>> lam, eps, rate = nw_param_rule_svm(10**6, 2.0)
    >>> round(lam, 12), round(eps, 12), round(rate, 12)
    (0.01, 0.01, 0.166666666667)
    """
    r = check_positive(r, "r")
    lam, eps = nw_param_rule_general(m, min(r, 1.0))
    return lam, eps, nw_svm_rate_exponent(r)
