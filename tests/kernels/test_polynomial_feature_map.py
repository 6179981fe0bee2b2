# SPDX-License-Identifier: BSD-3-Clause
"""PolynomialFeatureMap: exact inner products and the public norm bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from dpsvm.kernels import PolynomialFeatureMap, polynomial_feature_norm_bound


def _points(n=30, d=3, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X / (2 * np.max(np.linalg.norm(X, axis=1)))  # inside the unit ball


@pytest.mark.parametrize("degree,coef0", [(1, 1.0), (2, 1.0), (3, 0.5), (2, 0.0)])
def test_inner_products_equal_the_polynomial_kernel(degree, coef0):
    X = _points()
    pm = PolynomialFeatureMap(degree, coef0=coef0).fit(X)
    Z = pm.transform(X)
    # Multinomial theorem: ⟨φ(x), φ(y)⟩ = (c + xᵀy)^p exactly.
    np.testing.assert_allclose(Z @ Z.T, (coef0 + X @ X.T) ** degree, atol=1e-14)
    # Output size: monomials of degree ≤ p in d variables, C(d + p, p) (only
    # degree p when c = 0).
    d = X.shape[1]
    expected = (
        math.comb(d + degree - 1, degree)
        if coef0 == 0
        else math.comb(d + degree, degree)
    )
    assert pm.n_output_features_ == expected


def test_norm_bound_holds_for_every_input_by_projection():
    R, p, c = 0.5, 3, 1.0
    pm = PolynomialFeatureMap(p, coef0=c, data_norm=R).fit(np.zeros((1, 2)))
    X = np.random.default_rng(1).normal(size=(500, 2)) * 10  # far outside the ball
    norms = np.linalg.norm(pm.transform(X), axis=1)
    bound = (c + R * R) ** (p / 2)  # ‖φ(x)‖² = (c + ‖x‖²)^p ≤ (c + R²)^p
    assert pm.feature_norm_bound_ == pytest.approx(bound)
    assert np.all(norms <= bound * (1 + 1e-12))
    assert norms.max() == pytest.approx(bound)  # projected rows attain it
    assert polynomial_feature_norm_bound(p, c, R) == pytest.approx(bound)


def test_no_projection_without_a_bound():
    pm = PolynomialFeatureMap(2, data_norm=None).fit(np.zeros((1, 2)))
    X = np.array([[3.0, 4.0]])
    assert math.isinf(pm.feature_norm_bound_)
    assert np.linalg.norm(pm.transform(X)) ** 2 == pytest.approx((1 + 25.0) ** 2)


def test_fit_reads_only_the_number_of_columns():
    a = PolynomialFeatureMap(2).fit(np.zeros((1, 3)))
    b = PolynomialFeatureMap(2).fit(np.full((5, 3), 7.0))
    np.testing.assert_array_equal(a.coefficients_, b.coefficients_)
    np.testing.assert_array_equal(a.powers_, b.powers_)


@pytest.mark.parametrize("params", [{"degree": 0}, {"coef0": -1.0}, {"data_norm": 0.0}])
def test_bad_parameters_are_refused(params):
    with pytest.raises(InvalidParameterError):
        PolynomialFeatureMap(**params).fit(np.zeros((1, 2)))
