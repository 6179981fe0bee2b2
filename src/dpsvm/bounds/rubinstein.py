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

from scipy.special import gammainccinv

from ..perturbation import (
    output_l2_sensitivity,
    output_laplace_scale,
    rubinstein_l2_sensitivity,
)
from ..utils._checks import check_int, check_open_unit, check_positive
from ._rubinstein_lower import (
    RBF_SIGMA_MAX as RBF_SIGMA_MAX,
)
from ._rubinstein_lower import (
    Lemma19Fixture,
    lemma17_databases,
    lemma17_solutions,
    lemma19_databases,
    linear_lower_bound_min_delta,
    optimal_dp_lower_bound_linear,
    optimal_dp_lower_bound_rbf,
    rbf_lower_bound_min_delta,
    rbf_packing_size,
    sigma_p_squared,
)

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

# Every formula first checks the ranges that its Parameters section states, in
# that order.


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


# ---------------------------------------------------------------------------
# Section 3: PRIVATESVM-FINITE
# ---------------------------------------------------------------------------


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
    L : float
        Lipschitz constant of the loss.
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

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    L = check_positive(L, "L")
    n, C, L, kappa = _check_finite_args(n, C, L, kappa)
    # [R] Lemma 6: ‖w_D − w_D′‖₂ ≤ 4LCκ/n; tight: 2LCκ/n ([CMS11] Cor. 8). Both
    # are written once in dpsvm.perturbation for κ = 1 and λ = 1/C; ‖φ(x)‖ ≤ κ
    # scales the bound by κ.
    sensitivity = output_l2_sensitivity if tight else rubinstein_l2_sensitivity
    return sensitivity(n, 1.0 / C, L) * kappa


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
    beta : float
        Privacy level β > 0 (pure DP).
    n : int
        Number of records.
    C : float
        Regularisation weight.
    L : float
        Lipschitz constant of the loss.
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

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    beta = check_positive(beta, "beta")
    n = check_int(n, "n")
    C = check_positive(C, "C")
    L = check_positive(L, "L")
    F = check_int(F, "F")
    n, C, L, kappa = _check_finite_args(n, C, L, kappa)
    # [R] Thm 7: λ ≥ 4LCκ√F/(βn) (L1 sensitivity = √F · L2 sensitivity), written
    # once in dpsvm.perturbation for κ = 1 and λ = 1/C; the tight sensitivity
    # 2LCκ/n of finite_l2_sensitivity halves it.
    scale = output_laplace_scale(beta, n, 1.0 / C, F, L) * kappa
    return scale / 2.0 if tight else scale


def finite_max_noise_for_usefulness(
    eps: float, delta: float, Phi: float, F: int
) -> float:
    """Largest λ for which PRIVATESVM-FINITE is (ε, δ)-useful ([R] Thm 8).

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    Phi : float
        Bound on every feature coordinate, |φ(x)_i| ≤ Φ on 𝓜.
    F : int
        Feature dimension.

    Returns
    -------
    float
        The bound ε/(2Φ(F ln 2 + ln(1/δ))) (Chernoff bound, t = 1/(2λ)).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Theorem 8, arXiv:0911.5708.

    Examples
    --------
    >>> round(finite_max_noise_for_usefulness(1.0, 0.5, 1.0, 1), 12)
    0.360673760222
    """
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    F = check_int(F, "F")
    Phi = check_positive(Phi, "Phi")
    # [R] Thm 8: λ ≤ ε / (2Φ(F ln 2 + ln(1/δ))).
    return eps / (2.0 * Phi * (F * math.log(2.0) + math.log(1.0 / delta)))


def finite_max_noise_for_usefulness_exact(
    eps: float, delta: float, Phi: float, F: int
) -> float:
    """Exact (non-Chernoff) version of [R] Thm 8 (not in paper).

    Since |f̂(x) − f*(x)| ≤ Φ‖μ‖₁ and ‖μ‖₁ ∼ Gamma(F, scale λ) (Erlang-F),
    P(‖f̂ − f*‖_{∞;𝓜} > ε) ≤ P(Gamma(F, 1) > ε/(Φλ)), which is ≤ δ exactly when
    λ ≤ (ε/Φ)/Q, with Q the (1 − δ)-quantile of Gamma(F, 1).

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    Phi : float
        Bound on every feature coordinate on 𝓜.
    F : int
        Feature dimension.

    Returns
    -------
    float
        (ε/Φ)/Gamma(F, 1).ppf(1 − δ). It is never smaller than
        :func:`finite_max_noise_for_usefulness` (the Chernoff bound is valid).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Theorem 8 proof (Erlang tail), arXiv:0911.5708; the exact quantile is
    ours (not in paper).

    Examples
    --------
    >>> round(finite_max_noise_for_usefulness_exact(1.0, 0.5, 1.0, 1), 12)
    1.442695040889
    """
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    F = check_int(F, "F")
    Phi = check_positive(Phi, "Phi")
    # Not in paper: exact Erlang quantile; Q(F, x) = δ ⇔ x = Gamma(F,1).isf(δ).
    quantile = float(gammainccinv(F, delta))
    return eps / (Phi * quantile)


