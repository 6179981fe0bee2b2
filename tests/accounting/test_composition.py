# SPDX-License-Identifier: BSD-3-Clause
"""Known answers and properties of the composition theorems."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpsvm.accounting import PrivacyEvent
from dpsvm.accounting.composition import (
    advanced_composition,
    basic_composition,
    best_composition,
    parallel_composition,
    per_step_epsilon,
)

# ε values and pure-DP cost lists for property tests.
small_eps = st.floats(min_value=0.0, max_value=3.0, allow_nan=False)
pure_costs = st.lists(small_eps.map(lambda e: (e, 0.0)), min_size=1, max_size=30)
slacks = st.floats(min_value=1e-12, max_value=0.5)


# ---------------------------------------------------------------- basic
def test_basic_known_answer():
    # Dwork & Roth Thm 3.16: (0.5 + 0.25 + 0.25, 1e-6 + 0 + 2e-6) = (1.0, 3e-6).
    eps, delta = basic_composition([(0.5, 1e-6), (0.25, 0.0), (0.25, 2e-6)])
    assert eps == 1.0
    assert delta == pytest.approx(3e-6, rel=1e-15)


def test_basic_sums_exactly_rounded():
    # A naive left-to-right float sum of 100 × 0.01 is 1.0000000000000007; the
    # exactly rounded sum of those floats is 1.0 (so a budget of 1 admits them).
    assert sum([0.01] * 100) > 1.0
    assert basic_composition([(0.01, 0.0)] * 100) == (1.0, 0.0)


def test_basic_empty_and_events_and_cap():
    assert basic_composition([]) == (0.0, 0.0)
    events = [PrivacyEvent("laplace", 0.5), PrivacyEvent("gaussian", 0.5, 1e-6)]
    assert basic_composition(events) == (1.0, 1e-6)
    # Mixed events and pairs are accepted.
    assert basic_composition([events[0], (0.25, 0.0)]) == (0.75, 0.0)
    # δ is capped at 1: every mechanism is (ε, 1)-DP.
    assert basic_composition([(1.0, 0.6), (1.0, 0.6)]) == (2.0, 1.0)


@pytest.mark.parametrize(
    ("costs", "error", "match"),
    [
        ([(-0.1, 0.0)], ValueError, "epsilon must be >= 0"),
        ([(math.nan, 0.0)], ValueError, "epsilon must be >= 0"),
        ([(0.1, 1.5)], ValueError, r"delta must be in \[0, 1\]"),
        ([(0.1, -1e-9)], ValueError, r"delta must be in \[0, 1\]"),
        ([("0.1", 0.0)], TypeError, "epsilon must be a real number"),
        ([(True, 0.0)], TypeError, "epsilon must be a real number"),
        ([(0.1, 0.0, 0.0)], TypeError, "PrivacyEvent or an"),
        ([0.1], TypeError, "PrivacyEvent or an"),
        ((0.5, 0.0), TypeError, "not a single cost"),
        (PrivacyEvent("laplace", 1.0), TypeError, "not a single cost"),
    ],
)
def test_invalid_costs(costs, error, match):
    for compose in (basic_composition, parallel_composition):
        with pytest.raises(error, match=match):
            compose(costs)
    with pytest.raises(error, match=match):
        advanced_composition(costs, 1e-5)


# ------------------------------------------------------------- advanced
def test_advanced_known_answer_ten_tenths():
    # DRV10 Thm III.3 with k = 10, ε = 0.1, δ′ = 1e-5:
    #   sqrt(2 · ln(1e5) · 10 · 0.1²) + 10 · 0.1 · (e^0.1 − 1)
    # = sqrt(2 · 11.512925465 · 0.1) + 0.105170918
    # = 1.517427129 + 0.105170918 = 1.622598047  (> basic 1.0)
    eps, delta = advanced_composition([(0.1, 0.0)] * 10, delta_slack=1e-5)
    assert eps == pytest.approx(1.622598047460794, rel=1e-12)
    assert delta == 1e-5


def test_advanced_known_answer_hundred_hundredths():
    # k = 100, ε = 0.01, δ′ = 1e-5:
    #   sqrt(2 · 11.512925465 · 100 · 1e-4) + 100 · 0.01 · (e^0.01 − 1)
    # = sqrt(0.230258509) + 0.010050167 = 0.479852592 + 0.010050167
    # = 0.489902758  (< basic 1.0)
    eps, delta = advanced_composition([(0.01, 0.0)] * 100, delta_slack=1e-5)
    assert eps == pytest.approx(0.4899027583029762, rel=1e-12)
    assert delta == 1e-5


def test_advanced_known_answer_heterogeneous():
    # Costs (0.1, 1e-6), (0.2, 0), (0.3, 2e-6), δ′ = 1e-6:
    #   Σ ε² = 0.01 + 0.04 + 0.09 = 0.14, ln(1e6) = 13.815510558
    #   sqrt(2 · 13.815510558 · 0.14) = 1.966810
    #   Σ ε (e^ε − 1) = 0.1·0.105171 + 0.2·0.221403 + 0.3·0.349859 = 0.159755
    #   ε = 2.126565637;  δ = 1e-6 + 0 + 2e-6 + 1e-6 = 4e-6
    eps, delta = advanced_composition(
        [(0.1, 1e-6), (0.2, 0.0), (0.3, 2e-6)], delta_slack=1e-6
    )
    assert eps == pytest.approx(2.1265656365673052, rel=1e-12)
    assert delta == pytest.approx(4e-6, rel=1e-12)


def test_advanced_edge_cases():
    # No costs: sqrt(0) + 0 = 0, but the slack is still the δ of the claim.
    assert advanced_composition([], 1e-5) == (0.0, 1e-5)
    assert advanced_composition([(math.inf, 0.0)], 1e-5)[0] == math.inf
    # A zero-ε cost contributes nothing to ε.
    assert advanced_composition([(0.0, 0.0)] * 5, 1e-5) == (0.0, 1e-5)


@pytest.mark.parametrize("slack", [0.0, 1.0, -1e-5, 1.5, math.nan])
def test_advanced_rejects_bad_slack(slack):
    with pytest.raises(ValueError, match="delta_slack"):
        advanced_composition([(0.1, 0.0)], slack)


def test_advanced_rejects_non_numeric_slack():
    with pytest.raises(TypeError, match="delta_slack must be a real number"):
        advanced_composition([(0.1, 0.0)], "1e-5")  # type: ignore[arg-type]


@given(costs=pure_costs, slack=slacks, extra=st.floats(0.0, 1.0))
def test_advanced_monotone(costs, slack, extra):
    # Monotone increasing in every ε_i, and decreasing in δ′.
    base = advanced_composition(costs, slack)[0]
    bumped = [(costs[0][0] + extra, 0.0), *costs[1:]]
    assert advanced_composition(bumped, slack)[0] >= base
    assert advanced_composition(costs, slack / 2)[0] >= base


@given(costs=pure_costs, slack=slacks)
def test_advanced_at_least_max_epsilon(costs, slack):
    # For δ′ ≤ e^{-1/2}, 2 ln(1/δ′) ≥ 1, so sqrt(2 ln(1/δ′) Σ ε²) ≥ max ε.
    eps = advanced_composition(costs, slack)[0]
    assert eps >= max(e for e, _ in costs) * (1 - 1e-12)


# ---------------------------------------------------------------- best
def test_best_prefers_basic_for_few_costs():
    # Basic (1.0, 0) beats advanced (1.62..., 1e-5) for 10 × 0.1.
    assert best_composition([(0.1, 0.0)] * 10, 1e-5, 1e-5) == (1.0, 0.0)


def test_best_prefers_advanced_for_many_costs():
    eps, delta = best_composition([(0.01, 0.0)] * 100, 1e-5, 1e-5)
    assert eps == pytest.approx(0.4899027583029762, rel=1e-12)
    assert delta == 1e-5


def test_best_never_mixes_delta_and_ignores_advanced_over_delta():
    # Advanced gives ε ≈ 0.49 but needs δ = 1e-5 > max_delta = 5e-6: basic's
    # own pair (1.0, 0.0) is reported, never (0.49, 0.0).
    assert best_composition([(0.01, 0.0)] * 100, 1e-5, 5e-6) == (1.0, 0.0)
    # Slack 0: basic only.
    assert best_composition([(0.01, 0.0)] * 100) == (1.0, 0.0)


def test_best_reports_inf_when_no_delta_fits():
    eps, delta = best_composition([(0.1, 1e-6)] * 3, 0.0, 2e-6)
    assert eps == math.inf
    assert delta == pytest.approx(3e-6)


@given(costs=pure_costs, slack=slacks)
def test_best_between_max_and_sum(costs, slack):
    eps, _ = best_composition(costs, slack, 1.0)
    assert eps <= basic_composition(costs)[0]
    assert eps >= max(e for e, _ in costs) * (1 - 1e-12)


@given(costs=pure_costs, slack=slacks)
def test_best_noop_changes_nothing(costs, slack):
    # Composing with a (0, 0) release changes neither ε nor δ.
    assert best_composition([*costs, (0.0, 0.0)], slack) == best_composition(
        costs, slack
    )


# ------------------------------------------------------------- parallel
def test_parallel_known_answer():
    # McSherry 2009 Thm 4: (max ε, max δ) = (1.0, 1e-5).
    costs = [(0.5, 0.0), (1.0, 1e-6), (0.2, 1e-5)]
    assert parallel_composition(costs) == (1.0, 1e-5)
    assert parallel_composition([]) == (0.0, 0.0)


# ---------------------------------------------------------- per_step_epsilon
def test_per_step_epsilon_known_answer():
    # k = 100, ε_total = 1, δ′ = 1e-5. At ε = 0.02:
    #   sqrt(2 · 100 · 11.512925) · 0.02 + 100 · 0.02 · (e^0.02 − 1)
    #   = 47.98526 · 0.02 + 2 · 0.0202013 = 0.959705 + 0.040403 = 1.000108 > 1,
    # so the answer is just below 0.02 (and twice basic's 0.01).
    eps = per_step_epsilon(1.0, 100, 1e-5)
    assert 0.0199 < eps < 0.02
    total = advanced_composition([(eps, 0.0)] * 100, 1e-5)[0]
    assert 1.0 - 1e-9 < total <= 1.0


def test_per_step_epsilon_falls_back_to_basic():
    # k = 2: advanced needs sqrt(4 ln 1e5) ε ≈ 6.79 ε ≤ 1, basic allows 0.5.
    assert per_step_epsilon(1.0, 2, 1e-5) == 0.5
    assert per_step_epsilon(1.0, 1, 1e-5) == 1.0


@given(
    total=st.floats(min_value=1e-3, max_value=50.0),
    k=st.integers(min_value=1, max_value=1_000),
    slack=st.floats(min_value=1e-12, max_value=0.5),
)
def test_per_step_epsilon_round_trip(total, k, slack):
    eps = per_step_epsilon(total, k, slack)
    composed = best_composition([(eps, 0.0)] * k, slack, slack)[0]
    assert composed <= total  # never overshoots
    assert eps >= total / k * (1 - 1e-15)
    # Maximal: a slightly larger per-step ε overshoots under both theorems.
    assert best_composition([(eps * (1 + 1e-6), 0.0)] * k, slack, slack)[0] > total


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((0.0, 10, 1e-5), ValueError),
        ((math.inf, 10, 1e-5), ValueError),
        ((1.0, 0, 1e-5), ValueError),
        ((1.0, 2.0, 1e-5), TypeError),
        ((1.0, True, 1e-5), TypeError),
        ((1.0, 10, 0.0), ValueError),
    ],
)
def test_per_step_epsilon_validation(args, error):
    with pytest.raises(error):
        per_step_epsilon(*args)
