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
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "AUTO_DELTA_RULE",
    "auto_delta",
    "check_delta",
    "check_epsilon",
    "check_epsilon_delta",
    "check_int",
    "check_nonnegative",
    "check_open_unit",
    "check_positive",
    "n_rows",
    "project_rows_to_ball",
    "resolve_delta",
]


def _as_real(value: float, name: str) -> float:
    """``value`` as a float; TypeError unless it is a real number (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    return float(value)


def _check_real(
    value: float, name: str, valid: Callable[[float], bool], must_be: str
) -> float:
    """``value`` as a float if it is a real number, not NaN, with ``valid`` true.

    Raises TypeError for a non-real (see :func:`_as_real`) and otherwise
    ``ValueError("<name> must be <must_be>, got <value>.")``.
    """
    v = _as_real(value, name)
    if math.isnan(v) or not valid(v):
        raise ValueError(f"{name} must be {must_be}, got {v}.")
    return v


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
    v = _as_real(value, name)
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
        ``value`` as a Python float.

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
    return _check_real(
        value, name, lambda v: 0.0 < v < 1.0, "in the open interval (0, 1)"
    )


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
        ``value`` as a Python float.

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
    return _check_real(value, name, lambda v: 0 <= v < math.inf, "a finite number >= 0")


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
    d = _check_real(delta, "delta", lambda d: 0 <= d < 1, "in [0, 1)")
    if d == 0 and not allow_zero:
        raise ValueError("delta must be > 0 for this mechanism, got 0.")
    return d


#: The public rule of ``delta="auto"`` (:func:`auto_delta`), in words, for
#: messages and documentation. Privacy events record the resolved δ itself (the
#: event's ``delta``), not this rule: events are built by each mechanism, with
#: no one place to add it.
AUTO_DELTA_RULE = "n^-1.5 (at most 1/(2n)), n = number of training rows"


def auto_delta(n_samples: int) -> float:
    """The δ of ``delta="auto"``: n^−1.5 (and at most 1/(2n)) for n training rows.

    A public rule: the number of rows n is public under the replace-one
    neighbouring relation (docs/privacy.md, section 1) and under replace-one-label
    (same features), so δ computed from it leaks nothing. n^−1.5 is well below
    1/n, the size at which (ε, δ)-DP allows publishing a whole record with
    probability δ per record (Dwork & Roth 2014, Sec. 2.3), and it shrinks with
    n, so a fit of any size runs with the default. The cap 1/(2n) binds only for
    n < 4.

    Parameters
    ----------
    n_samples : int
        The number of training rows n ≥ 1.

    Returns
    -------
    float
        min(n^−1.5, 1/(2n)).

    Examples
    --------
    >>> auto_delta(10_000)
    1e-06
    >>> auto_delta(1)
    0.5
    """
    n = check_int(n_samples, "n_samples", minimum=1)
    return min(float(n) ** -1.5, 0.5 / n)


def resolve_delta(
    delta: float | str,
    n_samples: int | Callable[[], int],
    *,
    allow_zero: bool = True,
    uses_delta: bool = True,
    needed_by: str = "",
) -> float:
    """The δ of a fit on ``n_samples`` rows: ``"auto"`` resolved, δ ≥ 1/n refused.

    The one handling of δ in dpsvm (every learner and the command line):
    ``"auto"`` is :func:`auto_delta` of the public n (0 for a pure-DP
    mechanism, ``uses_delta=False``); an explicit δ must be in
    [0, 1) and, when positive and spent (``uses_delta=True``), **below 1/n**:
    a δ ≥ 1/n is refused, because
    (ε, δ)-DP with δ ≥ 1/n allows a mechanism to publish a whole record with
    probability δ per record (Dwork & Roth 2014, Sec. 2.3), and some proofs
    used here assume δ < 1/n (Bassily, Mohri & Suresh 2022, Lemma 3.1). The
    message compares, and never prints, the row count.

    Parameters
    ----------
    delta : float or "auto"
        The δ given by the user.
    n_samples : int or callable
        The number of training rows n (public), or a function returning it,
        called only when δ needs it (δ = 0 needs no row count, so a fit can
        refuse other parameters before it looks at X at all).
    allow_zero : bool, default=True
        Whether δ = 0 is accepted (mechanisms that need δ > 0 pass False).
    uses_delta : bool, default=True
        Whether the mechanism spends δ; a pure-DP one (False) resolves
        ``"auto"`` to 0 and does not refuse an explicit δ ≥ 1/n it will not
        spend.
    needed_by : str, default=""
        The result that assumes δ < 1/n, named in the refusal.

    Returns
    -------
    float
        The resolved δ, in [0, 1/n).

    Raises
    ------
    ValueError
        If δ is neither ``"auto"`` nor in [0, 1), is 0 where δ > 0 is needed,
        or is spent and at least 1/n.

    Examples
    --------
    >>> resolve_delta("auto", 100)
    0.001
    >>> resolve_delta("auto", 100, uses_delta=False)
    0.0
    >>> resolve_delta(1e-5, 100)
    1e-05
    >>> resolve_delta(0.05, 100)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: delta must be below 1/(number of training rows); got ...
    >>> resolve_delta(0.05, 100, uses_delta=False)  # unused: not refused
    0.05
    """

    def rows() -> int:
        n = n_samples() if callable(n_samples) else n_samples
        return check_int(n, "n_samples", minimum=1)

    if isinstance(delta, str):
        if delta != "auto":
            raise ValueError(
                f"delta must be a number in [0, 1) or 'auto', got {delta!r}."
            )
        return auto_delta(rows()) if uses_delta else 0.0
    d = check_delta(delta, allow_zero=allow_zero)
    # A pure-DP mechanism spends no δ, so a δ it does not use is not refused
    # (the command line says that δ is unused, and warns when δ ≥ 1/n).
    if uses_delta and d > 0 and d * rows() >= 1:
        raise ValueError(
            f"delta must be below 1/(number of training rows){needed_by}; got "
            f"delta = {d:g}, which is not: (epsilon, delta)-DP would then allow "
            "publishing a whole record with probability delta per record, so the "
            "guarantee is meaningless. Use delta='auto' (n^-1.5 of the public row "
            "count n) or a delta well below 1/n"
            + ("." if not allow_zero else ", or delta=0 for a pure-DP mechanism.")
        )
    return d


def n_rows(X: object) -> int:
    """The number of rows of ``X``, as scikit-learn counts them (its shape or length).

    The row count is public (docs/privacy.md, section 1); no value is used.

    Parameters
    ----------
    X : array-like, sparse matrix or data frame
        The training rows.

    Returns
    -------
    int
        The number of rows.

    Examples
    --------
    >>> n_rows([[1.0, 2.0], [3.0, 4.0]])
    2
    """
    from ._compat import _num_samples

    return int(_num_samples(X))


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

    The norm is overflow-safe (the scaling of LAPACK's ``dnrm2``): a row whose
    ‖x‖² overflows although every entry is finite (a row of 1e300 in every
    coordinate, or 1.5e308 in one) is first divided by its largest absolute
    entry m, and its norm is m·‖x/m‖; when that exceeds the radius the row
    becomes (x/m)·(radius/‖x/m‖), a finite row of norm ``radius`` in the
    direction of x. Only rows with a NaN or infinite entry have no projection
    (they become NaN); callers refuse them first. This is the library's one
    clip to the public ball: every learner applies it (or the same map as a
    per-row factor, :func:`dpsvm.solvers.clip_factors`) before any projection,
    feature map or kernel ("Bounded before mapped", ``docs/privacy.md``).

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
    >>> project_rows_to_ball([[1e300, 1e300], [-1.5e308, 0.0]], 2.0)
    array([[ 1.41421356,  1.41421356],
           [-2.        ,  0.        ]])
    """
    radius = check_positive(radius, "radius")
    X = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float64), copy=True)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    too_long = norms > radius
    huge = np.isinf(norms)
    if np.any(huge):
        huge[huge] = np.all(np.isfinite(X[huge]), axis=1)
    if np.any(huge):
        # ‖x‖² overflowed although every entry is finite: rescale those rows by
        # their largest entry m first (which keeps their direction); the true
        # norm is m·‖x/m‖ (inf only beyond the float range).
        rows = np.flatnonzero(huge)
        scaled = X[rows] / np.max(np.abs(X[rows]), axis=1)[:, None]
        unit_norms = np.sqrt(np.einsum("ij,ij->i", scaled, scaled))
        with np.errstate(over="ignore"):
            true_norms = np.max(np.abs(X[rows]), axis=1) * unit_norms
        longer = true_norms > radius
        # Longer rows: (x/m)·(radius/‖x/m‖), which neither overflows nor
        # underflows; a row within a huge radius is left unchanged.
        X[rows[longer]] = scaled[longer] * (radius / unit_norms[longer])[:, None]
        too_long[rows] = False
        norms[rows] = true_norms
        clipped = np.union1d(rows[longer], np.flatnonzero(too_long))
    else:
        clipped = np.flatnonzero(too_long)
    if np.any(too_long):
        X[too_long] *= (radius / norms[too_long])[:, None]
    if clipped.size:
        # Rounding can leave a norm a few ulps above the radius; shrink those
        # rows by one more ulp-sized factor, until the computed norm is within
        # the bound (a factor < 1 every round, so this ends within a few rounds).
        idx = clipped
        for _ in range(64):
            renorm = np.sqrt(np.einsum("ij,ij->i", X[idx], X[idx]))
            over = renorm > radius
            if not np.any(over):
                break
            idx = idx[over]
            X[idx] *= np.nextafter(radius / renorm[over], 0)[:, None]
    return X
