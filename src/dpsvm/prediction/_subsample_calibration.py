# SPDX-License-Identifier: BSD-3-Clause
"""Calibration of subsample-and-aggregate with the sparse vector (public only).

The mechanism of :class:`~dpsvm.prediction.SubsampleAggregatePredictor` is
Bassily, Thakkar & Thakurta (NeurIPS 2018), Algorithm 1 (``A_stab``), with
Dwork & Feldman's (COLT 2018) charged noisy vote on the queries the sparse
vector does not pass. Everything here is a function of public quantities: the
number of teachers k, the cut-off c of charged answers, the number m of answers,
ε, δ and the share of each round's ε given to the noisy vote. The proof of the
guarantee, with the constants below, is in ``docs/prediction.md``
("Subsample-and-aggregate").

One **round** is one run of AboveThreshold (Lyu, Su & Li 2017, Alg. 1 with
their c = 1) on the distance-to-instability queries q_i (sensitivity 1), which
ends at the first query that does *not* clear the noisy threshold; that query
gets the charged noisy vote. A round is ε_r-DP with ε_r = ε_sv + ε_v (the
sparse-vector instance plus the vote). The c rounds compose adaptively
(Dwork & Roth 2014, Thm 3.16, or Dwork, Rothblum & Vadhan 2010, Thm III.3,
whichever gives the lower threshold) to (ε, δ_comp). The free answers (the
teachers' majority) add δ_fail = m·P[ν − ρ > w], a bound on the probability
that some query with q_i = 0 (an unstable majority) clears the threshold
anyway (Bassily, Thakkar & Thakurta, proof of Thm 3.4; Smith & Thakurta 2013).
The bound is **per round**, not per query (ρ is shared within a round, and
the earlier free answers of the round bias it low): an unstable query that
does not clear the threshold is charged and ends its round, so the bad event
of round j is that its *first* unstable query clears. Given the history before
the round, ρ_j is fresh and that query's ν is independent of ρ_j and of the
round so far; bounding the indicator "the round reaches an unstable query" by
1 before averaging over ρ_j gives P[round j bad] ≤ P[ν − ρ > w]. There are at
most min(c, m) rounds, so P[some free answer is unstable] ≤
min(c, m)·P[ν − ρ > w] ≤ m·P[ν − ρ > w]; the calibration keeps the
(conservative) m.

**Exact noise over the integers.** q is an integer, so the comparison lives on
the grid (1/g)ℤ for a public power of two g: Q = g·q (an integer of
sensitivity g), ρ ~ DLap(T₁) and ν ~ DLap(T₂) with T₁ = ⌈g/ε₁⌉ and
T₂ = ⌈2g/ε₂⌉ (P(k) ∝ exp(−|k|/T) on ℤ, drawn exactly by
:func:`dpsvm.mechanisms.sample_discrete_laplace`, Canonne, Kamath & Steinke
2020 Alg. 2), threshold W = g·w an integer, and a query is free iff
Q + ν > W + ρ (strict; a tie is charged). g is the smallest power of two with
g·min(1/ε₁, 2/ε₂) ≥ 2²⁰, so T/g exceeds the real scale 1/ε₁ (2/ε₂) by a factor
below 1 + 2⁻²⁰. AboveThreshold's proof (Lyu, Su & Li 2017, Thm 2; Dwork & Roth
Thm 3.23) holds verbatim: for neighbours, Q′ ≥ Q − g on the free queries and
Q′ ≤ Q + g on the charged one, so the shift (ρ, ν_last) ↦ (ρ − g, ν_last − 2g)
— a bijection of ℤ² — maps every noise value giving an outcome on D to one
giving it on D′ (for the strict and the non-strict comparison alike), and the
discrete Laplace mass ratios are at most e^{g/T₁} ≤ e^{ε₁} and
e^{2g/T₂} ≤ e^{ε₂}. δ_fail uses the exact tail of the difference of the two
discrete Laplace variables (:func:`discrete_laplace_difference_tail`, a closed
form; the strict inequality matches the free rule).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from ..accounting.composition import per_step_epsilon

__all__ = [
    "SubsampleAggregateCalibration",
    "default_max_charged",
    "default_n_teachers",
    "discrete_laplace_difference_tail",
    "subsample_aggregate_calibration",
    "vacuity_message",
]

#: Agreement of the teachers at which the default cut-off still lets a query
#: through as free with probability ≥ 1 − ``_CLEARANCE_MISS`` (public rule).
_CLEARANCE_AGREEMENT = 0.9
_CLEARANCE_MISS = 0.05
#: Largest cut-off the default rule considers.
_MAX_DEFAULT_CHARGED = 100_000
#: The grid g makes the integer noise scales T₁, T₂ at least this, so that
#: rounding them up costs a factor below 1 + 1/_MIN_NOISE_UNITS.
_MIN_NOISE_UNITS = 2**20
#: Relative guard on the floating-point evaluation of the closed-form tail
#: (a few ulps in fact) when the threshold is chosen.
_TAIL_GUARD = 1.0 + 1e-9


def discrete_laplace_difference_tail(level: int, t_a: int, t_b: int) -> float:
    """P[X − Y > level] for independent X ~ DLap(t_a), Y ~ DLap(t_b) on ℤ.

    DLap(t) is the discrete Laplace law P(k) = (1 − a)/(1 + a)·a^{|k|},
    a = e^{−1/t} (Canonne, Kamath & Steinke 2020, Def. 2). X − Y has the law of
    X + Y (Y is symmetric); summing P(Y = j)·P[X > w − j] over j ∈ ℤ in closed
    form gives, for an integer w ≥ 0, with a = e^{−1/t_a}, b = e^{−1/t_b}:

    P = (1 − b)/((1 + a)(1 + b))·[a^{w+2}b/(1 − ab) + a·Σ_{j=0}^{w} a^{w−j}b^j]
    + b^{w+1}(1 − a²b)/((1 + a)(1 + b)(1 − ab)),

    with Σ_{j=0}^{w} a^{w−j}b^j = (a^{w+1} − b^{w+1})/(a − b) (w + 1 terms of
    a^w when a = b). Every term is positive and is evaluated with ``expm1``,
    so the value is accurate to a few ulps even for scales near 2⁵⁰. For
    w < 0, P[X − Y > w] = 1 − P[X − Y > −w − 1] (integer-valued, symmetric).

    Parameters
    ----------
    level : int
        The integer level w.
    t_a, t_b : int
        The two integer scales (≥ 1).

    Returns
    -------
    float
        The tail probability.

    Examples
    --------
    >>> round(discrete_laplace_difference_tail(0, 1, 1), 6)
    0.359799
    >>> round(discrete_laplace_difference_tail(-1, 1, 1), 6)  # 1 − P[> 0]
    0.640201
    """
    w = int(level)
    if w < 0:
        return 1.0 - discrete_laplace_difference_tail(-w - 1, t_a, t_b)
    alpha, beta = 1.0 / int(t_a), 1.0 / int(t_b)
    a, b = math.exp(-alpha), math.exp(-beta)
    one_minus_b = -math.expm1(-beta)
    one_minus_ab = -math.expm1(-(alpha + beta))
    one_minus_aab = -math.expm1(-(2.0 * alpha + beta))
    if alpha == beta:
        geometric = (w + 1) * math.exp(-alpha * w)
    else:
        # (a^{w+1} − b^{w+1})/(a − b) = a^w·expm1((α−β)(w+1))/expm1(α−β).
        geometric = (
            math.exp(-alpha * w)
            * math.expm1((alpha - beta) * (w + 1))
            / math.expm1(alpha - beta)
        )
    norm = (1.0 + a) * (1.0 + b)
    left = one_minus_b / norm * (math.exp(-alpha * (w + 2)) * b / one_minus_ab)
    middle = one_minus_b / norm * a * geometric
    right = math.exp(-beta * (w + 1)) * one_minus_aab / (norm * one_minus_ab)
    return min(1.0, left + middle + right)


def noise_grid(threshold_epsilon: float, comparison_epsilon: float) -> int:
    """g: the smallest power of two with g·min(1/ε₁, 2/ε₂) ≥ 2²⁰ (public).

    The distance to instability is an integer; on the grid (1/g)ℤ the noise
    scales g/ε₁ and 2g/ε₂ round up to integers (the discrete Laplace sampler
    needs integer scales) at a relative cost below 2⁻²⁰.

    Parameters
    ----------
    threshold_epsilon, comparison_epsilon : float
        ε₁ and ε₂ of one round.

    Returns
    -------
    int
        g ≥ 1.

    Examples
    --------
    >>> noise_grid(1.0, 2.0)
    1048576
    """
    smallest = min(1.0 / threshold_epsilon, 2.0 / comparison_epsilon)
    g = 1
    while g * smallest < _MIN_NOISE_UNITS:
        g *= 2
    return g


@dataclass(frozen=True)
class SubsampleAggregateCalibration:
    """The public constants of one configuration (see the module docstring).

    Attributes
    ----------
    n_teachers : int
        k.
    max_charged : int
        c, the cut-off of charged answers (rounds).
    n_queries : int
        m, the most answers.
    epsilon, delta : float
        The total guarantee (ε, δ).
    round_epsilon : float
        ε_r of one round (sparse vector plus vote).
    threshold_epsilon, comparison_epsilon, vote_epsilon : float
        ε₁ (threshold noise), ε₂ (comparisons) and ε_v (vote) of one round;
        ε₁ + ε₂ + ε_v = ε_r.
    threshold_scale : float
        T₁/g ≥ 1/ε₁, the scale of ρ in distance units (Lyu, Su & Li Alg. 1:
        ρ ~ Lap(Δ/ε₁), Δ = 1; here the discrete Laplace on the grid).
    comparison_scale : float
        T₂/g ≥ 2/ε₂ (Lyu, Su & Li Alg. 1 with c = 1: ν ~ Lap(2cΔ/ε₂)).
    vote_scale : float
        2/ε_v: Laplace scale of the charged vote on 2v − k (sensitivity 2); inf
        when ε_v = 0.
    threshold : float
        w = W/g, the smallest level on the grid with m·P[ν − ρ > w] ≤ δ_fail.
    failure_delta : float
        δ_fail.
    composition : str
        ``"basic"`` or ``"advanced"``: how the c rounds compose.
    composition_slack : float
        δ′ of advanced composition (0 for basic).
    max_distance : int
        ⌈k/2⌉ − 1, the distance to instability of a unanimous vote.
    grid : int
        g, a power of two: queries, noise and threshold live on (1/g)ℤ and are
        compared as integers (:func:`noise_grid`).
    threshold_units : int
        W = g·w, the integer threshold.
    threshold_noise_units : int
        T₁ = ⌈g/ε₁⌉: ρ ~ DLap(T₁) on ℤ (sensitivity g, so ε₁-DP).
    comparison_noise_units : int
        T₂ = ⌈2g/ε₂⌉: ν ~ DLap(T₂) on ℤ.
    """

    n_teachers: int
    max_charged: int
    n_queries: int
    epsilon: float
    delta: float
    round_epsilon: float
    threshold_epsilon: float
    comparison_epsilon: float
    vote_epsilon: float
    threshold_scale: float
    comparison_scale: float
    vote_scale: float
    threshold: float
    failure_delta: float
    composition: str
    composition_slack: float
    max_distance: int
    grid: int
    threshold_units: int
    threshold_noise_units: int
    comparison_noise_units: int

    def free_probability(self, distance: float) -> float:
        """P[g·q + ν > W + ρ]: a query at distance q gets a free answer.

        Parameters
        ----------
        distance : float
            q, the distance to instability of the teachers' vote.

        Returns
        -------
        float
            The probability, for a fresh ρ.
        """
        # ν − ρ is an integer: ν − ρ > W − g·q ⇔ ν − ρ > ⌊W − g·q⌋.
        level = self.threshold_units - math.ceil(self.grid * distance)
        return discrete_laplace_difference_tail(
            level, self.comparison_noise_units, self.threshold_noise_units
        )

    @property
    def vacuous(self) -> bool:
        """Whether even a unanimous vote is charged at least half the time.

        Then the sparse vector (almost) never answers for free: the service
        degenerates to at most c noisy votes, and with ``vote_share=0`` every
        answer would be a refusal.
        """
        return self.free_probability(self.max_distance) <= 0.5


def _max_distance(k: int) -> int:
    # q = max(0, ⌈g/2⌉ − 1) with the gap g = ct(y₁) − ct(y₂) = k when unanimous.
    return max(0, -(-k // 2) - 1)


def _threshold_units(m: int, t_nu: int, t_rho: int, failure_delta: float) -> int:
    """Smallest integer W ≥ 0 with m·P[ν − ρ > W] ≤ δ_fail (ν ~ DLap(t_nu)).

    The closed-form tail is evaluated in floating point (a few ulps of error);
    it is inflated by a relative guard of 10⁻⁹ before the comparison, so the
    stated δ_fail is a true bound.
    """

    def too_likely(w: int) -> bool:
        tail = discrete_laplace_difference_tail(w, t_nu, t_rho)
        return m * tail * _TAIL_GUARD > failure_delta

    if not too_likely(0):
        return 0
    lo, hi = 0, max(t_nu, t_rho)  # too_likely(lo)
    while too_likely(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if too_likely(mid) else (lo, mid)
    return hi


def _round_calibration(
    round_eps: float, vote_share: float
) -> tuple[float, float, float, float, float, float]:
    vote_eps = vote_share * round_eps
    sv_eps = round_eps - vote_eps
    # Lyu, Su & Li 2017, Sec. 4.2: the split ε₁ : ε₂ = 1 : (2c)^{2/3} minimises
    # the variance of ν − ρ; here c = 1 (one "below" outcome per round).
    ratio = 2.0 ** (2.0 / 3.0)
    eps1 = sv_eps / (1.0 + ratio)
    eps2 = sv_eps - eps1
    # Lyu, Su & Li 2017, Alg. 1 (Thm 2: (ε₁ + ε₂)-DP) with Δ = 1, c = 1:
    # ρ ~ Lap(Δ/ε₁), ν ~ Lap(2cΔ/ε₂).
    b_rho = 1.0 / eps1
    b_nu = 2.0 / eps2
    # Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006) on 2v − k,
    # whose sensitivity is 2 (one row changes one teacher's vote).
    b_vote = 2.0 / vote_eps if vote_eps > 0 else math.inf
    return eps1, eps2, vote_eps, b_rho, b_nu, b_vote


@functools.lru_cache(maxsize=4096)  # pure function of public numbers
def subsample_aggregate_calibration(
    n_teachers: int,
    epsilon: float,
    delta: float,
    n_queries: int,
    max_charged: int,
    vote_share: float,
) -> SubsampleAggregateCalibration:
    """The constants of the mechanism for one public configuration.

    Two calibrations are valid and the one with the lower threshold w is kept:
    basic composition of the c rounds (ε_r = ε/c, Dwork & Roth Thm 3.16;
    δ_fail = δ) and advanced composition (ε_r from Dwork, Rothblum & Vadhan
    Thm III.3 with δ′ = δ/2; δ_fail = δ/2).

    Parameters
    ----------
    n_teachers : int
        k ≥ 1.
    epsilon : float
        Total ε > 0.
    delta : float
        Total δ in (0, 1).
    n_queries : int
        m ≥ 1, the most answers.
    max_charged : int
        c ≥ 1, the cut-off of charged answers.
    vote_share : float
        Share of each round's ε spent on the noisy vote, in [0, 1).

    Returns
    -------
    SubsampleAggregateCalibration
        The constants.

    Examples
    --------
    >>> cal = subsample_aggregate_calibration(1000, 1.0, 1e-6, 100, 1, 0.0)
    >>> cal.composition, cal.round_epsilon, round(cal.threshold, 1)
    ('basic', 1.0, 61.0)
    """
    k, m, c = int(n_teachers), int(n_queries), int(max_charged)
    candidates = []
    # Basic composition (Dwork & Roth 2014, Thm 3.16): c rounds of ε/c; all of
    # δ to the free answers.
    candidates.append(("basic", epsilon / c, 0.0, delta))
    if c > 1:
        # Advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3) with
        # δ′ = δ/2; per_step_epsilon returns max(ε_adv, ε/c), each valid.
        candidates.append(
            (
                "advanced",
                per_step_epsilon(epsilon, c, delta / 2.0),
                delta / 2,
                delta / 2,
            )
        )
    best = None
    for name, round_eps, slack, fail in candidates:
        eps1, eps2, vote_eps, _b_rho, _b_nu, b_vote = _round_calibration(
            round_eps, vote_share
        )
        # Exact noise on the grid (1/g)ℤ (module docstring): T₁ = ⌈g/ε₁⌉,
        # T₂ = ⌈2g/ε₂⌉ ≥ the real scales b_ρ·g, b_ν·g.
        g = noise_grid(eps1, eps2)
        # Exact rational ceilings: g/T₁ ≤ ε₁ and 2g/T₂ ≤ ε₂ hold exactly.
        t_rho = math.ceil(Fraction(g) / Fraction(eps1))
        t_nu = math.ceil(Fraction(2 * g) / Fraction(eps2))
        w_units = _threshold_units(m, t_nu, t_rho, fail)
        cal = SubsampleAggregateCalibration(
            n_teachers=k,
            max_charged=c,
            n_queries=m,
            epsilon=float(epsilon),
            delta=float(delta),
            round_epsilon=round_eps,
            threshold_epsilon=eps1,
            comparison_epsilon=eps2,
            vote_epsilon=vote_eps,
            threshold_scale=t_rho / g,
            comparison_scale=t_nu / g,
            vote_scale=b_vote,
            threshold=w_units / g,
            failure_delta=fail,
            composition=name,
            composition_slack=slack,
            max_distance=_max_distance(k),
            grid=g,
            threshold_units=w_units,
            threshold_noise_units=t_rho,
            comparison_noise_units=t_nu,
        )
        if best is None or cal.threshold < best.threshold:
            best = cal
    assert best is not None
    return best


def default_n_teachers(n_samples: int, epsilon: float) -> int:
    """k from the public n and ε: about max(16, min(1, ε)·√n/2) rows each.

    More teachers raise the largest distance to instability (⌈k/2⌉ − 1), which
    must clear a threshold that grows like 1/ε; fewer rows per teacher make
    each teacher worse, and the free answers need teachers that *agree*. √n/2
    rows per teacher (500 at n = 10⁶, k = 2000) beat n^{1/3} (100 rows,
    k = 10⁴) by a factor of eight in answers on the synthetic benchmark of
    ``docs/prediction.md``; it is a public rule, not tuned on private data.

    Parameters
    ----------
    n_samples : int
        n, the number of training rows (public).
    epsilon : float
        The total ε.

    Returns
    -------
    int
        k ≥ 1.

    Examples
    --------
    >>> default_n_teachers(1_000_000, 1.0), default_n_teachers(30_162, 1.0)
    (2000, 346)
    """
    rows = max(16, round(min(1.0, epsilon) * math.sqrt(n_samples) / 2.0))
    return max(1, int(n_samples) // rows)


def default_max_charged(
    n_teachers: int, epsilon: float, delta: float, n_queries: int, vote_share: float
) -> int:
    """The largest c at which a 90%-agreeing vote is free with probability ≥ 0.95.

    A larger cut-off c raises the threshold w (like √c·ln(1/δ)/ε); the rule
    keeps w low enough that queries on which 90% of the teachers agree
    (distance ⌈0.4k⌉ − 1) are answered for free 95% of the time. Public.

    Parameters
    ----------
    n_teachers, epsilon, delta, n_queries, vote_share
        As for :func:`subsample_aggregate_calibration`.

    Returns
    -------
    int
        c ≥ 1 (1 when even c = 1 misses the rule; the configuration may then
        be vacuous, see :attr:`SubsampleAggregateCalibration.vacuous`).
    """
    k = int(n_teachers)
    gap = math.ceil((2.0 * _CLEARANCE_AGREEMENT - 1.0) * k)
    q = max(0, -(-gap // 2) - 1)

    def ok(c: int) -> bool:
        cal = subsample_aggregate_calibration(
            k, epsilon, delta, n_queries, c, vote_share
        )
        return cal.free_probability(q) >= 1.0 - _CLEARANCE_MISS

    if not ok(1):
        return 1
    lo, hi = 1, 2
    while hi <= _MAX_DEFAULT_CHARGED and ok(hi):
        lo, hi = hi, hi * 2
    hi = min(hi, _MAX_DEFAULT_CHARGED + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return min(lo, int(n_queries))


@functools.lru_cache(maxsize=256)
def vacuity_message(
    cal: SubsampleAggregateCalibration,
    n_samples: int,
    vote_share: float,
    teachers_given: bool,
) -> str:
    """One line naming what would make a vacuous configuration useful.

    Parameters
    ----------
    cal : SubsampleAggregateCalibration
        The vacuous calibration.
    n_samples : int
        n (public).
    vote_share : float
        The vote share of the configuration.
    teachers_given : bool
        Whether ``n_teachers`` was set by the user (else it follows n).

    Returns
    -------
    str
        The message.
    """
    args = (cal.epsilon, cal.delta, cal.n_queries, cal.max_charged, vote_share)

    def useful(k: int, eps: float = cal.epsilon, c: int = cal.max_charged) -> bool:
        return not subsample_aggregate_calibration(
            k, eps, args[1], args[2], c, vote_share
        ).vacuous

    # Smallest k that works (q_max grows with k, w does not depend on k).
    k_min = 2 * (math.floor(cal.threshold) + 2)
    while not useful(k_min):
        k_min *= 2
    lo, hi = max(1, cal.n_teachers), k_min
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if useful(mid) else (mid, hi)
    k_min = hi
    if teachers_given:
        more = f"n_teachers >= {k_min} (with at least {k_min} training rows)"
    else:
        n_min = n_samples
        while default_n_teachers(n_min, cal.epsilon) < k_min:
            n_min *= 2
        lo_n, hi_n = n_samples, n_min
        while hi_n - lo_n > 1:
            mid = (lo_n + hi_n) // 2
            lo_n, hi_n = (
                (lo_n, mid)
                if default_n_teachers(mid, cal.epsilon) >= k_min
                else (mid, hi_n)
            )
        more = f"at least {hi_n} training rows (n_teachers >= {k_min})"
    eps_hi = cal.epsilon
    while not useful(cal.n_teachers, eps_hi) and eps_hi < 1e6:
        eps_hi *= 2.0
    eps_lo = eps_hi / 2.0 if eps_hi > cal.epsilon else eps_hi
    for _ in range(60):
        eps_mid = 0.5 * (eps_lo + eps_hi)
        if useful(cal.n_teachers, eps_mid):
            eps_hi = eps_mid
        else:
            eps_lo = eps_mid
    c_max = 0
    if cal.max_charged > 1 and useful(cal.n_teachers, c=1):
        lo_c, hi_c = 1, cal.max_charged
        while hi_c - lo_c > 1:
            mid = (lo_c + hi_c) // 2
            lo_c, hi_c = (mid, hi_c) if useful(cal.n_teachers, c=mid) else (lo_c, mid)
        c_max = lo_c
    return (
        "subsample-aggregate is vacuous here: the sparse-vector threshold "
        f"w = {cal.threshold:.4g} is at least the largest distance to instability "
        f"{cal.max_distance} of {cal.n_teachers} teachers, so even a unanimous "
        "vote is refused a free answer; use "
        f"{more}, or epsilon >= {eps_hi:.3g}"
        + (f", or max_charged <= {c_max}" if c_max else "")
        + "."
    )
