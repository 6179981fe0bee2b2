# SPDX-License-Identifier: BSD-3-Clause
"""LabelPrivateClassifier: contract, label handling, stages, accounting, privacy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

import dpsvm.label_privacy._classifier as classifier_module
from dpsvm.accounting import BudgetAccountant, PrivacyEvent
from dpsvm.exceptions import BudgetExceededError, PrivacyLeakWarning
from dpsvm.label_privacy import LabelPrivateClassifier, rr_keep_probability
from dpsvm.models import DPLinearSVC


def _data(n=600, seed=0, classes=("no", "yes")):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, classes[1], classes[0])
    return X, y


# ------------------------------------------------------------ sklearn contract
# ε = 30 keeps every label (keep probability 1 − 1e-13): the contract's checks
# test the estimator's plumbing, not the noise (which tests below measure). The
# meta-estimator's code is the same whatever the base estimator; the default
# HistGradientBoosting base is left out only because its OpenMP fits make the
# ~50 checks take minutes on 2 cores (test_default_estimator covers it).
@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
@parametrize_with_checks(
    [
        LabelPrivateClassifier(
            LogisticRegression(),
            epsilon=30.0,
            mechanism="rr-with-prior",
            random_state=0,
        ),
        LabelPrivateClassifier(LinearSVC(), epsilon=30.0, random_state=0),
    ],
    # No expected failures: every check of scikit-learn passes as is.
)
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_default_estimator():
    X, y = _data()
    # One OpenMP thread: HistGradientBoosting's threads crawl on a busy machine.
    with threadpool_limits(1):
        clf = LabelPrivateClassifier(classes=["no", "yes"], random_state=0).fit(X, y)
        proba = clf.predict_proba(X)
        score = clf.score(X, y)
    assert type(clf.estimator_).__name__ == "HistGradientBoostingClassifier"
    assert clf.privacy_event_.mechanism == "randomized-response"
    assert clf.privacy_event_.details["base_estimator"] == (
        "HistGradientBoostingClassifier"
    )
    assert proba.shape == (600, 2)
    # 600 rows with 27 % of labels flipped (ε = 1): well above chance, below
    # the noiseless fit (Adult's figures are in test_adult.py).
    assert score > 0.65


def test_predict_proba_only_with_a_probabilistic_base():
    assert hasattr(LabelPrivateClassifier(), "predict_proba")
    assert not hasattr(LabelPrivateClassifier(LinearSVC()), "predict_proba")
    X, y = _data()
    clf = LabelPrivateClassifier(
        LogisticRegression(), classes=["no", "yes"], random_state=0
    ).fit(X, y)
    proba = clf.predict_proba(X[:5])
    assert proba.shape == (5, 2)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert clf.classes_.tolist() == ["no", "yes"]


def test_rr_with_prior_needs_predict_proba():
    X, y = _data()
    with pytest.raises(ValueError, match="predict_proba"):
        LabelPrivateClassifier(
            LinearSVC(), classes=["no", "yes"], mechanism="rr-with-prior"
        ).fit(X, y)


# ------------------------------------------------------------------ label set
def test_label_outside_classes_is_refused_without_quoting_it():
    X, y = _data()
    y = y.astype(object)
    y[7] = "secret-label-42"
    with pytest.raises(ValueError, match="not in the public label set") as info:
        LabelPrivateClassifier(classes=["no", "yes"]).fit(X, y)
    assert "secret-label-42" not in str(info.value)


def test_classes_none_warns():
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        clf = LabelPrivateClassifier(LogisticRegression(), random_state=0).fit(X, y)
    assert "label_set" in clf.privacy_event_.details


def test_multiclass_uses_the_whole_epsilon():
    X, _ = _data(900)
    y = np.digitize(X[:, 0], [-0.5, 0.5])  # three classes
    clf = LabelPrivateClassifier(
        LogisticRegression(), epsilon=2.0, classes=[0, 1, 2], random_state=0
    ).fit(X, y)
    event = clf.privacy_event_
    assert (event.epsilon, event.delta, event.neighbouring) == (
        2.0,
        0.0,
        "replace-one-label",
    )
    assert event.details["n_classes"] == 3
    assert clf.predict_proba(X).shape == (900, 3)
    assert clf.score(X, y) > 0.8


def test_rr_event_records_the_keep_probability():
    X, y = _data()
    clf = LabelPrivateClassifier(
        LogisticRegression(), epsilon=0.7, classes=["no", "yes"], mechanism="rr"
    ).fit(X, y)
    assert clf.privacy_event_.mechanism == "randomized-response"
    assert clf.privacy_event_.details["keep_probability"] == rr_keep_probability(0.7, 2)


def test_public_prior_is_checked():
    X, y = _data()
    with pytest.raises(ValueError, match="prior"):
        LabelPrivateClassifier(classes=["no", "yes"], prior=[1.0]).fit(X, y)


# ------------------------------------------------------------------ the stages
class _Spy(ClassifierMixin, BaseEstimator):
    """Logistic regression that records the labels of every fit."""

    fits: list[np.ndarray] = []

    def fit(self, X, y):
        type(self).fits.append(np.asarray(y).copy())
        self.model_ = LogisticRegression().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


@pytest.mark.parametrize("classes", [["yes", "no"], ["no", "yes"]])
def test_prior_follows_the_order_of_classes_as_given(classes):
    # Regression (fails before the fix for ["yes", "no"]): the prior was
    # applied in sorted class order. A prior with all its mass on "yes" keeps
    # k* = 1 label, so every stage-1 noisy label is "yes", whatever the data.
    X, y = _data(n=200)
    prior = [1.0 if c == "yes" else 0.0 for c in classes]
    clf = LabelPrivateClassifier(
        LogisticRegression(),
        epsilon=1.0,
        classes=classes,
        mechanism="rr-with-prior",
        n_stages=1,
        prior=prior,
        random_state=0,
    ).fit(X, y)
    assert clf.classes_.tolist() == ["no", "yes"]
    assert set(clf.predict(X).tolist()) == {"yes"}


def test_each_label_is_randomised_once_and_priors_see_noisy_labels(monkeypatch):
    X, y = _data(1200)
    calls = []
    original = classifier_module.rr_with_prior

    def spy(codes, prior, epsilon, rng):
        calls.append(np.asarray(codes).copy())
        return original(codes, prior, epsilon, rng)

    monkeypatch.setattr(classifier_module, "rr_with_prior", spy)
    _Spy.fits = []
    LabelPrivateClassifier(
        _Spy(),
        epsilon=0.05,
        classes=["no", "yes"],
        mechanism="rr-with-prior",
        n_stages=3,
        random_state=0,
    ).fit(X, y)
    # Three disjoint stages: every true label enters one randomiser once.
    assert [c.size for c in calls] == [400, 400, 400]
    # Two prior models (stages 2, 3) and the final model, all on noisy labels:
    # at ε = 0.05 they agree with the true labels about half the time.
    assert [f.size for f in _Spy.fits] == [400, 800, 1200]
    final = _Spy.fits[-1]
    assert np.mean(final == y) < 0.6
    assert stats.binomtest(int(np.sum(final == y)), y.size, 0.5).pvalue > 1e-4 or (
        np.mean(final == y) < 0.56
    )


def test_confident_prior_replaces_randomisation():
    """Where the prior is sure (k* = 1) the noisy label is its top label."""
    X, y = _data(2000)
    clf = LabelPrivateClassifier(
        LogisticRegression(C=100.0),
        epsilon=1.0,
        classes=["no", "yes"],
        mechanism="rr-with-prior",
        random_state=0,
    ).fit(X, y)
    # The base model sees mostly correct labels in stage 2: accuracy well above
    # plain RR's keep rate.
    assert clf.score(X, y) > 0.95
    assert list(clf.privacy_event_.details["stage_sizes"]) == [1000, 1000]


# ------------------------------------------------------------------ accounting
class _Unreadable:
    """Array-like whose values must not be read (a refused fit reads nothing)."""

    shape = (10, 2)

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read")

    def __len__(self):
        return 10


def test_full_dp_accountant_refuses_before_reading_data():
    acc = BudgetAccountant(10.0)
    clf = LabelPrivateClassifier(classes=[0, 1], accountant=acc)
    with pytest.raises(ValueError, match="replace-one-label"):
        clf.fit(_Unreadable(), _Unreadable())
    assert len(acc) == 0


def test_label_accountant_keeps_a_separate_budget():
    X, y = _data()
    acc = BudgetAccountant(1.5, neighbouring="replace-one-label")
    LabelPrivateClassifier(
        LogisticRegression(), epsilon=1.0, classes=["no", "yes"], accountant=acc
    ).fit(X, y)
    assert acc.total() == (1.0, 0.0)
    assert acc.ledger[0].neighbouring == "replace-one-label"
    # A full-DP release is label-DP too and counts against the label budget.
    with pytest.raises(BudgetExceededError):
        DPLinearSVC(epsilon=1.0, classes=["no", "yes"], accountant=acc).fit(X, y)
    DPLinearSVC(epsilon=0.5, classes=["no", "yes"], accountant=acc).fit(X, y)
    assert acc.total()[0] == pytest.approx(1.5)
    assert acc.to_dict()["neighbouring"] == "replace-one-label"


def test_full_accountant_never_adds_label_events():
    acc = BudgetAccountant(10.0)
    label = PrivacyEvent("rr", 1.0, neighbouring="replace-one-label")
    with pytest.raises(ValueError, match="not a full-DP release"):
        acc.spend(label)
    with pytest.raises(ValueError, match="replace-one-label"):
        acc.check(1.0, neighbouring="replace-one-label")
    assert acc.total() == (0.0, 0.0)
    with pytest.raises(ValueError, match="neighbouring must be one of"):
        BudgetAccountant(1.0, neighbouring="add-remove")


# ---------------------------------------------------------- neighbouring test
@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["rr", "rr-with-prior"])
def test_empirical_replace_one_label_neighbours(mechanism):
    """Two data sets with the same features and one label changed.

    A 1-nearest-neighbour base model predicts, at the changed row, that row's
    noisy label; its frequency under both data sets bounds ε from below. The
    Clopper–Pearson lower bound must stay below ε, and the point estimate must
    be near ε for plain RR (the test has power).
    """
    eps, runs = 1.0, 200
    X, y = _data(30, seed=3, classes=(0, 1))
    y2 = y.copy()
    y2[0] = 1 - y[0]
    hits = []
    for labels in (y, y2):
        count = 0
        for i in range(runs):
            clf = LabelPrivateClassifier(
                KNeighborsClassifier(n_neighbors=1),
                epsilon=eps,
                classes=[0, 1],
                mechanism=mechanism,
                random_state=i,
            ).fit(X, labels)
            count += int(clf.predict(X[:1])[0] == y[0])
        hits.append(count)
    p_hi = stats.binomtest(hits[0], runs).proportion_ci(0.999).low
    p_lo = stats.binomtest(hits[1], runs).proportion_ci(0.999).high
    lower_bound = math.log(max(p_hi, 1e-12) / p_lo)
    assert lower_bound <= eps
    point = math.log(hits[0] / max(hits[1], 1))
    if mechanism == "rr":
        assert point > 0.6 * eps
    else:
        assert point > 0.1


def test_clone_and_params_roundtrip():
    clf = LabelPrivateClassifier(LogisticRegression(C=2.0), epsilon=0.5, classes=[0, 1])
    twin = clone(clf)
    assert twin.get_params()["estimator__C"] == 2.0
    assert twin.epsilon == 0.5


def test_random_state_is_none_or_an_int():
    X, y = _data()
    with pytest.raises(TypeError, match="random_state must be None"):
        LabelPrivateClassifier(
            classes=["no", "yes"], random_state=np.random.default_rng(0)
        ).fit(X, y)
