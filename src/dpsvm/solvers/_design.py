# SPDX-License-Identifier: BSD-3-Clause
"""Bound the input: rows clipped to the public ball as a per-row scale, no copy.

The first step of the data path (validate and bound the input → feature map →
solve → perturb → release): every learner's sensitivity assumes rows of norm at
most the public radius; these helpers apply that projection as a vector of row
factors on the caller's array (float32/float64, C/F order or CSR), so that no
projected copy of ``X`` is made.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import NDArray

from ..validation import project_rows_to_ball
from ._erm import RowScaledDesign, _chunk_rows

__all__ = ["clip_factors", "project_sparse_rows", "row_norms", "scaled_design"]

FloatArray = NDArray[np.float64]


def row_norms(X: Any) -> FloatArray:
    """Euclidean row norms in float64, without copying ``X``.

    float64 rows are read in place (exactly as :func:`project_rows_to_ball`
    computes them); float32 rows are widened a block of rows at a time; CSR rows
    from their stored values.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The rows (float32 or float64, any order, or CSR).

    Returns
    -------
    ndarray of shape (n_samples,)
        ‖xᵢ‖₂ in float64; +inf for a row whose ‖x‖² overflows although its
        entries are finite (the callers then project that row with the
        overflow-safe :func:`project_rows_to_ball`).

    Examples
    --------
    >>> row_norms(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)).tolist()
    [5.0, 0.0]
    >>> row_norms(scipy.sparse.csr_matrix([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    n = X.shape[0]
    if scipy.sparse.issparse(X):
        if not X.has_canonical_format:  # duplicate entries: norm of their sum
            X = X.copy()
            X.sum_duplicates()
        norms = np.zeros(n)
        indptr = X.indptr
        step = 1 << 10
        for start in range(0, n, step):
            stop = min(start + step, n)
            lo = indptr[start]
            seg = np.array(X.data[lo : indptr[stop]], dtype=np.float64)  # a copy
            if seg.size == 0:
                continue
            with np.errstate(over="ignore"):  # an overflowed ‖x‖² is +inf
                seg *= seg
            # One sum per non-empty row: the segments between consecutive
            # non-empty rows' offsets are exactly their entries.
            rows = np.flatnonzero(np.diff(indptr[start : stop + 1]))
            norms[start + rows] = np.add.reduceat(seg, indptr[start + rows] - lo)
    elif X.dtype == np.float64:
        norms = np.einsum("ij,ij->i", X, X)
    else:
        # Widened into one reused float64 buffer, a cache-sized block at a time
        # (the same float64 values, summed by the same einsum, as in place).
        norms = np.empty(n)
        step = _chunk_rows(X.shape[1], widened=True)
        buf = np.empty((min(step, n), X.shape[1]))
        for start in range(0, n, step):
            block = buf[: min(step, n - start)]
            np.copyto(block, X[start : start + step])
            np.einsum("ij,ij->i", block, block, out=norms[start : start + step])
    np.sqrt(norms, out=norms)
    return np.asarray(norms, dtype=np.float64)


def clip_factors(norms: FloatArray, radius: float) -> FloatArray | None:
    """Per-row factors that put rows of the given norms in the ball of ``radius``.

    A row is scaled iff its computed norm exceeds the radius, by one ulp less
    than radius/‖x‖ (the map of :func:`project_rows_to_ball`, as a scale vector
    instead of a projected copy). ``None`` when no row moves. The norms must be
    finite: a row whose ‖x‖² overflowed (norm +inf) has no factor here, and
    the callers project it with the overflow-safe :func:`project_rows_to_ball`
    instead (:func:`scaled_design` with ``norms=None``).

    Parameters
    ----------
    norms : ndarray of shape (n_samples,)
        The rows' Euclidean norms (from :func:`row_norms`).
    radius : float
        The public radius of the ball.

    Returns
    -------
    ndarray of shape (n_samples,) or None
        Factors in (0, 1] (1 for rows already in the ball), or ``None`` when
        every row is in the ball.

    Examples
    --------
    >>> f = clip_factors(np.array([0.5, 2.0]), 1.0)
    >>> f[0], bool(f[1] < 0.5), float(f[1]) == 0.5 - 2**-54
    (np.float64(1.0), True, True)
    >>> clip_factors(np.array([0.5, 1.0]), 1.0) is None
    True
    """
    too_long = norms > radius
    if not np.any(too_long):
        return None
    # In place, with no n-sized temporaries beyond the mask (the same IEEE
    # operations, element by element, as radius / norms[too_long]).
    factors = np.ones_like(norms)
    np.divide(radius, norms, out=factors, where=too_long)
    np.nextafter(factors, 0.0, out=factors, where=too_long)
    return factors


def project_sparse_rows(X: Any, radius: float) -> Any:
    """CSR rows projected onto the ball of ``radius``, as a new CSR matrix.

    :func:`project_rows_to_ball` (overflow-safe) applied to each row's stored
    entries: a row's norm and largest entry depend on its non-zeros only, and
    the projection scales the row, so the zeros stay zero. Rows are handled a
    block at a time (one dense block of at most 2²⁰ values), so memory stays
    O(nnz) however wide the rows are.

    Parameters
    ----------
    X : scipy.sparse matrix of shape (n_samples, n_features)
        Rows with finite entries.
    radius : float
        The public radius, > 0.

    Returns
    -------
    scipy.sparse.csr_matrix
        The projected rows (float64), each of norm at most ``radius`` as
        :func:`row_norms` computes it.

    Examples
    --------
    >>> X = scipy.sparse.csr_matrix([[0.0, 1e300, 1e300], [0.3, 0.0, 0.4]])
    >>> np.round(project_sparse_rows(X, 1.0).toarray(), 6).tolist()
    [[0.0, 0.707107, 0.707107], [0.3, 0.0, 0.4]]
    """
    A = scipy.sparse.csr_matrix(X, dtype=np.float64, copy=True)
    A.sum_duplicates()
    counts = np.diff(A.indptr)
    width = max(int(counts.max(initial=0)), 1)
    step = max(1, (1 << 20) // width)
    for start in range(0, A.shape[0], step):
        stop = min(A.shape[0], start + step)
        lo, hi = int(A.indptr[start]), int(A.indptr[stop])
        if hi == lo:
            continue
        c = counts[start:stop]
        # Row r of the block holds row start + r's stored values, then zeros.
        rows = np.repeat(np.arange(stop - start), c)
        cols = np.arange(hi - lo) - np.repeat(A.indptr[start:stop] - lo, c)
        block = np.zeros((stop - start, width))
        block[rows, cols] = A.data[lo:hi]
        A.data[lo:hi] = project_rows_to_ball(block, radius)[rows, cols]
    # The norm the solvers compute (row_norms: CSR order of summation) may
    # differ by an ulp from the block's: shrink such rows by one more ulp-sized
    # factor until it is within the radius (as project_rows_to_ball does).
    for _ in range(64):
        norms = row_norms(A)
        over = norms > radius
        if not np.any(over):
            break
        factors = np.ones_like(norms)
        factors[over] = np.nextafter(radius / norms[over], 0.0)
        A.data *= np.repeat(factors, counts)
    return A


def scaled_design(
    X: Any, norms: FloatArray | None, radius: float, R: float, const: float | None
) -> RowScaledDesign:
    """Rows [proj(x), s]/R of ``X`` as a per-row scale, given their norms.

    The rows are projected onto the ball of ``radius`` and divided by R.
    ``norms=None`` means some ‖x‖² overflowed for finite entries: then, and only
    then, a projected copy is made (which rescales those rows by their largest
    entry first; CSR rows stay CSR, :func:`project_sparse_rows`).

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The caller's rows, used in place.
    norms : ndarray of shape (n_samples,) or None
        The rows' computed norms (:func:`row_norms`), or ``None`` (overflow).
    radius : float
        Public radius of the ball the rows are projected onto.
    R : float
        Public bound the projected rows (and the constant column) are divided by.
    const : float or None
        Value of the appended constant column s/R, or ``None`` for no column.

    Returns
    -------
    RowScaledDesign
        The internal rows, with the projection and 1/R as its per-row scale.

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> D = scaled_design(X, row_norms(X), 1.0, 2.0, None)
    >>> np.round(D.toarray(), 12).tolist()
    [[0.3, 0.4], [0.15, 0.2]]
    >>> D.X is X
    True
    """
    if norms is None:
        if scipy.sparse.issparse(X):
            Xs = project_sparse_rows(X, radius)
            Xs.data /= R
            return RowScaledDesign(Xs, None, const)
        Xp = project_rows_to_ball(X, radius)
        Xp /= R
        return RowScaledDesign(Xp, None, const)
    factors = clip_factors(norms, radius)
    if R != 1.0:
        if factors is None:
            factors = np.full(norms.shape, 1.0 / R)
        else:
            factors /= R  # a fresh array: divided in place
    return RowScaledDesign(X, factors, const)
