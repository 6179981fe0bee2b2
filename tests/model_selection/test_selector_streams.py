# SPDX-License-Identifier: BSD-3-Clause
"""Candidates draw their noise from child streams that no fitted object keeps.

Regression tests for issue 10, item 1: the selectors passed their own generator
to every candidate as ``random_state``, so ``best_estimator_.random_state``
(and ``selector_.random_state``) was the live generator of the whole procedure.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from dpsvm.model_selection import (
    PrivateParameterTuning,
    PrivateRandomSearch,
    PrivateSelectThenFit,
)
from dpsvm.models import DPLinearSVC

GRID = {"regularization": [0.05, 0.2]}


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / np.sqrt(2)
    return X, np.where(X[:, 0] > 0, 1, -1)


SELECTORS = [
    pytest.param(
        lambda est, rs: PrivateParameterTuning(est, GRID, random_state=rs), id="tuning"
    ),
    pytest.param(
        lambda est, rs: PrivateRandomSearch(
            est, GRID, mean_repetitions=3, random_state=rs
        ),
        id="random-search",
    ),
    pytest.param(
        lambda est, rs: PrivateSelectThenFit(est, GRID, random_state=rs),
        id="select-then-fit",
    ),
]


@pytest.mark.parametrize("make", SELECTORS)
@pytest.mark.parametrize("own", [None, 7])
def test_released_candidate_keeps_the_estimators_own_random_state(make, own):
    X, y = _data()
    sel = make(DPLinearSVC(classes=[-1, 1], random_state=own), 3).fit(X, y)
    assert sel.best_estimator_.random_state == own
    assert sel.get_params()["random_state"] == 3
    assert sel.get_params()["estimator__random_state"] == own
    if hasattr(sel, "selector_"):
        assert sel.selector_.random_state == 3
        assert sel.selector_.best_estimator_.random_state == own


@pytest.mark.parametrize("make", SELECTORS)
def test_an_int_random_state_still_reproduces_the_release(make):
    X, y = _data()
    a = make(DPLinearSVC(classes=[-1, 1]), 11).fit(X, y)
    b = make(DPLinearSVC(classes=[-1, 1]), 11).fit(X, y)
    c = make(DPLinearSVC(classes=[-1, 1]), 12).fit(X, y)
    np.testing.assert_array_equal(a.best_estimator_.coef_, b.best_estimator_.coef_)
    assert not np.array_equal(a.best_estimator_.coef_, c.best_estimator_.coef_)
    # A pickled and restored selector predicts the same and holds no generator.
    restored = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(restored.predict(X), a.predict(X))
    assert b"numpy.random" not in pickle.dumps(a)
