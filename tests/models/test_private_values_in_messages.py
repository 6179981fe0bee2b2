# SPDX-License-Identifier: BSD-3-Clause
"""Errors and warnings name the option to change, never a value read from data.

Regression tests for issue 10, item 5: messages quoted the maximum row norm,
the labels of y that were not in ``classes``, the number of labels read from
y and the solver's certified error on the private data. A message may reach
someone who must not see the data (a service relays it to an analyst).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpsvm.exceptions import DPSVMConvergenceError, PrivacyLeakWarning
from dpsvm.models import (
    DPGaussianProcessRelease,
    DPKernelSVC,
    DPLinearSVC,
    DPOutputPerturbationSVC,
    PerQueryLaplacePredictor,
)
from dpsvm.models.base import LABEL_SET_FROM_DATA
from dpsvm.models.kernel_erm import check_certificate

NORM = 3.718281  # a distinctive row norm: it must not appear in a message
LABEL = 48611  # a distinctive label: it must not appear in a message


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 2))
    return X, np.where(X[:, 0] > 0, 1, -1)


def _messages(record):
    return " ".join(str(w.message) for w in record)


@pytest.mark.parametrize(
    "make",
    [
        lambda: DPLinearSVC(data_norm=None, classes=[-1, 1]),
        lambda: DPGaussianProcessRelease(
            kernel="linear", data_norm=None, classes=[-1, 1]
        ),
    ],
)
def test_data_derived_norm_warning_does_not_quote_the_norm(make):
    X, y = _data()
    X[0] = [NORM, 0.0]
    with pytest.warns(PrivacyLeakWarning) as record:
        make().fit(X, y)
    text = _messages(record)
    assert "data_norm" in text
    assert "3.71" not in text and "3.72" not in text


@pytest.mark.parametrize(
    "make",
    [
        lambda: DPLinearSVC(classes=[-1, 1]),
        lambda: DPKernelSVC(classes=[-1, 1]),
        lambda: DPOutputPerturbationSVC(classes=[-1, 1]),
        lambda: DPGaussianProcessRelease(classes=[-1, 1]),
    ],
)
def test_unknown_label_error_does_not_quote_the_label(make):
    X, y = _data()
    y[5] = LABEL
    with pytest.raises(ValueError, match="not in the public label set") as exc:
        make().fit(X, y)
    assert str(LABEL) not in str(exc.value)
    assert "classes" in str(exc.value)


def test_single_class_error_does_not_count_the_labels_read_from_y():
    X, _ = _data()
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError) as exc:
        DPLinearSVC().fit(X, np.ones(X.shape[0], dtype=int))
    assert "classes=[...]" in str(exc.value)
    assert "got 1" not in str(exc.value)


def test_binary_nie_wang_error_does_not_count_the_labels_read_from_y():
    X, _ = _data()
    y = np.arange(X.shape[0]) % 3
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError) as exc:
        DPGaussianProcessRelease().fit(X, y)
    assert "classes=[...]" in str(exc.value)
    assert "3" not in str(exc.value)


def test_out_of_range_regularization_error_quotes_parameters_only():
    X, y = _data()
    X *= 1e100  # the data-derived norm R makes regularization / R² underflow
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError) as exc:
        DPLinearSVC(data_norm=None, classes=[-1, 1], regularization=1e-300).fit(X, y)
    message = str(exc.value)
    assert "data_norm=None" in message and "regularization=1e-300" in message
    assert "= 0" not in message and "e+" not in message


def test_certificate_error_does_not_quote_the_certified_error():
    with pytest.raises(DPSVMConvergenceError) as exc:
        check_certificate(0.0123456, 0.001)
    assert "0.0123" not in str(exc.value)
    assert "0.001" in str(exc.value)  # the public cap


# ------------------------------------------------- classes=None is recorded
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: DPLinearSVC(**kw),
        lambda **kw: DPKernelSVC(**kw),
        lambda **kw: DPOutputPerturbationSVC(**kw),
        lambda **kw: DPGaussianProcessRelease(**kw),
    ],
)
def test_privacy_event_records_a_label_set_read_from_the_data(make):
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        leaky = make().fit(X, y)
    assert leaky.privacy_event_.details["label_set"] == LABEL_SET_FROM_DATA
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        public = make(classes=[-1, 1]).fit(X, y)
    assert "label_set" not in public.privacy_event_.details


def test_private_predictor_records_a_label_set_read_from_the_data():
    from dpsvm.accounting import BudgetAccountant

    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        pp = PerQueryLaplacePredictor(accountant=BudgetAccountant(epsilon=1.0)).fit(
            X, y
        )
    assert pp.privacy_event_.details["label_set"] == LABEL_SET_FROM_DATA
