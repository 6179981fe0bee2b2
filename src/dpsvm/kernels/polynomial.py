# SPDX-License-Identifier: BSD-3-Clause
"""Explicit feature map of the inhomogeneous polynomial kernel, with a norm bound.

For k(x, y) = (c + xᵀy)^p the multinomial theorem gives

    (c + Σᵢ xᵢyᵢ)^p = Σ_{|α| ≤ p} [p! / (α₀! α₁! ⋯ α_d!)] · c^{α₀} · xᵅ yᵅ,

with α₀ = p − |α|, so φ(x)_α = √(p!/(α₀!⋯α_d!) · c^{α₀}) · xᵅ has
⟨φ(x), φ(y)⟩ = k(x, y) exactly and ‖φ(x)‖² = (c + ‖x‖²)^p. Rows are projected
onto the public ball ‖x‖ ≤ R first, so ‖φ(x)‖ ≤ (c + R²)^{p/2} for **every**
input: a public bound to pass as the ``data_norm`` of a private linear
estimator (Rubinstein et al. 2012, Alg. 2, PRIVATESVM-FINITE, with
κ = (c + R²)^{p/2}).
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, _fit_context, validate_data
from ..validation import check_positive, project_rows_to_ball

__all__ = ["PolynomialFeatureMap", "polynomial_feature_norm_bound"]


def polynomial_feature_norm_bound(
    degree: int, coef0: float = 1.0, data_norm: float = 1.0
) -> float:
    """Public bound (c + R²)^{p/2} on ‖φ(x)‖ for ‖x‖ ≤ R.

    Parameters
    ----------
    degree : int
        The degree p ≥ 1.
    coef0 : float, default=1.0
        The offset c ≥ 0.
    data_norm : float, default=1.0
        The public row-norm bound R > 0.

    Returns
    -------
    float
        √((c + R²)^p), the supremum of √k(x, x) over the ball.

    Examples
    --------
    >>> polynomial_feature_norm_bound(2, 1.0, 1.0)
    2.0
    """
    R = check_positive(data_norm, "data_norm")
    # ‖φ(x)‖² = k(x, x) = (c + ‖x‖²)^p ≤ (c + R²)^p  (multinomial theorem).
    return float((coef0 + R * R) ** (degree / 2.0))


class PolynomialFeatureMap(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Exact feature map of (coef0 + xᵀy)^degree with a public norm bound.

    Parameters
    ----------
    degree : int, default=2
        The degree p ≥ 1 (the output has C(d + p, p) columns; keep p small).
    coef0 : float, default=1.0
        The offset c ≥ 0. With c = 0 only the degree-p monomials remain.
    data_norm : float or None, default=1.0
        Public bound R on ‖x‖₂; rows are projected onto that ball before
        mapping, so ``feature_norm_bound_`` holds for every input. ``None``: no
        projection and no bound (``feature_norm_bound_`` = inf).

    Attributes
    ----------
    powers_ : ndarray of shape (n_output_features_, n_features_in_)
        Exponent vector α of each output column.
    coefficients_ : ndarray of shape (n_output_features_,)
        √(p!/(α₀!⋯α_d!) · c^{α₀}) for each column.
    feature_norm_bound_ : float
        (c + R²)^{p/2}.
    n_output_features_ : int
        Number of output columns.
    n_features_in_ : int
        Number of input columns.

    Notes
    -----
    ``fit`` uses only ``X.shape[1]``; the map is public.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.kernels import PolynomialFeatureMap
    >>> X = np.array([[0.6, 0.0], [0.3, 0.4]])
    >>> pm = PolynomialFeatureMap(degree=2).fit(X)
    >>> Z = pm.transform(X)
    >>> bool(np.allclose(Z @ Z.T, (1 + X @ X.T) ** 2)), pm.feature_norm_bound_
    (True, 2.0)
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, 0, None, closed="left")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(
        self, degree: int = 2, *, coef0: float = 1.0, data_norm: float | None = 1.0
    ) -> None:
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: object = None) -> PolynomialFeatureMap:
        """Build the monomials and coefficients for X.shape[1] input columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Only its number of columns is used.
        y : None
            Ignored.

        Returns
        -------
        self
            The fitted transformer.
        """
        d = np.asarray(validate_data(self, X, dtype=np.float64)).shape[1]
        p = int(self.degree)
        c = float(self.coef0)
        # The monomial layout depends only on (d, p): fit on a public dummy row.
        self._poly = PolynomialFeatures(degree=p, include_bias=True).fit(
            np.zeros((1, d))
        )
        powers = np.asarray(self._poly.powers_, dtype=np.int64)
        alpha0 = p - powers.sum(axis=1)
        log_coef = (
            math.lgamma(p + 1)
            - np.array([math.lgamma(a + 1) for a in alpha0])
            - np.array([sum(math.lgamma(int(a) + 1) for a in row) for row in powers])
        )
        # Multinomial coefficient p!/(α₀!⋯α_d!) times c^{α₀} (0^0 = 1).
        coef2 = np.exp(log_coef) * np.where(alpha0 > 0, c ** alpha0.astype(float), 1.0)
        keep = coef2 > 0
        self._keep = keep
        self.powers_ = powers[keep]
        self.coefficients_ = np.sqrt(coef2[keep])
        self.n_output_features_ = int(keep.sum())
        self.feature_norm_bound_ = (
            math.inf
            if self.data_norm is None
            else polynomial_feature_norm_bound(p, c, float(self.data_norm))
        )
        return self

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Map rows (projected onto the ball of radius ``data_norm``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to map.

        Returns
        -------
        ndarray of shape (n_samples, n_output_features_)
            φ(x) with ⟨φ(x), φ(y)⟩ = (c + xᵀy)^p for the projected rows.
        """
        check_is_fitted(self)
        Xa = np.asarray(validate_data(self, X, dtype=np.float64, reset=False))
        if self.data_norm is not None:
            Xa = np.asarray(project_rows_to_ball(Xa, float(self.data_norm)))
        Z = self._poly.transform(Xa)[:, self._keep]
        return np.asarray(Z * self.coefficients_, dtype=np.float64)

    @property
    def _n_features_out(self) -> int:
        return int(self.n_output_features_)
