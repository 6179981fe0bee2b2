# SPDX-License-Identifier: BSD-3-Clause
"""Building blocks of the margin bounds of Bassily, Mohri & Suresh (2022).

The exponential-mechanism gaps, the JL, random-feature and network dimensions,
cover sizes, the margin grid and the generic relative-deviation bounds that the
theorems of :mod:`dpsvm.margins.bounds` combine (and that module's public names,
re-exported there). Conventions (explicit or up to constants, natural
logarithms, dimensions rounded up to integers ≥ 1) are those of
:mod:`dpsvm.margins.bounds`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..utils._checks import check_int, check_nonnegative, check_open_unit
from ..validation import check_epsilon, check_positive

__all__ = [
    "cover_log_size",
    "em_gap",
    "gem_gap",
    "jl_distortion",
    "jl_em_dimension",
    "jl_em_dimension_explicit",
    "jl_erm_dimension",
    "margin_grid",
    "neural_cover_scale",
    "neural_jl_dimension",
    "relative_deviation_bound",
    "relative_margin_bound",
    "rff_dimension",
]

_FAT_C = 17.0  # the constant c of Lemma A.2 / Thm 6.1

# Every formula first checks the ranges that its Parameters section states, in
# that order.


def _rate(value: float, name: str) -> float:
    v = check_nonnegative(value, name)
    if v > 1:
        raise ValueError(f"{name} must be an error rate in [0, 1], got {v}.")
    return v


def _check_epsilon(epsilon: float, name: str) -> float:
    return check_epsilon(epsilon)


# -- exponential mechanisms ------------------------------------------------------------
def em_gap(n_candidates: int, epsilon: float, m: int, beta: float) -> float:
    """Excess error of the exponential mechanism with score −(error rate).

    Parameters
    ----------
    n_candidates : int
        |C| ≥ 1.
    epsilon : float
        ε > 0.
    m : int
        Sample size (sensitivity 1/m).
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        2(ln|C| + ln(1/β))/(εm) — explicit (McSherry & Talwar 2007, Thm 6,
        with Δu = 1/m; used in Bassily, Mohri & Suresh 2022, App. B.1).

    Examples
    --------
    >>> round(em_gap(100, 1.0, 1000, 0.05), 4)
    0.0152
    """
    epsilon = _check_epsilon(epsilon, "epsilon")
    check_int(n_candidates, "n_candidates")
    beta = check_open_unit(beta, "beta")
    return (
        2.0
        * (math.log(n_candidates) + math.log(1.0 / beta))
        / (epsilon * check_int(m, "m"))
    )


def gem_gap(
    sensitivity: float, n_candidates: int, epsilon: float, beta: float
) -> float:
    """Slack 4Δ·ln(K/β)/ε of the generalized exponential mechanism.

    Parameters
    ----------
    sensitivity : float
        Δ_l of the comparator candidate.
    n_candidates : int
        K ≥ 1.
    epsilon : float
        ε > 0.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        4Δ ln(K/β)/ε — explicit for the self-contained GEM of
        :class:`~dpsvm.margins.selection.GeneralizedExponentialMechanism`.

    Examples
    --------
    >>> round(gem_gap(0.01, 7, 1.0, 0.05), 4)
    0.1977
    """
    epsilon = _check_epsilon(epsilon, "epsilon")
    beta = check_open_unit(beta, "beta")
    return (
        4.0
        * check_positive(sensitivity, "sensitivity")
        * math.log(check_int(n_candidates, "n_candidates") / beta)
        / epsilon
    )


# -- dimensions ------------------------------------------------------------------------
def jl_em_dimension(
    m: int,
    beta: float,
    norm_bound: float,
    data_norm: float,
    margin: float,
    const: float = 1.0,
) -> int:
    """JL dimension k = ⌈c′Λ²r² ln(m/β)/ρ²⌉ of Algorithm 1 (step 1).

    Parameters
    ----------
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).
    norm_bound : float
        Λ, the bound on the weight norm.
    data_norm : float
        r, the bound on ‖x‖₂.
    margin : float
        ρ > 0, the margin.
    const : float, default=1.0
        The unspecified JL constant c′.

    Returns
    -------
    int
        k (up to the constant c′).

    Examples
    --------
    >>> jl_em_dimension(10_000, 0.05, 4.0, 1.0, 1.0)
    196
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    norm_bound = check_positive(norm_bound, "norm_bound")
    data_norm = check_positive(data_norm, "data_norm")
    margin = check_positive(margin, "margin")
    ratio = norm_bound * data_norm / margin
    val = const * ratio**2 * math.log(m / beta)
    return max(1, math.ceil(val))


