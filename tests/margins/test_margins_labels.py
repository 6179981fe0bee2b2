# SPDX-License-Identifier: BSD-3-Clause
"""Label handling shared by the margin learners (regression: refusal messages)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpsvm.exceptions import PrivacyLeakWarning
from dpsvm.margins import (
    JLExponentialMarginClassifier,
    JLMarginClassifier,
    KernelMarginClassifier,
    LabelPrivateMarginClassifier,
    NeuralMarginClassifier,
    PrivateMarginSelection,
)

LEARNERS = [
    JLExponentialMarginClassifier,
    JLMarginClassifier,
    KernelMarginClassifier,
    LabelPrivateMarginClassifier,
    NeuralMarginClassifier,
    PrivateMarginSelection,
]


def _rows(n: int = 12) -> np.ndarray:
    return np.random.default_rng(0).uniform(-0.5, 0.5, size=(n, 3))


@pytest.mark.parametrize("cls", LEARNERS)
def test_many_labels_fit_one_vs_rest_with_composed_budget(cls):
    # Multiclass by one-vs-rest (dpsvm.models.base.fit_one_vs_rest): K binary
    # releases at ε/K each, composed to ε; one score column per class.
    y = np.arange(30) % 3
    X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(30, 3))
    clf = cls(epsilon=1.5, classes=[0, 1, 2], random_state=0).fit(X, y)
    event = clf.privacy_event_
    assert event.mechanism.startswith("one-vs-rest(")
    assert len(event.children) == 3
    assert [c.epsilon for c in event.children] == pytest.approx([0.5] * 3, rel=1e-3)
    assert event.epsilon == pytest.approx(sum(c.epsilon for c in event.children))
    assert event.epsilon <= 1.5 + 1e-9
    assert event.neighbouring == event.children[0].neighbouring
    assert clf.decision_function(X).shape == (30, 3)
    assert set(clf.predict(X)) <= {0, 1, 2}
    assert len(clf.estimators_) == 3


def test_label_private_one_vs_rest_keeps_the_label_relation():
    # Regression guard: the composed event must not claim replace-one DP.
    y = np.arange(30) % 3
    X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(30, 3))
    clf = LabelPrivateMarginClassifier(classes=[0, 1, 2], random_state=0).fit(X, y)
    assert clf.privacy_event_.neighbouring == "replace-one-label"


@pytest.mark.parametrize("cls", LEARNERS)
def test_many_private_labels_are_not_counted_in_messages(cls):
    # With classes=None the label set read from y is flagged, never refused by
    # quoting a count read from the data.
    y = np.arange(12) % 5
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        clf = cls(random_state=0).fit(_rows(), y)
    assert clf.classes_.tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("cls", LEARNERS)
def test_one_private_label_is_refused_as_sklearn_expects(cls):
    # scikit-learn's check_fit2d_1sample accepts "1 class"/"one class"; saying
    # "one class" tells no more than the refusal itself.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="one class"):
            cls(random_state=0).fit(_rows(1), np.array([1]))


@pytest.mark.parametrize("cls", LEARNERS)
def test_labels_outside_the_public_set_are_refused(cls):
    y = np.arange(12) % 3
    with pytest.raises(ValueError, match=r"not in the public label set"):
        cls(classes=[0, 1], random_state=0).fit(_rows(), y)
