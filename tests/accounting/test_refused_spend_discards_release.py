# SPDX-License-Identifier: BSD-3-Clause
"""A spend refused after the budget check leaves no released model behind.

Every estimator checks its accountant before reading the data and spends the
release's event after computing it (``dpsvm.accounting.charge``). If another
release sharing the accountant spends in between, the final spend is refused
(:class:`~dpsvm.exceptions.BudgetExceededError`) and the caller must discard
its release: nothing released (weights, the privacy event, a selected model)
may stay on the estimator, or it would be used without being paid for.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant, PrivacyEvent
from dpsvm.accounting.charge import Charge
from dpsvm.exceptions import BudgetExceededError

RELEASED = (
    "privacy_event_",
    "coef_",
    "intercept_",
    "dual_coef_",
    "best_estimator_",
    "best_index_",
)


def _estimators(acc: BudgetAccountant) -> list[object]:
    from dpsvm.margins import JLMarginClassifier
    from dpsvm.model_selection import PrivateParameterTuning
    from dpsvm.models import (
        DPGaussianProcessRelease,
        DPKernelSVC,
        DPLinearSVC,
        DPLogisticRegression,
        DPOutputPerturbationSVC,
    )
    from dpsvm.prediction import TestDataDependentLearner

    kw = {"accountant": acc, "random_state": 0, "classes": [0, 1]}
    return [
        DPLinearSVC(**kw),
        DPLogisticRegression(**kw),
        DPKernelSVC(**kw),
        DPOutputPerturbationSVC(**kw),
        DPGaussianProcessRelease(**kw),
        JLMarginClassifier(**kw),
        TestDataDependentLearner(**kw),
        PrivateParameterTuning(
            DPLinearSVC(classes=[0, 1]),
            {"regularization": [1e-2, 1e-1]},
            accountant=acc,
            random_state=0,
        ),
    ]


def _data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(400, 3))
    return X, (X[:, 0] > 0).astype(int)


def _refuse_final_spend(monkeypatch: pytest.MonkeyPatch, acc: BudgetAccountant) -> None:
    """Another release sharing ``acc`` takes what is left just before each spend."""
    spend = Charge.spend

    def concurrent_then_spend(self, event, *, times=1):  # type: ignore[no-untyped-def]
        if self.accountant is acc:
            eps, delta = acc.remaining()
            acc.spend(PrivacyEvent("concurrent-release", eps, delta))
        return spend(self, event, times=times)

    monkeypatch.setattr(Charge, "spend", concurrent_then_spend)


@pytest.mark.parametrize("index", range(8))
def test_refused_final_spend_leaves_no_release(monkeypatch, index: int) -> None:
    X, y = _data(0)
    acc = BudgetAccountant(epsilon=100.0, delta=0.5)
    estimator = _estimators(acc)[index]
    _refuse_final_spend(monkeypatch, acc)
    with warnings.catch_warnings(), pytest.raises(BudgetExceededError):
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    left = [a for a in RELEASED if hasattr(estimator, a)]
    assert not left, f"{type(estimator).__name__} kept {left} after a refused spend"
    assert [e.mechanism for e in acc.ledger] == ["concurrent-release"]


@pytest.mark.parametrize("index", range(8))
def test_refused_refit_keeps_the_paid_model(monkeypatch, index: int) -> None:
    # A refit whose final spend is refused leaves the estimator exactly as the
    # earlier, paid fit left it (not a mix of the two fits).
    X, y = _data(1)
    acc = BudgetAccountant(epsilon=100.0, delta=0.5)
    estimator = _estimators(acc)[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    before = dict(vars(estimator))
    _refuse_final_spend(monkeypatch, acc)
    with warnings.catch_warnings(), pytest.raises(BudgetExceededError):
        warnings.simplefilter("ignore")
        estimator.fit(X[::-1], y[::-1])
    assert vars(estimator).keys() == before.keys()
    changed = [k for k, v in vars(estimator).items() if v is not before[k]]
    assert not changed, f"{type(estimator).__name__} changed {changed}"
    assert [e.mechanism for e in acc.ledger][-1] == "concurrent-release"
