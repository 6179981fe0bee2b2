# SPDX-License-Identifier: BSD-3-Clause
"""PrivateParameterTuning: accounting, splits, utility.

Sarwate, Chaudhuri & Monteleoni (2009), Algorithm 3, Theorems 6 and 7.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from dpsvm.accounting import BudgetAccountant, PrivacyEvent
from dpsvm.audit import epsilon_lower_bound
from dpsvm.bounds.sarwate import tuning_error_slack
from dpsvm.exceptions import BudgetExceededError
from dpsvm.model_selection import (
    PrivateParameterTuning,
    check_param_grid,
    partition_indices,
)
from dpsvm.models import DPLinearSVC


class ThresholdClassifier(ClassifierMixin, BaseEstimator):
    """Stand-in 'private' classifier: predicts +1 iff x[0] >= threshold.

    Column 1 of X carries a row id, so a test can see which rows were fitted.
    """

    def __init__(
        self, *, threshold=0.5, epsilon=1.0, accountant=None, random_state=None
    ):
        self.threshold = threshold
        self.epsilon = epsilon
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y):
        X = np.asarray(X, dtype=float)
        self.classes_ = np.array([-1, 1])
        self.fit_rows_ = X[:, 1].astype(int)
        self.privacy_event_ = PrivacyEvent(
            "stand-in", self.epsilon, details={"n_samples": X.shape[0]}
        )
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        return np.where(X[:, 0] >= self.threshold, 1, -1)


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.uniform(size=n), np.arange(n)])
    return X, np.ones(n, dtype=int)


def _linear_data(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.arange(1, d + 1) > 0, 1, -1)
    return X, y


# ------------------------------------------------------------------ the split
@pytest.mark.parametrize(("n", "k"), [(10, 3), (7, 7), (100, 8), (101, 6), (1, 1)])
def test_partition_is_disjoint_covering_with_public_sizes(n, k):
    parts = partition_indices(n, k, np.random.default_rng(1))
    flat = np.concatenate(parts)
    assert len(parts) == k
    assert np.array_equal(np.sort(flat), np.arange(n))  # disjoint and covering
    # Sizes depend on (n, k) only: the first n mod k parts get one extra row.
    sizes = [p.size for p in parts]
    assert sizes == [n // k + (i < n % k) for i in range(k)]
    other = partition_indices(n, k, np.random.default_rng(2))
    assert [p.size for p in other] == sizes


def test_partition_rejects_impossible_counts():
    with pytest.raises(ValueError, match="non-empty parts"):
        partition_indices(3, 4, np.random.default_rng(0))
    with pytest.raises(TypeError):
        partition_indices(3.0, 2, np.random.default_rng(0))


def test_split_does_not_depend_on_the_data():
    X1, y1 = _rows(53, seed=1)
    X2, y2 = _rows(53, seed=2)
    y2[::2] = -1
    grid = {"threshold": [0.1, 0.5, 0.9]}
    a = PrivateParameterTuning(ThresholdClassifier(), grid, random_state=3).fit(X1, y1)
    b = PrivateParameterTuning(ThresholdClassifier(), grid, random_state=3).fit(X2, y2)
    for pa, pb in zip(a.partition_, b.partition_, strict=True):
        assert np.array_equal(pa, pb)


def test_each_candidate_sees_only_its_part_and_parts_cover_the_data():
    X, y = _rows(47)
    grid = {"threshold": [0.0, 0.3, 0.6, 0.9]}
    tuner = PrivateParameterTuning(ThresholdClassifier(), grid, random_state=0)
    tuner.fit(X, y)
    parts = tuner.partition_
    assert len(parts) == 5  # m + 1
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(47))
    # The released model was fitted on exactly its own part.
    assert np.array_equal(
        np.sort(tuner.best_estimator_.fit_rows_), np.sort(parts[tuner.best_index_])
    )
    # Every candidate fit (a child event) used its own part's size.
    fits = tuner.privacy_event_.children[:-1]
    assert [e.details["n_samples"] for e in fits] == [p.size for p in parts[:-1]]
    assert tuner.cv_results_["n_validation_samples"] == parts[-1].size


def test_fixed_split_seed_fixes_the_split_only():
    X, y = _rows(60)
    grid = {"threshold": [0.2, 0.8]}
    a = PrivateParameterTuning(
        ThresholdClassifier(), grid, random_state=1, split_random_state=5
    ).fit(X, y)
    b = PrivateParameterTuning(
        ThresholdClassifier(), grid, random_state=2, split_random_state=5
    ).fit(X, y)
    assert all(
        np.array_equal(p, q) for p, q in zip(a.partition_, b.partition_, strict=True)
    )


# ------------------------------------------------------------------ accounting
def test_one_event_with_parallel_children_is_spent():
    X, y = _linear_data()
    acc = BudgetAccountant(epsilon=1.0)
    grid = {"regularization": [1e-2, 1e-1, 1.0]}
    tuner = PrivateParameterTuning(
        DPLinearSVC(classes=[-1, 1]), grid, epsilon=0.7, accountant=acc, random_state=0
    ).fit(X, y)
    assert len(acc) == 1
    assert acc.ledger[0] is tuner.privacy_event_
    # Parallel composition: the whole is ε, not (m + 1)ε.
    assert acc.total() == (0.7, 0.0)
    event = tuner.privacy_event_
    assert [c.epsilon for c in event.children] == [0.7] * 4
    selection = event.children[-1]
    assert selection.mechanism == "exponential"
    assert selection.sensitivity == 1.0
    assert all(c.mechanism == "objective-perturbation" for c in event.children[:-1])
    best = grid["regularization"][tuner.best_index_]
    assert tuner.best_params_ == {"regularization": best}


def test_candidates_do_not_charge_and_estimator_accountant_is_refused():
    X, y = _linear_data()
    acc = BudgetAccountant(epsilon=5.0)
    with pytest.raises(ValueError, match="own accountant"):
        PrivateParameterTuning(
            DPLinearSVC(classes=[-1, 1], accountant=acc), {"regularization": [0.1]}
        ).fit(X, y)
    assert len(acc) == 0


def test_budget_is_checked_before_reading_the_data():
    acc = BudgetAccountant(epsilon=0.5)
    X = np.full((20, 2), np.nan)  # reading it would raise a ValueError
    tuner = PrivateParameterTuning(
        ThresholdClassifier(), {"threshold": [0.5]}, epsilon=1.0, accountant=acc
    )
    with pytest.raises(BudgetExceededError):
        tuner.fit(X, np.ones(20))
    assert len(acc) == 0


def test_nothing_is_spent_when_a_candidate_fails():
    X, y = _linear_data()
    acc = BudgetAccountant(epsilon=1.0)
    # The hinge loss is refused by objective perturbation inside the fit.
    grid = {"loss": ["huber", "hinge"]}
    with pytest.raises(ValueError, match="counter-example"):
        PrivateParameterTuning(
            DPLinearSVC(classes=[-1, 1]), grid, accountant=acc, random_state=0
        ).fit(X, y)
    assert len(acc) == 0
    assert acc.total() == (0.0, 0.0)


def test_no_model_is_left_behind_when_the_final_spend_fails(monkeypatch):
    # Regression: the selector stored best_estimator_ before spending, so a
    # spend refused after the check (another release sharing the accountant
    # spent in between) left an uncharged model on the object.
    X, y = _linear_data()
    acc = BudgetAccountant(epsilon=1.0)
    tuner = PrivateParameterTuning(
        DPLinearSVC(classes=[-1, 1]),
        {"regularization": [1e-2, 1e-1]},
        epsilon=0.7,
        accountant=acc,
        random_state=0,
    )
    select = type(tuner)._select

    def select_then_concurrent_spend(self, start):  # type: ignore[no-untyped-def]
        out = select(self, start)
        acc.spend(PrivacyEvent("concurrent-release", 0.5))
        return out

    monkeypatch.setattr(type(tuner), "_select", select_then_concurrent_spend)
    with pytest.raises(BudgetExceededError):
        tuner.fit(X, y)
    assert not hasattr(tuner, "best_estimator_")
    assert not hasattr(tuner, "privacy_event_")
    assert [e.mechanism for e in acc.ledger] == ["concurrent-release"]


def test_too_few_rows_are_refused():
    X, y = _rows(3)
    with pytest.raises(ValueError, match="m \\+ 1 = 4"):
        PrivateParameterTuning(
            ThresholdClassifier(), {"threshold": [0.1, 0.2, 0.3]}
        ).fit(X, y)


# ----------------------------------------------------------------- the grid
def _callable_grid(X):
    return {"regularization": [float(np.std(X))]}


@pytest.mark.parametrize(
    ("grid", "exc", "match"),
    [
        (_callable_grid, TypeError, "explicit values"),
        ({"regularization": _callable_grid}, TypeError, "callable"),
        ({"regularization": (v for v in [0.1])}, TypeError, "explicit values"),
        ({"regularization": [0.1, _callable_grid]}, TypeError, "callable"),
        ({"regularization": "0.1"}, TypeError, "explicit values"),
        ({"regularization": []}, ValueError, "empty"),
        ([], ValueError, "empty"),
        ({"epsilon": [0.1, 1.0]}, ValueError, "may not contain 'epsilon'"),
        ({"accountant": [None]}, ValueError, "may not contain"),
        ({"random_state": [0, 1]}, ValueError, "may not contain"),
        (42, TypeError, "dict"),
    ],
)
def test_data_derived_or_invalid_grids_are_refused(grid, exc, match):
    with pytest.raises(exc, match=match):
        check_param_grid(grid)
    X, y = _linear_data(60)
    acc = BudgetAccountant(1.0)
    with pytest.raises(exc, match=match):
        PrivateParameterTuning(DPLinearSVC(classes=[-1, 1]), grid, accountant=acc).fit(
            X, y
        )
    assert len(acc) == 0


def test_grid_expansion_matches_parameter_grid_order():
    grid = [{"regularization": np.array([1e-3, 1e-2])}, {"loss": ["logistic"]}]
    assert check_param_grid(grid) == [
        {"regularization": 1e-3},
        {"regularization": 1e-2},
        {"loss": "logistic"},
    ]


def test_unknown_parameter_and_non_private_estimator_are_refused():
    X, y = _linear_data(60)
    with pytest.raises(ValueError, match="does not have"):
        PrivateParameterTuning(DPLinearSVC(), {"C": [1.0]}).fit(X, y)
    with pytest.raises(TypeError, match="no 'epsilon' parameter"):
        PrivateParameterTuning(LogisticRegression(), {"C": [1.0]}).fit(X, y)


# ------------------------------------------------------------- delegation
def test_prediction_delegates_to_the_selected_estimator():
    X, y = _linear_data()
    tuner = PrivateParameterTuning(
        DPLinearSVC(classes=[-1, 1]),
        {"regularization": [1e-2, 1e-1]},
        epsilon=2.0,
        random_state=0,
    ).fit(X, y)
    best = tuner.best_estimator_
    assert np.array_equal(tuner.predict(X), best.predict(X))
    assert np.allclose(tuner.decision_function(X), best.decision_function(X))
    assert tuner.score(X, y) == best.score(X, y)
    assert np.array_equal(tuner.classes_, [-1, 1])
    assert tuner.cv_results_["selected"].sum() == 1
    assert not hasattr(tuner, "predict_proba")


def test_fitted_selector_keeps_only_released_facts():
    # Regression (issue 10, item 5): the exact validation mistake counts zᵢ were
    # kept as validation_mistakes_; they read the validation part without noise.
    X, y = _linear_data()
    tuner = PrivateParameterTuning(
        DPLinearSVC(classes=[-1, 1]), {"regularization": [1e-2, 1e-1]}, epsilon=2.0
    ).fit(X, y)
    fitted = {k for k in vars(tuner) if k.endswith("_") and not k.startswith("_")}
    assert fitted == {
        "best_estimator_",
        "best_index_",
        "best_params_",
        "cv_results_",
        "n_features_in_",
        "partition_",
        "privacy_event_",
    }
    assert set(tuner.cv_results_) == {
        "params",
        "n_train_samples",
        "selected",
        "n_validation_samples",
    }


# ------------------------------------------------------------ utility, Thm 7
def test_theorem_7_selected_mistakes_are_within_the_slack():
    # Sarwate, Chaudhuri & Monteleoni 2009, Thm 7: w.p. ≥ 1 − δ,
    # z_sel ≤ z_min + (2/ε) ln(m/δ). Candidates
    # other than the best sit just above the slack, the hardest case; with
    # the correct exp(−εz/2) the violation rate is ≤ 4e^{−5} ≈ 0.027 < δ, while
    # a mechanism with twice the noise would violate about 25 % of the time.
    eps, m, delta, reps = 1.0, 5, 0.05, 300
    slack = tuning_error_slack(m, eps, delta)  # (2/1) ln(100) ≈ 9.21
    n = 1200  # validation part ≈ 200 rows; z ≈ 200·threshold
    X, y = _rows(n)
    grid = {"threshold": [0.0] + [0.06] * (m - 1)}
    violations = 0
    for r in range(reps):
        tuner = PrivateParameterTuning(
            ThresholdClassifier(), grid, epsilon=eps, random_state=r
        ).fit(X, y)
        # Exact counts on the validation part (the selector does not keep them).
        val = tuner.partition_[-1]
        z = np.array([np.sum(X[val, 0] < t) for t in grid["threshold"]])
        violations += z[tuner.best_index_] > z.min() + slack
    # Binomial(300, δ) upper tail: mean 15, sd 3.8; bound at mean + 3 sd.
    assert violations <= reps * delta + 3 * math.sqrt(reps * delta * (1 - delta))


# -------------------------------------------------- empirical privacy audit
@pytest.mark.slow
def test_selection_step_passes_a_neighbouring_dataset_audit():
    # Neighbours differ in one record of the validation part: its label flips,
    # so candidate A's count rises by 1 and the m − 1 others' fall by 1 — the
    # extreme case of the exponential mechanism. The audited lower bound on ε
    # from the selected index must not exceed ε (confidence 0.999).
    eps, runs, n = 1.0, 800, 60
    grid = {"threshold": [-1.0] + [2.0] * 4}  # A: always +1; others: always −1
    X, y = _rows(n)
    probe = PrivateParameterTuning(ThresholdClassifier(), grid, split_random_state=7)
    val = probe.fit(X, y).partition_[-1]
    special, rest = val[0], val[1:]
    y_d = np.ones(n, dtype=int)
    y_d[rest[: rest.size // 2]] = -1  # as many +1 as −1 besides the special row
    y_d[special] = 1
    y_dp = y_d.copy()
    y_dp[special] = -1

    def selected_a(labels, offset):
        out = np.empty(runs)
        for r in range(runs):
            tuner = PrivateParameterTuning(
                ThresholdClassifier(),
                grid,
                epsilon=eps,
                random_state=offset + r,
                split_random_state=7,
            ).fit(X, labels)
            out[r] = tuner.best_index_ == 0
        return out

    a, b = selected_a(y_d, 0), selected_a(y_dp, 10**6)
    res = epsilon_lower_bound(a, b, confidence=0.999)
    assert res.epsilon_lower <= eps, res
    # The test has power: P_D(A) = 1/(1 + 4e^{−1/2}) ≈ 0.29 against
    # P_D′(A) = 1/(1 + 4e^{1/2}) ≈ 0.13, a log-ratio of ≈ 0.80.
    assert res.epsilon_point > 0.4