# ---------------------------------------------------------------------------
# Section 4: PRIVATESVM (random Fourier features)
# ---------------------------------------------------------------------------


def rff_noise_scale(beta: float, n: int, C: float, L: float, dhat: int) -> float:
    """Laplace scale λ for PRIVATESVM (random features) to be β-DP.

    Parameters
    ----------
    beta : float
        Privacy level β > 0 (pure DP).
    n : int
        Number of records.
    C : float
        Regularisation weight.
    L : float
        Lipschitz constant of the loss (1 for hinge).
    dhat : int
        Number of random frequencies d̂; the noise has 2·d̂ coordinates.

    Returns
    -------
    float
        The scale λ = 2^{2.5}·L·C·√d̂/(β·n): Thm 7 with κ = 1 and F = 2d̂ (not
        F = d̂).

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    beta = check_positive(beta, "beta")
    n = check_int(n, "n")
    C = check_positive(C, "C")
    dhat = check_int(dhat, "dhat")
    # [R] Cor. 9: λ ≥ 2^{2.5}·L·C·√d̂/(βn) = 4LC√(2d̂)/(βn), Thm 7 with κ = 1 and
    # F = 2d̂ coordinates.
    return finite_noise_scale(beta, n, C, L, 1.0, 2 * dhat)


def rff_max_noise_for_usefulness(eps: float, delta: float, dhat: int) -> float:
    """Largest λ keeping the noise part of PRIVATESVM within ε/2 ([R] Lemma 10).

    Parameters
    ----------
    eps : float
        Sup-norm accuracy ε > 0 (the noise is allowed ε/2 of it).
    delta : float
        Failure probability δ ∈ (0, 1) (the noise is allowed δ/2 of it).
    dhat : int
        Number of random frequencies d̂.

    Returns
    -------
    float
        The scale min{ε/(2⁴·ln2·√d̂), ε√d̂/(8 ln(2/δ))}, which gives
        P(‖f̂ − f̃‖_∞ ≤ ε/2) ≥ 1 − δ/2.

    Raises
    ------
    ValueError
        If an argument is out of range.

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
    dhat = check_int(dhat, "dhat")
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    root = math.sqrt(dhat)
    # [R] Lemma 10: λ ≤ min{ε/(2⁴·ln2·√d̂), ε√d̂/(8 ln(2/δ))}.
    return min(
        eps / (LEMMA10_CONSTANT * root), eps * root / (8.0 * math.log(2.0 / delta))
    )


def rff_max_noise_for_usefulness_exact(eps: float, delta: float, dhat: int) -> float:
    """Exact (non-Chernoff) version of [R] Lemma 10 (not in paper).

    |f̂(x) − f̃(x)| ≤ ‖μ‖₁·‖φ̂(x)‖_∞ ≤ ‖μ‖₁/√d̂ with ‖μ‖₁ ∼ Gamma(2d̂, scale λ), so
    P(‖f̂ − f̃‖_∞ > ε/2) ≤ δ/2 exactly when λ ≤ (ε√d̂/2)/Q, with Q the
    (1 − δ/2)-quantile of Gamma(2d̂, 1).

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    dhat : int
        Number of random frequencies d̂.

    Returns
    -------
    float
        (ε√d̂/2)/Gamma(2d̂, 1).ppf(1 − δ/2); never smaller than
        :func:`rff_max_noise_for_usefulness`.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Lemma 10 proof (Erlang-2d̂ tail), arXiv:0911.5708; the exact quantile is
    ours (not in paper).

    Examples
    --------
    >>> round(rff_max_noise_for_usefulness_exact(1.0, 0.05, 4), 6)
    0.069335
    """
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    dhat = check_int(dhat, "dhat")
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


