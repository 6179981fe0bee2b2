# SPDX-License-Identifier: BSD-3-Clause
"""PrivateSelectThenFit: selection on S, final fit on F, one ε end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.exceptions import BudgetExceededError
from dpsvm.model_selection import PrivateSelectThenFit
from dpsvm.models import DPLinearSVC


def _data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([1.0, 2.0, 3.0]) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("selector", ["parameter-tuning", "random-search"])
def test_one_event_parallel_over_selection_and_final_parts(selector):
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0)
    grid = {"regularization": [1e-3, 1e-2, 1e-1]}
    pipe = PrivateSelectThenFit(
        DPLinearSVC(classes=[-1, 1]),
        grid,
        epsilon=1.0,
        selection_fraction=0.3,
        selector=selector,
        mean_repetitions=3,
        accountant=acc,
        random_state=0,
    ).fit(X, y)
    # One event, ε (not 2ε): S and F are disjoint (parallel composition).
    assert len(acc) == 1 and acc.total() == (1.0, 0.0)
    sel_event, final_event = pipe.privacy_event_.children
    assert sel_event.epsilon == 1.0 and final_event.epsilon == 1.0
    s, f = pipe.partition_
    assert s.size == math.ceil(0.3 * 800)
    assert np.intersect1d(s, f).size == 0
    assert np.array_equal(np.sort(np.concatenate([s, f])), np.arange(800))
    assert final_event.details["n_samples"] == f.size
    assert pipe.best_params_ == {
        "regularization": grid["regularization"][pipe.best_index_]
    }
    assert pipe.best_estimator_.regularization == pipe.best_params_["regularization"]
    assert np.array_equal(pipe.predict(X), pipe.best_estimator_.predict(X))


def test_noise_matched_transfer_rescales_only_the_regularization():
    X, y = _data(700)
    grid = {"regularization": [1e-3, 1e-2], "huber_h": [0.5]}
    pipe = PrivateSelectThenFit(
        DPLinearSVC(classes=[-1, 1]),
        grid,
        epsilon=0.5,
        selection_fraction=0.3,
        random_state=0,
    ).fit(X, y)
    n_sel, n_fin = pipe.partition_[0].size, pipe.partition_[1].size
    # Algorithm 3 inside: a candidate fits n_sel/(m + 1) rows with the same ε,
    # so equal n·Λ·ε means Λ × n_fin / (n_sel / 3).
    factor = n_fin / (n_sel / 3)
    inner = pipe.selector_.cv_results_["params"]
    for outer, inn in zip(
        [{"regularization": 1e-3}, {"regularization": 1e-2}], inner, strict=True
    ):
        assert inn["regularization"] == pytest.approx(outer["regularization"] * factor)
        assert inn["huber_h"] == 0.5
    raw = PrivateSelectThenFit(
        DPLinearSVC(classes=[-1, 1]),
        grid,
        epsilon=0.5,
        transfer="none",
        random_state=0,
    ).fit(X, y)
    assert [p["regularization"] for p in raw.selector_.cv_results_["params"]] == [
        1e-3,
        1e-2,
    ]


def test_budget_and_failures_spend_nothing():
    X, y = _data(300)
    acc = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        PrivateSelectThenFit(
            DPLinearSVC(classes=[-1, 1]), {"regularization": [0.1]}, accountant=acc
        ).fit(X, y)
    acc2 = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ValueError, match="counter-example"):
        PrivateSelectThenFit(
            DPLinearSVC(classes=[-1, 1]),
            {"loss": ["hinge"]},
            accountant=acc2,
            random_state=0,
        ).fit(X, y)
    assert len(acc) == 0 and len(acc2) == 0
    with pytest.raises(TypeError, match="explicit values"):
        PrivateSelectThenFit(DPLinearSVC(), lambda X: {}).fit(X, y)
