# SPDX-License-Identifier: BSD-3-Clause
"""Many noise draws of one objective-perturbation cell, solved together.

The 50 draws of a (fold, Λ, ε) cell of Sarwate, Chaudhuri & Monteleoni (2009)
differ only in the linear term b/n of the perturbed objective
J_b(w) = (1/n)Σℓ(yᵢwᵀxᵢ) + (s/2)‖w‖² + (b/n)ᵀw (Chaudhuri, Monteleoni &
Sarwate 2011, Alg. 2): same rows, same loss, same strong convexity s = Λ + Δ.
:func:`solve_smooth_batch` minimises all of them at once: the margins and
gradients of every draw are two matrix–matrix products per iteration (BLAS-3,
X·W and Xᵀ·R) instead of 2K matrix–vector products, and each draw's Newton
system is built from its curved rows only (Huber: the quadratic zone).

:func:`release_batch` keeps the library's mechanism code path. For each draw it
calls the calibrated plan's own ``perturb`` (the estimator's
``_perturbation``: the same ε split, b density, Δ fallback, certified
tolerance τ and residual noise) twice with the draw's generator state: once to
learn b/n (the solve is deferred), and once, from the same state, with the
batch's solution, so that ``perturb`` itself checks ‖∇J_b(w)‖ ≤ τ and adds the
residual noise Z. The released vectors are therefore those that
``estimator.fit`` releases with the same generator, to the solver tolerance
(``tests/reproduce`` checks this). A draw the batch does not certify is
solved again, alone, by the estimator's solver (:func:`dpsvm.solvers.solve_smooth`);
if that also fails, ``perturb`` raises and nothing is released for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from ..exceptions import DPSVMConvergenceError
from ..losses import HuberLoss, Loss
from ..solvers import SolverResult, solve_smooth

__all__ = ["BatchSolution", "release_batch", "solve_smooth_batch"]

FloatArray = NDArray[np.float64]

#: A full Newton step is taken without a line search when it shrinks the best
#: gradient norm of its draw at least this much (as in dpsvm.solvers).
_ACCEPT = 0.5
#: Rows whose curvature ℓ″ is below this fraction of the largest are left out
#: of the Newton matrix (logistic rows far from the margin). The matrix only
#: chooses the step; every step is judged by the exact gradient over all rows.
_CURVATURE_FLOOR = 1e-8
#: Newton matrices are built on a systematic sample of at most this many rows
#: (a sub-sampled Hessian: Byrd, Chin, Neveitt & Nocedal, SIAM J. Optim. 21,
#: 2011), and kept while each full step cuts ‖∇J‖ at least _KEEP-fold.
_HESSIAN_ROWS = 8192
_KEEP = 0.1
#: A damped step after this many iterations switches a draw to the full matrix.
_LATE = 5


@dataclass
class BatchSolution:
    """Minimisers of K perturbed objectives and their certificates.

    Attributes
    ----------
    coef : ndarray of shape (K, n_features)
        The iterates.
    grad_norm : ndarray of shape (K,)
        ‖∇J_k(w_k)‖₂, the exact float64 gradient over every row, from margins
        recomputed from scratch.
    n_iter : ndarray of shape (K,)
        Newton iterations of each draw.
    """

    coef: FloatArray
    grad_norm: FloatArray
    n_iter: NDArray[np.int64]


def _derivative(loss: Loss, Z: FloatArray) -> FloatArray:
    """ℓ′(Z), in place for the Huber loss (its ``value_and_derivative`` formula)."""
    if isinstance(loss, HuberLoss):
        h = loss.h
        Z *= -1.0
        Z += 1.0 + h  # t = 1 + h − z
        np.clip(Z, 0.0, 2.0 * h, out=Z)
        Z *= -1.0 / (2.0 * h)
        return Z
    return np.asarray(loss.derivative(Z))


def _loss_sums(loss: Loss, Z: FloatArray) -> FloatArray:
    """Σᵢ ℓ(Zᵢₖ) per column (Z is overwritten for the Huber loss)."""
    if isinstance(loss, HuberLoss):
        h = loss.h
        Z *= -1.0
        Z += 1.0 + h  # t = 1 + h − z; ℓ = u²/(4h) + max(t − 2h, 0), u = clip(t)
        U = np.clip(Z, 0.0, 2.0 * h)
        out = np.einsum("ij,ij->j", U, U) / (4.0 * h)
        Z -= 2.0 * h
        np.maximum(Z, 0.0, out=Z)
        return np.asarray(out + Z.sum(axis=0))
    return np.asarray(np.sum(loss.value(Z), axis=0))


def _gradients(
    X: FloatArray,
    yf: FloatArray,
    M: FloatArray,
    loss: Loss,
    lam: float,
    W: FloatArray,
    Lin: FloatArray,
) -> FloatArray:
    """∇J_k at the columns of W (d × K), from the margins M = X·W (n × K)."""
    n = X.shape[0]
    R = _derivative(loss, yf[:, None] * M)
    R *= yf[:, None]
    G = X.T @ R
    G /= n
    G += lam * W
    G += Lin
    return np.asarray(G)


def _values(
    yf: FloatArray,
    M: FloatArray,
    loss: Loss,
    lam: float,
    W: FloatArray,
    Lin: FloatArray,
) -> FloatArray:
    """J_k at the columns of W, from the margins M."""
    n = M.shape[0]
    f = _loss_sums(loss, yf[:, None] * M) / n
    return np.asarray(f + 0.5 * lam * np.sum(W * W, axis=0) + np.sum(Lin * W, axis=0))


def _newton_matrix(
    Xh: NDArray[np.float32], curvature: FloatArray, lam: float
) -> FloatArray:
    """(1/m)Σ ℓ″ᵢ xᵢxᵢᵀ + λI over the m sampled rows ``Xh`` (float32 products).

    Rows of negligible curvature are skipped. The matrix only chooses the step
    (every step is judged by the exact float64 gradient over all rows), so a
    sample and single precision cost speed at most, never accuracy.
    """
    m, d = Xh.shape
    top = float(curvature.max()) if curvature.size else 0.0
    H = np.zeros((d, d))
    if top > 0.0:
        rows = np.flatnonzero(curvature >= _CURVATURE_FLOOR * top)
        A = Xh[rows] * np.sqrt(curvature[rows] / m).astype(np.float32)[:, None]
        H += A.T @ A  # BLAS ssyrk
    H[np.diag_indices_from(H)] += lam
    return H


def _direction(H: FloatArray, g: FloatArray) -> FloatArray:
    try:
        c = scipy.linalg.cho_factor(H, check_finite=False)
        return np.asarray(-scipy.linalg.cho_solve(c, g, check_finite=False))
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        return np.asarray(-g / np.diag(H).max())


def solve_smooth_batch(
    X: FloatArray,
    y: NDArray[Any],
    loss: Loss,
    lam: float,
    linear: FloatArray,
    *,
    tol: float,
    max_iter: int = 200,
    w0: FloatArray | None = None,
) -> BatchSolution:
    """Minimise J_k(w) = (1/n)Σℓ(yᵢwᵀxᵢ) + (λ/2)‖w‖² + a_kᵀw for K linear terms.

    Newton's method with Armijo backtracking on each draw, the K draws advanced
    together: one X·P and one Xᵀ·R product (n × d × K) per iteration. Each
    draw's Newton matrix uses its own curved rows (exact for Huber, whose ℓ″ is
    0 or c); the matrix only chooses the step. A draw stops when the exact
    float64 gradient over every row has ‖∇J_k‖ ≤ ``tol``; the returned norms
    are recomputed from scratch at the returned iterates.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Rows (float64; the estimator's internal design).
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    loss : Loss
        A loss with a second derivative (Huber, logistic).
    lam : float
        Strong convexity λ > 0 (regularisation plus any extra Δ).
    linear : ndarray of shape (K, n_features)
        The linear terms a_k (b_k/n of objective perturbation).
    tol : float
        Target gradient norm of every draw.
    max_iter : int, default=200
        Iteration cap per draw.
    w0 : ndarray of shape (n_features,), optional
        Common starting point (zeros by default).

    Returns
    -------
    BatchSolution
        The iterates, their certified gradient norms and iteration counts; a
        draw with ``grad_norm > tol`` was not solved.

    Examples
    --------
    >>> from dpsvm.losses import LogisticLoss
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    >>> y = np.array([1.0, 1.0, -1.0])
    >>> sol = solve_smooth_batch(X, y, LogisticLoss(), 0.1, np.zeros((2, 2)), tol=1e-10)
    >>> bool(np.all(sol.grad_norm <= 1e-10))
    True
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    yf = np.asarray(y, dtype=np.float64)
    Lin = np.ascontiguousarray(np.asarray(linear, dtype=np.float64).T)  # d × K
    d, K = Lin.shape
    n = X.shape[0]
    W = (
        np.zeros((d, K))
        if w0 is None
        else np.repeat(np.asarray(w0, dtype=np.float64)[:, None], K, axis=1)
    )
    # The Newton matrices are built on a fixed systematic sample of the rows.
    stride = max(1, -(-n // _HESSIAN_ROWS))
    Xh = np.ascontiguousarray(X[::stride], dtype=np.float32)
    yh = yf[::stride]
    # A draw whose sampled matrix led to a damped step late, or to no decrease,
    # continues with the matrix over every row.
    X32 = Xh if stride == 1 else None
    use_all = np.zeros(K, dtype=bool)
    n_iter = np.zeros(K, dtype=np.int64)
    active = np.arange(K)
    M = X @ W
    G = _gradients(X, yf, M, loss, lam, W, Lin)
    gn = np.linalg.norm(G, axis=0)
    best = gn.copy()
    stalled = np.zeros(K, dtype=bool)
    H = np.zeros((K, d, d))
    fresh = np.zeros(K, dtype=bool)  # H[k] is valid for the current iterate
    while True:
        active = active[(gn[active] > tol) & (n_iter[active] < max_iter)]
        active = active[~stalled[active]]
        if active.size == 0:
            break
        n_iter[active] += 1
        build = active[~fresh[active]]
        if build.size:
            sampled = build[~use_all[build]]
            curv = loss.second_derivative(yh[:, None] * M[::stride, sampled])
            if w0 is not None and np.all(n_iter[build] == 1) and build.size == K:
                # Every draw starts at the same w: one matrix serves all.
                H[build] = _newton_matrix(Xh, curv[:, 0], lam)
            else:
                for j, k in enumerate(sampled):
                    H[k] = _newton_matrix(Xh, curv[:, j], lam)
            del curv
            for k in build[use_all[build]]:
                if X32 is None:
                    X32 = X.astype(np.float32)
                H[k] = _newton_matrix(X32, loss.second_derivative(yf * M[:, k]), lam)
        P = np.empty((d, active.size))
        for j, k in enumerate(active):
            P[:, j] = _direction(H[k], G[:, k])
        XP = X @ P
        W_try = W[:, active] + P
        M_try = M[:, active] + XP
        G_try = _gradients(X, yf, M_try, loss, lam, W_try, Lin[:, active])
        gn_try = np.linalg.norm(G_try, axis=0)
        full = gn_try <= _ACCEPT * best[active]
        g_old = G[:, active].copy()
        gn_old = gn[active].copy()
        # Full steps that halve the best gradient norm: accepted as they are.
        take = active[full]
        W[:, take] = W_try[:, full]
        M[:, take] = M_try[:, full]
        G[:, take] = G_try[:, full]
        gn[take] = gn_try[full]
        best[take] = np.minimum(best[take], gn_try[full])
        # Lazy matrices: kept (with a BFGS update from the exact secant pair)
        # after a full step that cut ‖∇J‖ at least _KEEP-fold; else rebuilt.
        fresh[active] = False
        for j in map(int, np.flatnonzero(full & (gn_try <= _KEEP * gn_old))):
            kk = int(active[j])
            sv, yv = P[:, j], G[:, kk] - g_old[:, j]
            ys, Hs = float(yv @ sv), H[kk] @ sv
            sHs = float(sv @ Hs)
            if ys > 0 and sHs > 0:
                H[kk] += np.outer(yv, yv) / ys - np.outer(Hs, Hs) / sHs
            fresh[kk] = True
        rest = np.flatnonzero(~full)
        if rest.size == 0:
            continue
        # Armijo backtracking on J for the others, on the margins alone.
        ks = active[rest]
        Pk, XPk = P[:, rest], XP[:, rest]
        Wk, Mk, Link = W[:, ks], M[:, ks], Lin[:, ks]
        f0 = _values(yf, Mk, loss, lam, Wk, Link)
        slope = np.sum(G[:, ks] * Pk, axis=0)
        t = np.ones(ks.size)
        f_try = _values(yf, M_try[:, rest], loss, lam, W_try[:, rest], Link)
        ok = f_try <= f0 + 1e-4 * slope
        for _ in range(60):
            todo = np.flatnonzero(~ok)
            if todo.size == 0:
                break
            t[todo] *= 0.5
            tt = t[todo]
            f_t = _values(
                yf,
                Mk[:, todo] + tt * XPk[:, todo],
                loss,
                lam,
                Wk[:, todo] + tt * Pk[:, todo],
                Link[:, todo],
            )
            ok[todo] = f_t <= f0[todo] + 1e-4 * tt * slope[todo]
        failed = ks[~ok]
        # No decrease along the step: retry with the matrix over every row
        # (a draw already on it has stalled in floating point).
        stalled[failed[use_all[failed]]] = True
        use_all[failed] = True
        late = ks[ok & (t < 1.0)]
        use_all[late[n_iter[late] > _LATE]] = True
        moved = np.flatnonzero(ok)
        if moved.size == 0:
            continue
        km, tm = ks[moved], t[moved]
        W[:, km] = Wk[:, moved] + tm * Pk[:, moved]
        M[:, km] = Mk[:, moved] + tm * XPk[:, moved]
        G[:, km] = _gradients(X, yf, M[:, km], loss, lam, W[:, km], Lin[:, km])
        gn[km] = np.linalg.norm(G[:, km], axis=0)
        best[km] = np.minimum(best[km], gn[km])
    # The certificate: margins and gradients from scratch at the iterates.
    M = X @ W
    G = _gradients(X, yf, M, loss, lam, W, Lin)
    return BatchSolution(np.ascontiguousarray(W.T), np.linalg.norm(G, axis=0), n_iter)


class _Deferred:
    """A solve that records the linear term and returns a placeholder."""

    def __init__(self, dim: int) -> None:
        self.linear: FloatArray | None = None
        self.strong: float | None = None
        self._dim = dim

    def __call__(self, strong: float, linear: FloatArray) -> SolverResult:
        self.strong, self.linear = float(strong), np.array(linear, dtype=np.float64)
        zero = np.zeros(self._dim)
        return SolverResult(zero, 0.0, 0.0, math.nan, 0, "deferred")


def release_batch(
    plan: Any,
    X: FloatArray,
    y: NDArray[Any],
    loss: Loss,
    generators: Sequence[np.random.Generator],
    *,
    max_iter: int,
    w0: FloatArray | None = None,
) -> list[FloatArray | None]:
    """One release of an objective-perturbation ``plan`` per generator, solved together.

    Each generator is used as ``plan.perturb(solve, generator)`` uses it in
    ``DPLinearSVC.fit`` / ``DPLogisticRegression.fit``: b is drawn, the
    perturbed problem solved to the plan's τ, the residual noise Z drawn. The
    solves of all draws are one :func:`solve_smooth_batch`.

    Parameters
    ----------
    plan : ObjectivePerturbation
        The estimator's calibration (``estimator._perturbation(...)``).
    X : ndarray of shape (n_samples, n_features)
        The estimator's internal rows (``estimator._prepare_fit``).
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    loss : Loss
        The estimator's loss.
    generators : sequence of numpy.random.Generator
        One per draw; each is advanced exactly as by ``estimator.fit``.
    max_iter : int
        The estimator's ``max_iter`` (also the cap of a draw solved alone).
    w0 : ndarray of shape (n_features,), optional
        Common starting point of the batch.

    Returns
    -------
    list of (ndarray or None)
        The released w of each draw, or None where the fit was refused
        (:class:`~dpsvm.exceptions.DPSVMConvergenceError`: nothing released).
    """
    d = X.shape[1]
    states = []
    linear = np.empty((len(generators), d))
    strong = None
    for i, gen in enumerate(generators):
        # (the same generator may serve several draws in turn, as in a loop of fits)
        states.append(gen.bit_generator.state)
        rec = _Deferred(d)
        plan.perturb(rec, gen, max_iter=max_iter)  # draws b (and Z), solves nothing
        assert rec.linear is not None
        linear[i] = rec.linear
        strong = rec.strong
    assert strong is not None
    sol = solve_smooth_batch(
        X, y, loss, strong, linear, tol=plan.tol, max_iter=max_iter, w0=w0
    )
    out: list[FloatArray | None] = []
    for i, gen in enumerate(generators):
        gen.bit_generator.state = states[i]  # the draw again, from its start

        def serve(lam: float, lin: FloatArray, i: int = i) -> SolverResult:
            assert lam == strong and np.array_equal(lin, linear[i])
            gn = float(sol.grad_norm[i])
            if gn <= plan.tol:
                w = sol.coef[i]
                return SolverResult(
                    w, gn / lam, gn, math.nan, int(sol.n_iter[i]), "batch-newton"
                )
            # Not certified in the batch: the estimator's own solver, alone.
            return solve_smooth(
                X, y, loss, lam, linear=lin, tol=plan.tol, max_iter=max_iter
            )

        try:
            out.append(np.asarray(plan.perturb(serve, gen, max_iter=max_iter).value))
        except DPSVMConvergenceError:
            out.append(None)
    return out
