# SPDX-License-Identifier: BSD-3-Clause
"""The iterations of :func:`~dpsvm.solvers.solve_smooth` (exact float64 certificate).

Newton's method with a warm start on a row subsample and a sub-sampled,
lazily rebuilt, BFGS-corrected Hessian (``_newton``); weighted Newton
(``_weighted_newton``); Newton-CG with exact Hessian-vector products
(``_newton_cg``); the one-pass-per-iteration L-BFGS of wide rows
(``_fused_lbfgs``); and their shared fused passes (``_grad_step``,
``_grad_at``), Armijo line search and final polish. None of the tuning below
changes the result: the gradient and the stopping test always use every row, so
the certificate ‖w − w*‖ ≤ ‖∇J(w)‖/λ of :mod:`dpsvm.solvers._smooth` is that of
the exact problem. The chunked Dask driver (:mod:`dpsvm.solvers._dask`) reuses
the warm start and the Newton direction.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.linalg

from ..utils._types import FloatArray

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