def rr_dhat_for_kernel_error(
    eps: float, delta: float, d: int, sigma_p: float, diam: float
) -> int:
    """Number of random frequencies for ‖k̂ − k‖_∞ < ε w.p. ≥ 1 − δ ([R] Lemma 13).

    Parameters
    ----------
    eps : float
        Uniform kernel-approximation error ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    d : int
        Input dimension.
    sigma_p : float
        √E_p‖ω‖², the root second moment of the spectral density (see
        :func:`sigma_p_squared`); must be finite.
    diam : float
        Diameter of the compact set 𝓜 (2 for data in the unit ball).

    Returns
    -------
    int
        ⌈(4(d+2)/ε²)·ln(2⁸(σ_p·diam)²/(δε²))⌉, and at least 1.

    Raises
    ------
    ValueError
        If an argument is out of range or σ_p is infinite.

    References
    ----------
    [R] Lemma 13 (Rahimi & Recht 2008, Claim 1), arXiv:0911.5708.

    Examples
    --------
    >>> rr_dhat_for_kernel_error(0.5, 0.1, 1, 1.0, 2.0)
    510
    """
    delta = check_open_unit(delta, "delta")
    d = check_int(d, "d")
    eps = check_positive(eps, "eps")
    sigma_p = _check_sigma_p(sigma_p)
    diam = check_positive(diam, "diam")
    return _rr_dhat(eps * eps, delta, d, sigma_p, diam)


def _kernel_error_tolerance(eps: float, Lam: float, C: float, L: float) -> float:
    # [R] Lemma 12: H = Λ + 2√((CL + Λ/2)Λ); tolerance min{1, ε²/(2²H²)}.
    H = Lam + 2.0 * math.sqrt((C * L + Lam / 2.0) * Lam)
    return min(1.0, eps * eps / (4.0 * H * H))


def kernel_error_tolerance(eps: float, Lam: float, C: float, L: float) -> float:
    """Kernel-approximation error that keeps ‖f* − g*‖_{∞;𝓜} ≤ ε/2 ([R] Lemma 12).

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    Lam : float
        Bound Λ on the L1 norm of the dual vectors (hinge: Λ = C).
    C : float
        Regularisation weight.
    L : float
        Lipschitz constant of the loss.

    Returns
    -------
    float
        The tolerance min{1, ε²/(4(Λ + 2√((CL + Λ/2)Λ))²)}.

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Lemma 12 (Lemma 22 for non-differentiable losses), arXiv:0911.5708.

    Examples
    --------
    >>> round(kernel_error_tolerance(1.0, 0.5, 1.0, 1.0), 6)
    0.057722
    """
    eps = check_positive(eps, "eps")
    C = check_positive(C, "C")
    L = check_positive(L, "L")
    Lam = check_positive(Lam, "Lam")
    return _kernel_error_tolerance(eps, Lam, C, L)


def usefulness_theta(eps: float, Lam: float, C: float, L: float) -> float:
    """Usefulness parameter θ(ε) of [R] Thm 14 (squared Lemma 12 tolerance).

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    Lam : float
        Bound Λ on the L1 norm of the dual vectors.
    C : float
        Regularisation weight.
    L : float
        Lipschitz constant of the loss.

    Returns
    -------
    float
        The value θ = min{1, ε⁴/(2⁴(Λ + 2√((CL + Λ/2)Λ))⁴)}, computed as
        ``kernel_error_tolerance(...) ** 2`` (the same number).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Theorem 14, arXiv:0911.5708.

    Examples
    --------
    >>> round(usefulness_theta(1.0, 0.5, 1.0, 1.0), 8)
    0.00333178
    """
    eps = check_positive(eps, "eps")
    Lam = check_positive(Lam, "Lam")
    C = check_positive(C, "C")
    L = check_positive(L, "L")
    # [R] Thm 14: θ(ε) = min{1, ε⁴/(2⁴H⁴)} = (Lemma 12 tolerance)².
    return kernel_error_tolerance(eps, Lam, C, L) ** 2


