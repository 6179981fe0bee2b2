# SPDX-License-Identifier: BSD-3-Clause
"""Exact, bias-free solvers for the regularised ERM problems of the papers.

All solvers minimise, over w ∈ ℝ^d,

    J(w) = (1/n) Σᵢ ℓ(yᵢ wᵀxᵢ) + (λ/2)‖w‖² + aᵀw,

with no intercept (the SVM primal of Rubinstein et al. 2012, eq. (2.1), and the
regularised ERM of Chaudhuri, Monteleoni & Sarwate 2011, eq. (1), are
bias-free). The privacy proofs of both papers assume the *exact* minimiser w*
(correction: an approximate minimiser is only covered once its distance to w* is
certified and charged, see docs/privacy.md, section 4), so each solver also
returns a certified bound ``distance_bound`` ≥ ‖w − w*‖:

* smooth losses: J is λ-strongly convex, so ‖w − w*‖ ≤ ‖∇J(w)‖/λ;
* hinge loss: weak duality gives J(w) − J(w*) ≤ gap(w, α) for any feasible dual
  α, and λ-strong convexity gives ‖w − w*‖ ≤ √(2·gap/λ).

Output-perturbation mechanisms add twice a *public* cap on this bound to their
sensitivity and refuse to release a model whose certificate exceeds the cap.

Weighted problems (``sample_weight`` ω ≥ 0) replace the loss term by
(1/n) Σᵢ ωᵢ ℓ(yᵢ wᵀxᵢ): still divided by n (public), never by Σωᵢ (private);
the certificates above hold unchanged (J stays λ-strongly convex; the hinge
dual box becomes 0 ≤ αᵢ ≤ ωᵢ).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ..losses import Loss

__all__ = [
    "RowScaledDesign",
    "SolverResult",
    "as_design",
    "solve_hinge",
    "solve_smooth",
]

FloatArray = NDArray[np.float64]

# Newton's method builds the d × d Hessian; above this dimension (and for sparse
# rows) Newton-CG uses Hessian-vector products instead.
_NEWTON_MAX_FEATURES = 2000


@dataclass(frozen=True)
class SolverResult:
    """Outcome of a solve.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        The minimiser found.
    distance_bound : float
        A certified upper bound on ‖coef − w*‖₂.
    grad_norm : float
        ‖∇J(coef)‖₂ for smooth losses, ``nan`` for the hinge.
    gap : float
        Duality gap for the hinge, ``nan`` for smooth losses.
    n_iter : int
        Iterations used.
    method : str
        ``"newton"``, ``"newton-cg"``, ``"fused-lbfgs"``, ``"liblinear-dual-cd"``
        or ``"huber-continuation"`` (``"+newton-cg"`` or ``"+lbfgs"`` appended
        when a second method finished the first one's point).

    Examples
    --------
    >>> res = SolverResult(np.zeros(2), 0.0, 0.0, float("nan"), 0, "newton")
    >>> res.method, res.coef.shape
    ('newton', (2,))
    """

    coef: FloatArray
    distance_bound: float
    grad_norm: float
    gap: float
    n_iter: int
    method: str


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


def _objective(
    D: RowScaledDesign,
    y: FloatArray,
    loss: Loss,
    lam: float,
    lin: FloatArray,
    sw: FloatArray | None = None,
):  # type: ignore[no-untyped-def]
    n = D.shape[0]

    def fun(w: FloatArray, m: FloatArray | None = None) -> tuple[float, FloatArray]:
        if m is None:
            m = D.matvec(w)
        z = y * m
        if sw is None:
            total, deriv = loss.value_and_derivative(z)
        else:  # (1/n)Σωᵢℓ(zᵢ): divided by n, not by Σωᵢ
            total = float(sw @ loss.value(z))
            deriv = loss.derivative(z) * sw
        f = total / n + 0.5 * lam * float(w @ w) + float(lin @ w)
        deriv *= y
        g = D.rmatvec(deriv) / n + lam * w + lin
        return f, g

    return fun


def solve_smooth(
    X: Any,
    y: FloatArray,
    loss: Loss,
    lam: float,
    *,
    linear: FloatArray | None = None,
    tol: float = 1e-10,
    max_iter: int = 200,
    w0: FloatArray | None = None,
    sample_weight: FloatArray | None = None,
) -> SolverResult:
    """Minimise J for a twice-differentiable (a.e.) loss to ‖∇J‖ ≤ ``tol``.

    Newton's method when d ≤ 2000 and d ≤ n (dense rows); for wide rows
    (d > n) an L-BFGS that costs one fused pass over the rows per iteration
    (``_fused_lbfgs``), finished by Newton-CG if it stalls; otherwise Newton-CG
    with exact float64 Hessian-vector products (O(n + d) memory). For large n,
    Newton is warm-started on a subsample of the rows and uses a sub-sampled,
    lazily rebuilt, BFGS-corrected Hessian (see the tuning notes above
    ``_newton``);
    the gradient and the stopping test always use every row, so the result and
    its certificate are those of the exact problem. J is λ-strongly convex, so
    the minimiser is unique.

    Parameters
    ----------
    X : ndarray, sparse matrix or RowScaledDesign of shape (n_samples, n_features)
        Rows, already in the public ball (a :class:`RowScaledDesign` carries the
        clipping as a per-row scale, with no copy of the data).
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    loss : Loss
        A loss with ``second_derivative``.
    lam : float
        Strong-convexity modulus λ > 0 (regularisation plus any extra Δ).
    linear : ndarray of shape (n_features,), optional
        The linear term a (the (1/n)·b of objective perturbation).
    tol : float, default=1e-10
        Target ‖∇J(w)‖₂.
    max_iter : int, default=200
        Iteration cap.
    w0 : ndarray of shape (n_features,), optional
        Starting point (zeros by default).
    sample_weight : ndarray of shape (n_samples,), optional
        Weights ωᵢ ≥ 0 of the loss terms, (1/n)Σωᵢℓ (divided by n). Weighted
        problems are solved in memory by Newton's method (Newton-CG for wide or
        sparse rows) with the same certificate.

    Returns
    -------
    SolverResult
        The solution and its certificate ‖w − w*‖ ≤ ‖∇J(w)‖/λ.

    Examples
    --------
    >>> from dpsvm.losses import LogisticLoss
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> res = solve_smooth(X, y, LogisticLoss(), 0.1)
    >>> res.grad_norm <= 1e-10, res.distance_bound == res.grad_norm / 0.1
    (True, True)
    """
    d = X.shape[1]
    lin = np.zeros(d) if linear is None else np.asarray(linear, dtype=float)
    w = np.zeros(d) if w0 is None else np.array(w0, dtype=float)
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if getattr(X, "chunked", False):  # a dask design: passes over its chunks
        if sw is not None:
            raise ValueError(
                "sample weights are not supported on out-of-core (dask) rows; "
                "fit in memory or drop sample_weight / class_weight."
            )
        return X.minimise(  # type: ignore[no-any-return]
            y, loss, lam, lin, w, tol, max_iter, warm=w0 is None
        )
    D = as_design(X)
    y = np.asarray(y)
    if y.dtype.kind not in "fi":  # float or integer ±1 targets are used as given
        y = y.astype(np.float64)
    fun = _objective(D, y, loss, lam, lin, sw)
    it = 0
    # A d × d Hessian pays when d is small and below n (for d > n its rank is
    # at most n, and CG needs at most n + 1 steps).
    small = d <= _NEWTON_MAX_FEATURES and d <= D.shape[0] and not D.sparse
    if sw is not None:
        method = "weighted-newton" if small else "weighted-newton-cg"
        w, g, it = _weighted_newton(D, y, sw, loss, lam, lin, w, tol, max_iter, small)
        small = False  # (the polish below is unweighted)
    elif small:
        method = "newton"
        w, g, it, _ = _newton(D, y, loss, lam, lin, w, tol, max_iter, warm=w0 is None)
    elif d > D.shape[0]:
        # Wide rows (d > n): one fused pass per iteration (see _fused_lbfgs);
        # Newton-CG finishes if it ever stalls.
        method = "fused-lbfgs"
        budget = _fused_lbfgs_budget(max_iter)
        w, g, it = _fused_lbfgs(D, y, loss, lam, lin, w, tol, budget)
        if float(np.linalg.norm(g)) > tol:
            method = "fused-lbfgs+newton-cg"
            w, g, it_cg = _newton_cg(D, y, loss, lam, lin, w, tol, max_iter)
            it += it_cg
    else:
        method = "newton-cg"
        w, g, it = _newton_cg(D, y, loss, lam, lin, w, tol, max_iter)
    gn = float(np.linalg.norm(g))
    if gn > tol:
        # Newton can stall on the kinks of ℓ″ (Huber is only piecewise C²);
        # L-BFGS needs only C¹.
        res = scipy.optimize.minimize(
            lambda v: fun(v),
            w,
            jac=True,
            method="L-BFGS-B",
            options={
                "maxiter": max_iter * 50,
                "gtol": tol / (10.0 * math.sqrt(d)),
                "ftol": 0.0,
                "maxcor": 30,
            },
        )
        _, g2 = fun(res.x)
        if float(np.linalg.norm(g2)) < gn:
            w, g = res.x, g2
            gn = float(np.linalg.norm(g2))
            method = method + "+lbfgs"
        it += int(res.nit)
        if gn > tol and small:
            w = _polish(D, y, loss, lam, fun, w, tol)
            _, g = fun(w)
            gn = float(np.linalg.norm(g))
    return SolverResult(w, gn / lam, gn, math.nan, it, method)


# Tuning of Newton's method for large n (none of it affects the result, which is
# certified by the exact gradient on every row; only the speed):
#
# * Warm start. Above ``_WARM_FACTOR × max(_WARM_MIN_ROWS, 50·d)`` rows the same
#   objective is first solved on every _WARM_FACTOR-th row (recursively), until
#   its gradient has shrunk _WARM_REL_TOL-fold: the subsample's minimiser is off
#   w* by its sampling error only, so more precision there would be wasted.
# * Sub-sampled Hessian (Byrd, Chin, Neveitt & Nocedal, SIAM J. Optim. 21 (2011);
#   Roosta-Khorasani & Mahoney, Math. Program. 174 (2019)). The curvature is
#   estimated on every k-th row, k the least stride leaving at most
#   _HESSIAN_ROWS (or 100·d) rows, in float32 when large; it is kept while each
#   step shrinks ‖∇J‖ at least _HESSIAN_KEEP-fold, with BFGS updates from the
#   exact gradients, and rebuilt otherwise.
# * Fused passes: each step reads each chunk of rows once for both X·p and
#   Xᵀ·(y ℓ′); a chunk is about _CHUNK_BYTES so that it is still in cache. A
#   full step is taken when it shrinks the best ‖∇J‖ so far _ACCEPT-fold;
#   otherwise an Armijo search on J runs on the margins alone.
#
# The subsamples are strided views (systematic samples; BLAS reads them in
# place, with no copy) and do not depend on the data values.
_WARM_FACTOR = 8
_WARM_MIN_ROWS = 2_048
_WARM_REL_TOL = 1e-3
_HESSIAN_ROWS = 262_144
_HESSIAN_KEEP = 0.1
_ACCEPT = 0.5
#: Hessians over at least this many entries are accumulated in float32.
_HESSIAN_F32_MIN = 1 << 22
#: On float32 rows a level reuses its warm start's sampled Hessian when that was
#: built from at least this fraction of the level's own sample size in curved
#: rows (ℓ″ > 0). Logistic (every row curved): reused from half the rows, which
#: saves a Hessian build (measured 10% of a 10⁶ × 100 float32 fit) for at most
#: one more cheap single-precision pass; Huber (only the quadratic zone is
#: curved): rebuilt, as a half-size sample then cost an extra iteration. On
#: float64 rows a pass costs as much as a build: always rebuilt.
_WARM_HESSIAN_FRACTION = 0.5
#: Newton on float32 rows takes single-precision passes while ‖∇J‖ is above
#: this (speed only; see ``_newton``). The single-precision gradient of a unit-
#: ball problem is off by ~10⁻⁹ (measured at 10⁶ × 100), far below it.
_SINGLE_PRECISION_UNTIL = 1e-7


def _weighted_newton(D, y, sw, loss, lam, lin, w, tol, max_iter, dense):  # type: ignore[no-untyped-def]
    """Newton's method on the weighted J = (1/n)Σωᵢℓ(yᵢx̃ᵢᵀw) + (λ/2)‖w‖² + aᵀw.

    Every step uses every row in float64: the Hessian X̃ᵀdiag(ωℓ″/n)X̃ + λI
    (``dense``) or Newton-CG on its products; a full step is kept when it
    shrinks ‖∇J‖, else Armijo backtracking on J. The result is judged by the
    exact gradient (the certificate ‖w − w*‖ ≤ ‖∇J‖/λ of :func:`solve_smooth`).
    """
    n, d = D.shape

    def grad(v, m):  # type: ignore[no-untyped-def]
        der = loss.derivative(y * m)
        der *= y * sw
        return D.rmatvec(der) / n + lam * v + lin

    def value(v, m):  # type: ignore[no-untyped-def]
        total = float(sw @ loss.value(y * m))
        return total / n + 0.5 * lam * float(v @ v) + float(lin @ v)

    m = D.matvec(w) if np.any(w) else np.zeros(n)
    g = grad(w, m)
    gn = float(np.linalg.norm(g))
    it = 0
    while gn > tol and it < max_iter:
        it += 1
        curv = loss.second_derivative(y * m) * sw * (1.0 / n)
        if dense:
            H = D.weighted_gram(np.sqrt(curv))
            H[np.diag_indices_from(H)] += lam
            p = _newton_direction(H, g)
            Xp = D.matvec(p)
        else:
            target = max(min(0.5, math.sqrt(gn)) * gn, 0.1 * tol)
            p, Xp = _conjugate_gradient(D, curv, lam, -g, target, max(50, min(d, 500)))
        g_new = grad(w + p, m + Xp)
        gn_new = float(np.linalg.norm(g_new))
        t = 1.0
        if not gn_new < gn:
            f, slope = value(w, m), float(g @ p)
            for _ in range(60):
                if value(w + t * p, m + t * Xp) <= f + 1e-4 * t * slope:
                    break
                t *= 0.5
            else:
                break  # no decrease possible in floating point
            g_new = grad(w + t * p, m + t * Xp)
            gn_new = float(np.linalg.norm(g_new))
        w = _move(w, m, t, p, Xp)
        g, gn = g_new, gn_new
    return w, g, it


def _grad_step(D, y, loss, lam, lin, w, m, p, single=False, *, move=False):  # type: ignore[no-untyped-def]
    """∇J at w + p, and X̃·p, in one fused pass over the rows.

    ``m`` holds X̃·w (``None``: zero margins, a pass from scratch). Loss values
    are not needed here: J along the step follows from the margins m + t·X̃·p
    alone (:func:`_value`), with no further pass. ``single``: products in
    single precision (``RowScaledDesign.fused_products``). ``move``: ``m`` is
    moved in place to X̃(w + p), and X̃·p is returned as a float32 copy (for
    line searches), which saves an n-vector of float64.
    """

    def weights(sl, xp):  # type: ignore[no-untyped-def]
        yc = y[sl]
        if move:
            z = m[sl]
            z += xp
            z = z * yc
        else:
            z = xp if m is None else xp + m[sl]
            z *= yc
        der = loss.derivative(z)
        der *= yc
        return der

    out = np.empty(D.shape[0], dtype=np.float32) if move else None
    Xp, gX = D.fused_products(p, weights, single=single, out=out)
    gX /= D.shape[0]
    gX += lam * (w + p)
    gX += lin
    return gX, Xp


#: Rows per block of the element-wise loss evaluations (keeps their temporaries
#: small instead of several n-vectors).
_ELEMENTWISE_ROWS = 1 << 16


def _grad_at(D, y, loss, lam, lin, w, m):  # type: ignore[no-untyped-def]
    """∇J at w given m = X̃·w (one pass for X̃ᵀ·ℓ′)."""
    n = m.size
    deriv = np.empty(n)
    for start in range(0, n, _ELEMENTWISE_ROWS):
        sl = slice(start, start + _ELEMENTWISE_ROWS)
        yc = y[sl]
        d = loss.derivative(yc * m[sl])
        d *= yc
        deriv[sl] = d
    return D.rmatvec(deriv, overwrite=True) / n + lam * w + lin


def _value(y, loss, lam, lin, w, m, xp=None, t=0.0):  # type: ignore[no-untyped-def]
    """J at w given the margins m + t·xp = X̃·w (no pass over X)."""
    n = m.size
    total = 0.0
    for start in range(0, n, _ELEMENTWISE_ROWS):
        sl = slice(start, start + _ELEMENTWISE_ROWS)
        z = m[sl] if xp is None else m[sl] + np.float64(t) * xp[sl]
        z = z * y[sl]
        total += float(np.sum(loss.value(z)))
    return total / n + 0.5 * lam * float(w @ w) + float(lin @ w)


def _hessian(Dh, yh, mh, loss, lam):  # type: ignore[no-untyped-def]
    """(1/|S|) Σ_S ℓ″(yᵢmᵢ) x̃ᵢx̃ᵢᵀ + λI over the rows of ``Dh`` (all or a sample).

    Returns H and the number of rows with ℓ″ > 0 that it was built from.
    """
    rows, d = Dh.shape
    s = loss.second_derivative(yh * mh) * (1.0 / rows)
    np.sqrt(s, out=s)
    # Single precision for the products (BLAS ssyrk, half the memory traffic):
    # H only preconditions the step, whose result is judged by the exact
    # float64 gradient; a 1e-7 relative error in H is far below the sampling
    # error of a sub-sampled Hessian.
    work = np.float32 if rows * d >= _HESSIAN_F32_MIN else np.float64
    H = Dh.weighted_gram(s, work)
    H[np.diag_indices_from(H)] += lam
    return H, int(np.count_nonzero(s))


def _armijo(
    D, y, loss, lam, lin, w, m, g, p, Xp, g_full, f=None, *, moved=False, single=False
):  # type: ignore[no-untyped-def]
    """Armijo backtracking on J along p, from the margins m + t·X̃p (no pass over X).

    ``g_full`` is ∇J(w + p) and ``f`` is J(w) if known. Returns (t, J(w + tp),
    ∇J(w + tp), its norm), or ``None`` when no decrease is possible in floating
    point. ``moved``: ``m`` holds X̃(w + p) (``_grad_step(..., move=True)``)
    and ``Xp`` a float32 copy of X̃p; the margins of a damped step are then
    recomputed in place by a pass from scratch (``single``: in single
    precision).
    """
    off = 1.0 if moved else 0.0
    if f is None:
        f = (
            _value(y, loss, lam, lin, w, m, Xp, -1.0)
            if moved
            else _value(y, loss, lam, lin, w, m)
        )
    slope = float(g @ p)
    t = 1.0
    for _ in range(60):
        f_t = _value(y, loss, lam, lin, w + t * p, m, Xp, t - off)
        if f_t <= f + 1e-4 * t * slope:
            break
        t *= 0.5
    else:
        return None
    if t == 1.0:
        g_t = g_full
    elif moved:
        m.fill(0.0)
        zero = np.zeros_like(w)
        g_t, _ = _grad_step(D, y, loss, lam, lin, zero, m, w + t * p, single, move=True)
    else:
        g_t = _grad_at(D, y, loss, lam, lin, w + t * p, m + t * Xp)
    return t, f_t, g_t, float(np.linalg.norm(g_t))


def _move(w, m, t, p, Xp):  # type: ignore[no-untyped-def]
    """w + t·p, updating the margins m (= X̃w) in place."""
    if t == 1.0:
        m += Xp
    else:
        m += t * Xp
    return w + t * p


def _warm_start(solve, D, y, loss, lam, lin, w, tol, max_iter):  # type: ignore[no-untyped-def]
    """The warm start of the Newton drivers (in memory and chunked).

    ``solve`` (``_newton``, or ``ChunkedDesign.minimise``) on the systematic
    subsample ``D.subsample(y, _WARM_FACTOR)`` (every _WARM_FACTOR-th row, or
    row chunk) of the same objective, from ``w``, until the subsample's
    gradient has shrunk _WARM_REL_TOL-fold (itself warm-started when large).
    Returns the subsampled design and ``solve``'s result.
    """
    D_sub, y_sub = D.subsample(y, _WARM_FACTOR)
    return D_sub, solve(
        D_sub, y_sub, loss, lam, lin, w, tol, max_iter, rel_tol=_WARM_REL_TOL
    )


def _newton_direction(H, g):  # type: ignore[no-untyped-def]
    try:
        with warnings.catch_warnings():
            # An ill-conditioned H only slows the step down: every iterate is
            # judged by the exact gradient, which certifies the result.
            warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
            return -scipy.linalg.solve(H, g, assume_a="pos", check_finite=False)
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        return -g / np.diag(H).max()


def _newton(D, y, loss, lam, lin, w, tol, max_iter, *, warm=True, rel_tol=0.0):  # type: ignore[no-untyped-def]
    """Newton's method with Armijo backtracking, warm-started on subsamples.

    For piecewise-quadratic losses (Huber) the generalised Hessian is exact on
    each piece, so once the pieces of all margins are identified a full step
    lands on the minimiser; damped steps before that still decrease J. Large
    problems are first solved on a fixed subsample of the rows (recursively),
    and the Hessian is estimated on at most ``_HESSIAN_ROWS`` fixed rows; the
    gradient, the line search and the stopping test always use every row.

    float32 rows: while ‖∇J‖ > ``_SINGLE_PRECISION_UNTIL`` the passes take
    their products in single precision (:meth:`RowScaledDesign.fused_products`
    with ``single=True``); the first step below that recomputes the margins
    X̃w and ∇J from scratch in float64, and every later pass is exact, so the
    returned gradient (``rel_tol == 0``: the certified solve) is the exact
    float64 one.
    """
    n, d = D.shape
    it = 0
    cap = max(_HESSIAN_ROWS, 100 * d)
    warm_h = None
    if warm and n >= _WARM_FACTOR * max(_WARM_MIN_ROWS, 50 * d):
        _, (w, _, it, warm_h) = _warm_start(
            _newton, D, y, loss, lam, lin, w, tol, max_iter
        )
    stride = max(1, -(-n // cap))
    hrows = slice(None, None, stride)
    Dh, yh = D.rows(stride), y[hrows]
    single = D.single  # single-precision passes until the switch below
    certify = rel_tol == 0.0  # the returned gradient must be exact
    # The margins m = X̃w, moved in place by every pass (_grad_step's move).
    m = np.zeros(n)
    if np.any(w) or single:
        g = _grad_step(D, y, loss, lam, lin, np.zeros(d), m, w, single, move=True)[0]
    else:
        g = _grad_at(D, y, loss, lam, lin, w, m)
    gn = float(np.linalg.norm(g))
    tol = max(tol, rel_tol * gn)
    gn_best = gn
    f = None  # J(w), computed only when a line search needs it
    # The warm start's last Hessian (sampled on every _WARM_FACTOR-th row) when
    # it has enough curved rows (_WARM_HESSIAN_FRACTION); else a new one.
    H, hessian_rows = None, 0
    if single and warm_h and warm_h[1] >= _WARM_HESSIAN_FRACTION * Dh.shape[0]:
        H, hessian_rows = warm_h
    while (gn > tol or (single and certify)) and it < max_iter:
        it += 1
        if H is None:
            H, hessian_rows = _hessian(Dh, yh, m[hrows], loss, lam)
        p = _newton_direction(H, g)
        if single and gn <= max(tol, _SINGLE_PRECISION_UNTIL):
            # Switch to exact products: one float64 pass at w + p from scratch
            # (margins and gradient), kept if its exact ‖∇J‖ is below the
            # single-precision estimate at w; else the same pass at w.
            single = False
            g_new = _exact_pass(D, y, loss, lam, lin, w + p, m)
            gn_new = float(np.linalg.norm(g_new))
            if gn_new < gn:
                w = w + p
            else:
                g_new = _exact_pass(D, y, loss, lam, lin, w, m)
                gn_new = float(np.linalg.norm(g_new))
            g, gn, gn_best, f = g_new, gn_new, gn_new, None
            continue
        g_new, Xp = _grad_step(D, y, loss, lam, lin, w, m, p, single, move=True)
        gn_new = float(np.linalg.norm(g_new))
        t = 1.0
        if gn_new <= _ACCEPT * gn_best:
            # A full step that halves the best gradient norm so far: accepted
            # without evaluating J. Such steps can only occur finitely often
            # before ‖∇J‖ ≤ tol, so the Armijo steps below ensure convergence.
            f = None
            gn_best = gn_new
        else:
            found = _armijo(
                D,
                y,
                loss,
                lam,
                lin,
                w,
                m,
                g,
                p,
                Xp,
                g_new,
                f,
                moved=True,
                single=single,
            )
            if found is None:  # (m is left at X̃(w + p); recomputed below)
                if single:  # rounding of the single-precision passes: go exact
                    gn = min(gn, tol, _SINGLE_PRECISION_UNTIL)
                    continue
                break  # no decrease possible in floating point
            t, f, g_new, gn_new = found
            gn_best = min(gn_best, gn_new)
        w = w + t * p  # (the pass, or the line search, moved m)
        Xp = None  # free it before the next step computes its own
        g_old = g
        g = g_new
        # Lazy Hessian: keep H while each step still cuts ‖∇J‖ at least
        # _HESSIAN_KEEP-fold (the iteration then contracts linearly at that
        # rate); rebuild it after a weak step or a damped one.
        if t != 1.0 or gn_new > _HESSIAN_KEEP * gn:
            H = None
        else:
            # BFGS update with the exact secant pair (s, y): H then carries the
            # true curvature along the last step, which the sampled H lacks.
            sv = t * p
            yv = g - g_old
            ys = float(yv @ sv)
            Hs = H @ sv
            sHs = float(sv @ Hs)
            if ys > 0 and sHs > 0:
                H = H - np.outer(Hs, Hs) / sHs + np.outer(yv, yv) / ys
        gn = gn_new
    if single and certify:  # max_iter reached in single precision: exact ∇J
        g = _exact_pass(D, y, loss, lam, lin, w, m)
    return w, g, it, (None if H is None else (H, hessian_rows))


def _exact_pass(D, y, loss, lam, lin, w, m):  # type: ignore[no-untyped-def]
    """∇J at w, with the margins X̃w written into ``m``: from scratch, float64."""
    m.fill(0.0)
    g, _ = _grad_step(D, y, loss, lam, lin, np.zeros_like(w), m, w, move=True)
    return g


def _polish(D, y, loss, lam, fun, w, tol, steps=20):  # type: ignore[no-untyped-def]
    """Full Newton steps kept only while they shrink ‖∇J‖ (final refinement)."""
    m = D.matvec(w)
    _, g = fun(w, m)
    gn = float(np.linalg.norm(g))
    for _ in range(steps):
        if gn <= tol:
            break
        p = _newton_direction(_hessian(D, y, m, loss, lam)[0], g)
        w_new = w + p
        _, g_new = fun(w_new)
        gn_new = float(np.linalg.norm(g_new))
        if not gn_new < gn:
            break
        w, g, gn = w_new, g_new, gn_new
        m = D.matvec(w)
    return w


def _conjugate_gradient(D, curv, lam, r, target, max_iter):  # type: ignore[no-untyped-def]
    """Approximately solve H·p = r, H = X̃ᵀ diag(curv) X̃ + λI, by CG from p = 0.

    Stops once ‖H·p − r‖ ≤ ``target``. Every iterate is a descent direction for
    −r (Nocedal & Wright, Numerical Optimization, 2nd ed., §5.1 and §7.1), so a
    truncated solve is still a valid Newton-CG step. Returns p and X̃·p, the
    latter accumulated from the products X̃·dₖ that CG computes anyway (one
    pass over X saved per Newton step).
    """
    p = np.zeros_like(r)
    xp = np.zeros(D.shape[0])
    res = r.copy()
    dirn = res.copy()
    rr = float(res @ res)
    for _ in range(max_iter):
        if math.sqrt(rr) <= target:
            break
        xd, hd = D.fused_products(dirn, lambda sl, xb: xb * curv[sl])
        hd += lam * dirn
        dhd = float(dirn @ hd)
        if not dhd > 0:  # pragma: no cover - H is λ-positive definite
            break
        alpha = rr / dhd
        p += alpha * dirn
        xp += alpha * xd
        res -= alpha * hd
        rr_new = float(res @ res)
        dirn *= rr_new / rr
        dirn += res
        rr = rr_new
    return p, xp


def _newton_cg(D, y, loss, lam, lin, w, tol, max_iter):  # type: ignore[no-untyped-def]
    """Truncated Newton (Newton-CG) with exact float64 Hessian-vector products.

    For large d (or sparse rows) no d × d matrix is formed: each CG step costs
    one product with X̃ and one with X̃ᵀ, H·v = X̃ᵀ(ℓ″ ⊙ X̃v)/n + λv, so the
    memory is O(n + d). The CG forcing term min(½, √‖∇J‖)·‖∇J‖ gives
    superlinear convergence (Dembo, Eisenstat & Steihaug, SIAM J. Numer. Anal.
    19 (1982); Nocedal & Wright §7.1), and floors at a tenth of ``tol`` so that
    the last step lands below it. A full step is accepted when it shrinks the
    best ‖∇J‖ so far; otherwise an Armijo search on J runs on the margins
    alone. Near the optimum J is flat to rounding while ‖∇J‖ is still above
    ``tol`` (which stalls line searches on J, and L-BFGS); accepting on the
    exact gradient avoids that stall.
    """
    n, d = D.shape
    m = D.matvec(w) if np.any(w) else np.zeros(n)
    g = _grad_at(D, y, loss, lam, lin, w, m)
    gn = float(np.linalg.norm(g))
    gn_best = gn
    it = 0
    while gn > tol and it < max_iter:
        it += 1
        curv = loss.second_derivative(y * m)
        curv *= 1.0 / n

        target = max(min(0.5, math.sqrt(gn)) * gn, 0.1 * tol)
        p, Xp = _conjugate_gradient(D, curv, lam, -g, target, max(50, min(d, 500)))
        g_new = _grad_at(D, y, loss, lam, lin, w + p, m + Xp)
        gn_new = float(np.linalg.norm(g_new))
        t = 1.0
        if gn_new > _ACCEPT * gn_best:
            found = _armijo(D, y, loss, lam, lin, w, m, g, p, Xp, g_new)
            if found is None:
                break  # no decrease possible in floating point
            t, _, g_new, gn_new = found
        gn_best = min(gn_best, gn_new)
        w = _move(w, m, t, p, Xp)
        Xp = None  # free it before the next step computes its own
        g, gn = g_new, gn_new
    return w, g, it


def _value_change(y, loss, lam, lin, w, m, p, xp, t):  # type: ignore[no-untyped-def]
    """J(w + t·p) − J(w) from the margins m = X̃w and xp = X̃p (no pass over X).

    Summed as differences of the loss terms, which keeps the rounding error of
    the change far below that of J itself near the minimiser.
    """
    n = m.size
    total = 0.0
    for start in range(0, n, _ELEMENTWISE_ROWS):
        sl = slice(start, start + _ELEMENTWISE_ROWS)
        z0 = m[sl] * y[sl]
        z1 = xp[sl] * t
        z1 += m[sl]
        z1 *= y[sl]
        total += float(np.sum(loss.value(z1) - loss.value(z0)))
    reg = lam * t * float(w @ p) + 0.5 * lam * t * t * float(p @ p)
    return total / n + reg + t * float(lin @ p)


def _fused_lbfgs_budget(max_iter: int) -> int:
    """Iterations of the wide-row L-BFGS before Newton-CG takes over.

    It needed 2-12 iterations on every benchmark problem (n = 5,000,
    d = 20,000, Λ = 10⁻¹…10⁻⁵); 60 passes bound what a stall can waste.
    """
    return min(max_iter, 60)


#: Curvature pairs kept by the L-BFGS of wide problems (5, 10, 20 and 40 pairs
#: needed the same iterations on the benchmark problems; fewer pairs keep the
#: O(d) algebra per iteration small next to a sparse pass).
_LBFGS_MEMORY = 6


def _fused_lbfgs(D, y, loss, lam, lin, w, tol, max_iter):  # type: ignore[no-untyped-def]
    """L-BFGS with one fused pass over the rows per iteration (wide rows, d > n).

    On wide rows each pass over X̃ costs far more than the O(d) algebra, so the
    method is chosen to need one pass per iteration: the fused pass of
    :func:`_grad_step` gives ∇J at the trial point w + p together with X̃p, the
    margins' change. The step is accepted, with no further pass, when it
    halves the best ‖∇J‖ so far or satisfies Armijo's condition on J (evaluated
    from the margins m + t·X̃p alone); otherwise the Armijo backtracking also
    runs on the margins and one more pass computes the gradient at the accepted
    point. The curvature pairs (s, ∇J(w + s) − ∇J(w)) are exact (Nocedal &
    Wright, Numerical Optimization, 2nd ed., Alg. 7.4 and 7.5). The initial
    inverse Hessian is diagonal: the usual scaling sᵀy/yᵀy on the data
    coordinates and the exact inverse curvature 1/(λ + c²Σℓ″/n) on the constant
    column c (computed from the margins): that column is the stiff direction of
    H = X̃ᵀDX̃/n + λI, and L-BFGS otherwise spends iterations learning it.

    With a linear term a (objective perturbation), the first trial point is
    −a/λ, the minimiser of the data-free part (λ/2)‖w‖² + aᵀw: it costs no
    pass to find, and the first pass then evaluates ∇J there.

    The result is judged only by the exact float64 gradient (``g`` on return);
    the caller falls back to Newton-CG when ‖g‖ is still above ``tol``.
    """
    n, d = D.shape
    it = 0
    if not np.any(w) and np.any(lin):
        m = np.zeros(n)
        p = lin / -lam
        g, Xp = _grad_step(D, y, loss, lam, lin, w, m, p)
        w = _move(w, m, 1.0, p, Xp)
        it = 1
    else:
        m = D.matvec(w) if np.any(w) else np.zeros(n)
        g = _grad_at(D, y, loss, lam, lin, w, m)
    gn = float(np.linalg.norm(g))
    gn_best = gn
    pairs: list[tuple[FloatArray, FloatArray, float]] = []
    c = D.const
    while gn > tol and it < max_iter:
        it += 1
        # Two-loop recursion: p = −H_k·g.
        q = g.copy()
        alphas = []
        for s, yv, rho in reversed(pairs):
            a = rho * float(s @ q)
            alphas.append(a)
            q -= a * yv
        k = d if c is None else d - 1  # the data coordinates
        scale = 1.0 / lam  # H ⪰ λI, so 1/λ bounds the inverse curvature
        if pairs:
            s, yv, _ = pairs[-1]
            yy = float(yv[:k] @ yv[:k])
            sy = float(s[:k] @ yv[:k])
            if yy > 0 and sy > 0:
                scale = min(scale, sy / yy)
        q[:k] *= scale
        if c is not None:
            curv = float(np.sum(loss.second_derivative(y * m))) / n
            q[k] /= lam + c * c * curv
        for (s, yv, rho), a in zip(pairs, reversed(alphas), strict=True):
            q += (a - rho * float(yv @ q)) * s
        p = -q
        slope = float(g @ p)
        if not slope < 0:  # pragma: no cover - H_k is positive definite
            pairs.clear()
            p = g / -lam
            slope = float(g @ p)
        g_new, Xp = _grad_step(D, y, loss, lam, lin, w, m, p)
        gn_new = float(np.linalg.norm(g_new))
        t = 1.0
        if gn_new > _ACCEPT * gn_best:
            change = _value_change(y, loss, lam, lin, w, m, p, Xp, t)
            while not change <= 1e-4 * t * slope:
                t *= 0.5
                if t < 1e-12:
                    return w, g, it  # no decrease possible in floating point
                change = _value_change(y, loss, lam, lin, w, m, p, Xp, t)
            if t != 1.0:
                g_new = _grad_at(D, y, loss, lam, lin, w + t * p, m + t * Xp)
                gn_new = float(np.linalg.norm(g_new))
        gn_best = min(gn_best, gn_new)
        step = p if t == 1.0 else t * p
        diff = g_new - g
        sy = float(step @ diff)
        w = _move(w, m, t, p, Xp)
        Xp = None  # free it before the next pass computes its own
        if sy > 0:
            pairs.append((step, diff, 1.0 / sy))
            if len(pairs) > _LBFGS_MEMORY:
                pairs.pop(0)
        g, gn = g_new, gn_new
    return w, g, it


def _hinge_gap(
    X: FloatArray,
    y: FloatArray,
    lam: float,
    w: FloatArray,
    sw: FloatArray | None = None,
) -> tuple[float, FloatArray]:
    """Best certified (gap, point) over dual reconstructions from ``w``.

    Primal P(w) = (λ/2)‖w‖² + (1/n)Σ max(0, 1 − zᵢ), zᵢ = yᵢwᵀxᵢ; dual
    D(α) = (1/n)Σαᵢ − (λ/2)‖v(α)‖², v(α) = Σαᵢyᵢxᵢ/(nλ), 0 ≤ α ≤ 1 (box only,
    no equality constraint: the problem has no bias, Rubinstein et al. 2012,
    eq. (5.1)). Using
    λuᵀv = (1/n)Σαᵢzᵢ(u), the gap at any point u is a sum of non-negative terms,

        P(u) − D(α) = (λ/2)‖u − v‖² + (1/n)Σ [max(0, 1 − zᵢ) − αᵢ(1 − zᵢ)],

    which we evaluate in that form to avoid cancellation. α is rebuilt from the
    margins of ``w`` (αᵢ = 1 below the margin, 0 above, bounded least squares on
    the margin set so that v(α) ≈ w); both u = w and the polished u = v(α) are
    certified, and the better is returned. Weak duality makes every returned gap a
    valid bound on P(u) − P(w*) whatever α is.

    Weighted (``sw`` = ω): P(w) has (1/n)Σωᵢ max(0, 1 − zᵢ), the box is
    0 ≤ αᵢ ≤ ωᵢ and the gap terms are ωᵢ max(0, 1 − zᵢ) − αᵢ(1 − zᵢ).
    """
    n = X.shape[0]
    upper = np.ones(n) if sw is None else sw

    def gap_at(u: FloatArray, alpha: FloatArray, v: FloatArray) -> float:
        z = y * (X @ u)
        diff = u - v
        terms = upper * np.maximum(0.0, 1.0 - z) - alpha * (1.0 - z)
        return 0.5 * lam * float(diff @ diff) + float(np.sum(terms) / n)

    best_gap, best_point = math.inf, w
    u = w
    for _ in range(3):  # re-derive the margin sets from the polished point
        z = y * (X @ u)
        improved = False
        for eta in (1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2):
            lo = z < 1.0 - eta
            mid = np.abs(z - 1.0) <= eta
            alpha = lo * upper
            if np.any(mid):
                target = n * lam * u - X[lo].T @ (y[lo] * upper[lo])
                Xm: Any = X[mid]
                Xm = Xm.toarray() if scipy.sparse.issparse(Xm) else Xm
                A = (Xm * y[mid, None]).T
                top = upper[mid]
                sol = scipy.optimize.lsq_linear(
                    A,
                    target,
                    bounds=(np.zeros_like(top), np.maximum(top, 1e-300)),
                    method="bvls",
                    tol=1e-14,
                )
                alpha[mid] = np.clip(sol.x, 0.0, top)
            v = X.T @ (alpha * y) / (n * lam)
            for point in (u, v):
                g = max(gap_at(point, alpha, v), 0.0)
                if g < best_gap:
                    best_gap, best_point, improved = g, point, True
        if not improved or best_point is u:
            break
        u = best_point
    return best_gap, best_point


def _hinge_by_smoothing(
    X: FloatArray,
    y: FloatArray,
    lam: float,
    w0: FloatArray,
    sw: FloatArray | None = None,
) -> tuple[float, FloatArray, int]:
    """Hinge minimiser by Huber continuation h → 0, certified by a duality gap.

    The Huber minimiser w_h has natural dual variables αᵢ = −ℓ′_h(zᵢ) ∈ [0, 1]
    with w_h = v(α) at stationarity, and the gap terms are O(h); the certificate
    is computed exactly as in :func:`_hinge_gap`, so nothing rests on that
    estimate.
    """
    from ..losses import HuberLoss

    n = X.shape[0]
    upper = np.ones(n) if sw is None else sw
    w = w0
    best_gap, best_w, iters = math.inf, w0, 0
    for h in (1e-2, 1e-4, 1e-6, 1e-8, 1e-10):
        loss = HuberLoss(h)
        res = solve_smooth(
            X, y, loss, lam, tol=1e-13, max_iter=100, w0=w, sample_weight=sw
        )
        w, iters = res.coef, iters + res.n_iter
        z = y * (X @ w)
        alpha = -loss.derivative(z) * upper
        v = X.T @ (alpha * y) / (n * lam)
        for point in (w, v):
            zp = y * (X @ point)
            diff = point - v
            terms = upper * np.maximum(0.0, 1.0 - zp) - alpha * (1.0 - zp)
            gap = max(0.5 * lam * float(diff @ diff) + float(np.sum(terms) / n), 0.0)
            if gap < best_gap:
                best_gap, best_w = gap, point
    return best_gap, best_w, iters


def solve_hinge(
    X: Any,
    y: FloatArray,
    lam: float,
    *,
    tol: float = 1e-10,
    max_iter: int = 100_000,
    target_distance: float = 0.0,
    sample_weight: FloatArray | None = None,
) -> SolverResult:
    """Minimise the bias-free hinge SVM (λ/2)‖w‖² + (1/n)Σ max(0, 1 − yᵢwᵀxᵢ).

    liblinear's dual coordinate descent (Hsieh et al. 2008) through scikit-learn's
    :class:`~sklearn.svm.LinearSVC` with ``fit_intercept=False``: its dual has the
    box 0 ≤ αᵢ ≤ C_sk and no equality constraint, i.e. exactly the hinge dual of
    Rubinstein et al. 2012, eq. (5.1), with C_sk = 1/(nλ). The result is
    certified by a duality gap; the liblinear tolerance is tightened (up to 4
    times) until the certified distance is at most ``target_distance``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Rows, already projected onto the public ball.
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    lam : float
        Regularisation λ > 0.
    tol : float, default=1e-10
        Initial liblinear tolerance.
    max_iter : int, default=100000
        liblinear iteration cap.
    target_distance : float, default=0.0
        Stop tightening once the certified ‖w − w*‖ is at most this.
    sample_weight : ndarray of shape (n_samples,), optional
        Weights ωᵢ ≥ 0 of the hinge terms, (1/n)Σωᵢ max(0, 1 − zᵢ) (liblinear's
        per-row C_sk·ωᵢ; dual box 0 ≤ αᵢ ≤ ωᵢ).

    Returns
    -------
    SolverResult
        The solution and its certificate ‖w − w*‖ ≤ √(2·gap/λ).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> res = solve_hinge(X, y, 0.1, target_distance=1e-4)
    >>> res.distance_bound <= 1e-4, np.sign(X @ res.coef).tolist()
    (True, [1.0, 1.0, -1.0])
    """
    # liblinear works on its own float64 copy of the rows in any case.
    X = as_design(X).toarray()
    y = np.asarray(y, dtype=np.float64)
    n, d = X.shape
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    Xs, ys, sws = X, y, sw
    if sw is not None:
        # Rows of weight 0 add nothing to the objective: liblinear sees the rest
        # (the certificate below is computed on every row). With none left,
        # w* = 0 exactly (J = (λ/2)‖w‖²): a fit never fails on its weights.
        live = sw > 0
        if not np.any(live):
            return SolverResult(np.zeros(d), 0.0, math.nan, 0.0, 0, "zero-weights")
        if not np.all(live):
            Xs, ys, sws = X[live], y[live], sw[live]
    if np.unique(ys).size < 2:
        # liblinear needs two classes. A zero row with the other label adds the
        # constant C_sk·1 to the primal and nothing to w, so the minimiser is
        # unchanged.
        zero = np.zeros((1, d))
        Xs = (
            scipy.sparse.vstack([Xs, zero], format="csr")
            if scipy.sparse.issparse(Xs)
            else np.vstack([Xs, zero])
        )
        ys = np.append(ys, -ys[0])
        sws = None if sws is None else np.append(sws, 1.0)
    C_sk = 1.0 / (n * lam)  # ½‖w‖² + C_sk Σ hinge  ≡  (λ/2)‖w‖² + (1/n) Σ hinge
    best: SolverResult | None = None
    cur_tol = tol
    for _ in range(4):
        clf = LinearSVC(
            C=C_sk,
            loss="hinge",
            dual=True,
            fit_intercept=False,
            tol=cur_tol,
            max_iter=max_iter,
            random_state=0,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(Xs, ys, sample_weight=sws)
        w = np.asarray(clf.coef_, dtype=float).ravel()
        if clf.classes_[1] != 1:  # liblinear's sign follows classes_[1]
            w = -w
        gap, w = _hinge_gap(X, y, lam, w, sw)
        dist = math.sqrt(2.0 * gap / lam)
        res = SolverResult(
            w, dist, math.nan, gap, int(np.max(clf.n_iter_)), "liblinear-dual-cd"
        )
        if best is None or res.distance_bound < best.distance_bound:
            best = res
        if best.distance_bound <= target_distance:
            return best
        cur_tol /= 100.0
    assert best is not None
    # Degenerate data (near-collinear rows, many points at the margin) can stall
    # dual coordinate descent; finish by Huber continuation from its point.
    gap, w, iters = _hinge_by_smoothing(X, y, lam, best.coef, sw)
    dist = math.sqrt(2.0 * gap / lam)
    if dist < best.distance_bound:
        best = SolverResult(
            w, dist, math.nan, gap, best.n_iter + iters, "huber-continuation"
        )
    return best
