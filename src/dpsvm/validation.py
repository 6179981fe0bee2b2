# SPDX-License-Identifier: BSD-3-Clause
"""Validation of privacy parameters and enforcement of public bounds.

Every function here either checks a public parameter or enforces a public bound
on the data by a fixed, data-independent map (a projection onto a ball). None of
them computes a bound from the data.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "check_delta",
    "check_epsilon",
    "check_epsilon_delta",
    "check_positive",
    "project_rows_to_ball",
]


def check_positive(value: float, name: str, *, allow_inf: bool = False) -> float:
    """Check that ``value`` is a real number > 0 (finite unless ``allow_inf``).

    Parameters
    ----------
    value : float
        The value to check.
    name : str
        Its name, for the error message.
    allow_inf : bool, default=False
        Whether ``+inf`` is accepted.

    Returns
    -------
    float
        ``value`` as a Python float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN, not positive, or infinite when that is not allowed.

    Examples
    --------
    >>> check_positive(0.5, "epsilon")
    0.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"{name} must be a number, got NaN.")
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {v}.")
    if v < sys.float_info.min:
        # Subnormal values lose precision and make 1/v overflow.
        raise ValueError(f"{name} must be at least {sys.float_info.min:g}, got {v}.")
    if math.isinf(v) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {v}.")
    return v


def check_epsilon(epsilon: float, *, allow_inf: bool = False) -> float:
    """Check a privacy parameter ε > 0.

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound.
    allow_inf : bool, default=False
        Whether ε = +inf (no privacy, e.g. an unlimited budget) is accepted.

    Returns
    -------
    float
        ε as a float.

    Examples
    --------
    >>> check_epsilon(1)
    1.0
    """
    return check_positive(epsilon, "epsilon", allow_inf=allow_inf)


def check_delta(delta: float, *, allow_zero: bool = True) -> float:
    """Check a privacy parameter δ ∈ [0, 1).

    Parameters
    ----------
    delta : float
        The failure probability of (ε, δ)-DP.
    allow_zero : bool, default=True
        Whether δ = 0 is accepted (mechanisms that need δ > 0 pass False).

    Returns
    -------
    float
        δ as a float.

    Raises
    ------
    ValueError
        If δ is outside [0, 1), or zero when ``allow_zero`` is false.

    Examples
    --------
    >>> check_delta(1e-5)
    1e-05
    """
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"delta must be a real number, got {type(delta).__name__}.")
    d = float(delta)
    if math.isnan(d) or d < 0 or d >= 1:
        raise ValueError(f"delta must be in [0, 1), got {d}.")
    if d == 0 and not allow_zero:
        raise ValueError("delta must be > 0 for this mechanism, got 0.")
    return d


def check_epsilon_delta(
    epsilon: float, delta: float, *, allow_zero_delta: bool = True
) -> tuple[float, float]:
    """Check ε > 0 (finite) and δ ∈ [0, 1).

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound.
    delta : float
        The failure probability.
    allow_zero_delta : bool, default=True
        Whether δ = 0 is accepted.

    Returns
    -------
    tuple of float
        (ε, δ).

    Examples
    --------
    >>> check_epsilon_delta(1.0, 0.0)
    (1.0, 0.0)
    """
    return check_epsilon(epsilon), check_delta(delta, allow_zero=allow_zero_delta)


def project_rows_to_ball(X: ArrayLike, radius: float) -> NDArray[np.floating]:
    """Project each row of ``X`` onto the Euclidean ball of the given radius.

    Rows with ‖x‖₂ ≤ radius are unchanged; longer rows are scaled to norm
    ``radius``. The map acts on each row alone with a public radius, so it is a
    data-independent preprocessing step: it enforces the row-norm bound that the
    privacy calibrations assume, without reading any other record.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows (a new array is returned; ``X`` is not modified).
    radius : float
        The public norm bound, > 0.

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        The projected rows, each with norm at most ``radius``.

    Examples
    --------
    >>> project_rows_to_ball([[3.0, 4.0], [0.3, 0.4]], 1.0)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    """
    radius = check_positive(radius, "radius")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float64), copy=True)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    huge = np.isinf(norms)
    if np.any(huge):
        huge[huge] = np.all(np.isfinite(X[huge]), axis=1)
    if np.any(huge):
        # ‖x‖² overflowed although every entry is finite: rescale those rows by
        # their largest entry first, which keeps their direction.
        X[huge] /= np.max(np.abs(X[huge]), axis=1)[:, None]
        norms[huge] = np.sqrt(np.einsum("ij,ij->i", X[huge], X[huge]))
    too_long = norms > radius
    if np.any(too_long):
        X[too_long] *= (radius / norms[too_long])[:, None]
        # Rounding can leave a norm a few ulps above the radius; shrink those
        # rows by one more ulp-sized factor, until the computed norm is within
        # the bound (a factor < 1 every round, so this ends within a few rounds).
        idx = np.flatnonzero(too_long)
        for _ in range(64):
            renorm = np.sqrt(np.einsum("ij,ij->i", X[idx], X[idx]))
            over = renorm > radius
            if not np.any(over):
                break
            idx = idx[over]
            X[idx] *= np.nextafter(radius / renorm[over], 0)[:, None]
    return X