def hinge_usefulness_theta(eps: float, C: float, *, exact: bool = False) -> float:
    """Usefulness parameter θ(ε) for the hinge loss ([R] Cor. 15): L = 1, Λ = C.

    Parameters
    ----------
    eps : float
        Target sup-norm accuracy ε > 0.
    C : float
        Regularisation weight.
    exact : bool, default=False
        False: the paper's stated θ = min{1, ε⁴/(2¹²C⁴)}. True: the value the proof
        actually gives, min{1, ε⁴/(2⁴C⁴(1+√6)⁴)} (2⁴(1+√6)⁴ ≈ 2265.37 ≤ 2¹²), which
        is larger and so needs fewer frequencies.

    Returns
    -------
    float
        The value θ(ε).

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Corollary 15 and its proof, arXiv:0911.5708.

    Examples
    --------
    >>> f"{hinge_usefulness_theta(0.1, 1.0):.3e}"
    '2.441e-08'
    """
    eps = check_positive(eps, "eps")
    C = check_positive(C, "C")
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
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    d : int
        Input dimension.
    sigma_p : float
        Root second moment of the spectral density (finite).
    diam : float
        Diameter of 𝓜.
    Lam : float
        Bound Λ on the L1 norm of the dual vectors.
    C : float
        Regularisation weight.
    L : float
        Lipschitz constant of the loss.

    Returns
    -------
    int
        ⌈(4(d+2)/θ)·ln(2⁹(σ_p diam)²/(δθ))⌉ with θ = :func:`usefulness_theta`.
        The noise must also satisfy :func:`rff_max_noise_for_usefulness`.

    Raises
    ------
    ValueError
        If an argument is out of range or σ_p is infinite.

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
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    d = check_int(d, "d")
    sigma_p = _check_sigma_p(sigma_p, "sigma_p")
    diam = check_positive(diam, "diam")
    Lam = check_positive(Lam, "Lam")
    C = check_positive(C, "C")
    L = check_positive(L, "L")
    theta = usefulness_theta(eps, Lam, C, L)
    return _dhat_from_theta(theta, delta, d, sigma_p, diam)


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
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    d : int
        Input dimension.
    sigma_p : float
        Root second moment of the spectral density (finite).
    diam : float
        Diameter of 𝓜.
    C : float
        Regularisation weight.
    exact_theta : bool, default=False
        Use the proof's θ instead of the stated, conservative one (see
        :func:`hinge_usefulness_theta`). With True the result equals
        ``rff_dhat_for_usefulness(eps, delta, d, sigma_p, diam, C, C, 1.0)``.

    Returns
    -------
    int
        ⌈(4(d+2)/θ)·ln(2⁹(σ_p diam)²/(δθ))⌉ with θ = min{1, ε⁴/(2¹²C⁴)}.

    Raises
    ------
    ValueError
        If an argument is out of range or σ_p is infinite.

    References
    ----------
    [R] Corollary 15, arXiv:0911.5708.

    Examples
    --------
    >>> hinge_rff_dhat_for_usefulness(1.0, 0.1, 1, 1.0, 2.0, 1.0)
    896777
    """
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    d = check_int(d, "d")
    sigma_p = _check_sigma_p(sigma_p, "sigma_p")
    diam = check_positive(diam, "diam")
    C = check_positive(C, "C")
    theta = hinge_usefulness_theta(eps, C, exact=exact_theta)
    return _dhat_from_theta(theta, delta, d, sigma_p, diam)


# ---------------------------------------------------------------------------
# Section 5: upper bound on optimal differential privacy
# ---------------------------------------------------------------------------


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
    eps : float
        Target sup-norm accuracy ε > 0.
    delta : float
        Failure probability δ ∈ (0, 1).
    C : float
        Regularisation weight.
    n : int
        Number of records.
    d : int
        Input dimension.
    sigma_p : float
        Root second moment of the spectral density (finite).
    diam : float
        Diameter of 𝓜.
    exact_theta : bool, default=False
        Use the proof's θ in Cor. 15 instead of the stated one.

    Returns
    -------
    float
        A level β such that some mechanism is both (ε, δ)-useful and β-DP.

    Raises
    ------
    ValueError
        If an argument is out of range or σ_p is infinite.

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
    eps = check_positive(eps, "eps")
    delta = check_open_unit(delta, "delta")
    C = check_positive(C, "C")
    n = check_int(n, "n")
    d = check_int(d, "d")
    sigma_p = _check_sigma_p(sigma_p, "sigma_p")
    diam = check_positive(diam, "diam")
    dhat = hinge_rff_dhat_for_usefulness(
        eps, delta, d, sigma_p, diam, C, exact_theta=exact_theta
    )
    lam_max = rff_max_noise_for_usefulness(eps, delta, dhat)
    # [R] Cor. 15 (privacy): β = 2^{2.5}·C·√d̂/(n·λ), hinge so L = 1.
    return RFF_NOISE_CONSTANT * C * math.sqrt(dhat) / (n * lam_max)
