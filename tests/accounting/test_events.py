# SPDX-License-Identifier: BSD-3-Clause
"""Typed privacy events: PrivacyEvent(...) dispatches on the guarantee."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle

import pytest

from dpsvm.accounting import (
    ApproximateDpEvent,
    NonPrivateEvent,
    PrivacyEvent,
    PureDpEvent,
)


def test_constructor_dispatches_on_the_guarantee():
    # Regression: the guarantee was a string in the name ("... (NOT DP)").
    pure = PrivacyEvent("laplace", 0.5)
    approx = PrivacyEvent("gaussian", 0.5, 1e-6)
    none = PrivacyEvent("literal", math.inf)
    assert type(pure) is PureDpEvent and isinstance(pure, PrivacyEvent)
    assert type(approx) is ApproximateDpEvent
    assert type(none) is NonPrivateEvent
    # Positional and keyword arguments dispatch alike.
    assert type(PrivacyEvent(mechanism="g", epsilon=1.0, delta=1e-9)) is (
        ApproximateDpEvent
    )
    assert type(PrivacyEvent("z", 0.0)) is PureDpEvent  # ε = 0 is pure DP


def test_non_private_event_costs_inf_and_one_and_keeps_the_nominal_epsilon():
    e = NonPrivateEvent("objective-perturbation-2009", 1.0, reason="why")
    assert (e.epsilon, e.delta) == (math.inf, 1.0)
    assert e.details["nominal_epsilon"] == 1.0
    assert e.reason == "why"
    # ε = ∞ given directly: no nominal ε, a default reason.
    f = PrivacyEvent("x", math.inf)
    assert "nominal_epsilon" not in f.details
    assert f.reason


def test_a_composition_with_a_non_private_child_is_non_private():
    child = NonPrivateEvent("literal", 0.5, reason="printed calibration")
    parent = PrivacyEvent("ovr", 1.0, children=(PrivacyEvent("a", 0.5), child))
    assert isinstance(parent, NonPrivateEvent)
    assert parent.epsilon == math.inf
    assert "printed calibration" in parent.reason


@pytest.mark.parametrize(
    ("cls", "eps", "delta"),
    [
        (PureDpEvent, 1.0, 1e-6),
        (PureDpEvent, math.inf, 0.0),
        (ApproximateDpEvent, 1.0, 0.0),
        (ApproximateDpEvent, math.inf, 1e-6),
    ],
)
def test_explicit_subclass_refuses_a_contradicting_cost(cls, eps, delta):
    with pytest.raises(ValueError, match="needs"):
        cls("m", eps, delta)


@pytest.mark.parametrize(
    "event",
    [
        PrivacyEvent("laplace", 0.5, sensitivity=1.0, sensitivity_norm="l1"),
        PrivacyEvent("gaussian", 0.5, 1e-6, details={"sigma": 2.0}),
        NonPrivateEvent("literal", 2.0, reason="r", details={"scale": math.inf}),
        PrivacyEvent(
            "ovr", 1.0, children=(PrivacyEvent("a", 0.5), PrivacyEvent("b", 0.5))
        ),
        PrivacyEvent("ovr", 1.0, children=(NonPrivateEvent("a", 0.5, reason="r"),)),
    ],
)
def test_to_dict_from_dict_round_trip_keeps_the_type(event):
    d = json.loads(json.dumps(event.to_dict()))  # through real JSON
    assert d["type"] == event.guarantee
    back = PrivacyEvent.from_dict(d)
    assert type(back) is type(event)
    assert back.to_dict() == event.to_dict()
    for a, b in zip(back.children, event.children, strict=True):
        assert type(a) is type(b)
    # Pickle, copies and dataclasses.replace keep the type too.
    for clone in (
        pickle.loads(pickle.dumps(event)),
        copy.deepcopy(event),
        dataclasses.replace(event),
    ):
        assert type(clone) is type(event)
        assert clone.to_dict() == event.to_dict()


def test_from_dict_without_type_reads_old_files_and_refuses_contradictions():
    old = PrivacyEvent("gaussian", 0.5, 1e-6).to_dict()
    del old["type"]
    assert type(PrivacyEvent.from_dict(old)) is ApproximateDpEvent
    bad = PrivacyEvent("laplace", 0.5).to_dict()
    bad["type"] = "approximate"
    with pytest.raises(ValueError, match="cannot have"):
        PrivacyEvent.from_dict(bad)
    bad["type"] = "maybe"
    with pytest.raises(ValueError, match="Unknown privacy event type"):
        PrivacyEvent.from_dict(bad)


def test_invalid_fields_are_still_refused():
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyEvent("x", -1.0)
    with pytest.raises(ValueError, match="delta"):
        PrivacyEvent("x", 1.0, 2.0)
    with pytest.raises(ValueError, match="neighbouring"):
        PrivacyEvent("x", 1.0, neighbouring="add-remove")


def _equal_pairs():
    # Two separately built events with the same fields, for each type.
    def pure():
        return PureDpEvent(
            "laplace",
            0.5,
            sensitivity=1.0,
            sensitivity_norm="l1",
            reference="Dwork et al. 2006, Prop. 1",
            details={"scale": 2.0, "grid": [1, 2]},
        )

    def approx():
        return PrivacyEvent("gaussian", 0.5, 1e-6, details={"sigma": 2.0})

    def non_private():
        return NonPrivateEvent("literal", 2.0, reason="r", details={"scale": 1.0})

    def composed():
        return PrivacyEvent("ovr", 1.0, children=(pure(), approx()))

    return [pure, approx, non_private, composed]


@pytest.mark.parametrize("make", _equal_pairs())
def test_equal_events_compare_equal_and_hash_alike(make):
    # Regression: events compared by identity, so two equal PureDpEvents
    # (same ε, same mechanism and details) were unequal.
    a, b = make(), make()
    assert a is not b
    assert a == b and not a != b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1 and {a: 1}[b] == 1
    # Copies, pickles and JSON round trips are equal to the original too.
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) == a
    assert PrivacyEvent.from_dict(json.loads(json.dumps(a.to_dict()))) == a


@pytest.mark.parametrize(
    "changed",
    [
        {"mechanism": "other"},
        {"epsilon": 0.25},
        {"sensitivity": 2.0},
        {"sensitivity_norm": "l2"},
        {"neighbouring": "replace-one-label"},
        {"reference": "another theorem"},
        {"details": {"scale": 2.5}},
        {"details": {"scale": 2.0, "grid": [1, 3]}},
        {"children": (PureDpEvent("a", 0.5),)},
    ],
)
def test_events_that_differ_in_one_field_are_unequal(changed):
    base = PureDpEvent(
        "laplace",
        0.5,
        sensitivity=1.0,
        sensitivity_norm="l1",
        details={"scale": 2.0, "grid": [1, 2]},
    )
    other = dataclasses.replace(base, **changed)
    assert base != other and not base == other
    assert dataclasses.replace(base) == base


def test_events_of_different_types_or_reasons_are_unequal():
    assert PureDpEvent("m", 0.5) != ApproximateDpEvent("m", 0.5, 1e-9)
    assert NonPrivateEvent("m", 0.5, reason="a") != NonPrivateEvent(
        "m", 0.5, reason="b"
    )
    assert PureDpEvent("m", 0.5) != "m"
    # Array details compare by value, not by numpy's elementwise ==.
    import numpy as np

    a = PureDpEvent("m", 0.5, details={"w": np.array([1.0, 2.0])})
    assert a == PureDpEvent("m", 0.5, details={"w": np.array([1.0, 2.0])})
    assert a != PureDpEvent("m", 0.5, details={"w": np.array([1.0, 3.0])})
    assert a != PureDpEvent("m", 0.5, details={"w": np.array([1.0])})


def test_equal_events_are_still_each_spent_by_an_accountant():
    # Value equality must not merge two releases: each equal event costs ε.
    from dpsvm.accounting import BudgetAccountant

    acc = BudgetAccountant(1.0)
    e1, e2 = PureDpEvent("laplace", 0.25), PureDpEvent("laplace", 0.25)
    assert e1 == e2
    acc.spend(e1)
    acc.spend(e2)
    assert len(acc) == 2
    assert acc.total()[0] == pytest.approx(0.5)


def test_an_event_equals_itself_even_with_nan_details():
    # Reflexive like the identity equality it replaced (a NaN detail is != NaN).
    e = PureDpEvent("m", 0.5, details={"gap": math.nan})
    assert e == e
    assert e in [e] and {e: 1}[e] == 1
