# SPDX-License-Identifier: BSD-3-Clause
"""Dimensions and risk bounds of Bassily, Mohri & Suresh (2022).

Each calculator states in its docstring whether its value is **explicit** (every
constant given) or **up to constants** (an O(·) form evaluated with ``const``
multiplying the O-terms). Logarithms are natural except where ``log₂`` is written
(the constant M of Lemma A.2 and Thm 6.1). Dimensions are rounded up to integers
≥ 1. Reference: R. Bassily, M. Mohri, A. T. Suresh, "Differentially private
learning with margin guarantees", NeurIPS 2022, arXiv:2204.10376.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._checks import check_int, check_nonnegative, check_open_unit
from ..utils._docstrings import Check, fill_and_check_params
from ..validation import check_epsilon, check_positive

__all__ = [
    "cover_log_size",
    "dp_erm_excess_risk",
    "em_gap",
    "gem_gap",
    "jl_distortion",
    "jl_em_dimension",
    "jl_em_dimension_explicit",
    "jl_em_risk_bound",
    "jl_erm_dimension",
    "jl_erm_risk_bound",
    "kernel_margin_risk_bound",
    "label_dp_risk_bound",
    "margin_bound_sensitivity",
    "margin_grid",
    "margin_selection_bound",
    "neural_cover_scale",
    "neural_jl_dimension",
    "neural_margin_risk_bound",
    "relative_deviation_bound",
    "relative_margin_bound",
    "rff_approximation_penalty",
    "rff_dimension",
    "rff_kernel_error",
    "rff_norm_inflation",
]

_FAT_C = 17.0  # the constant c of Lemma A.2 / Thm 6.1

# numpydoc entries of the parameters these formulas share, and below the check of
# the range each entry states (see fill_and_check_params).
_PARAMS: dict[str, str] = {
    "activation_scale": "float, default=1.0\nη, the scale of the activation.",
    "beta": "float\nFailure probability β ∈ (0, 1).",
    "const": "float, default=1.0\nMultiplies the O-term.",
    "data_norm": "float\nr, the bound on ‖x‖₂.",
    "delta": "float\nδ ∈ (0, 1).",
    "emp_margin_error": "float\nmin_h R̂^ρ_S(h).",
    "epsilon": "float\nε > 0.",
    "kernel_radius": "float\nr = √K(x, x).",
    "m": "int\nSample size.",
    "margin": "float\nρ > 0, the margin.",
    "n_features": "int\nD, the number of random features.",
    "n_layers": "int\nL ≥ 1, the number of layers.",
    "norm_bound": "float\nΛ, the bound on the weight norm.",
    "norm_bound@per_layer": "float\nΛ (per-layer Frobenius bound).",
}


def _rate(value: float, name: str) -> float:
    v = check_nonnegative(value, name)
    if v > 1:
        raise ValueError(f"{name} must be an error rate in [0, 1], got {v}.")
    return v


def _check_epsilon(epsilon: float, name: str) -> float:
    return check_epsilon(epsilon)


_CHECKS: dict[str, Check] = {
    "activation_scale": check_positive,
    "beta": check_open_unit,
    "data_norm": check_positive,
    "delta": check_open_unit,
    "emp_margin_error": _rate,
    "epsilon": _check_epsilon,
    "kernel_radius": check_positive,
    "m": check_int,
    "margin": check_positive,
    "n_features": check_int,
    "n_layers": check_int,
    "norm_bound": check_positive,
}

_params = fill_and_check_params(_PARAMS, _CHECKS)


# -- exponential mechanisms ------------------------------------------------------------
@_params
def em_gap(n_candidates: int, epsilon: float, m: int, beta: float) -> float:
    """Excess error of the exponential mechanism with score −(error rate).

    Parameters
    ----------
    n_candidates : int
        |C| ≥ 1.
    {params: epsilon}
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
    check_int(n_candidates, "n_candidates")
    beta = check_open_unit(beta, "beta")
    return (
        2.0
        * (math.log(n_candidates) + math.log(1.0 / beta))
        / (epsilon * check_int(m, "m"))
    )