def jl_em_dimension_explicit(
    m: int, beta: float, norm_bound: float, data_norm: float, margin: float
) -> int:
    """Algorithm 1's JL dimension with the explicit Achlioptas constant.

    Parameters
    ----------
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).
    norm_bound : float
        Λ, the bound on the weight norm.
    data_norm : float
        r, the bound on ‖x‖₂.
    margin : float
        ρ > 0, the margin.

    Returns
    -------
    int
        k = ⌈(4 ln n + 2 ln(1/β))/(ε_J²/2 − ε_J³/3)⌉ with ε_J = ρ/(3Λr) and
        n = (m + 1)(m + 2) + 1 points (the sample, w*, the normalized sums and
        differences of Lemma A.3, and 0) — explicit (Achlioptas 2003, Thm 1.1).

    Examples
    --------
    >>> jl_em_dimension_explicit(10_000, 0.05, 4.0, 1.0, 1.0)
    24297
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    norm_bound = check_positive(norm_bound, "norm_bound")
    data_norm = check_positive(data_norm, "data_norm")
    margin = check_positive(margin, "margin")
    gamma = margin / (norm_bound * data_norm)
    eps_j = min(gamma, 1.0) / 3.0
    n = (m + 1) * (m + 2) + 1
    num = 4.0 * math.log(n) + 2.0 * math.log(1.0 / beta)
    return max(1, math.ceil(num / (eps_j**2 / 2.0 - eps_j**3 / 3.0)))


def jl_distortion(n_components: int, m: int, beta: float) -> float:
    """Distortion ε_J that a Rademacher JL map of dimension k guarantees.

    The inverse of :func:`jl_em_dimension_explicit`: the smallest ε_J ∈ (0, 1]
    with k ≥ (4 ln n + 2 ln(1/β))/(ε_J²/2 − ε_J³/3), n = (m + 1)(m + 2) + 1, so
    that with probability ≥ 1 − β all squared norms of the m points, the
    comparator and their normalized sums and differences are preserved within
    a factor 1 ± ε_J, and inner products within ε_J‖u‖‖v‖ (Lemma A.3 with
    γ = 3ε_J).

    Parameters
    ----------
    n_components : int
        k.
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        ε_J — explicit (Achlioptas 2003, Thm 1.1); ``inf`` when k is too small
        for any ε_J ≤ 1.

    Examples
    --------
    >>> round(jl_distortion(24297, 10_000, 0.05), 4)
    0.0833
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    k = check_int(n_components, "n_components")
    n = (m + 1) * (m + 2) + 1
    need = (4.0 * math.log(n) + 2.0 * math.log(1.0 / beta)) / k

    def gap(e: float) -> float:
        return e**2 / 2.0 - e**3 / 3.0  # increasing on (0, 1]

    if gap(1.0) < need:
        return math.inf
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if gap(mid) >= need:
            hi = mid
        else:
            lo = mid
    return hi


