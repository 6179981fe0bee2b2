# SPDX-License-Identifier: BSD-3-Clause
"""Budget tests for BudgetAccountant: spends, refusals, copies, threads."""

from __future__ import annotations

import copy
import json
import math
import pickle
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, clone

from dpsvm.accounting import BudgetAccountant, PrivacyEvent, resolve_accountant
from dpsvm.accounting import accountant as accountant_module
from dpsvm.accounting.composition import basic_composition
from dpsvm.exceptions import BudgetExceededError, NonPrivateReleaseError


def laplace(eps: float) -> PrivacyEvent:
    return PrivacyEvent("laplace", eps, sensitivity=1.0, sensitivity_norm="l1")


def gaussian(eps: float, delta: float) -> PrivacyEvent:
    return PrivacyEvent("gaussian", eps, delta, sensitivity=1.0, sensitivity_norm="l2")


# ------------------------------------------------------------ validation
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
        ({"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
        ({"epsilon": math.nan}, ValueError, "NaN"),
        ({"epsilon": "1"}, TypeError, "epsilon must be a real number"),
        ({"epsilon": True}, TypeError, "epsilon must be a real number"),
        ({"delta": -0.1}, ValueError, r"delta must be in \[0, 1\]"),
        ({"delta": 1.5}, ValueError, r"delta must be in \[0, 1\]"),
        ({"delta": math.nan}, ValueError, r"delta must be in \[0, 1\]"),
        ({"delta": None}, TypeError, "delta must be a real number"),
        ({"delta": 1e-6, "slack": 1e-5}, ValueError, r"slack must be in \[0, delta\]"),
        ({"delta": 1e-6, "slack": -1e-7}, ValueError, r"slack must be in \[0, 1\]"),
        ({"delta": 1.0, "slack": 1.0}, ValueError, "slack must be < 1"),
    ],
)
def test_invalid_budget(kwargs, error, match):
    with pytest.raises(error, match=match):
        BudgetAccountant(**kwargs)


def test_budget_is_keyword_slack_and_stored():
    acc = BudgetAccountant(2, 1e-6, slack=1e-7)
    assert (acc.epsilon, acc.delta, acc.slack) == (2.0, 1e-6, 1e-7)
    with pytest.raises(TypeError):
        BudgetAccountant(1.0, 1e-6, 1e-7)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("eps", "delta", "error"),
    [(-0.1, 0.0, ValueError), (math.nan, 0.0, ValueError), (0.1, 1.5, ValueError)],
)
def test_check_validates_request(eps, delta, error):
    with pytest.raises(error):
        BudgetAccountant(1.0).check(eps, delta)


# ------------------------------------------------------- spend and refuse
def test_spend_is_recorded():
    acc = BudgetAccountant(1.0, 1e-5)
    e1, e2 = laplace(0.25), gaussian(0.5, 1e-6)
    assert acc.spend(e1) is e1
    assert acc.compose(e2) is acc
    assert len(acc) == 2
    assert acc.ledger == (e1, e2)
    assert acc.ledger[0] is e1
    assert acc.total() == (0.75, 1e-6)
    assert acc.remaining() == (0.25, pytest.approx(9e-6, rel=1e-12))


def test_ledger_is_read_only():
    acc = BudgetAccountant(1.0)
    acc.spend(laplace(0.5))
    ledger = acc.ledger
    assert isinstance(ledger, tuple)
    with pytest.raises(AttributeError):
        acc.ledger = ()  # type: ignore[misc]
    acc.spend(laplace(0.25))
    assert len(ledger) == 1  # a snapshot, not a live view


def test_over_budget_refused_and_nothing_recorded():
    acc = BudgetAccountant(1.0)
    first = laplace(0.75)
    acc.spend(first)
    msg = (
        r"spent \(epsilon=0\.75, delta=0\.0\) \+ requested \(epsilon=0\.5, "
        r"delta=0\.0\) would exceed the total budget \(epsilon=1\.0, delta=0\.0\)"
    )
    with pytest.raises(BudgetExceededError, match=msg):
        acc.spend(laplace(0.5))
    with pytest.raises(BudgetExceededError, match=msg):
        acc.check(0.5)
    assert acc.ledger == (first,)
    assert acc.total() == (0.75, 0.0)
    # What fits is still accepted: 0.75 + 0.25 = 1.0 exactly.
    acc.spend(laplace(0.25))
    assert acc.total() == (1.0, 0.0)
    assert acc.remaining() == (0.0, 0.0)