@_params
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
    {params: epsilon beta}

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
    return (
        4.0
        * check_positive(sensitivity, "sensitivity")
        * math.log(check_int(n_candidates, "n_candidates") / beta)
        / epsilon
    )


# -- dimensions ------------------------------------------------------------------------
@_params
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
    {params: m beta norm_bound data_norm margin}
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
    ratio = norm_bound * data_norm / margin
    val = const * ratio**2 * math.log(m / beta)
    return max(1, math.ceil(val))


@_params
def jl_em_dimension_explicit(
    m: int, beta: float, norm_bound: float, data_norm: float, margin: float
) -> int:
    """Algorithm 1's JL dimension with the explicit Achlioptas constant.

    Parameters
    ----------
    {params: m beta norm_bound data_norm margin}

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
    gamma = margin / (norm_bound * data_norm)
    eps_j = min(gamma, 1.0) / 3.0
    n = (m + 1) * (m + 2) + 1
    num = 4.0 * math.log(n) + 2.0 * math.log(1.0 / beta)
    return max(1, math.ceil(num / (eps_j**2 / 2.0 - eps_j**3 / 3.0)))


@_params
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
    {params: m beta}

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


@_params
def jl_erm_dimension(m: int, epsilon: float, delta: float, beta: float) -> int:
    """JL dimension k = ⌈εm ln(m/β)/(ln^{3/2}(1/δ)·ln(1/β))⌉ of Algorithm 2.

    Parameters
    ----------
    {params: m epsilon delta beta}

    Returns
    -------
    int
        k ≥ 1 — explicit (Algorithm 2 step 1 has no hidden constant).

    Examples
    --------
    >>> jl_erm_dimension(10_000, 1.0, 1e-5, 0.05)
    1044
    """
    val = (
        epsilon
        * m
        * math.log(m / beta)
        / (math.log(1.0 / delta) ** 1.5 * math.log(1.0 / beta))
    )
    return max(1, math.ceil(val))


@_params
def rff_dimension(m: int, beta: float) -> int:
    """Number of random frequencies D = ⌈m²·ln(2m/β)⌉ of Algorithm 3.

    Parameters
    ----------
    {params: m beta}

    Returns
    -------
    int
        D — explicit (Algorithm 3 step 2); huge for any real m.

    Examples
    --------
    >>> f"{rff_dimension(10_000, 0.05):.2e}"
    '1.29e+09'
    """
    return max(1, math.ceil(m * m * math.log(2.0 * m / beta)))


@_params
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
    {params: margin data_norm norm_bound@per_layer n_layers}
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
    eta = check_positive(activation_scale, "activation_scale")
    return margin / (10.0 * data_norm * (4.0 * eta * norm_bound) ** (n_layers - 1))


@_params
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
    {params: m beta data_norm norm_bound margin n_layers activation_scale}
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


@_params
def margin_grid(h_max: float, m: int) -> NDArray[np.float64]:
    """Margin grid ρⱼ = 2^{−j}·h_max, j = 1..⌈½·log₂ m⌉, of Algorithm 6.

    Parameters
    ----------
    h_max : float
        A public bound on |h(x)| (Λr for linear predictors).
    {params: m}

    Returns
    -------
    ndarray
        The decreasing grid, from h_max/2 down to about h_max/√m.

    Examples
    --------
    >>> margin_grid(1.0, 10_000).size
    7
    """
    n_grid = max(1, math.ceil(0.5 * math.log2(m))) if m > 1 else 1
    grid = check_positive(h_max, "h_max") * 2.0 ** -np.arange(1, n_grid + 1)
    return np.asarray(grid, dtype=np.float64)


# -- generic generalization bounds -----------------------------------------------------
@_params
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
    {params: m beta}

    Returns
    -------
    float
        R̂ + 2√(R̂·T/m) + 4T/m with T = V ln(2m) + ln(4/β) — explicit.

    Examples
    --------
    >>> round(relative_deviation_bound(0.0, 10, 10_000, 0.05), 4)
    0.0414
    """
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


