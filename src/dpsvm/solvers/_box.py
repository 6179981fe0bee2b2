# SPDX-License-Identifier: BSD-3-Clause
"""Certified, bias-free solvers for the regularised ERM of Nie & Wang (eq. (1)).

The problems are stated in the library's convention (Λ = ``regularization``):

    P(w) = (1/n) Σᵢ ℓᵢ(⟨w, φᵢ⟩) + (Λ/2)‖w‖² + μ‖w‖₁,            (1)

over w in a feature space with rows φᵢ (explicit features, or a factor Φ of a
Gram matrix K = ΦΦᵀ for a kernel; then ⟨w, φᵢ⟩ = f(xᵢ) and ‖w‖ = ‖f‖_K for f in
the span of the K(xᵢ, ·), which contains the minimiser by the representer
theorem). With λ_NW = Λ/2 and Ω = ‖·‖² + (μ/λ_NW)‖·‖₁ (γ = 2) this is [NW] eq. (1),
and P is Λ-strongly convex whatever μ ≥ 0 is.

**Piecewise-linear losses.** Hinge, pinball and absolute losses are all of the
form ℓᵢ(t) = max_{a ∈ [loᵢ, hiᵢ]} a·(rᵢ − t) (hinge: rᵢ = yᵢ ∈ {±1} and the box
[min(0, yᵢ), max(0, yᵢ)]; pinball τ: rᵢ = yᵢ and [τ − 1, τ]; absolute: [−1, 1]).
The Lagrange dual of (1) is then the box-constrained concave quadratic

    D(a) = (1/n) Σ aᵢrᵢ − (1/(2Λ))‖soft(Φᵀa/n, μ)‖²,   a ∈ Π [loᵢ, hiᵢ],

whose primal point is v(a) = soft(Φᵀa/n, μ)/Λ (soft = soft-thresholding; for
μ = 0, v(a) = Σ aᵢφᵢ/(nΛ): the kernel coefficients are aᵢ/(nΛ)). Using
Λ‖v‖² + μ‖v‖₁ = (1/n) Σ aᵢ tᵢ with tᵢ = ⟨v(a), φᵢ⟩, the duality gap at v(a) is
a sum of non-negative terms,

    P(v(a)) − D(a) = (1/n) Σ (rᵢ − tᵢ)·(sᵢ − aᵢ),   sᵢ = hiᵢ if rᵢ > tᵢ else loᵢ,

which we evaluate in that form (no cancellation). Weak duality and Λ-strong
convexity give the certificate ‖v(a) − w*‖ ≤ √(2·gap/Λ) for *any* feasible a.
For a kernel the tᵢ are computed with the exact Gram matrix, so the certificate
does not depend on the accuracy of the factor Φ.

Finding a good dual point. For explicit features (and as the kernel fallback,
on a pivoted-Cholesky factor of K): Moreau (Huber-type) smoothing with
continuation h → 0. ℓᵢ,ₕ(t) = max_a a(rᵢ − t) − (h/2)a² is C¹ and piecewise
quadratic, so Newton's method on the primal converges in a few steps; its
maximiser aᵢ = clip((rᵢ − tᵢ)/h, loᵢ, hiᵢ) is dual feasible and the gap terms
are O(h). This is the construction of ``_hinge_by_smoothing`` in
:mod:`dpsvm.solvers._hinge`, generalised to any box. For a kernel, greedy dual
coordinate ascent (the box-only dual of a bias-free kernel machine, O(n) per
step) runs first. Each stage ends with an exact active-set step (solve for the
free aᵢ so that tᵢ = rᵢ on the free set), which usually closes the gap to
rounding level.

**Square loss with bounded labels.** ℓᵢ(t) = (t − rᵢ)² ([NW] Sec. 5.1, no ½):
closed form (kernel ridge c = (K + (nΛ/2)I)⁻¹r, i.e. NW's (K + λ_NW·m·I)⁻¹y),
certified by the gradient norm, ‖w − w*‖ ≤ ‖∇P(w)‖/Λ.

References
----------
.. [NW] W. Nie, C. Wang, "Perturbation of convex risk minimization and its
   application in differential private learning algorithms", J. Inequal. Appl.,
   eq. (1), Theorem 2 and Section 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
import scipy.optimize
from numpy.typing import NDArray

__all__ = [
    "BoxSolution",
    "box_loss",
    "kernel_factor",
    "solve_box_erm",
    "solve_squared_erm",
]

FloatArray = NDArray[np.float64]

#: Continuation schedule of the smoothing width, relative to the target scale.
_SMOOTHING = (1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12)

#: Largest free set solved by bounded least squares (bvls is cubic per sweep).
_BVLS_MAX = 50


@dataclass(frozen=True)
class BoxSolution:
    """Outcome of a certified solve.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        The certified point w in the feature space of ``Phi`` (for a kernel:
        the minimiser's coordinates in the factor's space).
    dual_coef : ndarray of shape (n_samples,) or None
        Coefficients c with w = Σ cᵢφᵢ (the kernel expansion f = Σ cᵢK(xᵢ, ·));
        ``None`` when μ > 0 (no representer form).
    gap : float
        Certified duality gap (``nan`` for the square loss).
    distance_bound : float
        Certified bound on ‖coef − w*‖ (the RKHS distance for a kernel).
    n_iter : int
        Newton iterations used.
    method : str
        ``"smoothing"``, ``"smoothing+active-set"`` or ``"closed-form"``.
    """

    coef: FloatArray
    dual_coef: FloatArray | None
    gap: float
    distance_bound: float
    n_iter: int
    method: str


def box_loss(
    loss: str, y: FloatArray, quantile: float = 0.5
) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """Box form ℓᵢ(t) = max_{a ∈ [loᵢ, hiᵢ]} a(rᵢ − t) of a piecewise-linear loss.

    Parameters
    ----------
    loss : {"hinge", "pinball", "absolute"}
        The loss. ``"hinge"`` needs labels in {−1, +1}.
    y : ndarray of shape (n_samples,)
        Targets.
    quantile : float, default=0.5
        τ ∈ (0, 1) of the pinball loss ρ_τ(u) = max(τu, (τ − 1)u), u = y − t.

    Returns
    -------
    lo, hi, r : ndarray of shape (n_samples,)
        Box bounds and targets.
    lipschitz : float
        C_L = max |a| over the box: 1 (hinge, absolute), max(τ, 1 − τ) (pinball).

    Examples
    --------
    >>> lo, hi, r, L = box_loss("pinball", np.array([0.0, 2.0]), 0.75)
    >>> lo.tolist(), hi.tolist(), L
    ([-0.25, -0.25], [0.75, 0.75], 0.75)
    """
    y = np.asarray(y, dtype=np.float64)
    if loss == "hinge":
        # max(0, 1 − yt) = max_{α∈[0,1]} α(1 − yt) = max_{a=αy} a(y − t), y = ±1.
        return np.minimum(0.0, y), np.maximum(0.0, y), y.copy(), 1.0
    if loss == "pinball":
        tau = float(quantile)
        # ρ_τ(u) = max(τu, (τ − 1)u) = max_{a∈[τ−1, τ]} a·u, C_L = max(τ, 1 − τ).
        lo = np.full_like(y, tau - 1.0)
        hi = np.full_like(y, tau)
        return lo, hi, y.copy(), max(tau, 1.0 - tau)
    if loss == "absolute":
        # |u| = max_{a∈[−1, 1]} a·u, C_L = 1.
        return np.full_like(y, -1.0), np.ones_like(y), y.copy(), 1.0
    raise ValueError(f"Unknown piecewise-linear loss {loss!r}.")


def kernel_factor(gram: FloatArray) -> FloatArray:
    """A low-rank factor Φ with ΦΦᵀ ≈ K (pivoted Cholesky, LAPACK ``dpstrf``).

    The pivoting stops when the largest remaining diagonal entry falls below
    LAPACK's default tolerance (n·ε_mach·max Kᵢᵢ), so the rank adapts to the
    kernel. Only used to *find* the solution; certificates use ``gram`` itself.

    Parameters
    ----------
    gram : ndarray of shape (n_samples, n_samples)
        A positive semi-definite Gram matrix.

    Returns
    -------
    ndarray of shape (n_samples, rank)
        The factor.

    Examples
    --------
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> Phi = kernel_factor(K)
    >>> bool(np.allclose(Phi @ Phi.T, K))
    True
    """
    n = gram.shape[0]
    if n == 0:
        return np.zeros((0, 0))
    K = np.array(0.5 * (gram + gram.T), dtype=np.float64, order="F")
    c, piv, rank, info = scipy.linalg.lapack.dpstrf(K, lower=1)
    if info < 0:  # pragma: no cover - invalid argument to LAPACK
        raise RuntimeError(f"dpstrf failed with info={info}.")
    rank = int(rank)
    if rank == 0:  # K = 0: every f in the span is 0
        return np.zeros((n, 1))
    # dpstrf: Pᵀ K P = L Lᵀ with P the permutation piv (1-based).
    L = np.tril(c)[:, :rank]
    Phi = np.empty((n, rank))
    Phi[np.asarray(piv) - 1] = L
    return Phi


def _psd_solve(A: FloatArray, b: FloatArray) -> FloatArray:
    """Solve Ax = b for symmetric PSD A: Cholesky, else least squares.

    ``cho_factor`` does not estimate the condition number, so no
    ``LinAlgWarning`` is raised on the (expected) ill-conditioned systems; the
    result is only a candidate, certified by a duality gap afterwards.
    """
    try:
        return np.asarray(
            scipy.linalg.cho_solve(
                scipy.linalg.cho_factor(A, lower=True, check_finite=False),
                b,
                check_finite=False,
            )
        )
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
        return np.asarray(
            scipy.linalg.lstsq(A, b, cond=1e-13, lapack_driver="gelsy")[0]
        )


def _soft(u: FloatArray, mu: float) -> FloatArray:
    if mu == 0.0:
        return u
    return np.sign(u) * np.maximum(np.abs(u) - mu, 0.0)


def _smoothed_newton(
    problem: _Certifier, h: float, w: FloatArray, max_iter: int = 100
) -> tuple[FloatArray, int]:
    """Minimise the h-smoothed (1) by Newton's method with Armijo backtracking.

    The problem (features, box, λ, μ) is the one ``problem`` certifies.
    """
    Phi, lo, hi, r = problem.Phi, problem.lo, problem.hi, problem.r
    lam, mu = problem.lam, problem.mu
    n, D = Phi.shape

    def fun(v: FloatArray) -> tuple[float, FloatArray, FloatArray]:
        t = Phi @ v
        s = (r - t) / h
        a = np.clip(s, lo, hi)
        f = float(np.sum(a * (r - t) - 0.5 * h * a * a)) / n + 0.5 * lam * float(v @ v)
        g = lam * v - Phi.T @ a / n
        if mu > 0.0:
            b = np.clip(v / h, -1.0, 1.0)
            f += mu * float(np.sum(b * v - 0.5 * h * b * b))
            g = g + mu * b
        return f, g, s

    f, g, s = fun(w)
    gtol = 1e-13 * (1.0 + float(np.max(np.abs(r))) if r.size else 1.0)
    it = 0
    while it < max_iter:
        gn = float(np.linalg.norm(g))
        if gn <= gtol:
            break
        it += 1
        active = (s > lo) & (s < hi)
        diag = np.full(D, lam)
        if mu > 0.0:
            diag = diag + (mu / h) * (np.abs(w) < h)
        U = Phi[active] / math.sqrt(n * h)
        try:
            if U.shape[0] < D:
                # Woodbury: (diag + UᵀU)⁻¹ = Dg⁻¹ − Dg⁻¹Uᵀ(I + UDg⁻¹Uᵀ)⁻¹UDg⁻¹.
                gd = g / diag
                inner = U @ (U.T / diag[:, None])
                inner[np.diag_indices_from(inner)] += 1.0
                z = _psd_solve(inner, U @ gd)
                p = -(gd - (U.T @ z) / diag)
            else:
                H = U.T @ U
                H[np.diag_indices_from(H)] += diag
                p = -_psd_solve(H, g)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            p = -g / diag
        slope = float(g @ p)
        if not slope < 0.0:
            p, slope = -g / diag, -float(g @ (g / diag))
        step = 1.0
        for _ in range(60):
            f_new, g_new, s_new = fun(w + step * p)
            if f_new <= f + 1e-4 * step * slope:
                break
            # Near the optimum f changes by less than its rounding error: accept
            # a step that shrinks the gradient without raising f beyond rounding.
            if (
                f_new <= f + 1e-13 * max(1.0, abs(f))
                and float(np.linalg.norm(g_new)) < 0.9 * gn
            ):
                break
            step *= 0.5
        else:
            break  # no decrease possible in floating point
        w = w + step * p
        f, g, s = f_new, g_new, s_new
    return w, it


class _Certifier:
    """Duality-gap certificates of dual points a (see the module docstring)."""

    def __init__(
        self,
        Phi: FloatArray,
        lo: FloatArray,
        hi: FloatArray,
        r: FloatArray,
        lam: float,
        mu: float,
        gram: FloatArray | None,
    ) -> None:
        self.Phi, self.lo, self.hi, self.r = Phi, lo, hi, r
        self.lam, self.mu, self.gram = lam, mu, gram
        self.n = Phi.shape[0]

    def point(self, a: FloatArray) -> FloatArray:
        # v(a) = soft(Φᵀa/n, μ)/Λ.
        return _soft(self.Phi.T @ a / self.n, self.mu) / self.lam

    def margins(self, a: FloatArray, v: FloatArray) -> FloatArray:
        if self.gram is not None:
            # Kernel: f = Σ aᵢK(xᵢ, ·)/(nΛ) evaluated with the exact Gram matrix.
            return np.asarray(self.gram @ a / (self.n * self.lam), dtype=np.float64)
        return np.asarray(self.Phi @ v, dtype=np.float64)

    def gap(self, a: FloatArray) -> tuple[float, FloatArray]:
        v = self.point(a)
        t = self.margins(a, v)
        resid = self.r - t
        sel = np.where(resid > 0.0, self.hi, self.lo)
        # P(v(a)) − D(a) = (1/n) Σ (rᵢ − tᵢ)(sᵢ − aᵢ), every term ≥ 0.
        terms = resid * (sel - a)
        return max(float(np.sum(terms)) / self.n, 0.0), v

    def active_set(self, a: FloatArray) -> list[FloatArray]:
        """Solve for the free aᵢ so that tᵢ = rᵢ on the free set.

        With μ > 0 (explicit features) the support J and signs σ of v(a) are
        frozen: v_J = (Φ_Jᵀa/n − μσ)/Λ, so the conditions stay linear in a.
        Returns candidates (a plain solve, clipped to the box, and for small free
        sets a bounded least-squares solve); each is certified by :meth:`gap`.
        """
        free = (a > self.lo) & (a < self.hi)
        if not np.any(free) or np.all(free):
            return []
        bound = ~free
        nl = self.n * self.lam
        rhs = nl * self.r[free]
        if self.gram is not None:
            G_ff = self.gram[np.ix_(free, free)]
            G_fb = self.gram[np.ix_(free, bound)]
        else:
            P = self.Phi
            if self.mu > 0.0:
                u = P.T @ a / self.n
                J = np.abs(u) > self.mu
                P = P[:, J]
                # tᵢ = Φᵢ_J(Φ_Jᵀa/n − μσ)/Λ: move the μσ term to the right side.
                rhs = rhs + self.n * self.mu * (P[free] @ np.sign(u[J]))
            P_f = P[free]
            G_ff = P_f @ P_f.T
            G_fb = P_f @ P[bound].T
        # tᵢ = (G a)ᵢ/(nΛ) = rᵢ on the free set:  G_ff a_f = nΛ r_f − G_fb a_b.
        rhs = rhs - G_fb @ a[bound]
        lo_f, hi_f = self.lo[free], self.hi[free]
        out = []
        sol = _psd_solve(G_ff, rhs)
        cand = a.copy()
        cand[free] = np.clip(sol, lo_f, hi_f)
        out.append(cand)
        inside = bool(np.all((sol >= lo_f) & (sol <= hi_f)))
        if not inside and G_ff.shape[0] <= _BVLS_MAX:
            bv = scipy.optimize.lsq_linear(
                G_ff, rhs, bounds=(lo_f, hi_f), method="bvls", tol=1e-15
            )
            cand = a.copy()
            cand[free] = np.clip(bv.x, lo_f, hi_f)
            out.append(cand)
        return out


_Best = tuple[float, FloatArray, FloatArray, str]


def _keep_best(
    best: _Best | None, cert: _Certifier, candidates: list[tuple[FloatArray, str]]
) -> tuple[_Best | None, bool]:
    """Certify the candidates; return the best so far and whether it improved."""
    improved = False
    for cand, method in candidates:
        gap, v = cert.gap(cand)
        if best is None or gap < best[0]:
            best, improved = (gap, v, cand, method), True
    return best, improved


def _certified(best: _Best | None, lam: float, target: float) -> bool:
    return best is not None and math.sqrt(2.0 * best[0] / lam) <= target


def _kernel_dca(
    gram: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
    r: FloatArray,
    lam: float,
    cert: _Certifier,
    target_distance: float,
    a0: FloatArray,
    best: _Best | None,
    max_epochs: int,
) -> tuple[_Best | None, int]:
    """Greedy dual coordinate ascent on D(a), certified after every epoch.

    Each step maximises D exactly along the coordinate with the largest clipped
    step, aᵢ ← clip(aᵢ + nΛ(rᵢ − tᵢ)/Kᵢᵢ, loᵢ, hiᵢ) (the box-only dual of a
    bias-free kernel machine: no equality constraint), keeping t = Ka/(nΛ) up to
    date in O(n). After each epoch the exact active-set step is tried.
    """
    n = r.shape[0]
    nl = n * lam
    diag = np.diag(gram).copy()
    diag = np.where(diag > 0.0, diag, 1e-300)  # Kᵢᵢ = 0: aᵢ goes to its bound
    a = np.clip(a0, lo, hi)
    steps = 0
    for _ in range(max_epochs):
        t = gram @ a / nl  # refresh (no drift)
        stalled = False
        for _ in range(n):
            with np.errstate(over="ignore"):  # Kᵢᵢ ≈ 0: ±inf, clipped to the box
                z = np.clip(a + nl * (r - t) / diag, lo, hi) - a
            i = int(np.argmax(np.abs(z)))
            step = float(z[i])
            if not abs(step) > 1e-15 * max(1.0, abs(float(a[i]))):
                stalled = True
                break
            a[i] += step
            t += (step / nl) * gram[:, i]
            steps += 1
        candidates = [(a.copy(), "dual-cd")] + [
            (c, "dual-cd+active-set") for c in cert.active_set(a)
        ]
        best, _ = _keep_best(best, cert, candidates)
        if _certified(best, lam, target_distance) or stalled:
            break
    return best, steps


def _smoothing(
    cert: _Certifier, target_distance: float, best: _Best | None
) -> tuple[_Best | None, int]:
    """Smoothing continuation h → 0 with Newton steps and active-set polish.

    The problem (features, box, λ, μ) is the one ``cert`` certifies.
    """
    Phi, lo, hi, r, lam = cert.Phi, cert.lo, cert.hi, cert.r, cert.lam
    n, D = Phi.shape
    scale = max(1.0, float(np.max(np.abs(r)))) if n else 1.0
    w = np.zeros(D)
    own: _Best | None = None  # progress of this method alone
    iters = 0
    for rel_h in _SMOOTHING:
        h = rel_h * scale
        w, it = _smoothed_newton(cert, h, w)
        iters += it
        a = np.clip((r - Phi @ w) / h, lo, hi)
        candidates = [(a, "smoothing")] + [
            (c, "smoothing+active-set") for c in cert.active_set(a)
        ]
        own, improved = _keep_best(own, cert, candidates)
        best, _ = _keep_best(best, cert, [(own[2], own[3])] if own else [])
        if _certified(best, lam, target_distance) or not improved:
            # Done, or Newton stalls at this width (floating point): stop.
            break
    return best, iters


def solve_box_erm(
    Phi: FloatArray | None,
    lo: FloatArray,
    hi: FloatArray,
    r: FloatArray,
    lam: float,
    *,
    l1: float = 0.0,
    gram: FloatArray | None = None,
    target_distance: float = 0.0,
) -> BoxSolution:
    """Minimise (1) for a piecewise-linear loss, with a duality-gap certificate.

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, n_features) or None
        Feature rows (already projected onto the public ball), or a factor of
        ``gram`` (``None``: computed by :func:`kernel_factor` if needed).
    lo, hi, r : ndarray of shape (n_samples,)
        The box form of the loss (:func:`box_loss`).
    lam : float
        Λ > 0, the strong-convexity modulus.
    l1 : float, default=0.0
        μ ≥ 0 of the μ‖w‖₁ term (explicit features only).
    gram : ndarray of shape (n_samples, n_samples), optional
        The exact Gram matrix (kernel mode); certificates then use it and
        ``dual_coef`` is the kernel expansion.
    target_distance : float, default=0.0
        Stop once the certified distance is at most this.

    Returns
    -------
    BoxSolution
        The certified point v(a), its coefficients, gap and distance bound
        (``coef`` is empty in kernel mode without ``Phi``).

    Examples
    --------
    >>> X = np.ones((10, 1)); y = np.ones(10); y[-1] = -1.0
    >>> lo, hi, r, _ = box_loss("hinge", y)
    >>> sol = solve_box_erm(X, lo, hi, r, 1.0)
    >>> round(float(sol.coef[0]), 10), sol.distance_bound < 1e-8
    (0.8, True)
    """
    if gram is not None and l1 > 0.0:
        raise ValueError("An l1 term needs explicit features, not a kernel.")
    n = r.shape[0]
    best: _Best | None = None
    iters = 0
    if gram is None:
        assert Phi is not None
        Phi = np.asarray(Phi, dtype=np.float64)
        cert = _Certifier(Phi, lo, hi, r, lam, l1, None)
        best, iters = _smoothing(cert, target_distance, None)
    else:
        # Kernel: a few epochs of dual coordinate ascent (certifies most
        # problems at O(n) per step); then smoothing continuation on a
        # pivoted-Cholesky factor (fast when K has low numerical rank); then
        # more coordinate ascent from the best dual point found.
        cert = _Certifier(np.zeros((n, 0)), lo, hi, r, lam, 0.0, gram)
        zero = np.zeros(n)
        best, it = _kernel_dca(
            gram, lo, hi, r, lam, cert, target_distance, zero, best, 10
        )
        iters += it
        if not _certified(best, lam, target_distance):
            factor = kernel_factor(gram) if Phi is None else np.asarray(Phi)
            fcert = _Certifier(factor, lo, hi, r, lam, 0.0, gram)
            best, it = _smoothing(fcert, target_distance, best)
            iters += it
        if not _certified(best, lam, target_distance):
            assert best is not None
            best, it = _kernel_dca(
                gram, lo, hi, r, lam, cert, target_distance, best[2], best, 200
            )
            iters += it
    assert best is not None
    gap, v, a, method = best
    if gram is not None:
        v = np.zeros(0) if Phi is None else np.asarray(Phi).T @ a / (n * lam)
    dual = None if l1 > 0.0 else a / (n * lam)
    return BoxSolution(v, dual, gap, math.sqrt(2.0 * gap / lam), iters, method)


def solve_squared_erm(
    Phi: FloatArray | None,
    r: FloatArray,
    lam: float,
    *,
    gram: FloatArray | None = None,
) -> BoxSolution:
    """Minimise (1/n)Σ(⟨w, φᵢ⟩ − rᵢ)² + (Λ/2)‖w‖² exactly ([NW] Sec. 5.1).

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, n_features) or None
        Feature rows; ``None`` with a ``gram`` (kernel ridge).
    r : ndarray of shape (n_samples,)
        Targets, already clipped to [−M, M].
    lam : float
        Λ > 0.
    gram : ndarray of shape (n_samples, n_samples), optional
        The Gram matrix (kernel mode).

    Returns
    -------
    BoxSolution
        The solution; ``distance_bound`` = ‖∇P‖/Λ, with the RKHS norm of the
        gradient bounded through ‖g‖₂·√(trace K) in kernel mode (robust to
        rounding). ``coef`` is empty in kernel mode without ``Phi``.

    Examples
    --------
    >>> X = np.ones((4, 1)); y = np.full(4, 1.0)
    >>> sol = solve_squared_erm(X, y, 2.0)   # (2/n)Σ(w − 1)·1 + 2w = 0 ⇒ w = ½
    >>> round(float(sol.coef[0]), 12)
    0.5
    """
    r = np.asarray(r, dtype=np.float64)
    n = r.shape[0]
    if gram is not None or (Phi is not None and Phi.shape[1] > n):
        if gram is not None:
            G = gram
        else:
            assert Phi is not None
            G = np.asarray(Phi @ Phi.T)
        # ∇P = 0 ⇔ w = Φᵀβ with (G + (nΛ/2)I)β = r  (NW: c = (K + λ_NW m I)⁻¹y).
        A = G.copy()
        A[np.diag_indices_from(A)] += 0.5 * n * lam
        beta = _psd_solve(A, r)
        beta = beta + _psd_solve(A, r - A @ beta)  # one step of refinement
        # ∇P(Φᵀβ) = Φᵀg with g = (2/n)(Gβ − r) + Λβ, and ‖Φᵀg‖² = gᵀGg ≤ ‖g‖²·tr G.
        g = 2.0 * (G @ beta - r) / n + lam * beta
        gnorm = float(np.linalg.norm(g)) * math.sqrt(max(float(np.trace(G)), 0.0))
        coef = np.asarray(Phi.T @ beta) if Phi is not None else np.zeros(0)
        return BoxSolution(coef, beta, math.nan, gnorm / lam, 0, "closed-form")
    assert Phi is not None
    D = Phi.shape[1]
    A = 2.0 * (Phi.T @ Phi) / n
    A[np.diag_indices(D)] += lam
    b = 2.0 * (Phi.T @ r) / n
    w = _psd_solve(A, b)
    w = w + _psd_solve(A, b - A @ w)  # one step of refinement
    grad = 2.0 * Phi.T @ (Phi @ w - r) / n + lam * w
    dual = 2.0 * (r - Phi @ w) / (n * lam)
    return BoxSolution(
        w, dual, math.nan, float(np.linalg.norm(grad)) / lam, 0, "closed-form"
    )