def test_delta_budget_is_enforced():
    acc = BudgetAccountant(10.0)  # default δ budget 0: pure DP only
    with pytest.raises(BudgetExceededError, match=r"requested \(epsilon=0\.1, delta"):
        acc.spend(gaussian(0.1, 1e-9))
    assert len(acc) == 0
    acc = BudgetAccountant(10.0, 2e-6)
    acc.spend(gaussian(0.1, 1e-6))
    acc.spend(gaussian(0.1, 1e-6))
    with pytest.raises(BudgetExceededError):
        acc.spend(gaussian(0.1, 1e-6))  # Σδ = 3e-6 > 2e-6
    assert len(acc) == 2


def test_check_spends_nothing():
    acc = BudgetAccountant(1.0, 1e-6)
    for _ in range(5):
        acc.check(1.0, 1e-6)
    assert len(acc) == 0
    assert acc.total() == (0.0, 0.0)
    assert acc.remaining() == (1.0, 1e-6)


def test_hundred_hundredths_fill_budget_exactly():
    # 100 × 0.01 sums (exactly rounded) to 1.0; the 101st is refused.
    acc = BudgetAccountant(1.0)
    for _ in range(100):
        acc.spend(laplace(0.01))
    with pytest.raises(BudgetExceededError):
        acc.check(0.01)
    assert acc.total() == (1.0, 0.0)


def test_infinite_budget():
    acc = BudgetAccountant()
    assert acc.epsilon == math.inf
    for _ in range(20):
        acc.spend(laplace(100.0))
    assert acc.total() == (2000.0, 0.0)
    assert acc.remaining() == (math.inf, 0.0)
    # An ε = inf release is a NonPrivateEvent costing (inf, 1): a δ = 0 budget
    # refuses it even with unlimited ε.
    with pytest.raises(NonPrivateReleaseError, match="not differentially private"):
        acc.spend(laplace(math.inf))
    assert acc.total() == (2000.0, 0.0)
    # An unlimited (ε, δ) budget needs δ = 1 explicitly; it records anything.
    loose = BudgetAccountant(delta=1.0)
    loose.spend(gaussian(5.0, 0.5))
    assert loose.total() == (5.0, 0.5)
    loose.spend(laplace(math.inf))
    assert loose.total() == (math.inf, 1.0)


def test_noop_event_changes_nothing():
    acc = BudgetAccountant(1.0, 1e-5, slack=1e-5)
    for _ in range(50):
        acc.spend(laplace(0.01))
    before = acc.total()
    acc.spend(PrivacyEvent("post-processing", 0.0))
    assert acc.total() == before


# ------------------------------------------------------- fail closed
def test_unsupported_relation_refused():
    acc = BudgetAccountant(10.0)
    label = PrivacyEvent("rr", 1.0, neighbouring="replace-one-label")
    assert acc.supports(laplace(1.0))
    assert not acc.supports(label)
    with pytest.raises(ValueError, match="composes only 'replace-one' events"):
        acc.spend(label)
    # A composite with one unsupported child is unsupported too.
    parent = PrivacyEvent("ovr", 1.0, children=(laplace(0.5), label))
    assert not acc.supports(parent)
    with pytest.raises(ValueError, match="children"):
        acc.spend(parent)
    assert len(acc) == 0


@pytest.mark.parametrize("thing", [(0.5, 0.0), 0.5, {"epsilon": 0.5}, None])
def test_unknown_event_type_refused(thing):
    acc = BudgetAccountant(10.0)
    assert not acc.supports(thing)
    with pytest.raises(TypeError, match="only spend PrivacyEvent"):
        acc.spend(thing)  # type: ignore[arg-type]
    assert len(acc) == 0