@_params
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
    {params: m beta}

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
    big_m = _fat_m(fat_dim, m, math.log(1.0 / beta))
    r = _rate(emp_margin_error, "emp_margin_error")
    return r + 2.0 * math.sqrt(r * big_m / m) + big_m / m


# -- the paper's theorems ------------------------------------------------------------
@_params
def jl_em_risk_bound(
    emp_margin_error: float,
    m: int,
    epsilon: float,
    beta: float,
    norm_bound: float,
    data_norm: float,
    margin: float,
    *,
    n_components: int | None = None,
    log_cover_size: float | None = None,
) -> float:
    """Risk bound of Algorithm 1 (Thm 3.1), explicit chain of App. B.1.

    Parameters
    ----------
    emp_margin_error : float
        R̂^ρ_S(w*) of the comparator.
    {params: m epsilon}
    beta : float
        β ∈ (0, 1), split in four quarters.
    {params: norm_bound data_norm margin}
    n_components : int, optional
        k; default :func:`jl_em_dimension` with c′ = 1.
    log_cover_size : float, optional
        ln|C| of the cover actually used; default the volumetric bound of a
        ρ/(10r)-cover of B^k(2Λ).

    Returns
    -------
    float
        R̂^ρ + 2√(R̂^ρ V/m) + 2α + 8V/m with V = k ln(2m) + ln(16/β) and
        α = 2(ln|C| + ln(4/β))/(εm) — explicit given k and |C| (the JL event
        itself needs k at the formula's value, up to c′).

    Examples
    --------
    >>> round(jl_em_risk_bound(0.0, 10**6, 1.0, 0.05, 1.0, 1.0, 0.5,
    ...                        n_components=20), 4)
    0.0027
    """
    r = _rate(emp_margin_error, "emp_margin_error")
    beta = check_open_unit(beta, "beta")
    k = (
        jl_em_dimension(m, beta, norm_bound, data_norm, margin)
        if n_components is None
        else check_int(n_components, "n_components")
    )
    if log_cover_size is None:
        log_cover_size = cover_log_size(
            k, 2.0 * norm_bound, margin / (10.0 * data_norm)
        )
    v = k * math.log(2.0 * m) + math.log(16.0 / beta)
    alpha = 2.0 * (log_cover_size + math.log(4.0 / beta)) / (epsilon * m)
    return r + 2.0 * math.sqrt(r * v / m) + 2.0 * alpha + 8.0 * v / m


@_params
def dp_erm_excess_risk(
    m: int,
    epsilon: float,
    delta: float,
    beta: float,
    n_components: int,
    norm_bound: float,
    data_norm: float,
    margin: float,
    const: float = 1.0,
) -> float:
    """Excess empirical ρ-hinge risk of Algorithm 5 (Lemma 3.1).

    Parameters
    ----------
    {params: m epsilon delta beta}
    n_components : int
        k, the dimension of the problem.
    norm_bound : float
        Λ_W, radius of the domain.
    data_norm : float
        r̃, row-norm bound.
    {params: margin const}

    Returns
    -------
    float
        const·(Λr̃/ρ)(1/√m + √k ln^{3/2}(1/δ) ln(1/β)/(εm)) — up to constants.

    Examples
    --------
    >>> round(dp_erm_excess_risk(10_000, 1.0, 1e-5, 0.05, 1043, 2.0, 2.0, 0.5), 3)
    3.104
    """
    k = check_int(n_components, "n_components")
    ratio = norm_bound * data_norm / margin
    noise = (
        math.sqrt(k)
        * math.log(1.0 / delta) ** 1.5
        * math.log(1.0 / beta)
        / (epsilon * m)
    )
    return const * ratio * (1.0 / math.sqrt(m) + noise)


