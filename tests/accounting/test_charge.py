# SPDX-License-Identifier: BSD-3-Clause
"""charge(): check → compute → spend; refusal of non-private modes everywhere."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from dpsvm.accounting import (
    BudgetAccountant,
    NonPrivateEvent,
    PrivacyEvent,
    allow_non_private,
    charge,
    non_private_reason,
    refuse_non_private,
)
from dpsvm.exceptions import (
    BudgetExceededError,
    NonPrivateReleaseError,
    NotPrivateWarning,
    PrivacyLeakWarning,
)
from dpsvm.model_selection import (
    PrivateParameterTuning,
    PrivateRandomSearch,
    PrivateSelectThenFit,
)
from dpsvm.models import (
    DPKernelSVC,
    DPLinearSVC,
    DPLogisticRegression,
    NonPrivateScalarOffsetRelease,
)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / 2
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    return X, y


# ------------------------------------------------------------ the helper
def test_charge_checks_now_and_spends_only_on_success():
    acc = BudgetAccountant(1.0)
    with pytest.raises(BudgetExceededError):
        charge(acc, 1.5)  # refused before any computation
    ticket = charge(acc, 0.5)
    assert len(acc) == 0  # checked, nothing spent
    ticket.spend(PrivacyEvent("laplace", 0.5))
    assert acc.total() == (0.5, 0.0)
    with pytest.raises(RuntimeError, match="already spent"):
        ticket.spend(PrivacyEvent("laplace", 0.5))
    # A failure inside the block spends nothing.
    with pytest.raises(ZeroDivisionError), charge(acc, 0.25):
        _ = 1 / 0
    assert len(acc) == 1
    # Leaving the block without spending is a bug, and says so.
    with pytest.raises(RuntimeError, match="without spend"), charge(acc, 0.25):
        pass
    assert len(acc) == 1


def test_event_may_not_cost_more_than_was_checked():
    acc = BudgetAccountant(1.0, 1e-5)
    with pytest.raises(ValueError, match="more than"):
        charge(acc, 0.25).spend(PrivacyEvent("laplace", 0.5))
    with pytest.raises(ValueError, match="more than"):
        charge(acc, 0.5).spend(PrivacyEvent("gaussian", 0.5, 1e-6))  # δ unchecked
    with pytest.raises(ValueError, match="checked as private"):
        charge(acc, 0.5).spend(NonPrivateEvent("literal", 0.5, reason="r"))
    assert len(acc) == 0
    # Without an accountant the event is still checked against the plan.
    with pytest.raises(ValueError, match="more than"):
        charge(None, 0.25).spend(PrivacyEvent("laplace", 0.5))
    # Rounding of a sum of per-class shares is allowed.
    charge(acc, 0.3).spend(PrivacyEvent("ovr", 0.1 + 0.1 + 0.1))


def test_batch_spend_records_each_release():
    acc = BudgetAccountant(1.0)
    charge(acc, 0.75).spend(PrivacyEvent("answer", 0.25), times=3)
    assert len(acc) == 3 and acc.total() == (0.75, 0.0)
    with pytest.raises(ValueError, match="more than"):
        charge(acc, 0.2).spend(PrivacyEvent("answer", 0.1), times=3)
    assert len(acc) == 3


# ------------------------------------------------- non-private estimators
NON_PRIVATE = [
    pytest.param(
        lambda **kw: DPLinearSVC(mechanism="objective-2009", loss="huber", **kw),
        "mechanism='objective'",
        id="linear-objective-2009",
    ),
    pytest.param(
        lambda **kw: DPLogisticRegression(mechanism="objective-2009", **kw),
        "mechanism='objective'",
        id="logreg-objective-2009",
    ),
    pytest.param(
        lambda **kw: DPKernelSVC(n_components=4, norm_handling="paper", **kw),
        "norm_handling='scale'",
        id="kernel-paper",
    ),
    pytest.param(
        lambda **kw: DPKernelSVC(n_components=4, mechanism="objective-2009", **kw),
        "mechanism='objective'",
        id="kernel-objective-2009",
    ),
]


@pytest.mark.parametrize(("make", "option"), NON_PRIVATE)
def test_non_private_fit_is_refused_by_a_finite_accountant_before_reading(make, option):
    # Regression: objective-2009 booked its nominal ε = 1 as if it were DP.
    acc = BudgetAccountant(10.0)
    est = make(classes=[-1, 1], accountant=acc, random_state=0)
    with pytest.raises(NonPrivateReleaseError, match=option) as info:
        est.fit(None, None)  # would fail differently if the data were read
    assert "Nothing was read or spent" in str(info.value)
    assert len(acc) == 0
    # An unlimited ε budget with δ < 1 is still a guarantee: refused too.
    with pytest.raises(NonPrivateReleaseError):
        make(classes=[-1, 1], accountant=BudgetAccountant(), random_state=0).fit(
            None, None
        )


@pytest.mark.parametrize(("make", "option"), NON_PRIVATE)
def test_non_private_fit_warns_and_records_a_non_private_event(make, option):
    X, y = _data()
    ledger = BudgetAccountant(delta=1.0)  # (∞, 1): a ledger, no guarantee
    est = make(classes=[-1, 1], accountant=ledger, random_state=0)
    with pytest.warns(NotPrivateWarning, match=option) as caught:
        est.fit(X, y)
    assert len(caught) == 1
    assert issubclass(NotPrivateWarning, UserWarning)
    assert issubclass(NotPrivateWarning, PrivacyLeakWarning)
    event = est.privacy_event_
    assert isinstance(event, NonPrivateEvent)
    assert (event.epsilon, event.delta) == (math.inf, 1.0)
    assert event.details["nominal_epsilon"] == 1.0
    assert "(NOT DP" not in event.mechanism
    assert option in event.reason
    assert ledger.ledger == (event,)


def test_private_configurations_declare_no_reason():
    for est in (
        DPLinearSVC(),
        DPLogisticRegression(mechanism="output"),
        DPKernelSVC(norm_handling="clip"),
        DPKernelSVC(norm_handling="paper", feature_map="cos-sin"),  # norm exactly 1
    ):
        assert non_private_reason(est) is None
    reason = non_private_reason(NonPrivateScalarOffsetRelease())
    assert "PerQueryLaplacePredictor" in reason


# ------------------------------------------------------------- selectors
SELECTORS = [
    pytest.param(
        lambda est, grid, **kw: PrivateParameterTuning(est, grid, **kw), id="tuning"
    ),
    pytest.param(
        lambda est, grid, **kw: PrivateRandomSearch(est, grid, **kw), id="random"
    ),
    pytest.param(
        lambda est, grid, **kw: PrivateSelectThenFit(est, grid, **kw), id="pipeline"
    ),
]


@pytest.mark.parametrize("make_selector", SELECTORS)
@pytest.mark.parametrize(
    ("estimator", "grid"),
    [
        (
            DPLinearSVC(mechanism="objective-2009", loss="huber", classes=[-1, 1]),
            {"regularization": [0.1, 1.0]},
        ),
        (
            DPLinearSVC(loss="huber", classes=[-1, 1]),
            {"mechanism": ["objective", "objective-2009"]},
        ),
    ],
)
def test_selectors_refuse_non_private_candidates_before_reading(
    make_selector, estimator, grid
):
    acc = BudgetAccountant(10.0)
    selector = make_selector(estimator, grid, epsilon=1.0, accountant=acc)
    with pytest.raises(NonPrivateReleaseError, match="objective-2009"):
        selector.fit(None, None)  # no data read
    assert len(acc) == 0


def test_allow_non_private_lets_a_reproduction_tune_but_books_nothing_private():
    X, y = _data(200)
    est = DPLinearSVC(mechanism="objective-2009", loss="huber", classes=[-1, 1])
    tuner = PrivateParameterTuning(
        est, {"regularization": [0.1, 1.0]}, epsilon=1.0, random_state=0
    )
    with allow_non_private("test: reproduce a paper"):
        refuse_non_private([est])
        with pytest.warns(NotPrivateWarning):
            tuner.fit(X, y)
    assert isinstance(tuner.privacy_event_, NonPrivateEvent)
    assert tuner.privacy_event_.epsilon == math.inf
    # Outside the block the refusal is back; an accountant never accepts it.
    with pytest.raises(NonPrivateReleaseError):
        refuse_non_private([est])
    with allow_non_private("test"), pytest.raises(NonPrivateReleaseError):
        PrivateParameterTuning(
            est,
            {"regularization": [0.1, 1.0]},
            epsilon=1.0,
            accountant=BudgetAccountant(10.0),
        ).fit(X, y)
    with pytest.raises(ValueError, match="label"):
        with allow_non_private(""):
            pass


def test_a_batch_refused_part_way_records_nothing() -> None:
    # Regression: a batch of three answers checked at 0.9, after which a
    # concurrent release took 0.5, recorded two answers (0.2 of budget) before
    # the third was refused, although the release was thrown away.
    acc = BudgetAccountant(1.0)
    ticket = charge(acc, 0.9)
    acc.spend(PrivacyEvent("concurrent", 0.5))
    with pytest.raises(BudgetExceededError):
        ticket.spend(PrivacyEvent("answer", 0.2), times=3)
    assert [e.mechanism for e in acc.ledger] == ["concurrent"]
    assert acc.remaining()[0] == pytest.approx(0.5)


def test_a_charge_block_left_by_an_exception_puts_the_owner_back() -> None:
    est = SimpleNamespace(coef_=None)
    with pytest.raises(RuntimeError, match="solver failed"):
        with charge(None, 1.0, owner=est):
            est.coef_ = [1.0]
            raise RuntimeError("solver failed")
    assert est.coef_ is None