def jl_erm_dimension(m: int, epsilon: float, delta: float, beta: float) -> int:
    """JL dimension k = ⌈εm ln(m/β)/(ln^{3/2}(1/δ)·ln(1/β))⌉ of Algorithm 2.

    Parameters
    ----------
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    int
        k ≥ 1 — explicit (Algorithm 2 step 1 has no hidden constant).

    Examples
    --------
    >>> jl_erm_dimension(10_000, 1.0, 1e-5, 0.05)
    1044
    """
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = check_open_unit(delta, "delta")
    beta = check_open_unit(beta, "beta")
    val = (
        epsilon
        * m
        * math.log(m / beta)
        / (math.log(1.0 / delta) ** 1.5 * math.log(1.0 / beta))
    )
    return max(1, math.ceil(val))


def rff_dimension(m: int, beta: float) -> int:
    """Number of random frequencies D = ⌈m²·ln(2m/β)⌉ of Algorithm 3.

    Parameters
    ----------
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    int
        D — explicit (Algorithm 3 step 2); huge for any real m.

    Examples
    --------
    >>> f"{rff_dimension(10_000, 0.05):.2e}"
    '1.29e+09'
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    return max(1, math.ceil(m * m * math.log(2.0 * m / beta)))


def neural_cover_scale(
    margin: float,
    data_norm: float,
    norm_bound: float,
    n_layers: int,
    activation_scale: float = 1.0,
) -> float:
    """Cover scale γ = ρ/(10r(4ηΛ)^{L−1}) of the network learner (App. D).

    Parameters
    ----------
    margin : float
        ρ > 0, the margin.
    data_norm : float
        r, the bound on ‖x‖₂.
    norm_bound : float
        Λ (per-layer Frobenius bound).
    n_layers : int
        L ≥ 1, the number of layers.
    activation_scale : float, default=1.0
        η of σ_η(a) = tanh(ηa/4).

    Returns
    -------
    float
        γ — explicit (the appendix value; the main text only gives the order).

    Examples
    --------
    >>> neural_cover_scale(0.5, 1.0, 1.0, 2)
    0.0125
    """
    margin = check_positive(margin, "margin")
    data_norm = check_positive(data_norm, "data_norm")
    n_layers = check_int(n_layers, "n_layers")
    eta = check_positive(activation_scale, "activation_scale")
    return margin / (10.0 * data_norm * (4.0 * eta * norm_bound) ** (n_layers - 1))


def neural_jl_dimension(
    m: int,
    beta: float,
    data_norm: float,
    norm_bound: float,
    margin: float,
    n_layers: int,
    activation_scale: float = 1.0,
    const: float = 1.0,
) -> int:
    """JL dimension k = ⌈10ĉ²r²(2ηΛ)^{2(L−1)}Λ² ln(Lm/β)/ρ²⌉ (Claim D.2).

    Parameters
    ----------
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).
    data_norm : float
        r, the bound on ‖x‖₂.
    norm_bound : float
        Λ, the bound on the weight norm.
    margin : float
        ρ > 0, the margin.
    n_layers : int
        L ≥ 1, the number of layers.
    activation_scale : float, default=1.0
        η, the scale of the activation.
    const : float, default=1.0
        The unspecified JL constant ĉ.

    Returns
    -------
    int
        k (up to ĉ).

    Examples
    --------
    >>> neural_jl_dimension(1000, 0.05, 1.0, 1.0, 0.5, 2)
    1696
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    data_norm = check_positive(data_norm, "data_norm")
    norm_bound = check_positive(norm_bound, "norm_bound")
    margin = check_positive(margin, "margin")
    n_layers = check_int(n_layers, "n_layers")
    activation_scale = check_positive(activation_scale, "activation_scale")
    val = (
        10.0
        * const**2
        * data_norm**2
        * (2.0 * activation_scale * norm_bound) ** (2 * (n_layers - 1))
        * norm_bound**2
        * math.log(n_layers * m / beta)
        / margin**2
    )
    return max(1, math.ceil(val))