@_params
def jl_erm_risk_bound(
    emp_hinge: float,
    m: int,
    epsilon: float,
    delta: float,
    beta: float,
    norm_bound: float,
    data_norm: float,
    margin: float,
    const: float = 1.0,
) -> float:
    """Risk bound of Algorithm 2 (Thm 3.2; also the F of Cor. F.2).

    Parameters
    ----------
    emp_hinge : float
        min_{w∈B(Λ)} L̂^ρ_S(w) ≥ 0.
    {params: m epsilon delta beta norm_bound data_norm margin const}

    Returns
    -------
    float
        L̂ + const·(√(ln(1/β)/m) + (Λr/ρ)(1/√m + √(ln(m/β) ln(1/β))·ln^{3/4}(1/δ)/√(εm)))
        — up to constants. Non-increasing in ρ.

    Examples
    --------
    >>> round(jl_erm_risk_bound(0.1, 10_000, 1.0, 1e-5, 0.05, 1.0, 1.0, 0.5), 3)
    0.893
    """
    g = check_nonnegative(emp_hinge, "emp_hinge")
    ratio = norm_bound * data_norm / margin
    priv = (
        math.sqrt(math.log(m / beta) * math.log(1.0 / beta))
        * math.log(1.0 / delta) ** 0.75
        / math.sqrt(epsilon * m)
    )
    return g + const * (
        math.sqrt(math.log(1.0 / beta) / m) + ratio * (1.0 / math.sqrt(m) + priv)
    )


@_params
def kernel_margin_risk_bound(
    emp_hinge: float,
    m: int,
    epsilon: float,
    delta: float,
    beta: float,
    norm_bound: float,
    kernel_radius: float,
    margin: float,
    const: float = 1.0,
) -> float:
    """Risk bound of Algorithm 3 (Thm 4.2), the same form as Thm 3.2.

    Parameters
    ----------
    emp_hinge : float
        min_{‖h‖_ℍ ≤ Λ} L̂^ρ_S(h).
    {params: m epsilon delta beta}
    norm_bound : float
        Λ (RKHS norm bound).
    {params: kernel_radius margin const}

    Returns
    -------
    float
        The Thm 3.2 expression with r = √K(x, x) — up to constants.

    Examples
    --------
    >>> kernel_margin_risk_bound(0.1, 10_000, 1.0, 1e-5, 0.05, 1.0, 1.0, 0.5) == (
    ...     jl_erm_risk_bound(0.1, 10_000, 1.0, 1e-5, 0.05, 1.0, 1.0, 0.5))
    True
    """
    return jl_erm_risk_bound(
        emp_hinge, m, epsilon, delta, beta, norm_bound, kernel_radius, margin, const
    )


@_params
def rff_kernel_error(
    kernel_radius: float, m: int, beta: float, n_features: int
) -> float:
    """Uniform error of random-Fourier-feature inner products (Thm 4.1).

    Parameters
    ----------
    {params: kernel_radius}
    m : int
        Number of points.
    beta : float
        β ∈ (0, 1/2].
    n_features : int
        D, the number of frequencies (2D features).

    Returns
    -------
    float
        2r²√(ln(m/β)/D) — explicit.

    Examples
    --------
    >>> round(rff_kernel_error(1.0, 100, 0.05, 10_000), 4)
    0.0551
    """
    return (
        2.0
        * kernel_radius**2
        * math.sqrt(
            math.log(check_int(m, "m") / check_open_unit(beta, "beta"))
            / check_int(n_features, "n_features")
        )
    )


