# SPDX-License-Identifier: BSD-3-Clause
"""[NW] Section 3 sensitivities and the noise scales (Lemma 1, Prop. 1, Section 5).

The privacy calibration of Nie & Wang; the setting, the notation and the
corrections to the printed paper are stated in :mod:`dpsvm.bounds.nie_wang`,
which re-exports every public name of this module.
"""

from __future__ import annotations

import math
from typing import Literal

from ..utils._checks import (
    check_int,
    check_positive,
)

__all__ = [
    "NoiseConvention",
    "Variant",
    "nw_ls_lipschitz",
    "nw_ls_noise_scale",
    "nw_ls_noise_second_moment",
    "nw_noise_scale",
    "nw_sensitivity_thm1",
    "nw_sensitivity_thm2",
    "nw_sup_sensitivity",
    "nw_sup_sensitivity_thm1",
    "nw_svm_noise_scale",
]


NoiseConvention = Literal["lemma1", "prop1"]
Variant = Literal["printed", "corrected"]

# Every formula first checks the ranges that its Parameters section states, in
# that order.


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


# ---------------------------------------------------------------------------
# Section 3: perturbation (sensitivity) bounds
# ---------------------------------------------------------------------------


def nw_sensitivity_thm1(B: float, lam: float, gamma: float, m: int) -> float:
    """RKHS-norm sensitivity without a Lipschitz loss ([NW] Thm 1).

    Parameters
    ----------
    B : float
        A bound with λΩ(f_S) ≤ B and |L(f_S(x), y)| ≤ B for every dataset S (of
        any size) and every (x, y).
    lam : float
        Regularisation weight λ > 0.
    gamma : float
        Strong-convexity modulus γ of Ω (2 for ‖f‖²_K).
    m : int
        Sample size.

    Returns
    -------
    float
        √(16B/(λγm)), a bound on ‖f_z − f_z̄‖_K for replace-one neighbours.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Theorem 1.

    Examples
    --------
    >>> nw_sensitivity_thm1(1.0, 0.5, 2.0, 16)
    1.0
    """
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    B = check_positive(B, "B")
    # [NW] Thm 1: ‖f_z − f_z̄‖_K ≤ √(16B/(λγm)).
    return math.sqrt(16.0 * B / (lam * gamma * m))


def nw_sup_sensitivity_thm1(
    kappa: float, B: float, lam: float, gamma: float, m: int
) -> float:
    """Sup-norm sensitivity from [NW] Thm 1: κ·√(16B/(λγm)).

    Parameters
    ----------
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    B : float
        The bound of Thm 1 (see :func:`nw_sensitivity_thm1`).
    lam : float
        Regularisation weight λ > 0.
    gamma : float
        Strong-convexity modulus γ of Ω (2 for ‖f‖²_K).
    m : int
        Sample size.

    Returns
    -------
    float
        The bound κ·√(16B/(λγm)) ≥ sup_x |f_z(x) − f_z̄(x)|. Prop. 1 says "assume the
        conditions of Theorem 1" but uses Thm 2; this is the Thm-1-based
        calibration (correction: Prop. 1 with the bound of Theorem 1).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Theorem 1 and the reproducing property ‖f‖_∞ ≤ κ‖f‖_K.

    Examples
    --------
    >>> nw_sup_sensitivity_thm1(2.0, 1.0, 0.5, 2.0, 16)
    2.0
    """
    kappa = check_positive(kappa, "kappa")
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    # ‖f‖_∞ ≤ κ‖f‖_K applied to [NW] Thm 1.
    return kappa * nw_sensitivity_thm1(B, lam, gamma, m)


def nw_sensitivity_thm2(
    kappa: float, C_L: float, lam: float, gamma: float, m: int
) -> float:
    """RKHS-norm sensitivity for a C_L-Lipschitz loss ([NW] Thm 2).

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

    Returns
    -------
    float
        Δ_H = 2κC_L/(λγm) ≥ ‖f_z − f_z̄‖_K (= 2LR/(λ_JT·n) in Jain–Thakurta's
        convention with λ_JT = λγ).

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    # [NW] Thm 2: ‖f_z − f_z̄‖_K ≤ 2κC_L/(λγm).
    return 2.0 * kappa * C_L / (lam * gamma * m)


def nw_sup_sensitivity(
    kappa: float, C_L: float, lam: float, gamma: float, m: int
) -> float:
    """Sup-norm (prediction) sensitivity B_Δ ([NW] Def. 2 and Prop. 1 proof).

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

    Returns
    -------
    float
        B_Δ = κ·Δ_H = 2κ²C_L/(λγm) ≥ sup_x |f_z(x) − f_z̄(x)|.

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    # [NW] Prop. 1 proof: Δf ≤ κ·(2κC_L/(λγm)) = 2κ²C_L/(λγm) = B_Δ.
    return kappa * nw_sensitivity_thm2(kappa, C_L, lam, gamma, m)


