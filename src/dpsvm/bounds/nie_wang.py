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

from ..utils._checks import (
    check_int,
    check_nonnegative,
    check_open_unit,
    check_positive,
)
from ._nie_wang_calibration import (
    NoiseConvention,
    Variant,
    _check_beta,
    _check_convention,
    _check_variant,
    nw_ls_lipschitz,
    nw_ls_noise_scale,
    nw_ls_noise_second_moment,
    nw_noise_scale,
    nw_sensitivity_thm1,
    nw_sensitivity_thm2,
    nw_sup_sensitivity,
    nw_sup_sensitivity_thm1,
    nw_svm_noise_scale,
)

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

# Every formula first checks the ranges that its Parameters section states, in
# that order. The Section 3 sensitivities and the noise scales are in
# :mod:`dpsvm.bounds._nie_wang_calibration` (re-exported above).


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
    B0 : float
        Bound with E_z(0) ≤ B₀.
    lam : float
        Regularisation weight λ > 0.
    Omega0 : float
        Ω(0) (0 for Ω = ‖f‖²_K).
    eps : float
        Privacy level, 0 < ε < 1.
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

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    B0 = check_nonnegative(B0, "B0")
    lam = check_positive(lam, "lam")
    Omega0 = check_nonnegative(Omega0, "Omega0")
    eps = check_open_unit(eps, "eps")
    ER2 = check_nonnegative(ER2, "ER2")
    variant = _check_variant(variant)
    base = B0 + lam * Omega0
    if variant == "printed":
        # [NW] Prop. 2 as printed: 2B̃ε + 2ε E R₂, B̃ = 2(B₀ + λΩ(0)).
        return 2.0 * (2.0 * base) * eps + 2.0 * eps * ER2
    # [NW] Thm 3 with G = E R₂ + B₀ + λΩ(0): 2(B₀ + λΩ(0))ε + 2ε E R₂.
    return 2.0 * base * eps + 2.0 * eps * ER2


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
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    C_L : float
        Lipschitz constant of the loss in its first argument.
    lam : float
        Regularisation weight λ > 0.
    gamma : float
        Strong-convexity modulus γ of Ω (2 for ‖f‖²_K).
    m : int
        Sample size.
    eps : float
        Privacy level ε > 0.
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: κ²C_L/(λγmε) (drops a factor C_L). ``"corrected"``:
        C_L·E|b| = C_L × :func:`nw_noise_scale` (κ²C_L²/(λγmε) for "prop1" noise,
        2κ²C_L²/(λγmε) for "lemma1" noise).
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        Noise used by the corrected variant (ignored by "printed").

    Returns
    -------
    float
        The bound.

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    eps = check_positive(eps, "eps")
    noise_convention = _check_convention(noise_convention, "noise_convention")
    if _check_variant(variant) == "printed":
        # [NW] Prop. 3 as printed: E R₂ ≤ κ²C_L/(λγmε).
        return kappa**2 * C_L / (lam * gamma * m * eps)
    # Corrected: E R₂ ≤ C_L·E|b| and E|b| = Laplace scale.
    return C_L * nw_noise_scale(kappa, C_L, lam, gamma, m, eps, noise_convention)