@_params
def rff_approximation_penalty(
    norm_bound: float,
    kernel_radius: float,
    margin: float,
    m: int,
    beta: float,
    n_features: int,
) -> float:
    """Hinge-loss penalty of using D random frequencies (proof of Thm 4.2).

    Parameters
    ----------
    {params: norm_bound kernel_radius margin m beta n_features}

    Returns
    -------
    float
        Λr√m·√(ln(2m/β)/D)/ρ — explicit (derived from eq. (19) and Fact C.1
        with μ = r/(Λρ√m)).

    Examples
    --------
    >>> round(rff_approximation_penalty(1.0, 1.0, 0.5, 100, 0.05, 10**6), 4)
    0.0576
    """
    return (
        norm_bound
        * kernel_radius
        * math.sqrt(m)
        * math.sqrt(math.log(2.0 * m / beta) / n_features)
        / margin
    )


@_params
def rff_norm_inflation(m: int, beta: float, n_features: int) -> float:
    """Factor by which the RFF image of the comparator can exceed Λ.

    Parameters
    ----------
    {params: m beta n_features}

    Returns
    -------
    float
        √(1 + (m/2)·√(ln(2m/β)/D)); pass Λ times this to Algorithm 2 instead of
        2Λ when D is below m² ln(2m/β) — explicit (derived from the proof of
        Thm 4.2).

    Examples
    --------
    >>> rff_norm_inflation(100, 0.05, rff_dimension(100, 0.05)) < 1.5
    True
    """
    return math.sqrt(1.0 + 0.5 * m * math.sqrt(math.log(2.0 * m / beta) / n_features))


@_params
def neural_margin_risk_bound(
    emp_margin_error: float,
    m: int,
    epsilon: float,
    beta: float,
    data_norm: float,
    norm_bound: float,
    margin: float,
    n_layers: int,
    width: int,
    activation_scale: float = 1.0,
    const: float = 1.0,
) -> float:
    """Risk bound of the network learner (Thm 5.1).

    Parameters
    ----------
    {params: emp_margin_error m epsilon beta data_norm norm_bound@per_layer margin}
    n_layers : int
        L.
    width : int
        N.
    {params: activation_scale}
    const : float, default=1.0
        Multiplies the O-terms.

    Returns
    -------
    float
        R̂^ρ + const·(r(2ηΛ)^L √(Nθ)/(ρ√m) + r²(2ηΛ)^{2L}Nθ/(ρ²εm)) with
        θ = ln(Lm/β)·max(0, ln(r(ηΛ)^L/ρ)) — up to constants.

    Examples
    --------
    >>> round(neural_margin_risk_bound(0.0, 10**6, 1.0, 0.05, 1.0, 2.0, 0.1, 2, 4), 3)
    9.184
    """
    lay = check_int(n_layers, "n_layers")
    n = check_int(width, "width")
    r, rn, rho = emp_margin_error, data_norm, margin
    scale = 2.0 * activation_scale * norm_bound
    theta = math.log(lay * m / beta) * max(
        0.0, math.log(rn * (activation_scale * norm_bound) ** lay / rho)
    )
    gen = rn * scale**lay * math.sqrt(n * theta) / (rho * math.sqrt(m))
    priv = rn**2 * scale ** (2 * lay) * n * theta / (rho**2 * epsilon * m)
    return r + const * (gen + priv)


@_params
def label_dp_risk_bound(
    emp_margin_error: float, m: int, epsilon: float, beta: float, fat_dim: float
) -> float:
    """Risk bound of the label-DP learner, Algorithm 4 (Thm 6.1).

    Parameters
    ----------
    {params: emp_margin_error m epsilon beta}
    fat_dim : float
        d = fat_{ρ/32}(H) (≤ 1024Λ²r²/ρ² for linear classes).

    Returns
    -------
    float
        R̂ + 2√R̂·√(M/m) + 2M/m + 64M ln(2/β)/(εm), with
        M = 1 + d log₂(2c²m) log₂(2cem/d) + ln(2/β), c = 17 — explicit.

    Examples
    --------
    >>> round(label_dp_risk_bound(0.0, 10**7, 1.0, 0.05, 1.0), 4)
    0.0231
    """
    big_m = _fat_m(fat_dim, m, math.log(2.0 / beta))
    r = emp_margin_error
    return (
        r
        + 2.0 * math.sqrt(r) * math.sqrt(big_m / m)
        + 2.0 * big_m / m
        + 64.0 * big_m * math.log(2.0 / beta) / (epsilon * m)
    )