# ------------------------------------------------ advanced composition
def test_advanced_allows_exactly_four_hundred_hundredths():
    # Budget (1, 1e-5) with δ′ = 1e-5, releases of ε = 0.01 (DRV10 Thm III.3):
    #   k = 400: sqrt(2 ln(1e5) · 400 · 1e-4) + 400 · 0.01 · (e^0.01 − 1)
    #          = sqrt(0.921034037) + 0.040200668 = 0.959705183 + 0.040200668
    #          = 0.999905851 ≤ 1
    #   k = 401: sqrt(0.923336622) + 0.040301170 = 0.960904065 + 0.040301170
    #          = 1.001205235 > 1   (basic would stop at k = 100)
    acc = BudgetAccountant(1.0, 1e-5, slack=1e-5)
    accepted = 0
    for _ in range(450):
        try:
            acc.spend(laplace(0.01))
        except BudgetExceededError:
            break
        accepted += 1
    assert accepted == 400
    eps, delta = acc.total()
    assert eps == pytest.approx(0.9999058507742885, rel=1e-12)
    assert delta == 1e-5


def test_filter_reserves_slack_for_approximate_releases():
    # Regression (adaptive advanced composition): δ′ is reserved in both
    # branches of the filter, Σ δ_i + δ′ ≤ δ. Budget (1, 2e-5), δ′ = 1e-5,
    # releases of (0.01, 1e-6): Σ δ_i may reach 1e-5 only, so k ≤ 10 (the old
    # code took basic's Σ δ_i ≤ 2e-5 and accepted 20, leaving the advanced
    # branch's δ′ unpaid when the analyst switches branch adaptively).
    acc = BudgetAccountant(1.0, 2e-5, slack=1e-5)
    for _ in range(10):
        acc.spend(gaussian(0.01, 1e-6))
    with pytest.raises(BudgetExceededError):
        acc.spend(gaussian(0.01, 1e-6))
    eps, delta = acc.total()
    assert eps == pytest.approx(0.1, rel=1e-12)
    assert delta == pytest.approx(1e-5, rel=1e-12)
    # With δ′ = δ no approximate release fits at all (1e-6 + 1e-5 > 1e-5) ...
    tight = BudgetAccountant(1.0, 1e-5, slack=1e-5)
    with pytest.raises(BudgetExceededError):
        tight.spend(gaussian(0.01, 1e-6))
    # ... while pure ones still do (Σ δ_i + δ′ = 1e-5).
    tight.spend(laplace(0.5))
    assert tight.total() == (0.5, 0.0)


def test_total_pairs_each_epsilon_with_its_own_delta():
    # 100 × 0.01 pure: advanced (0.48990, δ′ = 1e-5) beats basic (1.0, 0).
    acc = BudgetAccountant(2.0, 1e-5, slack=1e-5)
    for _ in range(100):
        acc.spend(laplace(0.01))
    eps, delta = acc.total()
    assert eps == pytest.approx(0.4899027583029762, rel=1e-12)
    assert delta == 1e-5
    assert acc.remaining()[1] == 0.0
    # Few releases: basic's own pair (with δ = 0).
    few = BudgetAccountant(2.0, 1e-5, slack=1e-5)
    few.spend(laplace(0.5))
    assert few.total() == (0.5, 0.0)


def test_get_epsilon():
    acc = BudgetAccountant(2.0, 1e-5)
    acc.spend(gaussian(0.5, 1e-6))
    acc.spend(gaussian(0.5, 1e-6))
    # Basic: (1.0, 2e-6); no ε works for δ < Σ δ_i.
    assert acc.get_epsilon(2e-6) == 1.0
    assert acc.get_epsilon(1e-3) == 1.0  # slack 0: basic only
    assert acc.get_epsilon(1e-6) == math.inf
    with pytest.raises(ValueError):
        acc.get_epsilon(2.0)


def test_get_epsilon_is_not_advanced_composition_after_the_fact():
    # Regression: the old get_epsilon(1e-3) chose δ′ = 1e-3 after the releases
    # and returned sqrt(2 ln(1000) · 0.01) + (e^0.01 − 1) = 0.381742386, an
    # advanced-composition claim at an analyst-chosen time, which is not valid
    # for adaptively chosen releases (no such odometer, Rogers et al. 2016).
    acc = BudgetAccountant(1.0, 1e-5, slack=1e-5)
    for _ in range(100):
        acc.spend(laplace(0.01))
    # Basic composition (an odometer): Σ ε_i = 100 · 0.01 = 1.0; the filter's
    # guarantee is the budget ε = 1.0 for δ ≥ 1e-5.
    assert acc.get_epsilon(1e-3) == 1.0
    assert acc.get_epsilon(1e-5) == 1.0
    assert acc.get_epsilon(0.0) == 1.0  # pure: basic only
    # A larger budget: the filter claim (2.0) loses to basic (0.5 · 2 = 1.0)
    # until basic exceeds it.
    big = BudgetAccountant(2.0, 1e-5, slack=1e-5)
    for _ in range(300):
        big.spend(laplace(0.01))
    assert big.get_epsilon(1e-5) == 2.0  # basic: 3.0 > 2.0
    assert big.get_epsilon(1e-6) == pytest.approx(3.0, rel=1e-12)  # basic only


