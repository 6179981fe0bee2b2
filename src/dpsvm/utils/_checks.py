# SPDX-License-Identifier: BSD-3-Clause
"""Small input checks shared by the bound calculators.

The privacy-parameter checks (ε, δ, positivity) live in :mod:`dpsvm.validation`;
this module only adds the integer and open-interval checks that the calculators
need and that are not privacy parameters themselves.
"""

from __future__ import annotations

import math
import numbers

from dpsvm.validation import check_positive

__all__ = ["check_int", "check_nonnegative", "check_open_unit", "check_positive"]


def check_int(value: int, name: str, *, minimum: int = 1) -> int:
    """Check that ``value`` is an integer ≥ ``minimum``.

    Parameters
    ----------
    value : int
        The value to check (Python or NumPy integer; bools are refused).
    name : str
        Its name, for the error message.
    minimum : int, default=1
        The smallest accepted value.

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    TypeError
        If ``value`` is not an integer.
    ValueError
        If ``value`` < ``minimum``.

    Examples
    --------
    >>> check_int(3, "n")
    3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v}.")
    return v


def check_open_unit(value: float, name: str) -> float:
    """Check that ``value`` is a real number in the open interval (0, 1).

    Parameters
    ----------
    value : float
        The value to check (e.g. a failure probability δ of a usefulness bound).
    name : str
        Its name, for the error message.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN or outside (0, 1).

    Examples
    --------
    >>> check_open_unit(0.05, "delta")
    0.05
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    v = float(value)
    if math.isnan(v) or not 0.0 < v < 1.0:
        raise ValueError(f"{name} must be in the open interval (0, 1), got {v}.")
    return v


def check_nonnegative(value: float, name: str) -> float:
    """Check that ``value`` is a finite real number ≥ 0.

    Parameters
    ----------
    value : float
        The value to check.
    name : str
        Its name, for the error message.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN, negative or infinite.

    Examples
    --------
    >>> check_nonnegative(0, "Omega0")
    0.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    v = float(value)
    if math.isnan(v) or v < 0 or math.isinf(v):
        raise ValueError(f"{name} must be a finite number >= 0, got {v}.")
    return v
