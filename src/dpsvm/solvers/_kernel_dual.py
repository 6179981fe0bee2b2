# SPDX-License-Identifier: BSD-3-Clause
"""Exact dual solver of the bias-free kernel hinge SVM, certified by its duality gap.

The problem is Rubinstein, Bartlett, Huang & Taft (arXiv:0911.5708), Algorithm 1 (the
non-private kernel SVM), in their normalisation ½‖w‖² + (C/n)Σ hinge(yᵢf(xᵢ))
with C = 1/Λ and **no** bias; its dual (their eq. (5.1)) is

    max_α Σαᵢ − ½ΣΣαᵢαⱼyᵢyⱼk(xᵢ, xⱼ)   subject to 0 ≤ αᵢ ≤ C/n,

without the equality constraint Σαᵢyᵢ = 0 of a model with a bias (libsvm's
``SVC`` solves that other problem).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

__all__ = ["solve_kernel_hinge_dual"]

FloatArray = NDArray[np.float64]


def _hinge_dual_gap(a: FloatArray, Qa: FloatArray) -> float:
    """Duality gap of the box dual in the a = α/U scaling (U = C/n).

    With Q̃ = U·(yyᵀ ∘ K), Rubinstein et al.'s P_R(w(α)) − D_R(α) (their
    eq. (2.1) and dual (5.1): P_R = ½‖w‖² + (C/n)Σhinge, D_R = Σα − ½αᵀQα,
    w = Σαᵢyᵢφ(xᵢ), so yᵢf(xᵢ) = (Q̃a)ᵢ) equals
    U·Σᵢ[aᵢ(Q̃a)ᵢ − aᵢ + max(0, 1 − (Q̃a)ᵢ)]. Each term is ≥ 0 for
    aᵢ ∈ [0, 1]; summing them avoids cancellation. Returned: the sum.
    """
    terms = a * Qa - a + np.maximum(0.0, 1.0 - Qa)
    return float(np.sum(np.maximum(terms, 0.0)))


def _greedy_coordinate_descent(
    Q: FloatArray, a: FloatArray, g: FloatArray, n_steps: int, tol: float
) -> int:
    """Greedy (Gauss–Southwell) exact coordinate steps on ½aᵀQa − Σa, a ∈ [0, 1]ⁿ.

    Without the equality constraint a single coordinate can move alone, so each
    step is the exact 1-D minimiser clip(aᵢ − gᵢ/Qᵢᵢ, 0, 1) of the coordinate
    with the largest projected gradient (in place on ``a`` and ``g = Qa − 1``).
    """
    diag = np.maximum(np.diag(Q), 1e-300)  # Qᵢᵢ = 0 ⇒ row 0 ⇒ aᵢ → 1
    step = 0
    for step in range(1, n_steps + 1):  # noqa: B007 - reported
        viol = g.copy()
        viol[(a <= 0.0) & (g > 0.0)] = 0.0
        viol[(a >= 1.0) & (g < 0.0)] = 0.0
        i = int(np.argmax(np.abs(viol)))
        if abs(viol[i]) <= tol:
            break
        new = min(1.0, max(0.0, a[i] - g[i] / diag[i]))
        g += Q[i] * (new - a[i])
        a[i] = new
    return step


def _projected_newton(
    Q: FloatArray, mu: float, a: FloatArray, max_iter: int
) -> tuple[FloatArray, int]:
    """Projected Newton (Bertsekas 1982) on ½aᵀ(Q + μI)a − Σa over [0, 1]ⁿ.

    Scaled gradient steps on the ε-binding set, a Newton step on the free set
    and an Armijo search along the projection arc. Once the active set is
    identified the Newton step is exact, so from a good start (greedy
    coordinate descent) it ends in one or two iterations. The ridge μ keeps the
    free-set systems positive definite when K is (numerically) singular.
    """
    diag = np.diag(Q) + mu
    Qa = Q @ a + mu * a
    f = 0.5 * float(a @ Qa) - float(a.sum())
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - reported
        g = Qa - 1.0
        kkt = float(np.max(np.abs(a - np.clip(a - g, 0.0, 1.0))))
        if kkt <= 1e-15:
            break
        eps_k = min(1e-3, kkt)
        binding = ((a <= eps_k) & (g > 0)) | ((a >= 1.0 - eps_k) & (g < 0))
        free = ~binding
        d = np.where(binding, -g / diag, 0.0)
        if np.any(free):
            H = Q[np.ix_(free, free)]
            H[np.diag_indices_from(H)] += mu
            with warnings.catch_warnings():
                # Ill-conditioning only slows the search; the gap certifies.
                warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
                try:
                    d[free] = -scipy.linalg.solve(
                        H, g[free], assume_a="pos", check_finite=False
                    )
                except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
                    d[free] = -g[free] / diag[free]
        t = 1.0
        for _ in range(60):
            a_new = np.clip(a + t * d, 0.0, 1.0)
            step = a_new - a
            moved = np.flatnonzero(step)
            Qa_new = Qa + Q[:, moved] @ step[moved] + mu * step
            f_new = 0.5 * float(a_new @ Qa_new) - float(a_new.sum())
            if f_new <= f + 1e-4 * float(g @ step):
                break
            t *= 0.5
        else:
            break  # no decrease possible in floating point
        a, f = a_new, f_new
        Qa = Q @ a + mu * a  # recomputed: no drift
    return a, it


def solve_kernel_hinge_dual(
    K: ArrayLike,
    y: ArrayLike,
    box: float,
    *,
    tol: float = 1e-12,
    max_iter: int = 100,
) -> tuple[FloatArray, float, int]:
    """Solve the bias-free kernel hinge-SVM dual exactly, certified by its gap.

    Rubinstein et al. (arXiv:0911.5708), eq. (5.1):
    max_α Σαᵢ − ½ΣΣαᵢαⱼyᵢyⱼK(xᵢ, xⱼ) subject to 0 ≤ αᵢ ≤ ``box`` (= C/n), with
    **no** equality constraint Σαᵢyᵢ = 0 (no bias, as in their Algorithm 1).
    Greedy exact coordinate descent (single coordinates can move alone without the
    equality constraint) finds the active set; projected Newton on the free
    set (with a vanishing ridge, 10⁻⁹ then 10⁻¹² of max Qᵢᵢ, for singular K)
    then solves it to rounding. The result is certified by the duality gap.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Kernel matrix (positive semi-definite; singular is fine).
    y : array-like of shape (n,)
        Labels in {−1, +1}.
    box : float
        Upper bound C/n = 1/(nΛ) on each αᵢ.
    tol : float, default=1e-12
        Target duality gap in the Λ normalisation,
        J = (1/n)Σhinge + (Λ/2)‖w‖², i.e. (gap in Rubinstein et al.'s
        normalisation)/(n·box).
    max_iter : int, default=100
        Coordinate-descent budget in epochs (n steps each); projected Newton
        gets up to ``max_iter`` iterations per ridge level.

    Returns
    -------
    alpha : ndarray of shape (n,)
        Dual solution.
    gap : float
        Duality gap P_R(w(α)) − D_R(α) in Rubinstein et al.'s normalisation
        ½‖w‖² + (C/n)Σhinge; ‖w − w*‖_H ≤ √(2·gap).
    n_iter : int
        Coordinate steps plus Newton iterations used.

    See Also
    --------
    dpsvm.models.NonPrivateKernelSVC : The estimator that solves this dual.

    References
    ----------
    .. [1] B. I. P. Rubinstein, P. L. Bartlett, L. Huang, N. Taft, "Learning in a
       large function space: privacy-preserving mechanisms for SVM learning",
       arXiv:0911.5708, Algorithm 1 and eq. (5.1).
    .. [2] D. P. Bertsekas, "Projected Newton methods for optimization problems
       with simple constraints", SIAM J. Control Optim. 20(2), 1982.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.solvers import solve_kernel_hinge_dual
    >>> alpha, gap, _ = solve_kernel_hinge_dual(np.eye(2), np.array([1, -1]), 0.5)
    >>> alpha.tolist(), gap
    ([0.5, 0.5], 0.0)
    """
    Ka = np.asarray(K, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    n = ya.shape[0]
    U = float(box)
    if n == 0:
        return np.zeros(0), 0.0, 0
    # Q̃ = U·(yyᵀ ∘ K) and a = α/U ∈ [0, 1]: D_R(α) = −U·(½aᵀQ̃a − Σa).
    Q = (U * ya[:, None]) * Ka * ya[None, :]
    a = np.zeros(n)
    g = -np.ones(n)
    steps = _greedy_coordinate_descent(Q, a, g, max_iter * n, 1e-7)
    target = tol * n  # gap_J = gap_a/n (J = Λ·P_R and U = 1/(nΛ))
    gap = _hinge_dual_gap(a, Q @ a)
    scale = max(float(np.max(np.diag(Q))), 1e-300)
    for rel in (1e-9, 1e-12):
        if gap <= target:
            break
        a_new, it = _projected_newton(Q, rel * scale, a.copy(), max_iter)
        steps += it
        gap_new = _hinge_dual_gap(a_new, Q @ a_new)
        if gap_new < gap:
            a, gap = a_new, gap_new
    if gap > target:
        # The ridge μ biases the Newton solution by O(μ); exact coordinate
        # steps on the unregularised dual remove that bias (from the Newton
        # point the active set is right, so few steps suffice).
        a_new = a.copy()
        steps += _greedy_coordinate_descent(
            Q, a_new, Q @ a_new - 1.0, max_iter * n, 0.0
        )
        gap_new = _hinge_dual_gap(a_new, Q @ a_new)
        if gap_new < gap:
            a, gap = a_new, gap_new
    return a * U, gap * U, steps