def test_filter_stopping_rule_known_values():
    # The filter accepts while sqrt(2 ln(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1) ≤ ε
    # (Whitehouse et al. 2023, Thm 1, whose drift ½ Σ ε_i² is smaller), with ε_i
    # chosen adaptively. Budget (1, 1e-5), δ′ = 1e-5: 100 releases of 0.05 are
    # refused after k with sqrt(2 ln(1e5) k · 0.0025) + k · 0.05 (e^0.05 − 1)
    # ≤ 1: k = 14 gives 0.897722 + 0.035890 = 0.933612; k = 15 gives
    # 0.929231 + 0.038453 = 0.967684; k = 16 gives 0.959705 + 0.041017 =
    # 1.000722 > 1, so the advanced branch stops at 15, while basic alone
    # allows k = 20 (Σ ε = 1.0): either branch may carry the filter, so 20.
    acc = BudgetAccountant(1.0, 1e-5, slack=1e-5)
    accepted = 0
    for _ in range(30):
        try:
            acc.spend(laplace(0.05))
        except BudgetExceededError:
            break
        accepted += 1
    assert accepted == 20
    # A mixed, adaptively chosen sequence: 0.05 then tiny steps of 0.001. After
    # 20 × 0.05 basic is spent (1.0); the advanced branch with Σ ε² = 0.05 is
    # sqrt(2 ln(1e5) · 0.05) + 20 · 0.05 (e^0.05 − 1) = 1.07298 + 0.05127 > 1,
    # so nothing more fits, not even 0.001.
    with pytest.raises(BudgetExceededError):
        acc.spend(laplace(0.001))


@given(
    eps=st.lists(st.floats(0.0, 2.0), min_size=1, max_size=25),
    slack=st.floats(1e-12, 0.5),
)
def test_total_between_max_and_sum(eps, slack):
    acc = BudgetAccountant(delta=slack, slack=slack)
    for e in eps:
        acc.spend(laplace(e))
    total_eps = acc.total()[0]
    assert total_eps <= basic_composition([(e, 0.0) for e in eps])[0]
    assert total_eps >= max(eps) * (1 - 1e-12)


@given(
    costs=st.lists(
        st.tuples(st.floats(0.0, 2.0), st.floats(0.0, 1e-4)), min_size=1, max_size=25
    ),
    slack=st.floats(1e-12, 0.5),
)
def test_never_worse_than_basic(costs, slack):
    plain = BudgetAccountant(delta=1.0)
    advanced = BudgetAccountant(delta=1.0, slack=slack)
    for e, d in costs:
        plain.spend(gaussian(e, d))
        advanced.spend(gaussian(e, d))
    basic = basic_composition(costs)
    assert plain.total() == basic  # slack 0 reports basic composition exactly
    assert advanced.total()[0] <= basic[0]


# -------------------------------------------------------- copies and clone
def test_copies_are_the_same_object():
    acc = BudgetAccountant(1.0)
    acc.spend(laplace(0.5))
    assert copy.copy(acc) is acc
    assert copy.deepcopy(acc) is acc
    assert copy.deepcopy({"a": [acc]})["a"][0] is acc
    assert clone(acc, safe=False) is acc


class _Holder(BaseEstimator):
    """A minimal estimator with an accountant parameter."""

    def __init__(self, accountant=None, epsilon=1.0):
        self.accountant = accountant
        self.epsilon = epsilon


def test_clone_of_estimator_keeps_the_accountant():
    acc = BudgetAccountant(1.0)
    est = _Holder(accountant=acc)
    twin = clone(est)
    assert twin is not est
    assert twin.accountant is acc
    twin.accountant.spend(laplace(0.5))
    assert est.accountant.total() == (0.5, 0.0)  # one ledger, no double counting


