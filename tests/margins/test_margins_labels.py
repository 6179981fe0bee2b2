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
def test_many_private_labels_are_refused_without_counting_them(cls):
    # Regression: with classes=None the message quoted the number of labels
    # read from y ("got 5 class(es)"), a count the privacy guarantee does not
    # cover. It now says only that y is not binary.
    y = np.arange(12) % 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="Only binary classification") as err:
            cls(random_state=0).fit(_rows(), y)
    msg = str(err.value)
    assert "more than 2 classes and classes=None" in msg
    assert "5" not in msg


@pytest.mark.parametrize("cls", LEARNERS)
def test_one_private_label_is_refused_as_sklearn_expects(cls):
    # scikit-learn's check_fit2d_1sample accepts "1 class"/"one class"; saying
    # "one class" tells no more than the refusal itself.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="one class"):
            cls(random_state=0).fit(_rows(1), np.array([1]))


@pytest.mark.parametrize("cls", LEARNERS)
def test_a_public_label_set_is_quoted_in_the_refusal(cls):
    y = np.arange(12) % 3
    with pytest.raises(ValueError, match=r"exactly 2 classes; got classes=\[0, 1, 2\]"):
        cls(classes=[0, 1, 2], random_state=0).fit(_rows(), y)
