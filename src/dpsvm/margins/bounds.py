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
from numpy.typing import ArrayLike

from ..utils._checks import check_int, check_nonnegative, check_open_unit
from ..validation import check_epsilon, check_positive
from ._bound_terms import (
    _check_epsilon,
    _fat_m,
    _rate,
    cover_log_size,
    em_gap,
    gem_gap,
    jl_distortion,
    jl_em_dimension,
    jl_em_dimension_explicit,
    jl_erm_dimension,
    margin_grid,
    neural_cover_scale,
    neural_jl_dimension,
    relative_deviation_bound,
    relative_margin_bound,
    rff_dimension,
)

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

# Every formula first checks the ranges that its Parameters section states, in
# that order. The building blocks (mechanism gaps, dimensions, covers, the generic
# relative-deviation bounds) are in :mod:`dpsvm.margins._bound_terms`.


# -- the paper's theorems ------------------------------------------------------------
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
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    beta : float
        β ∈ (0, 1), split in four quarters.
    norm_bound : float
        Λ, the bound on the weight norm.
    data_norm : float
        r, the bound on ‖x‖₂.
    margin : float
        ρ > 0, the margin.
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
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    norm_bound = check_positive(norm_bound, "norm_bound")
    data_norm = check_positive(data_norm, "data_norm")
    margin = check_positive(margin, "margin")
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
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    n_components : int
        k, the dimension of the problem.
    norm_bound : float
        Λ_W, radius of the domain.
    data_norm : float
        r̃, row-norm bound.
    margin : float
        ρ > 0, the margin.
    const : float, default=1.0
        Multiplies the O-term.

    Returns
    -------
    float
        const·(Λr̃/ρ)(1/√m + √k ln^{3/2}(1/δ) ln(1/β)/(εm)) — up to constants.

    Examples
    --------
    >>> round(dp_erm_excess_risk(10_000, 1.0, 1e-5, 0.05, 1043, 2.0, 2.0, 0.5), 3)
    3.104
    """
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = check_open_unit(delta, "delta")
    beta = check_open_unit(beta, "beta")
    margin = check_positive(margin, "margin")
    k = check_int(n_components, "n_components")
    ratio = norm_bound * data_norm / margin
    noise = (
        math.sqrt(k)
        * math.log(1.0 / delta) ** 1.5
        * math.log(1.0 / beta)
        / (epsilon * m)
    )
    return const * ratio * (1.0 / math.sqrt(m) + noise)


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
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    norm_bound : float
        Λ, the bound on the weight norm.
    data_norm : float
        r, the bound on ‖x‖₂.
    margin : float
        ρ > 0, the margin.
    const : float, default=1.0
        Multiplies the O-term.

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
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = check_open_unit(delta, "delta")
    beta = check_open_unit(beta, "beta")
    norm_bound = check_positive(norm_bound, "norm_bound")
    data_norm = check_positive(data_norm, "data_norm")
    margin = check_positive(margin, "margin")
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
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    norm_bound : float
        Λ (RKHS norm bound).
    kernel_radius : float
        r = √K(x, x).
    margin : float
        ρ > 0, the margin.
    const : float, default=1.0
        Multiplies the O-term.

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
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    delta = check_open_unit(delta, "delta")
    beta = check_open_unit(beta, "beta")
    kernel_radius = check_positive(kernel_radius, "kernel_radius")
    margin = check_positive(margin, "margin")
    return jl_erm_risk_bound(
        emp_hinge, m, epsilon, delta, beta, norm_bound, kernel_radius, margin, const
    )


def rff_kernel_error(
    kernel_radius: float, m: int, beta: float, n_features: int
) -> float:
    """Uniform error of random-Fourier-feature inner products (Thm 4.1).

    Parameters
    ----------
    kernel_radius : float
        r = √K(x, x).
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
    kernel_radius = check_positive(kernel_radius, "kernel_radius")
    return (
        2.0
        * kernel_radius**2
        * math.sqrt(
            math.log(check_int(m, "m") / check_open_unit(beta, "beta"))
            / check_int(n_features, "n_features")
        )
    )


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
    norm_bound : float
        Λ, the bound on the weight norm.
    kernel_radius : float
        r = √K(x, x).
    margin : float
        ρ > 0, the margin.
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).
    n_features : int
        D, the number of random features.

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
    norm_bound = check_positive(norm_bound, "norm_bound")
    kernel_radius = check_positive(kernel_radius, "kernel_radius")
    margin = check_positive(margin, "margin")
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    n_features = check_int(n_features, "n_features")
    return (
        norm_bound
        * kernel_radius
        * math.sqrt(m)
        * math.sqrt(math.log(2.0 * m / beta) / n_features)
        / margin
    )


def rff_norm_inflation(m: int, beta: float, n_features: int) -> float:
    """Factor by which the RFF image of the comparator can exceed Λ.

    Parameters
    ----------
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).
    n_features : int
        D, the number of random features.

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
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    n_features = check_int(n_features, "n_features")
    return math.sqrt(1.0 + 0.5 * m * math.sqrt(math.log(2.0 * m / beta) / n_features))


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
    emp_margin_error : float
        min_h R̂^ρ_S(h).
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    beta : float
        Failure probability β ∈ (0, 1).
    data_norm : float
        r, the bound on ‖x‖₂.
    norm_bound : float
        Λ (per-layer Frobenius bound).
    margin : float
        ρ > 0, the margin.
    n_layers : int
        L.
    width : int
        N.
    activation_scale : float, default=1.0
        η, the scale of the activation.
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
    emp_margin_error = _rate(emp_margin_error, "emp_margin_error")
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    beta = check_open_unit(beta, "beta")
    data_norm = check_positive(data_norm, "data_norm")
    margin = check_positive(margin, "margin")
    activation_scale = check_positive(activation_scale, "activation_scale")
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


def label_dp_risk_bound(
    emp_margin_error: float, m: int, epsilon: float, beta: float, fat_dim: float
) -> float:
    """Risk bound of the label-DP learner, Algorithm 4 (Thm 6.1).

    Parameters
    ----------
    emp_margin_error : float
        min_h R̂^ρ_S(h).
    m : int
        Sample size.
    epsilon : float
        ε > 0.
    beta : float
        Failure probability β ∈ (0, 1).
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
    emp_margin_error = _rate(emp_margin_error, "emp_margin_error")
    m = check_int(m, "m")
    epsilon = _check_epsilon(epsilon, "epsilon")
    beta = check_open_unit(beta, "beta")
    big_m = _fat_m(fat_dim, m, math.log(2.0 / beta))
    r = emp_margin_error
    return (
        r
        + 2.0 * math.sqrt(r) * math.sqrt(big_m / m)
        + 2.0 * big_m / m
        + 64.0 * big_m * math.log(2.0 / beta) / (epsilon * m)
    )


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
    m : int
        Sample size.
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
    m = check_int(m, "m")
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
    m : int
        Sample size.
    beta : float
        Failure probability β ∈ (0, 1).

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
    m = check_int(m, "m")
    beta = check_open_unit(beta, "beta")
    f = np.asarray(bound_values, dtype=np.float64)
    s = np.asarray(sensitivities, dtype=np.float64)
    slack = math.log(max(math.log(m), 1e-300) / beta)
    return float(np.min(f + s / check_epsilon(epsilon) * slack))