def cover_log_size(
    dim: int, radius: float, scale: float, kind: str = "volumetric"
) -> float:
    """Natural log of the size of a ``scale``-cover of the ball of ``radius`` in ℝ^dim.

    Parameters
    ----------
    dim : int
        Dimension (for a network: the parameter count (L−1)kN + k).
    radius : float
        Ball radius (2Λ in Algorithm 1).
    scale : float
        Cover scale (ρ/(10r) in Algorithm 1).
    kind : {"volumetric", "paper"}, default="volumetric"
        ``"volumetric"``: dim·ln(1 + 2·radius/scale), the standard bound;
        ``"paper"``: dim·ln(radius/scale), i.e. (20Λr/ρ)^k of App. B.1.

    Returns
    -------
    float
        ln|C| — explicit for the bound chosen.

    Examples
    --------
    >>> round(cover_log_size(196, 2.0 * 4.0, 0.1, kind="paper") / math.log(10), 1)
    373.0
    """
    dim = check_int(dim, "dim")
    ratio = check_positive(radius, "radius") / check_positive(scale, "scale")
    if kind == "volumetric":
        return dim * math.log1p(2.0 * ratio)
    if kind == "paper":
        return dim * math.log(ratio)
    raise ValueError(f"kind must be 'volumetric' or 'paper', got {kind!r}.")


def margin_grid(h_max: float, m: int) -> NDArray[np.float64]:
    """Margin grid ρⱼ = 2^{−j}·h_max, j = 1..⌈½·log₂ m⌉, of Algorithm 6.

    Parameters
    ----------
    h_max : float
        A public bound on |h(x)| (Λr for linear predictors).
    m : int
        Sample size.

    Returns
    -------
    ndarray
        The decreasing grid, from h_max/2 down to about h_max/√m.

    Examples
    --------
    >>> margin_grid(1.0, 10_000).size
    7
    """
    m = check_int(m, "m")
    n_grid = max(1, math.ceil(0.5 * math.log2(m))) if m > 1 else 1
    grid = check_positive(h_max, "h_max") * 2.0 ** -np.arange(1, n_grid + 1)
    return np.asarray(grid, dtype=np.float64)


# -- generic generalization bounds -----------------------------------------------------
def relative_deviation_bound(
    emp_error: float, vc_dim: int, m: int, beta: float
) -> float:
    """Relative-deviation bound for a class of VC dimension V (Lemma A.1).

    Parameters
    ----------
    emp_error : float
        R̂_S(h) ∈ [0, 1].
    vc_dim : int
        V.
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        R̂ + 2√(R̂·T/m) + 4T/m with T = V ln(2m) + ln(4/β) — explicit.

    Examples
    --------
    >>> round(relative_deviation_bound(0.0, 10, 10_000, 0.05), 4)
    0.0414
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    r = _rate(emp_error, "emp_error")
    t = check_int(vc_dim, "vc_dim") * math.log(2.0 * m) + math.log(4.0 / beta)
    return r + 2.0 * math.sqrt(r * t / m) + 4.0 * t / m


def _fat_m(fat_dim: float, m: int, log_term: float) -> float:
    d = check_positive(fat_dim, "fat_dim")
    c = _FAT_C
    return (
        1.0
        + d * math.log2(2 * c * c * m) * math.log2(2 * c * math.e * m / d)
        + log_term
    )


def relative_margin_bound(
    emp_margin_error: float, fat_dim: float, m: int, beta: float
) -> float:
    """Relative-deviation margin bound with a fat-shattering dimension (Lemma A.2).

    Parameters
    ----------
    emp_margin_error : float
        R̂^ρ_S(h) ∈ [0, 1].
    fat_dim : float
        d = fat_{ρ/16}(H).
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).

    Returns
    -------
    float
        R̂^ρ + 2√(R̂^ρ M/m) + M/m with M = 1 + d log₂(2c²m) log₂(2cem/d) + ln(1/β),
        c = 17 — explicit.

    Examples
    --------
    >>> round(relative_margin_bound(0.0, 1.0, 10**6, 0.05), 6)
    0.000774
    """
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    big_m = _fat_m(fat_dim, m, math.log(1.0 / beta))
    r = _rate(emp_margin_error, "emp_margin_error")
    return r + 2.0 * math.sqrt(r * big_m / m) + big_m / m
