# SPDX-License-Identifier: BSD-3-Clause
"""Tuning on public data: no privacy cost, one private fit.

Sarwate, Chaudhuri & Monteleoni (2009), §5.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.model_selection import PublicTuningResult, tune_on_public_data
from dpsvm.models import DPLinearSVC, NonPrivateLinearClassifier


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([1.0, 2.0, 3.0]) > 0, 1, -1)
    return X, y


def test_public_tuning_costs_nothing_and_the_private_fit_costs_once():
    X_pub, y_pub = _data(600, 1)
    X_priv, y_priv = _data(600, 2)
    acc = BudgetAccountant(epsilon=1.0)
    est = DPLinearSVC(epsilon=0.8, classes=[-1, 1], accountant=acc)
    res = tune_on_public_data(
        est, {"regularization": [1e-2, 1e-1, 1.0]}, X_pub, y_pub, cv=3, random_state=0
    )
    assert isinstance(res, PublicTuningResult)
    assert len(acc) == 0 and acc.total() == (0.0, 0.0)
    # The returned estimator is unfitted, carries the choice and the accountant.
    assert not hasattr(res.estimator, "coef_")
    assert (
        res.estimator.get_params()["regularization"]
        == res.best_params["regularization"]
    )
    assert res.estimator.accountant is acc and res.estimator.epsilon == 0.8
    res.estimator.set_params(random_state=0).fit(X_priv, y_priv)
    assert len(acc) == 1 and acc.total() == (0.8, 0.0)
    # The input estimator was not modified.
    assert est.regularization == "auto"


def test_public_tuning_picks_the_better_candidate():
    # Λ = 1e3 shrinks w to almost 0 (its scores then fall below the tie
    # threshold at random), Λ = 1e-3 fits this separable problem well.
    X_pub, y_pub = _data(400, 3)
    res = tune_on_public_data(
        NonPrivateLinearClassifier(loss="huber"),
        {"regularization": [1e3, 1e-3]},
        X_pub,
        y_pub,
        cv=4,
    )
    assert res.best_params == {"regularization": 1e-3}
    assert res.best_score > 0.9
    assert len(res.cv_results["params"]) == 2


def test_public_tuning_refuses_data_derived_grids():
    X_pub, y_pub = _data(100, 4)
    with pytest.raises(TypeError, match="explicit values"):
        tune_on_public_data(
            DPLinearSVC(), lambda X: {"regularization": [1.0]}, X_pub, y_pub
        )
    with pytest.raises(ValueError, match="may not contain 'epsilon'"):
        tune_on_public_data(DPLinearSVC(), {"epsilon": [1.0, 2.0]}, X_pub, y_pub)
