# SPDX-License-Identifier: BSD-3-Clause
"""Composition theorems for (ε, δ)-differential privacy, as pure functions.

Each function takes the privacy costs of several releases on the **same** dataset
under the **same** neighbouring relation, as :class:`~dpsvm.accounting.PrivacyEvent`
objects or ``(epsilon, delta)`` pairs, and returns one ``(epsilon, delta)`` pair
that the releases satisfy together:

- :func:`basic_composition`: the sums (Dwork & Roth 2014, Thm 3.16);
- :func:`advanced_composition`: the √k bound of Dwork, Rothblum & Vadhan (2010,
  Thm III.3) in its heterogeneous form;
- :func:`best_composition`: the better of the two under a δ ceiling (what
  :class:`~dpsvm.accounting.BudgetAccountant` reports);
- :func:`parallel_composition`: the maximum, for releases on disjoint parts of the
  data (McSherry 2009, Thm 4);
- :func:`per_step_epsilon`: the inverse of the homogeneous advanced composition,
  for calibrating k identical steps to a total budget.

Sums use :func:`math.fsum` (exactly rounded), so that, for example, one hundred
costs of ε = 0.01 add up to exactly 1.0, and a budget of 1.0 admits all of them.

References
----------
.. [DR14] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
   Privacy", Foundations and Trends in TCS 9(3-4), 2014. Theorem 3.16 (basic
   composition), Theorem 3.20 (advanced composition).
.. [DRV10] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
   Privacy", FOCS 2010. Theorem III.3.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
   Differential Privacy", ICML 2015 (arXiv:1311.0776). Theorem 3.5
   (heterogeneous composition).
.. [McS09] F. McSherry, "Privacy Integrated Queries", SIGMOD 2009. Theorem 4
   (parallel composition).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from fractions import Fraction
from typing import TypeAlias

from .events import PrivacyEvent

__all__ = [
    "Cost",
    "advanced_composition",
    "basic_composition",
    "best_composition",
    "best_repeated_composition",
    "parallel_composition",
    "per_step_epsilon",
]

#: One privacy cost: a :class:`PrivacyEvent` or an ``(epsilon, delta)`` pair.
Cost: TypeAlias = PrivacyEvent | tuple[float, float]


def _real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    return float(value)


def _as_pair(cost: object) -> tuple[float, float]:
    """Return ``(epsilon, delta)`` of one cost, validated (ε ≥ 0, δ ∈ [0, 1])."""
    if isinstance(cost, PrivacyEvent):
        # PrivacyEvent validated its own epsilon and delta.
        return cost.epsilon, cost.delta
    if not isinstance(cost, tuple | list) or len(cost) != 2:
        raise TypeError(
            "Each privacy cost must be a PrivacyEvent or an (epsilon, delta) pair, "
            f"got {cost!r}."
        )
    eps = _real(cost[0], "epsilon")
    delta = _real(cost[1], "delta")
    if math.isnan(eps) or eps < 0:
        raise ValueError(f"epsilon must be >= 0, got {eps}.")
    if math.isnan(delta) or not 0.0 <= delta <= 1.0:
        raise ValueError(f"delta must be in [0, 1], got {delta}.")
    return eps, delta


def _pairs(costs: Iterable[Cost]) -> list[tuple[float, float]]:
    if isinstance(costs, PrivacyEvent) or (
        isinstance(costs, tuple | list)
        and len(costs) == 2
        and all(isinstance(c, numbers.Real) for c in costs)
    ):
        raise TypeError(
            "Pass an iterable of costs, e.g. [(0.5, 0.0)], not a single cost."
        )
    return [_as_pair(c) for c in costs]


def _check_slack(delta_slack: float) -> float:
    slack = _real(delta_slack, "delta_slack")
    if math.isnan(slack) or not 0.0 < slack < 1.0:
        raise ValueError(
            "delta_slack (the δ′ of advanced composition) must be in (0, 1), "
            f"got {slack}; use basic_composition for δ′ = 0."
        )
    return slack


def _drift(eps: float) -> float:
    """Return ε (e^ε − 1), the per-release drift term of advanced composition."""
    if eps == 0.0:
        return 0.0
    try:
        return eps * math.expm1(eps)
    except OverflowError:
        return math.inf


# The kernels below take validated (ε, δ) pairs (and a δ′ in (0, 1), or 0 for
# "basic only"); the public functions validate and call them. The accountant
# calls them directly on its ledger, whose events validated themselves.


def _basic(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    # Dwork & Roth (2014), Thm 3.16: (Σ ε_i, Σ δ_i), δ capped at 1.
    eps = math.fsum([e for e, _ in pairs])
    delta = min(1.0, math.fsum([d for _, d in pairs]))
    return eps, delta


def _advanced(pairs: list[tuple[float, float]], slack: float) -> tuple[float, float]:
    # sqrt(Σ ε_i²) by hypot: no underflow of tiny ε_i² to 0 (which would
    # under-report), no overflow of large ones.
    root_sum_sq = math.hypot(*[e for e, _ in pairs])
    # ε (e^ε − 1) with expm1 for accuracy at small ε.
    sum_drift = math.fsum([_drift(e) for e, _ in pairs])
    # DRV10 Thm III.3 / KOV15 Thm 3.5 (heterogeneous):
    # ε = sqrt(2 ln(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1),  δ = Σ δ_i + δ′.
    # For k and ε_i fixed in advance. Used as a stopping rule (the accountant's
    # filter) it is covered by Whitehouse, Ramdas, Rogers & Wu (2023), Thm 1:
    # stopping before sqrt(2 ln(1/δ′) Σ ε_i²) + ½ Σ ε_i² exceeds ε is valid for
    # adaptively chosen ε_i and number of steps, and ε(e^ε − 1) ≥ ε²/2.
    eps = math.sqrt(2.0 * math.log(1.0 / slack)) * root_sum_sq + sum_drift
    delta = min(1.0, math.fsum([*(d for _, d in pairs), slack]))
    return eps, delta


def _best(
    pairs: list[tuple[float, float]], slack: float, max_delta: float
) -> tuple[float, float]:
    # Each theorem's own (ε, δ) pair; among those with δ ≤ max_delta, the one
    # with the smaller ε (then the smaller δ). Never mixes ε and δ of the two.
    candidates = [_basic(pairs)]
    if slack > 0.0:
        candidates.append(_advanced(pairs, slack))
    fitting = [c for c in candidates if c[1] <= max_delta]
    if not fitting:
        return math.inf, candidates[0][1]
    return min(fitting)


def basic_composition(costs: Iterable[Cost]) -> tuple[float, float]:
    """Compose privacy costs by summing them (sequential composition).

    Parameters
    ----------
    costs : iterable of PrivacyEvent or (epsilon, delta) pairs
        The costs of releases on the same dataset; each ε ≥ 0, each δ in [0, 1].

    Returns
    -------
    epsilon : float
        The sum Σ ε_i (``inf`` if any ε_i is).
    delta : float
        The sum Σ δ_i, capped at 1 (every mechanism is (ε, 1)-DP, so the cap
        loses nothing).

    Raises
    ------
    TypeError
        If a cost is neither a PrivacyEvent nor a pair of real numbers.
    ValueError
        If some ε_i < 0 or δ_i is outside [0, 1].

    See Also
    --------
    advanced_composition : A tighter ε for many small costs, at extra δ.

    Notes
    -----
    Dwork & Roth (2014), Theorem 3.16: if M_i is (ε_i, δ_i)-DP for i = 1..k, the
    (adaptive) composition (M_1, ..., M_k) is (Σ ε_i, Σ δ_i)-DP. The theorem
    holds even when each ε_i is chosen after seeing earlier outputs, provided the
    sum stays within the budget (Rogers et al. 2016, "Privacy odometers and
    filters", basic-composition filter).

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Theorem 3.16.

    Examples
    --------
    >>> basic_composition([(0.5, 0.0), (0.25, 1e-6)])
    (0.75, 1e-06)
    >>> basic_composition([])
    (0.0, 0.0)
    """
    return _basic(_pairs(costs))


def advanced_composition(
    costs: Iterable[Cost], delta_slack: float
) -> tuple[float, float]:
    """Compose privacy costs by the advanced composition theorem.

    Parameters
    ----------
    costs : iterable of PrivacyEvent or (epsilon, delta) pairs
        The costs of releases on the same dataset; each ε ≥ 0, each δ in [0, 1].
    delta_slack : float
        The extra failure probability δ′ in (0, 1) that buys the √k rate.

    Returns
    -------
    epsilon : float
        The bound √(2 ln(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1).
    delta : float
        The sum Σ δ_i + δ′, capped at 1.

    Raises
    ------
    TypeError
        If a cost is neither a PrivacyEvent nor a pair of real numbers.
    ValueError
        If a cost is invalid or ``delta_slack`` is not in (0, 1).

    See Also
    --------
    basic_composition : No extra δ; better for few or large costs.
    best_composition : The better of the two.

    Notes
    -----
    Dwork, Rothblum & Vadhan (2010), Theorem III.3 (= Dwork & Roth 2014, Thm 3.20)
    states the homogeneous case: k adaptively composed (ε, δ)-DP mechanisms are
    (√(2k ln(1/δ′)) ε + k ε (e^ε − 1), kδ + δ′)-DP for every δ′ > 0. The
    heterogeneous form computed here follows from Kairouz, Oh & Viswanath (2015),
    Theorem 3.5, which gives the smaller ε term Σ ε_i (e^{ε_i} − 1)/(e^{ε_i} + 1)
    and the smaller δ = 1 − (1 − δ′) Π (1 − δ_i) ≤ Σ δ_i + δ′; this function
    reports the (looser, still valid) Dwork–Rothblum–Vadhan form so that its
    values agree with calibrations that invert Thm III.3
    (:func:`per_step_epsilon`).

    The theorem assumes that the ε_i are fixed before the interaction starts
    (the mechanisms themselves may be chosen adaptively). When the ε_i are
    themselves chosen from earlier outputs, see Rogers et al. (2016) and
    Whitehouse et al. (ICML 2023) for privacy filters.

    For δ′ > e^{-1/2} ≈ 0.61 the bound can be smaller than max ε_i; such δ′ are
    meaningless in practice.

    References
    ----------
    .. [1] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
       Privacy", FOCS 2010, Theorem III.3.
    .. [2] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015 (arXiv:1311.0776), Theorem 3.5.

    Examples
    --------
    One hundred releases at ε = 0.01 with δ′ = 1e-5 cost about 0.49, not 1:

    >>> eps, delta = advanced_composition([(0.01, 0.0)] * 100, delta_slack=1e-5)
    >>> round(eps, 4), delta
    (0.4899, 1e-05)
    """
    return _advanced(_pairs(costs), _check_slack(delta_slack))


def best_composition(
    costs: Iterable[Cost], delta_slack: float = 0.0, max_delta: float = 1.0
) -> tuple[float, float]:
    """Return the smaller-ε of basic and advanced composition whose δ fits.

    Parameters
    ----------
    costs : iterable of PrivacyEvent or (epsilon, delta) pairs
        The costs of releases on the same dataset.
    delta_slack : float, default=0.0
        The δ′ of advanced composition; 0 means basic composition only.
    max_delta : float, default=1.0
        The largest acceptable δ of the result (a budget's δ).

    Returns
    -------
    epsilon : float
        The smaller ε among the candidates whose δ is ≤ ``max_delta``: basic
        composition (Σ ε_i, Σ δ_i) and, when ``delta_slack > 0``, advanced
        composition (√(2 ln(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1), Σ δ_i + δ′).
        On a tie the smaller δ wins. ``inf`` if no candidate's δ fits.
    delta : float
        The δ that goes with that ε (each theorem's own δ, never mixed).

    Raises
    ------
    TypeError, ValueError
        For invalid costs or parameters.

    Notes
    -----
    Both candidates are valid (ε, δ) guarantees of the same composition (Dwork &
    Roth 2014, Thm 3.16; Dwork, Rothblum & Vadhan 2010, Thm III.3), so reporting
    either is sound; this picks the one with the smaller ε among those whose δ is
    within ``max_delta``. The pair returned is always one theorem's (ε, δ).

    Examples
    --------
    Few large costs: basic composition wins.

    >>> best_composition([(0.5, 0.0)] * 2, delta_slack=1e-6, max_delta=1e-6)
    (1.0, 0.0)

    Many small costs: advanced composition wins, at δ = δ′.

    >>> eps, delta = best_composition([(0.01, 0.0)] * 100, 1e-5, 1e-5)
    >>> round(eps, 4), delta
    (0.4899, 1e-05)
    """
    pairs = _pairs(costs)
    max_delta = _real(max_delta, "max_delta")
    if math.isnan(max_delta) or not 0.0 <= max_delta <= 1.0:
        raise ValueError(f"max_delta must be in [0, 1], got {max_delta}.")
    slack = _real(delta_slack, "delta_slack")
    if slack != 0.0:
        slack = _check_slack(slack)
    return _best(pairs, slack, max_delta)


def best_repeated_composition(
    epsilon: float, k: int, delta_slack: float = 0.0, max_delta: float = 1.0
) -> tuple[float, float]:
    """:func:`best_composition` of k identical pure costs ε, in O(1).

    Parameters
    ----------
    epsilon : float
        ε ≥ 0 of each release (each δ = 0).
    k : int
        Number of releases, k ≥ 0.
    delta_slack : float, default=0.0
        The δ′ of advanced composition; 0 means basic composition only.
    max_delta : float, default=1.0
        The largest acceptable δ of the result.

    Returns
    -------
    epsilon : float
        As ``best_composition([(epsilon, 0.0)] * k, delta_slack, max_delta)``:
        the smaller of k·ε (basic, δ = 0) and √(2k ln(1/δ′))·ε + k·ε(e^ε − 1)
        (advanced, δ = δ′) among those whose δ fits.
    delta : float
        The δ that goes with it.

    Raises
    ------
    ValueError
        For ε < 0, k < 0 or invalid δ parameters.

    Notes
    -----
    The same theorems as :func:`best_composition` (Dwork & Roth 2014, Thm 3.16;
    Dwork, Rothblum & Vadhan 2010, Thm III.3, homogeneous form), written in
    closed form so that a per-answer charge does not grow with the number of
    answers: Σ ε = k·ε and √(Σ ε²) = ε·√k. The sums ``best_composition``
    forms are exactly rounded (``fsum``), as k·ε is; only ε·√k may differ from
    its ``hypot`` in the last bits. Both are non-decreasing in k.

    Examples
    --------
    >>> eps, delta = best_repeated_composition(0.01, 100, 1e-5, 1e-5)
    >>> round(eps, 4), delta
    (0.4899, 1e-05)
    >>> best_repeated_composition(0.5, 2, 1e-6, 1e-6)
    (1.0, 0.0)
    """
    eps = _as_pair((epsilon, 0.0))[0]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
        raise ValueError(f"k must be an integer >= 0, got {k!r}.")
    k = int(k)
    max_delta = _real(max_delta, "max_delta")
    if math.isnan(max_delta) or not 0.0 <= max_delta <= 1.0:
        raise ValueError(f"max_delta must be in [0, 1], got {max_delta}.")
    slack = _real(delta_slack, "delta_slack")
    if slack != 0.0:
        slack = _check_slack(slack)
    if k == 0:
        return 0.0, 0.0  # nothing released (both theorems agree)
    # Dwork & Roth (2014), Thm 3.16: (k ε, 0).
    candidates = [(k * eps, 0.0)]
    if slack > 0.0:
        # DRV10 Thm III.3: √(2 ln(1/δ′)) ε √k + k ε (e^ε − 1), δ = δ′ (as _advanced).
        advanced = (
            math.sqrt(2.0 * math.log(1.0 / slack)) * (eps * math.sqrt(k))
            + k * _drift(eps),
            slack,
        )
        candidates.append(advanced)
    fitting = [c for c in candidates if c[1] <= max_delta]
    if not fitting:
        return math.inf, candidates[0][1]
    return min(fitting)


def parallel_composition(costs: Iterable[Cost]) -> tuple[float, float]:
    """Compose releases computed on disjoint parts of the data (parallel).

    Parameters
    ----------
    costs : iterable of PrivacyEvent or (epsilon, delta) pairs
        Costs of releases, each computed only on its own part of a partition
        of the records.

    Returns
    -------
    epsilon : float
        The largest ε_i (0 for no costs).
    delta : float
        The largest δ_i (0 for no costs).

    Raises
    ------
    TypeError, ValueError
        For invalid costs.

    Notes
    -----
    McSherry (2009), Theorem 4: if M_i is ε_i-DP and is applied to the records
    in the i-th of disjoint sets, the whole is (max ε_i)-DP; the same argument
    gives max δ_i for (ε_i, δ_i)-DP mechanisms.

    **Replace-one neighbours.** McSherry states the theorem for add/remove
    neighbours. Under the replace-one relation it holds when the parts are
    chosen by record *position* (a data-independent split, e.g. a random
    permutation drawn without looking at the data, into parts of fixed sizes):
    replacing one record then changes exactly one part, by a replacement, so
    only one M_i sees neighbouring inputs. A split that depends on record
    *values* can move the replaced record from one part to another, change
    two parts' sizes, and is **not** covered by replace-one guarantees.

    References
    ----------
    .. [1] F. McSherry, "Privacy Integrated Queries", SIGMOD 2009, Theorem 4.

    Examples
    --------
    >>> parallel_composition([(0.5, 0.0), (1.0, 1e-6), (0.2, 1e-5)])
    (1.0, 1e-05)
    """
    pairs = _pairs(costs)
    # McSherry (2009), Thm 4: (max ε_i, max δ_i) over disjoint parts.
    eps = max((e for e, _ in pairs), default=0.0)
    delta = max((d for _, d in pairs), default=0.0)
    return eps, delta


def _homogeneous_advanced(eps: float, k: int, log_inv_slack: float) -> float:
    # DRV10 Thm III.3: ε′ = sqrt(2k ln(1/δ′)) ε + k ε (e^ε − 1).
    return math.sqrt(2.0 * k * log_inv_slack) * eps + k * _drift(eps)


def per_step_epsilon(epsilon_total: float, k: int, delta_slack: float) -> float:
    """Largest per-step ε such that k pure ε-DP steps compose to ``epsilon_total``.

    Parameters
    ----------
    epsilon_total : float
        The total ε for all k steps, > 0 and finite.
    k : int
        The number of steps, ≥ 1.
    delta_slack : float
        The δ′ of advanced composition, in (0, 1).

    Returns
    -------
    float
        The per-step ε = max(ε_adv, ε_basic), where ε_adv is the largest ε (found by
        bisection) with √(2k ln(1/δ′)) ε + k ε (e^ε − 1) ≤ ``epsilon_total``
        (Dwork, Rothblum & Vadhan 2010, Thm III.3) and ε_basic = ε_total / k
        (Dwork & Roth 2014, Thm 3.16). Either way, k steps at ε_step are
        (``epsilon_total``, δ′)-DP; when each step is (ε_step, δ)-DP, they are
        (``epsilon_total``, kδ + δ′)-DP.

    Raises
    ------
    TypeError
        If ``k`` is not an integer or the others are not real numbers.
    ValueError
        If ``epsilon_total`` is not positive and finite, ``k < 1`` or
        ``delta_slack`` is not in (0, 1).

    Notes
    -----
    The result is guaranteed not to overshoot: the bisection keeps its lower end
    feasible against ``epsilon_total`` shrunk by a relative margin of 1e-12
    (which covers the rounding of the float evaluation), and ε_total / k is
    stepped down until k · ε_step ≤ ε_total holds exactly (in rationals).

    Examples
    --------
    One hundred steps within ε = 1 (δ′ = 1e-5): about 0.02 each, twice what
    basic composition allows (0.01).

    >>> round(per_step_epsilon(1.0, 100, 1e-5), 4)
    0.02
    >>> per_step_epsilon(1.0, 2, 1e-5)  # basic composition is better for k = 2
    0.5
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer, got {type(k).__name__}.")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}.")
    total = _real(epsilon_total, "epsilon_total")
    if not (math.isfinite(total) and total > 0):
        raise ValueError(f"epsilon_total must be > 0 and finite, got {total}.")
    log_inv_slack = math.log(1.0 / _check_slack(delta_slack))

    # Basic composition (Dwork & Roth 2014, Thm 3.16): k · ε_step ≤ ε_total,
    # checked exactly so that rounding of the division cannot overshoot.
    basic = total / k
    while Fraction(basic) * k > Fraction(total):
        basic = math.nextafter(basic, 0.0)

    # Advanced composition (DRV10 Thm III.3): bisection for the largest ε with
    # sqrt(2k ln(1/δ′)) ε + k ε (e^ε − 1) ≤ ε_total (the left side increases in
    # ε). Target shrunk by 1e-12 (relative) to absorb floating-point error.
    target = total * (1.0 - 1e-12)
    lo = 0.0
    # hi is infeasible: at total / sqrt(2k ln(1/δ′)) the first term alone reaches
    # ε_total, and at sqrt(ε_total / k) the second is ≥ k ε² = ε_total.
    hi = min(total / math.sqrt(2.0 * k * log_inv_slack), math.sqrt(total / k))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _homogeneous_advanced(mid, k, log_inv_slack) <= target:
            lo = mid
        else:
            hi = mid
    return max(lo, basic)
