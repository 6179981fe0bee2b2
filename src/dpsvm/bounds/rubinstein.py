# SPDX-License-Identifier: BSD-3-Clause
"""Calculators for Rubinstein, Bartlett, Huang & Taft, "Learning in a large function
space: privacy-preserving mechanisms for SVM learning" (arXiv:0911.5708, 2009).

Every function here is a pure formula from the paper (or, where marked, a
correction of it). Nothing touches data.

Notation (the paper's, which clashes with the rest of dpsvm):

* ``beta`` is the privacy level (β-differential privacy, pure, δ = 0).
* ``eps`` and ``delta`` are the *usefulness* accuracy and failure probability:
  a mechanism is (ε, δ)-useful when P(‖f̂ − f*‖_{∞;𝓜} ≤ ε) ≥ 1 − δ, a sup-norm
  distance between the real-valued private and non-private SVM functions with the
  same C. They are **not** (ε, δ)-DP parameters. Def. 2 prints "≥ δ"; every
  theorem (and this module) uses "≥ 1 − δ".
* ``C`` is the SVM regularisation weight in ½‖w‖² + (C/n)·Σ ℓ, ``L`` the Lipschitz
  constant of the loss, ``kappa`` a bound on √k(x, x) over the whole input
  domain, ``F`` a finite feature dimension and ``dhat`` the number of random
  frequencies (the feature dimension of map (4.1) is 2·d̂).
* ``Lam`` (Λ) is a bound on the L1 norm of the SVM dual vector (Lemma 12).

Errata handled here (see the individual functions):

* Lemma 10 / Cor. 15: the first noise term is ε/(2⁴·ln2·√d̂) (16·ln2 ≈ 11.09);
  the proof of Thm 16 misreads it as ε/(2⁴·ln(2√d̂)).
* Thm 16: the printed rate O(ε⁻³ …) does not follow from Cor. 15 + Lemma 10 read
  correctly; :func:`optimal_dp_upper_bound` computes the non-asymptotic β
  instead, which scales as ε⁻⁵ up to logarithms.
* Cor. 15: the printed θ = min{1, ε⁴/(2¹²C⁴)} is a conservative simplification
  of the exact min{1, ε⁴/(2⁴C⁴(1+√6)⁴)}; both are offered.
* Thm 14 prints "ε√d" in its λ condition; it is ε√d̂ (as in Lemma 10).
* Thm 18: "δ ≥ exp(−β)" is stronger than what the bound gives, δ ≥ 1/(1 + e^β)
  (:func:`linear_lower_bound_min_delta`).
* Thm 20 prints ε ∈ (0, n/(4C)); Lemma 19 needs ε < C/(4n), which is checked.
* Lemma 19 / Thm 20: the packing size N must be ≥ 2 (the proof says N > 4, which
  σ < √(1/(2 ln 2)) does not guarantee; it guarantees N ≥ 4).
* Lemma 19's proof solves the reduced dual with an algebra slip ((n−1)² for n−1);
  :func:`lemma19_databases` gives the correct closed form.

References
----------
.. [R] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
   large function space: privacy-preserving mechanisms for SVM learning",
   arXiv:0911.5708 (2009).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammainccinv

from ..perturbation import (
    output_l2_sensitivity,
    output_laplace_scale,
    rubinstein_l2_sensitivity,
)
from ..utils._checks import check_int, check_open_unit, check_positive
from ..utils._docstrings import Check, fill_and_check_params

__all__ = [
    "Lemma19Fixture",
    "finite_l2_sensitivity",
    "finite_max_noise_for_usefulness",
    "finite_max_noise_for_usefulness_exact",
    "finite_noise_scale",
    "hinge_rff_dhat_for_usefulness",
    "hinge_usefulness_theta",
    "kernel_error_tolerance",
    "lemma17_databases",
    "lemma17_solutions",
    "lemma19_databases",
    "linear_lower_bound_min_delta",
    "optimal_dp_lower_bound_linear",
    "optimal_dp_lower_bound_rbf",
    "optimal_dp_upper_bound",
    "rbf_lower_bound_min_delta",
    "rbf_packing_size",
    "rff_dhat_for_usefulness",
    "rff_max_noise_for_usefulness",
    "rff_max_noise_for_usefulness_exact",
    "rff_noise_scale",
    "rr_dhat_for_kernel_error",
    "sigma_p_squared",
    "usefulness_theta",
]

#: 2^{2.5} = 4·√2 ≈ 5.656854, the constant of [R] Cor. 9 / Cor. 15 (Thm 7 with
#: κ = 1 and F = 2d̂: 4·√(2d̂) = 2^{2.5}·√d̂).
RFF_NOISE_CONSTANT = 2.0**2.5
#: 2⁴·ln 2 ≈ 11.0904, the first denominator of [R] Lemma 10.
LEMMA10_CONSTANT = 16.0 * math.log(2.0)
#: Upper limit on the RBF width σ in [R] Lemma 19 / Thm 20: √(1/(2 ln 2)) ≈ 0.84932.
RBF_SIGMA_MAX = math.sqrt(1.0 / (2.0 * math.log(2.0)))

# numpydoc entries of the parameters these formulas share, and below the check of
# the range each entry states (see fill_and_check_params).
_PARAMS: dict[str, str] = {
    "beta": "float\nPrivacy level β > 0 (pure DP).",
    "C": "float\nRegularisation weight.",
    "C@range_check": "float, optional\nRegularisation weight (for the range check).",
    "d": "int\nInput dimension.",
    "delta": "float\nFailure probability δ ∈ (0, 1).",
    "dhat": "int\nNumber of random frequencies d̂.",
    "diam": "float\nDiameter of 𝓜.",
    "eps": "float\nTarget sup-norm accuracy ε > 0.",
    "F": "int\nFeature dimension.",
    "L": "float\nLipschitz constant of the loss.",
    "Lam": "float\nBound Λ on the L1 norm of the dual vectors.",
    "n": "int\nNumber of records.",
    "eps@thm18_range": (
        "float, optional\n"
        "Usefulness accuracy ε. If ``eps``, ``C`` and ``n`` are given, the\n"
        "theorem's range ε < √C/(2n) (with n > 1) is checked."
    ),
    "eps@thm20_range": (
        "float, optional\n"
        "Usefulness accuracy ε. If ``eps``, ``C`` and ``n`` are given, the range\n"
        "n > C and ε < C/(4n) is checked. (Thm 20 prints ε ∈ (0, n/(4C)), a typo:\n"
        "Lemma 19, which it uses, needs ε < C/(4n).)"
    ),
    "n@range_check": "int, optional\nNumber of records (for the range check).",
    "n@at_least_two": "int\nNumber of records, n ≥ 2.",
    "sigma": "float\nRBF width, 0 < σ < √(1/(2 ln 2)).",
    "sigma_p": "float\nRoot second moment of the spectral density (finite).",
    # Whole Raises section, for {text: raises_sigma_p}.
    "raises_sigma_p": (
        "Raises\n------\nValueError\n"
        "    If an argument is out of range or σ_p is infinite."
    ),
}


def _check_finite_args(
    n: int, C: float, L: float, kappa: float
) -> tuple[int, float, float, float]:
    """Check (n, C, L, κ), the setting of PRIVATESVM-FINITE ([R] Section 3)."""
    return (
        check_int(n, "n"),
        check_positive(C, "C"),
        check_positive(L, "L"),
        check_positive(kappa, "kappa"),
    )


def _check_sigma_p(sigma_p: float, name: str = "sigma_p") -> float:
    if isinstance(sigma_p, numbers.Real) and math.isinf(float(sigma_p)):
        raise ValueError(
            "sigma_p is infinite (e.g. the Laplacian kernel, whose spectral "
            "density has no second moment): the d̂ bounds of [R] Lemma 13 / "
            "Thm 14 are vacuous."
        )
    return check_positive(sigma_p, name)


def _check_rbf_sigma(sigma: float, name: str = "sigma") -> float:
    sigma = check_positive(sigma, name)
    if not sigma < RBF_SIGMA_MAX:
        raise ValueError(
            f"[R] Lemma 19 / Thm 20 need sigma < sqrt(1/(2 ln 2)) = "
            f"{RBF_SIGMA_MAX:.6f}, got sigma={sigma}."
        )
    return sigma


_CHECKS: dict[str, Check] = {
    "beta": check_positive,
    "C": check_positive,
    "d": check_int,
    "delta": check_open_unit,
    "dhat": check_int,
    "diam": check_positive,
    "eps": check_positive,
    "F": check_int,
    "L": check_positive,
    "Lam": check_positive,
    "n": check_int,
    "n@at_least_two": partial(check_int, minimum=2),
    "sigma": _check_rbf_sigma,
    "sigma_p": _check_sigma_p,
}

_params = fill_and_check_params(_PARAMS, _CHECKS)


# ---------------------------------------------------------------------------
# Section 3: PRIVATESVM-FINITE
# ---------------------------------------------------------------------------


@_params
def finite_l2_sensitivity(
    n: int, C: float, L: float, kappa: float, *, tight: bool = False
) -> float:
    """L2 sensitivity of the primal SVM solution, ‖w_D − w_D′‖₂ ([R] Lemma 6).

    Parameters
    ----------
    n : int
        Number of records (public).
    C : float
        Regularisation weight in ½‖w‖² + (C/n)·Σ ℓ.
    {params: L}
    kappa : float
        Public bound on √k(x, x) = ‖φ(x)‖₂ for **every** x in the input domain.
    tight : bool, default=False
        If True, return the standard strong-convexity bound 2LCκ/n [derived: the
        objective is 1-strongly convex and replacing one record moves the loss
        gradient by at most 2LCκ/n]. The default is the paper's 4LCκ/n.

    Returns
    -------
    float
        4LCκ/n (or 2LCκ/n with ``tight=True``).

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours; valid for a convex L-Lipschitz loss, the exact
    minimiser and a data-independent κ. Computing κ from the data voids it.

    References
    ----------
    [R] Lemma 6 (and Lemma 21 for subgradients), arXiv:0911.5708.

    Examples
    --------
    >>> finite_l2_sensitivity(100, 1.0, 1.0, 1.0)
    0.04
    >>> finite_l2_sensitivity(100, 1.0, 1.0, 1.0, tight=True)
    0.02
    """
    n, C, L, kappa = _check_finite_args(n, C, L, kappa)
    # [R] Lemma 6: ‖w_D − w_D′‖₂ ≤ 4LCκ/n; tight: 2LCκ/n ([CMS11] Cor. 8). Both
    # are written once in dpsvm.perturbation for κ = 1 and λ = 1/C; ‖φ(x)‖ ≤ κ
    # scales the bound by κ.
    sensitivity = output_l2_sensitivity if tight else rubinstein_l2_sensitivity
    return sensitivity(n, 1.0 / C, L) * kappa


@_params
def finite_noise_scale(
    beta: float,
    n: int,
    C: float,
    L: float,
    kappa: float,
    F: int,
    *,
    tight: bool = False,
) -> float:
    """Laplace scale λ for PRIVATESVM-FINITE to be β-DP ([R] Thm 7).

    Parameters
    ----------
    {params: beta n C L}
    kappa : float
        Public bound on √k(x, x) over the whole input domain.
    F : int
        Feature dimension (number of Laplace coordinates).
    tight : bool, default=False
        Use the tighter sensitivity 2LCκ/n (see :func:`finite_l2_sensitivity`).

    Returns
    -------
    float
        The scale λ = 4·L·C·κ·√F/(β·n), the smallest the theorem allows.

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours, pure β-DP for the released weight vector
    w̃ + μ with μ iid Laplace(0, λ); assumes a convex L-Lipschitz loss, C > 0, the
    exact minimiser and k(x, x) ≤ κ² for all x. The L1 sensitivity is
    √F times the L2 sensitivity.

    References
    ----------
    [R] Theorem 7, arXiv:0911.5708.

    Examples
    --------
    >>> round(finite_noise_scale(1.0, 100, 1.0, 1.0, 1.0, 4), 12)
    0.08
    """
    F = check_int(F, "F")
    n, C, L, kappa = _check_finite_args(n, C, L, kappa)
    # [R] Thm 7: λ ≥ 4LCκ√F/(βn) (L1 sensitivity = √F · L2 sensitivity), written
    # once in dpsvm.perturbation for κ = 1 and λ = 1/C; the tight sensitivity
    # 2LCκ/n of finite_l2_sensitivity halves it.
    scale = output_laplace_scale(beta, n, 1.0 / C, F, L) * kappa
    return scale / 2.0 if tight else scale


@_params
def finite_max_noise_for_usefulness(
    eps: float, delta: float, Phi: float, F: int
) -> float:
    """Largest λ for which PRIVATESVM-FINITE is (ε, δ)-useful ([R] Thm 8).

    Parameters
    ----------
    {params: eps delta}
    Phi : float
        Bound on every feature coordinate, |φ(x)_i| ≤ Φ on 𝓜.
    {params: F}

    Returns
    -------
    float
        The bound ε/(2Φ(F ln 2 + ln(1/δ))) (Chernoff bound, t = 1/(2λ)).

    {text: raises_out_of_range}

    References
    ----------
    [R] Theorem 8, arXiv:0911.5708.

    Examples
    --------
    >>> round(finite_max_noise_for_usefulness(1.0, 0.5, 1.0, 1), 12)
    0.360673760222
    """
    Phi = check_positive(Phi, "Phi")
    # [R] Thm 8: λ ≤ ε / (2Φ(F ln 2 + ln(1/δ))).
    return eps / (2.0 * Phi * (F * math.log(2.0) + math.log(1.0 / delta)))


@_params
def finite_max_noise_for_usefulness_exact(
    eps: float, delta: float, Phi: float, F: int
) -> float:
    """Exact (non-Chernoff) version of [R] Thm 8 (not in paper).

    Since |f̂(x) − f*(x)| ≤ Φ‖μ‖₁ and ‖μ‖₁ ∼ Gamma(F, scale λ) (Erlang-F),
    P(‖f̂ − f*‖_{∞;𝓜} > ε) ≤ P(Gamma(F, 1) > ε/(Φλ)), which is ≤ δ exactly when
    λ ≤ (ε/Φ)/Q, with Q the (1 − δ)-quantile of Gamma(F, 1).

    Parameters
    ----------
    {params: eps delta}
    Phi : float
        Bound on every feature coordinate on 𝓜.
    {params: F}

    Returns
    -------
    float
        (ε/Φ)/Gamma(F, 1).ppf(1 − δ). It is never smaller than
        :func:`finite_max_noise_for_usefulness` (the Chernoff bound is valid).

    {text: raises_out_of_range}

    References
    ----------
    [R] Theorem 8 proof (Erlang tail), arXiv:0911.5708; the exact quantile is
    ours (not in paper).

    Examples
    --------
    >>> round(finite_max_noise_for_usefulness_exact(1.0, 0.5, 1.0, 1), 12)
    1.442695040889
    """
    Phi = check_positive(Phi, "Phi")
    # Not in paper: exact Erlang quantile; Q(F, x) = δ ⇔ x = Gamma(F,1).isf(δ).
    quantile = float(gammainccinv(F, delta))
    return eps / (Phi * quantile)


# ---------------------------------------------------------------------------
# Section 4: PRIVATESVM (random Fourier features)
# ---------------------------------------------------------------------------


@_params
def rff_noise_scale(beta: float, n: int, C: float, L: float, dhat: int) -> float:
    """Laplace scale λ for PRIVATESVM (random features) to be β-DP.

    Parameters
    ----------
    {params: beta n C}
    L : float
        Lipschitz constant of the loss (1 for hinge).
    dhat : int
        Number of random frequencies d̂; the noise has 2·d̂ coordinates.

    Returns
    -------
    float
        The scale λ = 2^{2.5}·L·C·√d̂/(β·n): Thm 7 with κ = 1 and F = 2d̂ (not
        F = d̂).

    {text: raises_out_of_range}

    Notes
    -----
    Privacy: replace-one neighbours, pure β-DP for ŵ = w̃ + μ with μ ∈ ℝ^{2d̂} iid
    Laplace(0, λ); the frequencies ρ are data-independent and may be released.
    Assumes a convex L-Lipschitz loss, the exact minimiser and the cos/sin map
    (4.1), whose features have norm exactly 1 (κ = 1).

    References
    ----------
    [R] Corollary 9 and Corollary 15, arXiv:0911.5708.

    Examples
    --------
    >>> round(rff_noise_scale(1.0, 100, 1.0, 1.0, 8), 12)
    0.16
    """
    dhat = check_int(dhat, "dhat")
    # [R] Cor. 9: λ ≥ 2^{2.5}·L·C·√d̂/(βn) = 4LC√(2d̂)/(βn), Thm 7 with κ = 1 and
    # F = 2d̂ coordinates.
    return finite_noise_scale(beta, n, C, L, 1.0, 2 * dhat)


@_params
def rff_max_noise_for_usefulness(eps: float, delta: float, dhat: int) -> float:
    """Largest λ keeping the noise part of PRIVATESVM within ε/2 ([R] Lemma 10).

    Parameters
    ----------
    eps : float
        Sup-norm accuracy ε > 0 (the noise is allowed ε/2 of it).
    delta : float
        Failure probability δ ∈ (0, 1) (the noise is allowed δ/2 of it).
    {params: dhat}

    Returns
    -------
    float
        The scale min{ε/(2⁴·ln2·√d̂), ε√d̂/(8 ln(2/δ))}, which gives
        P(‖f̂ − f̃‖_∞ ≤ ε/2) ≥ 1 − δ/2.

    {text: raises_out_of_range}

    Notes
    -----
    The first term reads 2⁴·ln(2)·√d̂ (16 ln 2 ≈ 11.0904): the proof needs
    d̂·ln 4 ≤ ε√d̂/(8λ). The proof of Thm 16 misreads it as 2⁴·ln(2√d̂).

    References
    ----------
    [R] Lemma 10 (also Thm 14 and Cor. 15, where "ε√d" is a typo for ε√d̂),
    arXiv:0911.5708.

    Examples
    --------
    >>> round(rff_max_noise_for_usefulness(1.0, 0.05, 4), 6)
    0.045084
    """
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    root = math.sqrt(dhat)
    # [R] Lemma 10: λ ≤ min{ε/(2⁴·ln2·√d̂), ε√d̂/(8 ln(2/δ))}.
    return min(
        eps / (LEMMA10_CONSTANT * root), eps * root / (8.0 * math.log(2.0 / delta))
    )


@_params
def rff_max_noise_for_usefulness_exact(eps: float, delta: float, dhat: int) -> float:
    """Exact (non-Chernoff) version of [R] Lemma 10 (not in paper).

    |f̂(x) − f̃(x)| ≤ ‖μ‖₁·‖φ̂(x)‖_∞ ≤ ‖μ‖₁/√d̂ with ‖μ‖₁ ∼ Gamma(2d̂, scale λ), so
    P(‖f̂ − f̃‖_∞ > ε/2) ≤ δ/2 exactly when λ ≤ (ε√d̂/2)/Q, with Q the
    (1 − δ/2)-quantile of Gamma(2d̂, 1).

    Parameters
    ----------
    {params: eps delta dhat}

    Returns
    -------
    float
        (ε√d̂/2)/Gamma(2d̂, 1).ppf(1 − δ/2); never smaller than
        :func:`rff_max_noise_for_usefulness`.

    {text: raises_out_of_range}

    References
    ----------
    [R] Lemma 10 proof (Erlang-2d̂ tail), arXiv:0911.5708; the exact quantile is
    ours (not in paper).

    Examples
    --------
    >>> round(rff_max_noise_for_usefulness_exact(1.0, 0.05, 4), 6)
    0.069335
    """
    # Not in paper: exact Erlang-2d̂ quantile at level 1 − δ/2.
    quantile = float(gammainccinv(2 * dhat, delta / 2.0))
    return eps * math.sqrt(dhat) / (2.0 * quantile)


def _rr_dhat(eps_sq: float, delta: float, d: int, sigma_p: float, diam: float) -> int:
    # [R] Lemma 13 (Rahimi–Recht Claim 1):
    # d̂ ≥ (4(d+2)/ε²)·ln(2⁸(σ_p·diam)²/(δ·ε²)); d̂ is a positive integer.
    value = (4.0 * (d + 2) / eps_sq) * math.log(
        2.0**8 * (sigma_p * diam) ** 2 / (delta * eps_sq)
    )
    return max(1, math.ceil(value))


@_params
def rr_dhat_for_kernel_error(
    eps: float, delta: float, d: int, sigma_p: float, diam: float
) -> int:
    """Number of random frequencies for ‖k̂ − k‖_∞ < ε w.p. ≥ 1 − δ ([R] Lemma 13).

    Parameters
    ----------
    eps : float
        Uniform kernel-approximation error ε > 0.
    {params: delta d}
    sigma_p : float
        √E_p‖ω‖², the root second moment of the spectral density (see
        :func:`sigma_p_squared`); must be finite.
    diam : float
        Diameter of the compact set 𝓜 (2 for data in the unit ball).

    Returns
    -------
    int
        ⌈(4(d+2)/ε²)·ln(2⁸(σ_p·diam)²/(δε²))⌉, and at least 1.

    {text: raises_sigma_p}

    References
    ----------
    [R] Lemma 13 (Rahimi & Recht 2008, Claim 1), arXiv:0911.5708.

    Examples
    --------
    >>> rr_dhat_for_kernel_error(0.5, 0.1, 1, 1.0, 2.0)
    510
    """
    eps = check_positive(eps, "eps")
    sigma_p = _check_sigma_p(sigma_p)
    diam = check_positive(diam, "diam")
    return _rr_dhat(eps * eps, delta, d, sigma_p, diam)


def _kernel_error_tolerance(eps: float, Lam: float, C: float, L: float) -> float:
    # [R] Lemma 12: H = Λ + 2√((CL + Λ/2)Λ); tolerance min{1, ε²/(2²H²)}.
    H = Lam + 2.0 * math.sqrt((C * L + Lam / 2.0) * Lam)
    return min(1.0, eps * eps / (4.0 * H * H))


@_params
def kernel_error_tolerance(eps: float, Lam: float, C: float, L: float) -> float:
    """Kernel-approximation error that keeps ‖f* − g*‖_{∞;𝓜} ≤ ε/2 ([R] Lemma 12).

    Parameters
    ----------
    {params: eps}
    Lam : float
        Bound Λ on the L1 norm of the dual vectors (hinge: Λ = C).
    {params: C L}

    Returns
    -------
    float
        The tolerance min{1, ε²/(4(Λ + 2√((CL + Λ/2)Λ))²)}.

    {text: raises_out_of_range}

    References
    ----------
    [R] Lemma 12 (Lemma 22 for non-differentiable losses), arXiv:0911.5708.

    Examples
    --------
    >>> round(kernel_error_tolerance(1.0, 0.5, 1.0, 1.0), 6)
    0.057722
    """
    Lam = check_positive(Lam, "Lam")
    return _kernel_error_tolerance(eps, Lam, C, L)


@_params
def usefulness_theta(eps: float, Lam: float, C: float, L: float) -> float:
    """Usefulness parameter θ(ε) of [R] Thm 14 (squared Lemma 12 tolerance).

    Parameters
    ----------
    {params: eps Lam C L}

    Returns
    -------
    float
        The value θ = min{1, ε⁴/(2⁴(Λ + 2√((CL + Λ/2)Λ))⁴)}, computed as
        ``kernel_error_tolerance(...) ** 2`` (the same number).

    {text: raises_out_of_range}

    References
    ----------
    [R] Theorem 14, arXiv:0911.5708.

    Examples
    --------
    >>> round(usefulness_theta(1.0, 0.5, 1.0, 1.0), 8)
    0.00333178
    """
    # [R] Thm 14: θ(ε) = min{1, ε⁴/(2⁴H⁴)} = (Lemma 12 tolerance)².
    return kernel_error_tolerance(eps, Lam, C, L) ** 2


@_params
def hinge_usefulness_theta(eps: float, C: float, *, exact: bool = False) -> float:
    """Usefulness parameter θ(ε) for the hinge loss ([R] Cor. 15): L = 1, Λ = C.

    Parameters
    ----------
    {params: eps C}
    exact : bool, default=False
        False: the paper's stated θ = min{1, ε⁴/(2¹²C⁴)}. True: the value the proof
        actually gives, min{1, ε⁴/(2⁴C⁴(1+√6)⁴)} (2⁴(1+√6)⁴ ≈ 2265.37 ≤ 2¹²), which
        is larger and so needs fewer frequencies.

    Returns
    -------
    float
        The value θ(ε).

    {text: raises_out_of_range}

    References
    ----------
    [R] Corollary 15 and its proof, arXiv:0911.5708.

    Examples
    --------
    >>> f"{hinge_usefulness_theta(0.1, 1.0):.3e}"
    '2.441e-08'
    """
    if exact:
        # [R] Cor. 15 proof: Λ = C, L = 1 ⇒ H = C(1 + √6); θ = ε⁴/(2⁴C⁴(1+√6)⁴).
        return _kernel_error_tolerance(eps, C, C, 1.0) ** 2
    # [R] Cor. 15 statement: θ(ε) = min{1, ε⁴/(2¹²C⁴)}.
    return min(1.0, eps**4 / (2.0**12 * C**4))


def _dhat_from_theta(
    theta: float, delta: float, d: int, sigma_p: float, diam: float
) -> int:
    # [R] Thm 14: d̂ ≥ (4(d+2)/θ)·ln(2⁹(σ_p diam)²/(δθ)), i.e. Lemma 13 with
    # kernel error √θ and failure probability δ/2.
    return _rr_dhat(theta, delta / 2.0, d, sigma_p, diam)


@_params
def rff_dhat_for_usefulness(
    eps: float,
    delta: float,
    d: int,
    sigma_p: float,
    diam: float,
    Lam: float,
    C: float,
    L: float,
) -> int:
    """Number of random frequencies for PRIVATESVM to be (ε, δ)-useful ([R] Thm 14).

    Parameters
    ----------
    {params: eps delta d sigma_p diam Lam C L}

    Returns
    -------
    int
        ⌈(4(d+2)/θ)·ln(2⁹(σ_p diam)²/(δθ))⌉ with θ = :func:`usefulness_theta`.
        The noise must also satisfy :func:`rff_max_noise_for_usefulness`.

    {text: raises_sigma_p}

    Notes
    -----
    These values are astronomically large for small ε (C = 1, ε = 0.1 gives
    θ ≈ 2.4·10⁻⁸ and d̂ ~ 10¹⁰–10¹¹); report them, do not use them as defaults.

    References
    ----------
    [R] Theorem 14, arXiv:0911.5708.

    Examples
    --------
    >>> rff_dhat_for_usefulness(1.0, 0.1, 1, 1.0, 2.0, 1.0, 1.0, 1.0)
    479880
    """
    theta = usefulness_theta(eps, Lam, C, L)
    return _dhat_from_theta(theta, delta, d, sigma_p, diam)


@_params
def hinge_rff_dhat_for_usefulness(
    eps: float,
    delta: float,
    d: int,
    sigma_p: float,
    diam: float,
    C: float,
    *,
    exact_theta: bool = False,
) -> int:
    """Number of random frequencies for the hinge PRIVATESVM ([R] Cor. 15).

    Parameters
    ----------
    {params: eps delta d sigma_p diam C}
    exact_theta : bool, default=False
        Use the proof's θ instead of the stated, conservative one (see
        :func:`hinge_usefulness_theta`). With True the result equals
        ``rff_dhat_for_usefulness(eps, delta, d, sigma_p, diam, C, C, 1.0)``.

    Returns
    -------
    int
        ⌈(4(d+2)/θ)·ln(2⁹(σ_p diam)²/(δθ))⌉ with θ = min{1, ε⁴/(2¹²C⁴)}.

    {text: raises_sigma_p}

    References
    ----------
    [R] Corollary 15, arXiv:0911.5708.

    Examples
    --------
    >>> hinge_rff_dhat_for_usefulness(1.0, 0.1, 1, 1.0, 2.0, 1.0)
    896777
    """
    theta = hinge_usefulness_theta(eps, C, exact=exact_theta)
    return _dhat_from_theta(theta, delta, d, sigma_p, diam)


# ---------------------------------------------------------------------------
# Section 5: upper bound on optimal differential privacy
# ---------------------------------------------------------------------------


@_params
def optimal_dp_upper_bound(
    eps: float,
    delta: float,
    C: float,
    n: int,
    d: int,
    sigma_p: float,
    diam: float,
    *,
    exact_theta: bool = False,
) -> float:
    """Non-asymptotic upper bound on the optimal DP of the hinge SVM ([R] Thm 16).

    Computes the β achieved by the hinge PRIVATESVM when it is just
    (ε, δ)-useful: d̂ from Cor. 15, λ_max from Lemma 10, and
    β = 2^{2.5}·C·√d̂/(n·λ_max) from Cor. 15's privacy part.

    Parameters
    ----------
    {params: eps delta C n d sigma_p diam}
    exact_theta : bool, default=False
        Use the proof's θ in Cor. 15 instead of the stated one.

    Returns
    -------
    float
        A level β such that some mechanism is both (ε, δ)-useful and β-DP.

    {text: raises_sigma_p}

    Notes
    -----
    Discrepancy with the paper [derived]: Thm 16 states
    β = O(ε⁻³ n⁻¹ √log(1/(δε)) (log(1/ε) + log²(1/(δε)))), but its proof plugs in
    λ = ε/(2⁴ ln(2√d̂)), a misreading of Lemma 10's ε/(2⁴·ln2·√d̂). With Lemma 10
    read correctly and the first term binding (large d̂),
    β = 2^{2.5}·16 ln2·C·d̂/(εn) ≈ 62.74·C·d̂/(εn), and with
    d̂ = Θ(C⁴(d+2)ε⁻⁴ log(…)) this is O(ε⁻⁵ n⁻¹ log(1/(δε))), not ε⁻³. This
    function returns the non-asymptotic value, not the printed rate.

    References
    ----------
    [R] Theorem 16, Corollary 15 and Lemma 10, arXiv:0911.5708.

    Examples
    --------
    >>> f"{optimal_dp_upper_bound(1.0, 0.1, 1.0, 10**6, 1, 1.0, 2.0):.4f}"
    '56.2607'
    """
    dhat = hinge_rff_dhat_for_usefulness(
        eps, delta, d, sigma_p, diam, C, exact_theta=exact_theta
    )
    lam_max = rff_max_noise_for_usefulness(eps, delta, dhat)
    # [R] Cor. 15 (privacy): β = 2^{2.5}·C·√d̂/(n·λ), hinge so L = 1.
    return RFF_NOISE_CONSTANT * C * math.sqrt(dhat) / (n * lam_max)


# ---------------------------------------------------------------------------
# Section 6: lower bounds on optimal differential privacy
# ---------------------------------------------------------------------------


def _check_validity_args(
    eps: float | None, C: float | None, n: int | None
) -> tuple[float, float, int] | None:
    given = [v is not None for v in (eps, C, n)]
    if not any(given):
        return None
    if not all(given):
        raise ValueError("Pass all of eps, C and n to check the validity range.")
    assert eps is not None and C is not None and n is not None
    return (
        check_positive(eps, "eps"),
        check_positive(C, "C"),
        check_int(n, "n", minimum=2),
    )


@_params
def optimal_dp_lower_bound_linear(
    delta: float,
    *,
    eps: float | None = None,
    C: float | None = None,
    n: int | None = None,
) -> float:
    """Lower bound on the optimal DP of the linear-kernel hinge SVM ([R] Thm 18).

    Parameters
    ----------
    {params: delta eps@thm18_range C@range_check n@range_check}

    Returns
    -------
    float
        The bound ln((1 − δ)/δ): every (ε, δ)-useful mechanism has β at least
        this. It is positive only for δ < ½.

    Raises
    ------
    ValueError
        If δ ∉ (0, 1), or the range check fails.

    References
    ----------
    [R] Theorem 18 (via Lemma 17), arXiv:0911.5708.

    Examples
    --------
    >>> round(optimal_dp_lower_bound_linear(0.01), 6)
    4.59512
    """
    checked = _check_validity_args(eps, C, n)
    if checked is not None:
        e, c, nn = checked
        if not e < math.sqrt(c) / (2 * nn):
            raise ValueError(
                f"[R] Thm 18 needs eps < sqrt(C)/(2n) = {math.sqrt(c) / (2 * nn)}, "
                f"got eps={e}."
            )
    # [R] Thm 18: β ≥ ln((1 − δ)/δ).
    return math.log((1.0 - delta) / delta)


@_params
def linear_lower_bound_min_delta(beta: float) -> float:
    """Smallest δ compatible with β-DP and (ε, δ)-usefulness ([R] Thm 18, restated).

    Parameters
    ----------
    {params: beta}

    Returns
    -------
    float
        The level 1/(1 + e^β). For ε < √C/(2n), a β-DP mechanism can only be
        (ε, δ)-useful for δ ≥ 1/(1 + e^β). The paper restates this as
        δ ≥ e^{−β}, which is slightly stronger than what the bound implies.

    Raises
    ------
    ValueError
        If β is not positive.

    References
    ----------
    [R] Theorem 18, arXiv:0911.5708.

    Examples
    --------
    >>> round(linear_lower_bound_min_delta(1.0), 6)
    0.268941
    """
    # β ≥ ln((1−δ)/δ) ⇔ δ ≥ 1/(1 + e^β); written with e^{−β} to avoid overflow.
    return math.exp(-beta) / (1.0 + math.exp(-beta))


def rbf_packing_size(sigma: float) -> int:
    """Number N of pairwise-neighbouring databases in [R] Lemma 19.

    Parameters
    ----------
    sigma : float
        RBF width σ > 0 (kernel exp(−‖x − y‖²/(2σ²))).

    Returns
    -------
    int
        N = ⌊(2/σ)·√(2/ln 2)⌋ = ⌊3.39729/σ⌋.

    Raises
    ------
    ValueError
        If σ ≤ 0 or N < 2 (the construction needs at least two databases).

    References
    ----------
    [R] Lemma 19, arXiv:0911.5708.

    Examples
    --------
    >>> rbf_packing_size(0.5)
    6
    """
    sigma = check_positive(sigma, "sigma")
    # [R] Lemma 19: N = ⌊(2/σ)√(2/ln 2)⌋.
    N = math.floor((2.0 / sigma) * math.sqrt(2.0 / math.log(2.0)))
    if N < 2:
        raise ValueError(
            f"[R] Lemma 19 needs N = floor((2/sigma)*sqrt(2/ln 2)) >= 2, got N={N} "
            f"for sigma={sigma}."
        )
    return N


@_params
def optimal_dp_lower_bound_rbf(
    delta: float,
    sigma: float,
    *,
    eps: float | None = None,
    C: float | None = None,
    n: int | None = None,
) -> float:
    """Lower bound on the optimal DP of the RBF-kernel hinge SVM ([R] Thm 20).

    Parameters
    ----------
    {params: delta}
    sigma : float
        RBF width, 0 < σ < √(1/(2 ln 2)) ≈ 0.84932.
    {params: eps@thm20_range C@range_check n@range_check}

    Returns
    -------
    float
        The bound ln((1 − δ)(N − 1)/δ) with N = :func:`rbf_packing_size` (σ).

    Raises
    ------
    ValueError
        If an argument is out of range or the range check fails.

    References
    ----------
    [R] Theorem 20 (via Lemma 19), arXiv:0911.5708.

    Examples
    --------
    >>> round(optimal_dp_lower_bound_rbf(0.01, 0.5), 6)
    6.204558
    """
    sigma = _check_rbf_sigma(sigma)
    N = rbf_packing_size(sigma)
    checked = _check_validity_args(eps, C, n)
    if checked is not None:
        e, c, nn = checked
        if not nn > c:
            raise ValueError(f"[R] Thm 20 needs n > C, got n={nn}, C={c}.")
        if not e < c / (4 * nn):
            raise ValueError(
                f"[R] Thm 20 needs eps < C/(4n) = {c / (4 * nn)} (the printed "
                f"n/(4C) is a typo), got eps={e}."
            )
    # [R] Thm 20: β ≥ ln((1 − δ)(N − 1)/δ).
    return math.log((1.0 - delta) * (N - 1) / delta)


@_params
def rbf_lower_bound_min_delta(beta: float, sigma: float) -> float:
    """Smallest δ compatible with β-DP and (ε, δ)-usefulness for the RBF SVM.

    Parameters
    ----------
    {params: beta sigma}

    Returns
    -------
    float
        (N − 1)/(N − 1 + e^β), the inverse of :func:`optimal_dp_lower_bound_rbf`
        in δ [derived from [R] Thm 20].

    {text: raises_out_of_range}

    References
    ----------
    [R] Theorem 20, arXiv:0911.5708.

    Examples
    --------
    >>> round(rbf_lower_bound_min_delta(1.0, 0.5), 6)
    0.647813
    """
    N = rbf_packing_size(sigma)
    # β ≥ ln((1−δ)(N−1)/δ) ⇔ δ ≥ (N−1)/(N−1+e^β) = (N−1)e^{−β}/((N−1)e^{−β}+1).
    t = (N - 1) * math.exp(-beta)
    return t / (t + 1.0)


# ---------------------------------------------------------------------------
# Spectral second moments (Table 1, corrected)
# ---------------------------------------------------------------------------


@_params
def sigma_p_squared(
    kernel: str,
    d: int,
    *,
    sigma: float | None = None,
    gamma: float | None = None,
) -> float:
    """Second moment σ_p² = E_p‖ω‖² of a kernel's spectral density ([R] Lemma 13).

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}
        * ``"rbf"``: exp(−‖Δ‖²/(2σ²)), ω ∼ N(0, σ⁻²I): d/σ² (needs ``sigma``).
          Table 1 of [R] prints the density for σ = 1 only.
        * ``"gaussian"``: exp(−γ‖Δ‖²) (the [S] form), ω ∼ N(0, 2γI): 2γd (needs
          ``gamma``).
        * ``"laplacian"``: exp(−‖Δ‖₁), Cauchy frequencies: +inf (the d̂ bounds
          are vacuous).
        * ``"cauchy"``: the normalised ∏ᵢ 1/(1 + Δᵢ²), ω with iid Laplace(0, 1)
          coordinates: 2d. (Table 1 prints an unnormalised version.)
    {params: d}
    sigma : float, optional
        RBF width (``"rbf"`` only).
    gamma : float, optional
        Gaussian width parameter (``"gaussian"`` only).

    Returns
    -------
    float
        The second moment σ_p² (``math.inf`` for the Laplacian kernel).

    Raises
    ------
    ValueError
        If the kernel is unknown or its width parameter is missing or invalid.

    References
    ----------
    [R] Table 1 and Lemma 13, arXiv:0911.5708.

    Examples
    --------
    >>> sigma_p_squared("rbf", 3, sigma=0.5)
    12.0
    >>> sigma_p_squared("cauchy", 3)
    6.0
    """
    name = str(kernel).lower()
    if name == "rbf":
        if sigma is None:
            raise ValueError("The 'rbf' kernel needs sigma.")
        sigma = check_positive(sigma, "sigma")
        return d / sigma**2
    if name == "gaussian":
        if gamma is None:
            raise ValueError("The 'gaussian' kernel needs gamma.")
        gamma = check_positive(gamma, "gamma")
        return 2.0 * gamma * d
    if name == "laplacian":
        return math.inf
    if name == "cauchy":
        return 2.0 * d
    raise ValueError(
        f"Unknown kernel {kernel!r}; expected 'rbf', 'gaussian', 'laplacian' or "
        "'cauchy'."
    )


# ---------------------------------------------------------------------------
# Closed-form fixtures from the lower-bound proofs
# ---------------------------------------------------------------------------


def _lemma17_geometry(n: int, C: float, eps: float) -> tuple[int, float, float, float]:
    n = check_int(n, "n", minimum=2)
    C = check_positive(C, "C")
    eps = check_positive(eps, "eps")
    # [R] Lemma 17 proof: M = 2nε/C, m = nε/C.
    M = 2.0 * n * eps / C
    m = n * eps / C
    # Validity: 1/M > C(Mn − m)/n (⇔ ε² < C/(2n(2n − 1)); implied by ε < √C/(2n)).
    if not 1.0 / M > C * (M * n - m) / n:
        raise ValueError(
            "[R] Lemma 17 closed form needs 1/M > C(Mn - m)/n, i.e. eps < "
            f"sqrt(C/(2n(2n-1))) = {math.sqrt(C / (2 * n * (2 * n - 1)))}; "
            f"got eps={eps}."
        )
    return n, C, M, m


@_params
def lemma17_databases(
    n: int, C: float, eps: float
) -> tuple[
    tuple[NDArray[np.float64], NDArray[np.int64]],
    tuple[NDArray[np.float64], NDArray[np.int64]],
]:
    """The two neighbouring 1-D databases of [R] Lemma 17.

    ⌊n/2⌋ negatives at x = −M, positives at x = M for indices ⌊n/2⌋+1 … n−1, and
    a last point x_n = M − m labelled −1 in D₁ and +1 in D₂, with M = 2nε/C and
    m = nε/C. Together with :func:`lemma17_solutions` this is an exact test
    fixture for a bias-free hinge-SVM solver.

    Parameters
    ----------
    {params: n@at_least_two C}
    eps : float
        Half the target gap: |w₁* − w₂*| = 2ε.

    Returns
    -------
    (X1, y1), (X2, y2) : tuple of tuples of ndarray
        ``X`` of shape (n, 1) (identical in both) and labels in {−1, +1} of
        shape (n,), differing only in the last entry.

    Raises
    ------
    ValueError
        If n < 2, C or ε ≤ 0, or the closed form's condition 1/M > C(Mn − m)/n
        fails.

    References
    ----------
    [R] Lemma 17 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> (X1, y1), (X2, y2) = lemma17_databases(4, 1.0, 0.05)
    >>> X1.ravel().tolist(), y1.tolist(), y2.tolist()
    ([-0.4, -0.4, 0.4, 0.2], [-1, -1, 1, -1], [-1, -1, 1, 1])
    """
    n, C, M, m = _lemma17_geometry(n, C, eps)
    half = n // 2
    x = np.empty(n, dtype=np.float64)
    x[:half] = -M
    x[half : n - 1] = M
    x[n - 1] = M - m
    y1 = np.empty(n, dtype=np.int64)
    y1[:half] = -1
    y1[half : n - 1] = 1
    y2 = y1.copy()
    y1[n - 1] = -1
    y2[n - 1] = 1
    X = x.reshape(-1, 1)
    return (X, y1), (X.copy(), y2)


@_params
def lemma17_solutions(n: int, C: float, eps: float) -> tuple[float, float]:
    """Closed-form bias-free hinge-SVM solutions w₁*, w₂* on the Lemma 17 databases.

    The objective is min_w ½w² + (C/n)·Σᵢ max(0, 1 − yᵢ·w·xᵢ).

    Parameters
    ----------
    {params: n@at_least_two C}
    eps : float
        Half the target gap.

    Returns
    -------
    w1, w2 : float
        The solutions w₁* = C(M(n − 2) + m)/n and w₂* = C(Mn − m)/n, with
        |w₁* − w₂*| = 2C(M − m)/n = 2ε. The lemma says "> 2ε"; the proof gives
        "= 2ε".

    Raises
    ------
    ValueError
        If the closed form's condition 1/M > C(Mn − m)/n fails (see
        :func:`lemma17_databases`).

    References
    ----------
    [R] Lemma 17 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> w1, w2 = lemma17_solutions(4, 1.0, 0.05)
    >>> round(w1, 12), round(w2, 12), round(w2 - w1, 12)
    (0.25, 0.35, 0.1)
    """
    n, C, M, m = _lemma17_geometry(n, C, eps)
    # [R] Lemma 17 proof: w₁* = C(M(n−2)+m)/n, w₂* = C(Mn − m)/n.
    return C * (M * (n - 2) + m) / n, C * (M * n - m) / n


@dataclass(frozen=True)
class Lemma19Fixture:
    """The N pairwise-neighbouring RBF databases of [R] Lemma 19 and their SVMs.

    Every database has the same kernel matrix and labels, so the dual solution is
    the same for all of them.

    Parameters
    ----------
    N : int
        Number of databases, ⌊(2/σ)√(2/ln 2)⌋.
    gamma : float
        Kernel value between the origin and a unit vector, exp(−1/(2σ²)).
    X : ndarray of shape (N, n, 2)
        ``X[i]`` is database i+1: n − 1 points at the origin and, last, the
        positive point (cos 2π(i+1)/N, sin 2π(i+1)/N).
    y : ndarray of shape (n,)
        Labels shared by all databases: n − 1 times −1, then +1.
    alpha : ndarray of shape (n,)
        A dual solution (box 0 ≤ α ≤ C/n, no equality constraint): the positive
        point has α = C/n; the negatives share min{C/n, (1 + γC/n)/(n − 1)}.
        Only the negatives' sum is unique (they are the same point).
    f_at_own_positive : float
        The value f_i(x_{i,n}) = C/n − (n − 1)·α_neg·γ, the same for every i.
    separation : float
        The gap min_{j≠i} |f_i(x_{i,n}) − f_j(x_{i,n})|
        = (C/n)(1 − exp(−(2/σ²)sin²(π/N))),
        which the lemma shows is ≥ C/(2n).
    """

    N: int
    gamma: float
    X: NDArray[np.float64]
    y: NDArray[np.int64]
    alpha: NDArray[np.float64]
    f_at_own_positive: float
    separation: float


@_params
def lemma19_databases(n: int, C: float, sigma: float) -> Lemma19Fixture:
    """Closed-form fixture of [R] Lemma 19 (hinge SVM, RBF kernel, no bias).

    Parameters
    ----------
    n : int
        Number of records per database, n ≥ 2 and n > C.
    {params: C sigma}

    Returns
    -------
    Lemma19Fixture
        N, the databases, the shared dual solution and the function values.

    {text: raises_out_of_range}

    Notes
    -----
    With n > C the positive point's box constraint is always active
    (∂/∂α_pos = 1 + γ(n−1)α_neg − α_pos > 0 at α_pos = C/n < 1); the negatives'
    common value then maximises a concave quadratic, giving
    α_neg = min{C/n, (1 + γC/n)/(n − 1)} [derived]. The paper's proof writes
    (1 + Cγ/n)/(n − 1)², an algebra slip that does not affect the lemma (which
    only uses α_pos = C/n).

    References
    ----------
    [R] Lemma 19 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> fx = lemma19_databases(10, 2.0, 0.5)
    >>> fx.N, fx.X.shape, round(fx.separation, 6)
    (6, (6, 10, 2), 0.172933)
    """
    n = check_int(n, "n", minimum=2)
    if not n > C:
        raise ValueError(f"[R] Lemma 19 needs n > C, got n={n}, C={C}.")
    N = rbf_packing_size(sigma)
    gamma = math.exp(-1.0 / (2.0 * sigma**2))
    angles = 2.0 * math.pi * np.arange(1, N + 1) / N
    X = np.zeros((N, n, 2), dtype=np.float64)
    X[:, n - 1, 0] = np.cos(angles)
    X[:, n - 1, 1] = np.sin(angles)
    y = -np.ones(n, dtype=np.int64)
    y[n - 1] = 1
    box = C / n
    # [derived from [R] Lemma 19's reduced dual] α_pos = C/n,
    # α_neg = min{C/n, (1 + γC/n)/(n − 1)}.
    alpha_neg = min(box, (1.0 + gamma * box) / (n - 1))
    alpha = np.full(n, alpha_neg, dtype=np.float64)
    alpha[n - 1] = box
    f_own = box - (n - 1) * alpha_neg * gamma
    # Neighbouring positives are 2 sin(π/N) apart: k = exp(−(2/σ²) sin²(π/N)).
    separation = box * (1.0 - math.exp(-(2.0 / sigma**2) * math.sin(math.pi / N) ** 2))
    return Lemma19Fixture(
        N=N,
        gamma=gamma,
        X=X,
        y=y,
        alpha=alpha,
        f_at_own_positive=f_own,
        separation=separation,
    )
