# SPDX-License-Identifier: BSD-3-Clause
"""Smooth losses: :func:`solve_smooth`, its certificate and :class:`SolverResult`.

Minimises J(w) = (1/n) Σᵢ ωᵢ ℓ(yᵢ wᵀxᵢ) + (λ/2)‖w‖² + aᵀw for a loss with a
second derivative (logistic, Huber) and certifies ‖w − w*‖ ≤ ‖∇J(w)‖/λ
(λ-strong convexity); the exactness requirement and the certificates are
described in :mod:`dpsvm.solvers._erm`. The iterations (Newton, Newton-CG, the
fused L-BFGS) are in :mod:`dpsvm.solvers._newton`; the rows as the solvers see
them in :mod:`dpsvm.solvers._design`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.optimize

from ..losses import Loss
from ..utils._types import FloatArray
from ._design import RowScaledDesign, as_design
from ._newton import (
    _fused_lbfgs,
    _fused_lbfgs_budget,
    _newton,
    _newton_cg,
    _polish,
    _weighted_newton,
)

__all__ = ["SolverResult", "solve_smooth"]

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
    lazily rebuilt, BFGS-corrected Hessian (see the tuning notes of
    :mod:`dpsvm.solvers._newton`);
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
