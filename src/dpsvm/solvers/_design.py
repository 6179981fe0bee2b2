# SPDX-License-Identifier: BSD-3-Clause
"""The rows as the solvers see them, bounded by a per-row scale, with no copy.

The first step of the data path (validate and bound the input → feature map →
solve → perturb → release): every learner's sensitivity assumes rows of norm at
most the public radius; these helpers apply that projection as a vector of row
factors on the caller's array (float32/float64, C/F order or CSR), so that no
projected copy of ``X`` is made. :class:`RowScaledDesign` carries the rows and
that scale (and an optional public constant column) to the solvers, with the
fused, chunked products they use; :func:`as_design` wraps plain rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse
from numpy.typing import NDArray

from ..validation import project_rows_to_ball

__all__ = [
    "RowScaledDesign",
    "as_design",
    "clip_factors",
    "project_sparse_rows",
    "row_norms",
    "scaled_design",
]

FloatArray = NDArray[np.float64]


#: Bytes of one block of rows in the chunked passes (small enough to stay in
#: cache while it is read twice).
_CHUNK_BYTES = 1 << 21


def _chunk_rows(d: int, *, widened: bool = False) -> int:
    """Rows per block of a pass over d columns.

    ``widened``: float32 rows copied into a float64 buffer; the block then
    takes 12 bytes a value (source and buffer), and half the rows keep both in
    the per-core L2 cache (measured 15% faster per pass at 10⁶ × 100, one BLAS
    thread, than 2 MiB buffers).
    """
    rows = _CHUNK_BYTES // ((16 if widened else 8) * max(d, 1))
    # Wide rows (fewer than 16 in a block): 8 rows (1.3 MiB at d = 20,000)
    # keep the second product of a fused pass in the per-core L2 cache; that
    # measured 10-15% faster than 13-row blocks at d = 20,000 (one BLAS thread).
    return rows if rows >= 16 else 8


class RowScaledDesign:
    """The internal design X̃ = [diag(scale)·X, const·1], never formed.

    Row-norm clipping to a public ball and the division by the public bound R
    act on each row by a scalar, so they are kept as the per-row ``scale``
    vector; the constant intercept column, if any, as ``const``. ``X`` is used
    in place whatever its layout: float32 or float64, C- or Fortran-ordered, or
    a ``scipy.sparse`` CSR matrix. Every product is computed in float64 (float32
    blocks are widened one cache-sized block of rows at a time), so the solver's
    gradients and certificates are those of the exact float64 problem on the
    stored values.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_raw)
        The stored rows.
    scale : ndarray of shape (n_samples,) or None, default=None
        Per-row factors (``None``: all ones).
    const : float or None, default=None
        Value of an appended constant column (``None``: no column).

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [0.0, 1.0]], dtype=np.float32)
    >>> D = RowScaledDesign(X, scale=np.array([0.2, 1.0]), const=1.0)
    >>> D.shape
    (2, 3)
    >>> D.matvec(np.array([1.0, 1.0, 0.5])).round(12).tolist()
    [1.9, 1.5]
    """

    def __init__(
        self, X: Any, scale: FloatArray | None = None, const: float | None = None
    ) -> None:
        self.X = X
        self.scale = scale
        self.const = const
        self.sparse = scipy.sparse.issparse(X)
        n, p = X.shape
        self.n_raw = p
        self.shape = (n, p + (const is not None))
        # Whole-matrix BLAS reads float64 dense input in place at any order.
        self._direct = self.sparse or X.dtype == np.float64
        #: float32 rows can also be multiplied in single precision, in place
        #: (``fused_products(..., single=True)``).
        self.single = not self.sparse and X.dtype == np.float32

    # -- products --------------------------------------------------------------
    def matvec(self, w: FloatArray) -> FloatArray:
        """X̃·w in float64."""
        p = self.n_raw
        if self._direct:
            m = np.asarray(self.X @ w[:p], dtype=np.float64)
        else:
            m = np.empty(self.shape[0])
            for sl, block in self._raw_blocks():
                np.matmul(block, w[:p], out=m[sl])
        if self.scale is not None:
            m *= self.scale
        if self.const is not None:
            m += self.const * w[p]
        return m

    def rmatvec(self, v: FloatArray, *, overwrite: bool = False) -> FloatArray:
        """X̃ᵀ·v in float64 (``overwrite``: ``v`` may be used as scratch)."""
        p = self.n_raw
        vsum = float(np.sum(v)) if self.const is not None else 0.0
        if self.scale is None:
            u = v
        elif overwrite:
            u = v
            u *= self.scale
        else:
            u = v * self.scale
        out = np.empty(self.shape[1])
        if self._direct:
            out[:p] = self.X.T @ u
        else:
            acc = np.zeros(p)
            for sl, block in self._raw_blocks():
                acc += u[sl] @ block
            out[:p] = acc
        if self.const is not None:
            out[p] = self.const * vsum
        return out

    def fused_products(
        self,
        v: FloatArray,
        weights: Any,
        *,
        single: bool = False,
        out: FloatArray | None = None,
    ) -> tuple[FloatArray, FloatArray]:
        """X̃·v and X̃ᵀ·u with u = ``weights(rows, (X̃·v)[rows])``, in one pass.

        Each cache-sized block of rows is read once for both products, which
        halves the memory traffic of a Hessian-vector product or of a Newton
        step. Sparse rows, and float64 rows that are not contiguous (Fortran
        order), use two whole-matrix products instead. ``weights`` may modify
        its second argument in place.

        ``single`` (float32 rows only, see ``self.single``): the two products
        are taken in single precision on the rows in place (BLAS sgemv, no
        widened copy; relative error about 10⁻⁷), the rest in float64. For
        iterates far from the optimum only: nothing certified may rest on them.
        ``out``: the array that receives X̃·v (a float32 one keeps a rounded
        copy).
        """
        X = self.X
        n, d = self.shape
        if self.sparse or (X.dtype == np.float64 and X.strides[1] != X.itemsize):
            xv = self.matvec(v)
            u = self.rmatvec(weights(slice(None), xv.copy()))
            if out is not None:
                out[...] = xv
                xv = out
            return xv, u
        single = single and self.single
        q = self.n_raw
        scale, const = self.scale, self.const
        xv = np.empty(n) if out is None else out
        acc = np.zeros(q)
        usum = 0.0
        vq = v[:q].astype(np.float32) if single else v[:q]
        for sl, block in self._raw_blocks(single=single):
            xb = np.asarray(block @ vq, dtype=np.float64)
            if scale is not None:
                xb *= scale[sl]
            if const is not None:
                xb += const * v[q]
            xv[sl] = xb
            u = weights(sl, xb)
            if const is not None:
                usum += float(np.sum(u))
            if scale is not None:
                u *= scale[sl]
            acc += (u.astype(np.float32) if single else u) @ block
        out = np.empty(d)
        out[:q] = acc
        if const is not None:
            out[q] = const * usum
        return xv, out

    def _raw_blocks(self, *, single: bool = False):  # type: ignore[no-untyped-def]
        """(rows, float64 block of X) for dense input, a block of rows at a time.

        float64 blocks are views; other dtypes are widened into one reused
        buffer, so a block is valid only until the next one is drawn.
        ``single``: float32 blocks as views instead.
        """
        n = self.shape[0]
        X = self.X
        view = single or X.dtype == np.float64
        step = _chunk_rows(self.n_raw, widened=not view)
        buf = None if view else np.empty((min(step, n), self.n_raw))
        for start in range(0, n, step):
            sl = slice(start, min(start + step, n))
            if buf is None:
                yield sl, X[sl]
            else:
                block = buf[: sl.stop - sl.start]
                np.copyto(block, X[sl])
                yield sl, block

    def blocks(self, dtype: Any = np.float64):  # type: ignore[no-untyped-def]
        """(rows, block of X̃) in ``dtype``, a cache-sized block of rows at a time.

        Each block is a fresh C-ordered array (O(block·d) memory) that the
        caller may modify.
        """
        n, d = self.shape
        p = self.n_raw
        step = max(256, _chunk_rows(d))  # BLAS syrk needs a few hundred rows
        for start in range(0, n, step):
            sl = slice(start, min(start + step, n))
            raw = self.X[sl]
            if self.sparse:
                raw = raw.toarray()
            block = np.empty((sl.stop - sl.start, d), dtype=dtype)
            block[:, :p] = raw
            if self.scale is not None:
                block[:, :p] *= self.scale[sl, None]
            if self.const is not None:
                block[:, p] = self.const
            yield sl, block

    def weighted_gram(self, s: FloatArray, dtype: Any = np.float64) -> FloatArray:
        """X̃ᵀ·diag(s²)·X̃ = Σᵢ sᵢ² x̃ᵢx̃ᵢᵀ, accumulated a block of rows at a time.

        Each block of rows is scaled by s (with the per-row scale) in one
        product into ``dtype`` and added by BLAS syrk; rows with sᵢ = 0 are
        skipped when they are at least half of their block (Huber: only the
        quadratic zone is curved). The result is float64 of shape (d, d).
        """
        n, d = self.shape
        p = self.n_raw
        f = s if self.scale is None else s * self.scale
        G = np.zeros((d, d))
        step = max(256, _chunk_rows(d))  # BLAS syrk needs a few hundred rows
        for start in range(0, n, step):
            sl = slice(start, min(start + step, n))
            fb, sb = f[sl], s[sl]
            raw = self.X[sl]
            nz = np.flatnonzero(fb)
            if nz.size < fb.size // 2:
                raw, fb, sb = raw[nz], fb[nz], sb[nz]
            if self.sparse:
                raw = raw.toarray()
            A = np.empty((fb.size, d), dtype=dtype)
            np.multiply(
                raw, fb.astype(dtype)[:, None], out=A[:, :p], casting="same_kind"
            )
            if self.const is not None:
                A[:, p] = self.const * sb
            G += A.T @ A  # numpy calls BLAS syrk for Aᵀ·A
        return G

    def rows(self, stride: int) -> RowScaledDesign:
        """Every ``stride``-th row (a view for dense input; no data values read)."""
        if stride == 1:
            return self
        scale = None if self.scale is None else self.scale[::stride]
        return RowScaledDesign(self.X[::stride], scale, self.const)

    def subsample(self, y: Any, stride: int) -> tuple[RowScaledDesign, Any]:
        """Every ``stride``-th row of the design and of the targets ``y``."""
        return self.rows(stride), y[::stride]

    def toarray(self) -> Any:
        """X̃ materialised in float64 (dense, or CSR for sparse input)."""
        X = self.X
        if self.sparse:
            A = scipy.sparse.csr_matrix(X, dtype=np.float64, copy=True)
            if self.scale is not None:
                A = scipy.sparse.csr_matrix(A.multiply(self.scale[:, None]))
            if self.const is not None:
                col = np.full((A.shape[0], 1), self.const)
                A = scipy.sparse.hstack([A, col], format="csr")
            return A
        if self.scale is None and self.const is None and X.dtype == np.float64:
            return X
        A = np.empty(self.shape)
        for sl, block in self.blocks():
            A[sl] = block
        return A


def as_design(X: Any) -> RowScaledDesign:
    """``X`` itself if already a :class:`RowScaledDesign`, else a plain wrapper.

    Parameters
    ----------
    X : ndarray, sparse matrix or RowScaledDesign of shape (n_samples, n_features)
        The rows.

    Returns
    -------
    RowScaledDesign
        ``X`` unchanged if it is a design, else ``RowScaledDesign(X)`` (no
        scale, no constant column, no copy of ``X``).

    Examples
    --------
    >>> D = as_design(np.eye(2))
    >>> as_design(D) is D, D.shape
    (True, (2, 2))
    """
    return X if isinstance(X, RowScaledDesign) else RowScaledDesign(X)


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
