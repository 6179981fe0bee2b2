# SPDX-License-Identifier: BSD-3-Clause
"""The hinge loss: :func:`solve_hinge` and its duality-gap certificate.

Weak duality bounds J(w) − J(w*) by the gap of any feasible dual point, and
λ-strong convexity turns it into ‖w − w*‖ ≤ √(2·gap/λ) (see
:mod:`dpsvm.solvers._erm`). The problem is solved by liblinear's dual
coordinate descent, finished by a Huber continuation through
:func:`~dpsvm.solvers.solve_smooth` when that stalls on degenerate data.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import scipy.optimize
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from ..utils._types import FloatArray
from ._design import as_design
from ._smooth import SolverResult, solve_smooth

__all__ = ["solve_hinge"]


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