@_params
def margin_bound_sensitivity(
    variant: str,
    m: int,
    *,
    norm_bound: float = 1.0,
    data_norm: float = 1.0,
    margin: float = 1.0,
    beta: float = 0.05,
    fat_dim: float | None = None,
) -> float:
    """Replace-one sensitivity Δ_ρ(F) of a bound function F (Lemma F.3).

    Parameters
    ----------
    variant : {"jl-erm", "kernel", "jl-em", "label-dp", "neural"}
        F2 (Thm 3.2), F3 (Thm 4.2), F1 (Thm 3.1), F4 (Thm 6.1), F5 (Thm 5.1).
    {params: m}
    norm_bound : float, default=1.0
        Λ.
    data_norm : float, default=1.0
        r.
    margin : float, default=1.0
        ρ.
    beta : float, default=0.05
        β (for "jl-em").
    fat_dim : float, optional
        d (for "label-dp").

    Returns
    -------
    float
        "jl-erm"/"kernel": (1 + Λr/ρ)/m, the range of the ρ-hinge over m —
        explicit, valid (the paper's 2Λr/(mρ) is this bound's upper estimate
        when ρ ≤ Λr); "jl-em": (1 + √(Λ²r² ln²(m/β)/ρ² + ln(1/β)))/m and
        "label-dp": (1 + √M)/m — up to constants; "neural": 1/m — up to
        constants.

    Examples
    --------
    >>> margin_bound_sensitivity("jl-erm", 100, norm_bound=1.0, margin=0.5)
    0.03
    """
    if variant in ("jl-erm", "kernel"):
        return (1.0 + norm_bound * data_norm / check_positive(margin, "margin")) / m
    if variant == "jl-em":
        beta = check_open_unit(beta, "beta")
        ratio = norm_bound * data_norm / check_positive(margin, "margin")
        inner = ratio**2 * math.log(m / beta) ** 2 + math.log(1.0 / beta)
        return (1.0 + math.sqrt(inner)) / m
    if variant == "label-dp":
        if fat_dim is None:
            raise ValueError("variant='label-dp' needs fat_dim.")
        big_m = _fat_m(fat_dim, m, math.log(2.0 / check_open_unit(beta, "beta")))
        return (1.0 + math.sqrt(big_m)) / m
    if variant == "neural":
        return 1.0 / m
    raise ValueError(
        "variant must be one of 'jl-erm', 'kernel', 'jl-em', 'label-dp', 'neural'; "
        f"got {variant!r}."
    )


@_params
def margin_selection_bound(
    bound_values: ArrayLike,
    sensitivities: ArrayLike,
    epsilon: float,
    m: int,
    beta: float,
) -> float:
    """Risk bound after private margin selection (Lemma F.1).

    Parameters
    ----------
    bound_values : array-like
        F(ρⱼ/2, g_{ρⱼ}(S)) over the grid.
    sensitivities : array-like
        Δ_{ρⱼ/2}(F) over the grid.
    epsilon : float
        The selection's ε.
    {params: m beta}

    Returns
    -------
    float
        minⱼ [F(ρⱼ/2, g_{ρⱼ}) + (Δ_{ρⱼ/2}/ε)·ln(ln(m)/β)] — up to the constants
        of the paper's statement (it holds with probability ≥ 1 − 2β).

    Examples
    --------
    >>> round(margin_selection_bound([0.3, 0.2], [0.01, 0.02], 1.0, 10_000, 0.05), 4)
    0.3043
    """
    f = np.asarray(bound_values, dtype=np.float64)
    s = np.asarray(sensitivities, dtype=np.float64)
    slack = math.log(max(math.log(m), 1e-300) / beta)
    return float(np.min(f + s / check_epsilon(epsilon) * slack))
