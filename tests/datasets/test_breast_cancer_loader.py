# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the breast-cancer demo loader."""

from __future__ import annotations

import re

import numpy as np
import pytest
import sklearn.datasets

from dpsvm.datasets import load_breast_cancer
from dpsvm.datasets.breast_cancer import BREAST_CANCER_UPPER_BOUNDS


def _printed_maxima() -> list[float]:
    """Parse the 'Max' column of the published Summary Statistics table."""
    descr = sklearn.datasets.load_breast_cancer().DESCR
    rows = re.findall(r"^[a-z ()]+:\s+([-0-9.]+)\s+([-0-9.]+)\s*$", descr, re.M)
    return [float(mx) for _, mx in rows]


def test_shapes_labels_norms() -> None:
    b = load_breast_cancer()
    assert b.X_train.shape[0] + b.X_test.shape[0] == 569
    assert b.X_train.shape[1] == b.X_test.shape[1] == 30
    assert b.X_test.shape[0] == 143  # ceil(0.25 * 569)
    for X in (b.X_train, b.X_test):
        norms = np.linalg.norm(X, axis=1)
        assert norms.max() <= 1 + 1e-12
        np.testing.assert_allclose(norms, 1.0, atol=1e-12)
        assert X.min() >= 0
    for y in (b.y_train, b.y_test):
        assert set(np.unique(y)) == {-1, 1} and y.dtype.kind == "i"
    assert len(b.feature_names) == 30


def test_label_convention_and_rate() -> None:
    b = load_breast_cancer()
    n_pos = int((b.y_train == 1).sum() + (b.y_test == 1).sum())
    assert n_pos == 357  # "Class Distribution: 212 - Malignant, 357 - Benign"
    assert b.positive_rate == pytest.approx(357 / 569)


def test_split_is_stratified_and_seeded() -> None:
    b = load_breast_cancer()
    # Stratification keeps the benign fraction within one row of 357/569.
    for y in (b.y_train, b.y_test):
        assert abs((y == 1).sum() - y.size * 357 / 569) <= 1
    again = load_breast_cancer()
    np.testing.assert_array_equal(b.X_train, again.X_train)
    other = load_breast_cancer(random_state=1)
    assert not np.array_equal(b.X_train, other.X_train)
    small = load_breast_cancer(test_size=0.5)
    assert small.X_test.shape[0] == 285


def test_bounds_are_public_and_cover_the_data() -> None:
    printed = _printed_maxima()
    assert len(printed) == 30
    bounds = np.asarray(BREAST_CANCER_UPPER_BOUNDS)
    # Each bound is strictly above the printed (rounded) maximum and is a
    # rounding-up, not an arbitrary inflation.
    assert np.all(bounds > printed)
    assert np.all(bounds <= 1.1 * np.asarray(printed))
    assert load_breast_cancer().n_clipped == 0


def test_known_answer_per_row() -> None:
    raw = sklearn.datasets.load_breast_cancer()
    # Every output row equals the per-record map z = x / b, z / ||z|| applied to
    # some raw row (with b the public bounds); check the first training row.
    b = load_breast_cancer()
    Z = raw.data / np.asarray(BREAST_CANCER_UPPER_BOUNDS)
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    dists = np.linalg.norm(Z - b.X_train[0], axis=1)
    assert dists.min() < 1e-12


def test_add_constant() -> None:
    b = load_breast_cancer(add_constant=True)
    plain = load_breast_cancer()
    assert b.X_train.shape[1] == 31 and b.feature_names[-1] == "constant"
    # Row [z, 1] / sqrt(||z||^2 + 1): the last entry is positive and the
    # feature block is parallel to the plain row.
    assert np.all(b.X_train[:, -1] > 0)
    cos = np.einsum("ij,ij->i", b.X_train[:, :-1], plain.X_train) / np.linalg.norm(
        b.X_train[:, :-1], axis=1
    )
    np.testing.assert_allclose(cos, 1.0)
    np.testing.assert_allclose(np.linalg.norm(b.X_train, axis=1), 1.0)
