# SPDX-License-Identifier: BSD-3-Clause
"""Out-of-core and distributed fits of the linear estimators on ``dask.array``.

When ``X`` is a :class:`dask.array.Array`, :meth:`LinearModelBase._prepare_fit`
returns a :class:`ChunkedDesign` instead of an in-memory
:class:`~dpsvm.solvers._design.RowScaledDesign`. The estimator's ``fit``, its
mechanism and its privacy event are unchanged; only the solver's passes over the
rows differ. Each pass is one ``compute`` of a small reduction over the row
chunks (``map_blocks`` then a tree ``sum``): per chunk, the rows are clipped to
the public ball and divided by the public bound R *inside the chunk* (the same
per-row scale as in memory, recomputed from the chunk's own rows), and only the
chunk's contribution to J, ∇J, the Hessian or a Hessian-vector product (O(d²)
at most) leaves it. Nothing of size n is persisted or sent to the client, so
the client's memory is O(d²) (Newton) or O(d) (Newton-CG), whatever n is.

The solver is the same as in memory: Newton with the exact Hessian for small d,
truncated Newton (Newton-CG) with exact Hessian-vector products for large d, a
full step accepted when it halves the best ‖∇J‖, Armijo on J otherwise, and the
same certificate ‖∇J(w)‖₂ ≤ ``tol`` on the exact float64 gradient over every
row. Objective perturbation's residual charge (Iyengar et al., IEEE S&P 2019,
Thm 1, pure-DP analogue) and output perturbation's certified cap are computed
by the estimator from the public ``tol`` only, so the privacy event of a dask
fit is the in-memory one.

dask is imported only when a dask collection is passed (the ``[dask]`` extra).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..losses import Loss
from ._design import RowScaledDesign
from ._newton import _ACCEPT, _WARM_FACTOR, _newton_direction, _warm_start
from ._smooth import _NEWTON_MAX_FEATURES, SolverResult

__all__ = [
    "ChunkedDesign",
    "chunked_predict",
    "chunked_scores",
    "is_dask_array",
    "prepare_dask_fit",
]

FloatArray = NDArray[np.float64]

#: Above this many features a pass returns Hessian-vector products (Newton-CG)
#: instead of the d × d Hessian: the Hessian costs d² flops per row.
_DASK_NEWTON_MAX_FEATURES = min(256, _NEWTON_MAX_FEATURES)

#: Step lengths tried, all in one pass, when a full step is not accepted.
_STEPS = 0.5 ** np.arange(1, 41)

# Warm start (speed only; the result is certified on every row): with at least
# _WARM_FACTOR × _WARM_MIN_CHUNKS chunks, the same objective is first solved on
# every _WARM_FACTOR-th chunk (recursively) until its gradient has shrunk
# _WARM_REL_TOL-fold, by the in-memory driver's ``_newton._warm_start``. Those
# passes read 1/_WARM_FACTOR of the chunks, and the full passes start near w*.
_WARM_MIN_CHUNKS = 4


def is_dask_array(X: Any) -> bool:
    """Whether ``X`` is a dask collection (checked without importing dask).

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    bool
        True for a dask array or data frame.

    Examples
    --------
    >>> is_dask_array(np.zeros((2, 2)))
    False
    >>> import dask.array as da
    >>> is_dask_array(da.zeros((2, 2)))
    True
    """
    return type(X).__module__.startswith("dask") and hasattr(X, "__dask_graph__")


def _block_design(
    Xb: Any, radius: float, R: float, const: float | None
) -> RowScaledDesign:
    """The internal rows of one chunk, [proj(x), s]/R, as a per-row scale.

    Exactly the in-memory map (``LinearModelBase._design``): the factors are
    computed from the chunk's own rows, which is all that each factor depends on.
    """
    from ._design import row_norms, scaled_design

    if Xb.dtype not in (np.float64, np.float32):
        Xb = np.asarray(Xb, dtype=np.float64)
    norms = row_norms(Xb)
    # Non-finite norms (‖x‖² overflowed for finite entries): a projected copy.
    finite = bool(np.all(np.isfinite(norms)))
    return scaled_design(Xb, norms if finite else None, radius, R, const)


def _pass_block(
    Xb: Any,
    yb: Any,
    *,
    kind: str,
    loss: Loss,
    w: FloatArray,
    v: FloatArray | None,
    geometry: tuple[float, float, float | None],
    width: int,
) -> FloatArray:
    """One chunk's contribution to a pass, as a flat vector of ``width`` floats.

    ``kind`` is ``"grad"`` (Σℓ, X̃ᵀ(yℓ′)), ``"newton"`` (those and
    Σ ℓ″ x̃x̃ᵀ), ``"hvp"`` (X̃ᵀ(ℓ″ ⊙ X̃v)) or ``"values"`` (Σℓ(y(X̃w + t·X̃v)) for
    each step t of ``_STEPS``); all at margins of ``w``.
    """
    out = np.zeros((1, width))
    if Xb.shape[0] == 0:
        return out
    D = _block_design(Xb, *geometry)
    y = np.asarray(yb, dtype=np.float64).reshape(-1)
    z = D.matvec(w)
    z *= y
    d = D.shape[1]
    if v is not None:  # "values" or "hvp": products along the direction v
        xv = D.matvec(v)
        if kind == "values":
            xv *= y
            for i, t in enumerate(_STEPS):
                out[0, i] = float(np.sum(loss.value(z + t * xv)))
        else:
            xv *= loss.second_derivative(z)
            out[0, :d] = D.rmatvec(xv, overwrite=True)
        return out
    total, deriv = loss.value_and_derivative(z)
    out[0, 0] = total
    if kind == "newton":
        s = loss.second_derivative(z)
        np.sqrt(s, out=s)
        out[0, 1 + d :] = D.weighted_gram(s).ravel()
    deriv *= y
    out[0, 1 : 1 + d] = D.rmatvec(deriv, overwrite=True)
    return out


class ChunkedDesign:
    """The internal design X̃ = [proj(x), s]/R of a row-chunked ``dask.array``.

    Never formed: every pass maps :func:`_pass_block` over the row chunks and
    sums the small per-chunk results (one ``compute``, on whatever scheduler is
    active: the local threads, or a ``dask.distributed`` client).

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_raw)
        Rows, chunked along the rows only.
    radius : float
        Public radius of the x part (R, or √(R² − s²) beside an intercept).
    R : float
        Public bound on the internal rows' scale (rows are divided by it).
    const : float or None
        Value s/R of the constant column, or ``None``.
    """

    #: Marks a design whose products are passes over a chunked collection.
    chunked = True
    sparse = False

    def __init__(self, X: Any, radius: float, R: float, const: float | None) -> None:
        self.X = X
        self.geometry = (radius, R, const)
        n, p = X.shape
        self.shape = (int(n), int(p) + (const is not None))
        self.n_passes = 0

    def subsample(self, y: Any, stride: int) -> tuple[ChunkedDesign, Any]:
        """Every ``stride``-th row chunk of the design and of ``y`` (chunked alike)."""
        sub = ChunkedDesign(self.X.blocks[::stride], *self.geometry)
        return sub, y.blocks[::stride]

    def _reduce(
        self, y: Any, kind: str, loss: Loss, w: FloatArray, v: FloatArray | None
    ) -> FloatArray:
        d = self.shape[1]
        width = {
            "grad": 1 + d,
            "newton": 1 + d + d * d,
            "hvp": d,
            "values": _STEPS.size,
        }[kind]
        X = self.X
        per_chunk = X.map_blocks(
            _pass_block,
            y[:, None],
            kind=kind,
            loss=loss,
            w=w,
            v=v,
            geometry=self.geometry,
            width=width,
            chunks=((1,) * X.numblocks[0], (width,)),
            dtype=np.float64,
            meta=np.empty((0, 0), dtype=np.float64),
        )
        self.n_passes += 1
        return np.asarray(per_chunk.sum(axis=0).compute(), dtype=np.float64)

    def minimise(
        self,
        y: Any,
        loss: Loss,
        lam: float,
        lin: FloatArray,
        w: FloatArray,
        tol: float,
        max_iter: int,
        *,
        warm: bool = True,
        rel_tol: float = 0.0,
    ) -> SolverResult:
        """Minimise J to ‖∇J‖ ≤ ``tol`` by passes over the chunks.

        The chunked driver of :func:`~dpsvm.solvers.solve_smooth` (which
        documents the problem and normalises its arguments), with the same
        certificate ‖w − w*‖ ≤ ‖∇J(w)‖/λ. ``y``: the ±1 targets as a dask array
        chunked like the rows; ``lin`` and ``w``: the linear term and the start;
        ``warm``: large problems are first solved on every ``_WARM_FACTOR``-th
        chunk, until ‖∇J‖ has shrunk ``rel_tol``-fold there.
        """
        n, d = self.shape
        newton = d <= _DASK_NEWTON_MAX_FEATURES
        it = 0
        if warm and self.X.numblocks[0] >= _WARM_FACTOR * _WARM_MIN_CHUNKS:
            sub, start = _warm_start(
                ChunkedDesign.minimise, self, y, loss, lam, lin, w, tol, max_iter
            )
            w, it = start.coef, start.n_iter
            self.n_passes += sub.n_passes

        def evaluate(u: FloatArray) -> tuple[float, FloatArray, FloatArray | None]:
            """J(u), ∇J(u) and (Newton) the Hessian, in one pass."""
            r = self._reduce(y, "newton" if newton else "grad", loss, u, None)
            f = r[0] / n + 0.5 * lam * float(u @ u) + float(lin @ u)
            g = r[1 : 1 + d] / n + lam * u + lin
            H = None
            if newton:
                H = r[1 + d :].reshape(d, d) / n
                H[np.diag_indices_from(H)] += lam
            return f, g, H

        f, g, H = evaluate(w)
        gn = gn_best = float(np.linalg.norm(g))
        tol = max(tol, rel_tol * gn)
        while gn > tol and it < max_iter:
            it += 1
            if H is not None:
                p = _newton_direction(H, g)
            else:
                target = max(min(0.5, math.sqrt(gn)) * gn, 0.1 * tol)
                p = self._conjugate_gradient(y, loss, lam, w, -g, target, d)
            slope = float(g @ p)
            f_new, g_new, H_new = evaluate(w + p)
            gn_new = float(np.linalg.norm(g_new))
            if gn_new <= _ACCEPT * gn_best or f_new <= f + 1e-4 * slope:
                w = w + p
            else:
                # Armijo on J: every trial step length in one pass.
                sums = self._reduce(y, "values", loss, w, p)
                t = None
                for i, s in enumerate(_STEPS):
                    wt = w + s * p
                    ft = sums[i] / n + 0.5 * lam * float(wt @ wt) + float(lin @ wt)
                    if ft <= f + 1e-4 * s * slope:
                        t = float(s)
                        break
                if t is None:
                    break  # no decrease possible in floating point
                w = w + t * p
                f_new, g_new, H_new = evaluate(w)
                gn_new = float(np.linalg.norm(g_new))
            f, g, H, gn = f_new, g_new, H_new, gn_new
            gn_best = min(gn_best, gn)
        method = "dask-newton" if newton else "dask-newton-cg"
        return SolverResult(w, gn / lam, gn, math.nan, it, method)

    def _conjugate_gradient(self, y, loss, lam, w, r, target, d):  # type: ignore[no-untyped-def]
        """CG on H·p = r, one pass per Hessian-vector product (as ``_newton``)."""
        n = self.shape[0]
        p = np.zeros_like(r)
        res = r.copy()
        dirn = res.copy()
        rr = float(res @ res)
        for _ in range(max(50, min(d, 500))):
            if math.sqrt(rr) <= target:
                break
            hd = self._reduce(y, "hvp", loss, w, dirn) / n + lam * dirn
            dhd = float(dirn @ hd)
            if not dhd > 0:  # pragma: no cover - H is λ-positive definite
                break
            alpha = rr / dhd
            p += alpha * dirn
            res -= alpha * hd
            rr_new = float(res @ res)
            dirn = res + (rr_new / rr) * dirn
            rr = rr_new
        return p


def _as_row_chunked(X: Any, y: Any) -> tuple[Any, Any]:
    """X chunked along rows only, and y as a dask array with the same row chunks."""
    import dask.array as da

    if hasattr(X, "to_dask_array"):  # a dask DataFrame: one pass counts its rows
        X = X.to_dask_array(lengths=True)
    if hasattr(y, "to_dask_array"):
        y = y.to_dask_array(lengths=True)
    if X.ndim != 2:
        raise ValueError(
            "X must be a 2-D dask array of shape (n_samples, n_features); reshape "
            "it, e.g. X.reshape(-1, 1) for a single feature."
        )
    if any(math.isnan(c) for c in X.shape) or any(math.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            "X has unknown chunk sizes, so the number of rows n (a public "
            "parameter of the privacy guarantee) is unknown. Call "
            "X.compute_chunk_sizes() (or build X with known chunks) before fit."
        )
    if X.dtype.kind not in "fiub":
        raise ValueError("X must hold numbers (float32 or float64 features).")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if is_dask_array(y):
        if y.ndim != 1:
            y = y.reshape(-1) if y.ndim == 2 and y.shape[1] == 1 else y
        if y.ndim != 1 or any(math.isnan(c) for c in y.chunks[0]):
            raise ValueError(
                "y must be a 1-D dask array with known chunk sizes; call "
                "y.compute_chunk_sizes() before fit."
            )
        if y.shape[0] != X.shape[0]:
            raise ValueError("X and y must have the same number of rows.")
        if y.chunks[0] != X.chunks[0]:
            y = y.rechunk((X.chunks[0],))
    else:
        y_np = np.asarray(y)
        if y_np.ndim == 2 and y_np.shape[1] == 1:
            y_np = y_np.ravel()
        if y_np.ndim != 1 or y_np.shape[0] != X.shape[0]:
            raise ValueError(
                "y must be 1-D with one label per row of X (the same number of rows)."
            )
        y = da.from_array(y_np, chunks=(X.chunks[0],))
    return X, y


def _check_block(Xb: Any, yb: Any, *, classes: Any) -> FloatArray:
    """(any non-finite entry, max row norm, any label outside ``classes``)."""
    from ._design import row_norms

    out = np.zeros((1, 3))
    if Xb.shape[0] == 0:
        return out
    Xf = Xb if Xb.dtype in (np.float64, np.float32) else Xb.astype(np.float64)
    out[0, 0] = float(not np.all(np.isfinite(Xf)))
    norms = row_norms(Xf)
    # A row whose ‖x‖² overflows counts as +inf (only read for data_norm=None).
    out[0, 1] = float(np.max(norms))
    if classes is not None:
        out[0, 2] = float(not np.all(np.isin(np.asarray(yb).reshape(-1), classes)))
    return out


def prepare_dask_fit(
    est: Any, X: Any, y: Any
) -> tuple[ChunkedDesign, list[Any], float]:
    """The dask counterpart of ``LinearModelBase._prepare_fit``.

    One pass checks the entries (finite), the labels (in the public
    ``classes``, blockwise; no label is quoted) and, only for
    ``data_norm=None``, the largest row norm; nothing else is computed before
    the solver's passes. The number of rows n comes from the chunk sizes.

    Parameters
    ----------
    est : LinearModelBase
        The estimator being fitted; its fitted label and norm attributes
        (``classes_``, ``n_features_in_``, ``data_norm_``) are set here.
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        The rows, chunked along the rows (columns are rechunked into one).
    y : dask.array.Array or array-like of shape (n_samples,)
        The labels.

    Returns
    -------
    design : ChunkedDesign
        The internal rows [proj(x), s]/R, never materialised.
    targets : list of dask.array.Array
        One ±1 float32 target vector per binary problem (one-vs-rest).
    lam : float
        The internal strong-convexity modulus of each binary problem.

    Examples
    --------
    >>> import dask.array as da
    >>> from dpsvm.models import DPLogisticRegression
    >>> X = da.from_array(np.array([[0.5, 0.0], [0.0, -0.5]] * 4), chunks=4)
    >>> y = np.array([1, 0] * 4)
    >>> est = DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=[0, 1])
    >>> design, targets, lam = prepare_dask_fit(est, X, y)
    >>> design.shape, len(targets), est.classes_.tolist()
    ((8, 3), 1, [0, 1])
    """
    import dask.array as da

    get_loss = getattr(est, "_get_loss", None)
    if get_loss is not None and not get_loss().differentiable:
        raise ValueError(
            "Fits on dask arrays need a smooth loss (passes of gradients and "
            "Hessian products); the hinge solver needs the rows in memory. Use "
            "loss='huber' (or 'logistic'), or pass a NumPy array."
        )
    X_in = X
    X, y = _as_row_chunked(X, y)
    n, p = (int(s) for s in X.shape)
    if n < 1 or p < 1:
        raise ValueError("X must have at least one row and one feature.")
    public = None if est.classes is None else np.unique(np.asarray(est.classes))
    stats = (
        X.map_blocks(
            _check_block,
            y[:, None],
            classes=public,
            chunks=((1,) * X.numblocks[0], (3,)),
            dtype=np.float64,
            meta=np.empty((0, 0), dtype=np.float64),
        )
        .max(axis=0)
        .compute()
    )
    if stats[0]:
        raise ValueError(
            "Input X contains NaN or infinity; remove or impute those entries."
        )
    if public is not None and stats[2]:
        classes = public.tolist()
        raise ValueError(
            "y contains labels that are not in the public label set "
            f"classes={classes}: add them to classes or drop those rows."
        )
    if public is None:
        # classes=None: the labels that occur are read (and released); the
        # warning of resolve_label_set names the option.
        labels = np.asarray(da.unique(y).compute())
        classes_ = est._resolve_classes(labels)
    else:
        classes_ = est._resolve_classes(public, all_public=True)
    est.n_features_in_ = p
    columns = getattr(X_in, "columns", None)
    if columns is not None and all(isinstance(c, str) for c in columns):
        est.feature_names_in_ = np.asarray(columns, dtype=object)
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    est.classes_ = classes_
    R = est._resolve_data_norm(np.array([stats[1]]))
    est.data_norm_ = R
    const = est.intercept_scaling if est.fit_intercept else None  # s/R
    design = ChunkedDesign(X, est._radius(R), R, const)
    one, minus_one = np.float32(1.0), np.float32(-1.0)
    positives = classes_[1:] if classes_.size == 2 else classes_
    targets = [da.where(y == c, one, minus_one) for c in positives]
    return design, targets, est._internal_lambda(n, R, len(targets))


def chunked_scores(est: Any, X: Any) -> Any:
    """``est.decision_function`` of each row chunk of ``X``, as a lazy dask array.

    Prediction post-processes the released model; each chunk is scored by the
    in-memory code (projection onto the same public ball).

    Parameters
    ----------
    est : LinearModelBase
        A fitted linear estimator.
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        The rows to score.

    Returns
    -------
    dask.array.Array of shape (n_samples,) or (n_samples, n_classes)
        The lazy scores (one column per class for more than two classes).

    Examples
    --------
    >>> import dask.array as da
    >>> from dpsvm.models import DPLogisticRegression
    >>> Xn = np.array([[0.5, 0.0], [0.0, -0.5]] * 20)
    >>> est = DPLogisticRegression(epsilon=1.0, data_norm=1.0, classes=[0, 1],
    ...                            random_state=0).fit(Xn, [1, 0] * 20)
    >>> scores = chunked_scores(est, da.from_array(Xn, chunks=10))
    >>> np.allclose(scores.compute(), est.decision_function(Xn))
    True
    """
    if hasattr(X, "to_dask_array"):
        X = X.to_dask_array(lengths=True)
    if X.ndim != 2:
        raise ValueError("X must be a 2-D dask array of shape (n_samples, n_features).")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    k = est.coef_.shape[0]
    if k == 1:
        return X.map_blocks(est.decision_function, drop_axis=1, dtype=np.float64)
    return X.map_blocks(
        est.decision_function, chunks=(X.chunks[0], (k,)), dtype=np.float64
    )


def _labels_of(scores: FloatArray, classes: Any) -> Any:
    if scores.ndim == 1:
        return classes[(scores > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def chunked_predict(classes: Any, scores: Any) -> Any:
    """Labels from a lazy dask array of scores, chunk by chunk.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        The estimator's ``classes_``.
    scores : dask.array.Array of shape (n_samples,) or (n_samples, n_classes)
        Scores from :func:`chunked_scores`: the sign picks between two
        classes, the largest column among more.

    Returns
    -------
    dask.array.Array of shape (n_samples,)
        The lazy predicted labels.

    Examples
    --------
    >>> import dask.array as da
    >>> scores = da.from_array(np.array([0.3, -1.0, 2.0]), chunks=2)
    >>> chunked_predict(np.array(["no", "yes"]), scores).compute().tolist()
    ['yes', 'no', 'yes']
    """
    return scores.map_blocks(
        _labels_of,
        classes,
        drop_axis=list(range(1, scores.ndim)),
        dtype=classes.dtype,
    )
