# SPDX-License-Identifier: BSD-3-Clause
"""PublicStep: the user's declaration that a transformer is public."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.preprocessing import (
    FunctionTransformer,
    PolynomialFeatures,
    StandardScaler,
)

from dpsvm.preprocessing import PublicStep


def test_a_fitted_public_transformer_is_used_as_is_and_survives_clone():
    scaler = StandardScaler().fit(np.array([[0.0], [2.0]]))  # "public" data
    step = clone(PublicStep(scaler))
    assert step.transformer is scaler  # not an unfitted copy
    out = step.fit(np.array([[100.0], [300.0]])).transform(np.array([[1.0]]))
    assert step.transformer_ is scaler and out.tolist() == [[0.0]]
    assert scaler.mean_.tolist() == [1.0]  # never refitted on the rows


def test_an_unfitted_fixed_map_is_fitted_on_a_copy():
    # PolynomialFeatures' fit reads only the number of columns (public).
    fixed = PolynomialFeatures(2, include_bias=False)
    step = PublicStep(fixed).fit(np.array([[-1.0, 2.0]]))
    assert step.transformer_ is not fixed and not hasattr(fixed, "n_features_in_")
    out = step.transform(np.array([[3.0, 4.0]]))
    assert out.tolist() == [[3.0, 4.0, 9.0, 12.0, 16.0]]


def test_a_stateless_transformer_is_used_as_is():
    # scikit-learn counts a FunctionTransformer as fitted: nothing to learn.
    fixed = FunctionTransformer(np.abs)
    step = PublicStep(fixed).fit(np.array([[-1.0, 2.0]]))
    assert step.transformer_ is fixed
    assert step.transform(np.array([[-3.0, 4.0]])).tolist() == [[3.0, 4.0]]


def test_not_a_transformer_is_refused():
    with pytest.raises(TypeError, match="PublicStep wraps a transformer"):
        PublicStep(object()).fit(np.zeros((2, 1)))
