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
the round, ρ_j ~ Lap(1/ε₁) is fresh and that query's ν is independent of ρ_j
and of the round so far; bounding the indicator "the round reaches an unstable
query" by 1 before averaging over ρ_j gives P[round j bad] ≤ P[ν − ρ > w]
(the exact tail of :func:`laplace_difference_tail`). There are at most
min(c, m) rounds, so P[some free answer is unstable] ≤ min(c, m)·P[ν − ρ > w]
≤ m·P[ν − ρ > w]; the calibration keeps the (conservative) m.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..accounting.composition import per_step_epsilon

__all__ = [
    "SubsampleAggregateCalibration",
    "default_max_charged",
    "default_n_teachers",
    "laplace_difference_tail",
    "subsample_aggregate_calibration",
    "vacuity_message",
]

#: Agreement of the teachers at which the default cut-off still lets a query
#: through as free with probability ≥ 1 − ``_CLEARANCE_MISS`` (public rule).
_CLEARANCE_AGREEMENT = 0.9
_CLEARANCE_MISS = 0.05
#: Largest cut-off the default rule considers.
_MAX_DEFAULT_CHARGED = 100_000


def laplace_difference_tail(t: float, a: float, b: float) -> float:
    """P[ν − ρ > t] for independent ν ~ Lap(a) and ρ ~ Lap(b).

    ν − ρ has the law of ν + ρ′ with ρ′ ~ Lap(b). For t ≥ 0 and a ≠ b the tail
    is (a²e^{−t/a} − b²e^{−t/b}) / (2(a² − b²)); for a = b it is
    e^{−t/a}(2 + t/a)/4 (the limit). The law is symmetric, so
    P[ν − ρ > −t] = 1 − P[ν − ρ > t].

    Parameters
    ----------
    t : float
        The level.
    a, b : float
        The two Laplace scales (> 0).

    Returns
    -------
    float
        The tail probability.

    Examples
    --------
    >>> laplace_difference_tail(0.0, 1.0, 2.0)
    0.5
    >>> round(laplace_difference_tail(3.0, 1.0, 1.0), 6)  # e^{-3}(2 + 3)/4
    0.062234
    """
    if t < 0:
        return 1.0 - laplace_difference_tail(-t, a, b)
    if math.isclose(a, b, rel_tol=1e-9):
        return math.exp(-t / a) * (2.0 + t / a) / 4.0
    hi, lo = max(a, b), min(a, b)
    # (hi²e^{−t/hi} − lo²e^{−t/lo}) / (2(hi² − lo²)), symmetric in (a, b).
    return (hi * hi * math.exp(-t / hi) - lo * lo * math.exp(-t / lo)) / (
        2.0 * (hi * hi - lo * lo)
    )


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
        b_ρ = 1/ε₁ (Lyu, Su & Li Alg. 1: ρ ~ Lap(Δ/ε₁), Δ = 1).
    comparison_scale : float
        b_ν = 2/ε₂ (Lyu, Su & Li Alg. 1 with c = 1: ν ~ Lap(2cΔ/ε₂)).
    vote_scale : float
        2/ε_v: Laplace scale of the charged vote on 2v − k (sensitivity 2); inf
        when ε_v = 0.
    threshold : float
        w, the smallest level with m·P[ν − ρ > w] ≤ δ_fail.
    failure_delta : float
        δ_fail.
    composition : str
        ``"basic"`` or ``"advanced"``: how the c rounds compose.
    composition_slack : float
        δ′ of advanced composition (0 for basic).
    max_distance : int
        ⌈k/2⌉ − 1, the distance to instability of a unanimous vote.
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

    def free_probability(self, distance: float) -> float:
        """P[q + ν > w + ρ]: a query at distance q gets a free answer.

        Parameters
        ----------
        distance : float
            q, the distance to instability of the teachers' vote.

        Returns
        -------
        float
            The probability, for a fresh ρ.
        """
        return laplace_difference_tail(
            self.threshold - distance, self.comparison_scale, self.threshold_scale
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


def _threshold(m: int, a: float, b: float, failure_delta: float) -> float:
    """Smallest w ≥ 0 with m·P[ν − ρ > w] ≤ δ_fail (bisection on the tail)."""
    target = failure_delta / m
    lo, hi = 0.0, max(a, b)
    while laplace_difference_tail(hi, a, b) > target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if laplace_difference_tail(mid, a, b) > target:
            lo = mid
        else:
            hi = mid
    return hi  # P[ν − ρ > hi] ≤ target: the conservative end


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
        eps1, eps2, vote_eps, b_rho, b_nu, b_vote = _round_calibration(
            round_eps, vote_share
        )
        w = _threshold(m, b_nu, b_rho, fail)
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
            threshold_scale=b_rho,
            comparison_scale=b_nu,
            vote_scale=b_vote,
            threshold=w,
            failure_delta=fail,
            composition=name,
            composition_slack=slack,
            max_distance=_max_distance(k),
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