def nw_prop4_bound(B_rho: float, m: int) -> float:
    """Bound on the sample error E S = E[E_z(f_λ) − E(f_λ)] ([NW] Prop. 4).

    Parameters
    ----------
    B_rho : float
        Bound with L(f_λ(x), y) ≤ B_ρ on Z.
    m : int
        Sample size.

    Returns
    -------
    float
        2√(2π)·B_ρ/√m (Hoeffding).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Proposition 4.

    Examples
    --------
    >>> round(nw_prop4_bound(1.0, 8), 12) == round(math.sqrt(math.pi), 12)
    True
    """
    m = check_int(m, "m")
    B_rho = check_nonnegative(B_rho, "B_rho")
    # [NW] Prop. 4: E S ≤ 2√(2π)B_ρ/√m.
    return 2.0 * math.sqrt(2.0 * math.pi) * B_rho / math.sqrt(m)


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
    m : int
        Sample size.
    lam : float
        Regularisation weight λ > 0.
    eps : float
        Privacy level, 0 < ε < 1.
    B0 : float
        Bound with E_z(0) ≤ B₀.
    Omega0 : float
        Ω(0) (0 for Ω = ‖f‖²_K).
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    C_L : float
        Lipschitz constant of the loss in its first argument.
    gamma : float
        Strong-convexity modulus γ of Ω (2 for ‖f‖²_K).
    B_rho : float
        Bound on L(f_λ(x), y).
    c_beta : float
        Constant of the approximation-error assumption D(λ) ≤ c_β λ^β.
    beta : float
        Approximation-error exponent, 0 < β ≤ 1.
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: 2(B₀ + λΩ(0))ε + (1 + 2ε)κ²C_L/(λγmε) + 2√(2π)B_ρ/√m
        + c_βλ^β, the proof's display. ``"corrected"``: the same with E R₂ from
        :func:`nw_prop3_bound` (corrected), i.e. (1 + 2ε)·C_L·E|b|.
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        Noise used by the corrected variant (ignored by "printed").

    Returns
    -------
    float
        R₁ + R₂ + S + D(λ) bounds from Props. 2–4 and (4).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Theorem 4 (proof), error decomposition (3), Propositions 2–4.

    Examples
    --------
    >>> b = nw_thm4_bound(1000, 0.1, 0.1, 1.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0)
    >>> round(b, 12)
    0.42
    """
    m = check_int(m, "m")
    lam = check_positive(lam, "lam")
    eps = check_open_unit(eps, "eps")
    B0 = check_nonnegative(B0, "B0")
    Omega0 = check_nonnegative(Omega0, "Omega0")
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    gamma = check_positive(gamma, "gamma")
    beta = _check_beta(beta, "beta")
    noise_convention = _check_convention(noise_convention, "noise_convention")
    c_beta = check_nonnegative(c_beta, "c_beta")
    variant = _check_variant(variant)
    er2 = nw_prop3_bound(kappa, C_L, lam, gamma, m, eps, variant, noise_convention)
    # [NW] Thm 4 proof: 2(B₀+λΩ(0))ε + (1+2ε)·E R₂ + 2√(2π)B_ρ/√m + c_β λ^β.
    r1_plus_r2 = nw_prop2_bound(B0, lam, Omega0, eps, er2, "corrected") + er2
    return r1_plus_r2 + nw_prop4_bound(B_rho, m) + c_beta * lam**beta


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
    B0 : float
        Bound with E_z(0) ≤ B₀.
    Omega0 : float
        Ω(0) (0 for Ω = ‖f‖²_K).
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    C_L : float
        Lipschitz constant of the loss in its first argument.
    gamma : float
        Strong-convexity modulus γ of Ω (2 for ‖f‖²_K).
    B_rho : float
        Bound on L(f_λ(x), y) (used by the corrected variant only).
    c_beta : float
        Approximation-error constant.
    variant : {"printed", "corrected"}, default="corrected"
        ``"printed"``: 2B₀ + 2Ω(0) + 3κ²C_L/γ + c_β, as stated (omits the
        sample-error term). ``"corrected"``: 2B₀ + 2Ω(0) + 3kκ²C_L²/γ
        + 2√(2π)B_ρ + c_β with k = 2 for "lemma1" noise and 1 for "prop1".
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        Noise used by the corrected variant (ignored by "printed").

    Returns
    -------
    float
        K. Valid under the rule of :func:`nw_param_rule_general` (λ = m^{−1/(2β+1)},
        ε = 1/√(λm), so λ ≤ 1 and ε < 1 for m > 1).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Theorem 4.

    Examples
    --------
    >>> nw_thm4_rate_constant(1.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, "printed")
    4.5
    """
    B0 = check_nonnegative(B0, "B0")
    Omega0 = check_nonnegative(Omega0, "Omega0")
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    gamma = check_positive(gamma, "gamma")
    noise_convention = _check_convention(noise_convention, "noise_convention")
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


def nw_general_rate_exponent(beta: float) -> float:
    """Exponent of the general rate m^{−β/(2β+1)} ([NW] Thm 4).

    Parameters
    ----------
    beta : float
        Approximation-error exponent, 0 < β ≤ 1.

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
    beta = _check_beta(beta, "beta")
    # [NW] Thm 4: rate m^{−β/(2β+1)}.
    return beta / (2.0 * beta + 1.0)


def nw_param_rule_general(m: int, beta: float) -> tuple[float, float]:
    """Theorem 4's choice of (λ, ε) as functions of m ([NW] Thm 4).

    Parameters
    ----------
    m : int
        Sample size, m ≥ 2.
    beta : float
        Approximation-error exponent, 0 < β ≤ 1.

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
    m = check_int(m, "m", minimum=2)
    beta = _check_beta(beta, "beta")
    # [NW] Thm 4: λ = m^{−1/(2β+1)}, ε = 1/√(λm).
    lam = float(m) ** (-1.0 / (2.0 * beta + 1.0))
    return lam, 1.0 / math.sqrt(lam * m)


def nw_param_rule_ls(m: int, r: float) -> tuple[float, float, float]:
    """Parameter rule and rate of DP least squares ([NW] Sec. 5.1).

    Parameters
    ----------
    m : int
        Sample size, m ≥ 2.
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
    m = check_int(m, "m", minimum=2)
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


def nw_param_rule_svm(m: int, r: float) -> tuple[float, float, float]:
    """Parameter rule and rate of the DP SVM ([NW] Sec. 5.2).

    Parameters
    ----------
    m : int
        Sample size, m ≥ 2.
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
    m = check_int(m, "m", minimum=2)
    r = check_positive(r, "r")
    lam, eps = nw_param_rule_general(m, min(r, 1.0))
    return lam, eps, nw_svm_rate_exponent(r)