def test_pickle_gives_read_only_snapshot():
    acc = BudgetAccountant(1.0, 1e-6, slack=1e-7)
    snap = pickle.loads(pickle.dumps(acc))
    assert snap is not acc
    assert (snap.epsilon, snap.delta, snap.slack) == (1.0, 1e-6, 1e-7)
    with pytest.raises(RuntimeError, match="read-only snapshot"):
        snap.check(0.1)
    with pytest.raises(RuntimeError, match="read-only snapshot"):
        snap.spend(laplace(0.1))
    assert len(snap) == 0
    assert "read_only=True" in repr(snap)
    assert snap.to_dict()["read_only"] is True
    acc.spend(laplace(0.25))  # the original is unaffected
    assert len(acc) == 1


def test_pickle_keeps_the_ledger():
    acc = BudgetAccountant(1.0, 1e-6)
    acc.spend(gaussian(0.25, 1e-7))
    snap = pickle.loads(pickle.dumps(acc))
    assert snap.total() == acc.total()
    assert [e.epsilon for e in snap.ledger] == [0.25]


# ---------------------------------------------------------------- threads
def _hammer(acc, n_threads, n_spends, eps):
    barrier = threading.Barrier(n_threads)
    successes: list[int] = []
    refusals: list[int] = []

    def worker():
        barrier.wait()
        ok = bad = 0
        for _ in range(n_spends):
            try:
                acc.spend(laplace(eps))
                ok += 1
            except BudgetExceededError:
                bad += 1
        successes.append(ok)
        refusals.append(bad)

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(successes), sum(refusals)


def test_concurrent_spends_never_overspend():
    # 8 threads × 50 spends of 0.01 against a budget of 1.0: exactly 100 fit.
    acc = BudgetAccountant(1.0)
    ok, bad = _hammer(acc, 8, 50, 0.01)
    assert ok == 100
    assert bad == 300
    assert len(acc) == 100
    assert acc.total() == (1.0, 0.0)


def test_check_and_append_are_atomic(monkeypatch):
    # Make composition slow so that, without the lock, threads would pass the
    # check together and overspend; with it, exactly 5 of 0.1 fit in 0.5.
    real = accountant_module._best

    def slow(*args, **kwargs):
        time.sleep(2e-4)
        return real(*args, **kwargs)

    monkeypatch.setattr(accountant_module, "_best", slow)
    acc = BudgetAccountant(0.5)
    ok, bad = _hammer(acc, 8, 4, 0.1)
    assert (ok, bad) == (5, 27)
    assert acc.total()[0] == pytest.approx(0.5)


# ---------------------------------------------------------------- reports
def test_to_dict_is_json_ready():
    acc = BudgetAccountant(delta=1e-6, slack=1e-7)
    acc.spend(gaussian(0.5, 1e-7))
    d = acc.to_dict()
    json.dumps(d)  # serialisable
    assert d["budget"] == {"epsilon": "inf", "delta": 1e-6, "slack": 1e-7}
    assert d["composition"] == "basic+advanced"
    assert d["spent"] == {"epsilon": 0.5, "delta": 1e-7}
    assert d["remaining"]["epsilon"] == "inf"
    assert d["remaining"]["delta"] == pytest.approx(9e-7)
    assert d["read_only"] is False
    assert [e["mechanism"] for e in d["ledger"]] == ["gaussian"]
    assert d["ledger"][0] == acc.ledger[0].to_dict()


def test_repr_is_helpful():
    acc = BudgetAccountant(1.0, 1e-6, slack=1e-7)
    acc.spend(laplace(0.25))
    text = repr(acc)
    assert text.startswith("BudgetAccountant(epsilon=1.0, delta=1e-06, slack=1e-07")
    assert "spent=(0.25, 0.0) in 1 event)" in text
    acc.spend(laplace(0.25))
    assert "in 2 events" in repr(acc)


def test_resolve_accountant():
    acc = BudgetAccountant(1.0)
    assert resolve_accountant(None) is None
    assert resolve_accountant(acc) is acc
    for bad in ("default", 1.0, {"epsilon": 1.0}, BudgetAccountant):
        with pytest.raises(TypeError, match="no global default accountant"):
            resolve_accountant(bad)
