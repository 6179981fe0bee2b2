# SPDX-License-Identifier: BSD-3-Clause
"""No silent vacuous service: refusals at fit, and fair coins for zero scores."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from dpsvm.bounds.prediction import interactive_parameters, weight_norm_bound
from dpsvm.prediction import (
    PrivateInteractivePredictor,
    VacuousCalibrationError,
    VacuousCalibrationWarning,
)


def _separable(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_pinp_at_the_old_server_defaults_is_refused():
    # The old `dpsvm serve` defaults: n = 20,000, d = 5, λ = 0.01, ε = 1,
    # δ = 1e-6, T = 10⁴. The check uses public quantities only (R_φ = 1 for rbf
    # and for linear on the unit ball), so the fast linear kernel shows it.
    X, y = _separable(20_000, 5)
    with pytest.raises(VacuousCalibrationError) as info:
        PrivateInteractivePredictor(
            mechanism="pinp",
            epsilon=1.0,
            delta=1e-6,
            n_queries=10_000,
            regularization=0.01,
            kernel="linear",
            classes=[-1, 1],
        ).fit(X, y)
    msg = str(info.value)
    assert "\n" not in msg and "σ = " in msg and "C·R_φ = 200" in msg
    n_min = int(msg.split("use at least ")[1].split(" ")[0])
    # The named n is the public calibration's threshold: σ < C·R_φ at n_min
    # and not one row below (S = 2LR²/(λn)·(1 + 2·10⁻³), Thm 9 constants).
    C = weight_norm_bound(1.0, 1.0, 0.01)

    def vacuous(n):
        S = 2.0 / (0.01 * n) * (1 + 2e-3)
        return interactive_parameters(
            n, 0.01, 1.0, 1e-6, 0.05, 10_000, 1.0, 1.0, C, sensitivity=S
        ).vacuous

    assert not vacuous(n_min) and vacuous(n_min - 1)
    assert n_min > 10**8  # the issue's ≈ 3·10⁸ rows


def test_sparse_vector_refusal_says_no_size_helps():
    X, y = _separable(2000, 5)
    with pytest.raises(VacuousCalibrationError, match="subsample-aggregate"):
        PrivateInteractivePredictor(
            mechanism="sparse-vector",
            n_queries=10_000,
            kernel="linear",
            classes=[-1, 1],
        ).fit(X, y)


def test_laplace_with_a_billion_queries_is_refused_naming_max_queries():
    X, y = _separable(2000, 5)
    with pytest.raises(VacuousCalibrationError, match=r"n_queries <= \d+") as info:
        PrivateInteractivePredictor(
            mechanism="laplace", n_queries=10**9, kernel="linear", classes=[-1, 1]
        ).fit(X, y)
    T_max = int(str(info.value).split("n_queries <= ")[1].split(" ")[0])
    # At T_max answers the largest score C·R_φ still beats a coin by ≥ 1 point.
    p = PrivateInteractivePredictor(
        mechanism="laplace", n_queries=T_max, kernel="linear", classes=[-1, 1]
    ).fit(X, y)
    C_R = p.w_norm_bound_ * p.kappa_
    assert 0.5 * -math.expm1(-C_R / p.noise_scale_) >= 0.01
    assert not p.vacuous_


def test_zero_scores_get_a_fair_coin_not_classes_0():
    # Regression: on breast cancer (malignant = classes_[0], 37%) a vacuous
    # PINP answers every query with the score 0, which mapped to classes_[0]:
    # accuracy 0.39, below the 0.63 majority. Ties are now fair coin flips.
    X, y = load_breast_cancer(return_X_y=True)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    with pytest.warns(VacuousCalibrationWarning):
        p = PrivateInteractivePredictor(
            mechanism="pinp",
            n_queries=400,
            classes=[0, 1],
            on_vacuous="warn",
            random_state=0,
        ).fit(X, y)
    ans = p.answer(X[:400])
    assert np.all(ans.scores == 0.0) and not ans.updates.any()
    share = float(np.mean(ans.labels == 1))
    # Binomial(400, 1/2): 4 standard deviations = 0.1.
    assert abs(share - 0.5) < 0.1
    assert abs(float(np.mean(ans.labels == y[:400])) - 0.5) < 0.1


def test_released_zero_model_breaks_ties_by_a_fair_coin():
    from dpsvm.prediction import TestDataIndependentLearner

    X, y = load_breast_cancer(return_X_y=True)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    with pytest.warns(VacuousCalibrationWarning):
        clf = TestDataIndependentLearner(
            n_rounds=3, epsilon=0.01, classes=[0, 1], on_vacuous="warn", random_state=0
        ).fit(X, y)
    assert np.all(clf.decision_function(X) == 0.0)  # no update: the zero model
    share = float(np.mean(clf.predict(X) == 1))
    assert abs(share - 0.5) < 4 * 0.5 / math.sqrt(X.shape[0])