# ---------------------------------------------------------------------------
# Noise scales (Lemma 1, Prop. 1, Section 5)
# ---------------------------------------------------------------------------


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
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        ``"lemma1"``: scale B_Δ/ε = 2κ²C_L/(λγmε) (= the paper's α), the
        calibration Lemma 1 proves. ``"prop1"``: scale α/2 = κ²C_L/(λγmε), the
        density (1/α)exp(−2|b|/α) printed in Prop. 1; by Lemma 1 it gives only 2ε.

    Returns
    -------
    float
        The Laplace scale b (density exp(−|x|/b)/(2b)).

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    C_L = check_positive(C_L, "C_L")
    lam = check_positive(lam, "lam")
    gamma = check_positive(gamma, "gamma")
    m = check_int(m, "m")
    eps = check_positive(eps, "eps")
    convention = _check_convention(noise_convention)
    b_delta = nw_sup_sensitivity(kappa, C_L, lam, gamma, m)
    # [NW] Lemma 1: Lap(B_Δ/ε); Prop. 1 prints density (1/α)e^{−2|b|/α}, α = B_Δ/ε.
    scale = b_delta / eps
    return scale if convention == "lemma1" else scale / 2.0


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
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    lam : float
        Regularisation weight λ of (1/m)Σ(1 − yf(x))₊ + λ‖f‖²_K.
    m : int
        Sample size.
    eps : float
        Privacy level ε > 0.
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        See :func:`nw_noise_scale`.

    Returns
    -------
    float
        The scale κ²/(λmε) ("lemma1", the paper's α) or κ²/(2λmε) ("prop1",
        as printed).

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    m = check_int(m, "m")
    eps = check_positive(eps, "eps")
    # [NW] Sec. 5.2: α = κ²/(λmε) (hinge: C_L = 1, γ = 2).
    return nw_noise_scale(kappa, 1.0, lam, 2.0, m, eps, noise_convention)


def nw_ls_lipschitz(M: float, kappa: float, lam: float) -> float:
    """Effective Lipschitz constant of the square loss in [NW] Sec. 5.1.

    Parameters
    ----------
    M : float
        Bound on |y| (labels must be clipped to [−M, M]).
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    lam : float
        Regularisation weight, 0 < λ ≤ 1.

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
    kappa = check_positive(kappa, "kappa")
    lam = _check_lam_at_most_one(lam, "lam")
    M = check_positive(M, "M")
    # [NW] Sec. 5.1: C_L = 2M(κ + 1)/√λ.
    return 2.0 * M * (kappa + 1.0) / math.sqrt(lam)


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
    M : float
        Bound on |y|.
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    lam : float
        Regularisation weight, 0 < λ ≤ 1.
    m : int
        Sample size.
    eps : float
        Privacy level ε > 0.
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        ``"lemma1"``: α_ls = 2Mκ²(κ + 1)/(λ^{3/2}mε); ``"prop1"``: α_ls/2 (the
        printed density (1/α_ls)exp(−2|b|/α_ls)).

    Returns
    -------
    float
        The Laplace scale.

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    kappa = check_positive(kappa, "kappa")
    lam = _check_lam_at_most_one(lam, "lam")
    m = check_int(m, "m")
    eps = check_positive(eps, "eps")
    C_L = nw_ls_lipschitz(M, kappa, lam)
    # [NW] Sec. 5.1: α_ls = 2Mκ²(κ+1)/(λ^{3/2} m ε) = 2κ²C_L/(λ·2·m·ε).
    return nw_noise_scale(kappa, C_L, lam, 2.0, m, eps, noise_convention)


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
    M : float
        Bound on |y|.
    kappa : float
        Kernel bound κ = sup √K(x, x) over the declared input domain.
    lam : float
        Regularisation weight, 0 < λ ≤ 1.
    m : int
        Sample size.
    eps : float
        Privacy level ε > 0.
    noise_convention : {"lemma1", "prop1"}, default="lemma1"
        See :func:`nw_ls_noise_scale`. The printed value
        2M²κ⁴(κ+1)²/(λ³m²ε²) is the ``"prop1"`` one.

    Returns
    -------
    float
        2·scale² (E b² of a Laplace variable), which equals
        E[E_z(f_{z,A}) − E_z(f_z)] for the square loss.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [NW] Section 5.1.

    Examples
    --------
    >>> round(nw_ls_noise_second_moment(1.0, 1.0, 0.25, 100, 1.0, "prop1"), 12)
    0.0512
    """
    kappa = check_positive(kappa, "kappa")
    lam = _check_lam_at_most_one(lam, "lam")
    m = check_int(m, "m")
    eps = check_positive(eps, "eps")
    scale = nw_ls_noise_scale(M, kappa, lam, m, eps, noise_convention)
    # Var of Lap(s) is 2s²; [NW] Sec. 5.1 prints 2M²κ⁴(κ+1)²/(λ³m²ε²) (= α_ls²/2).
    return 2.0 * scale * scale
