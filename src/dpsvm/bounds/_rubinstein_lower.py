# SPDX-License-Identifier: BSD-3-Clause
"""[R] Section 6 lower bounds on optimal differential privacy, the spectral second
moments (Table 1, corrected) and the closed-form fixtures of the lower-bound proofs.

The notation and the corrections to the printed paper are stated in
:mod:`dpsvm.bounds.rubinstein`, which re-exports every public name of this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..utils._checks import check_int, check_open_unit, check_positive

__all__ = [
    "RBF_SIGMA_MAX",
    "Lemma19Fixture",
    "lemma17_databases",
    "lemma17_solutions",
    "lemma19_databases",
    "linear_lower_bound_min_delta",
    "optimal_dp_lower_bound_linear",
    "optimal_dp_lower_bound_rbf",
    "rbf_lower_bound_min_delta",
    "rbf_packing_size",
    "sigma_p_squared",
]


#: Upper limit on the RBF width σ in [R] Lemma 19 / Thm 20: √(1/(2 ln 2)) ≈ 0.84932.
RBF_SIGMA_MAX = math.sqrt(1.0 / (2.0 * math.log(2.0)))


def _check_rbf_sigma(sigma: float, name: str = "sigma") -> float:
    sigma = check_positive(sigma, name)
    if not sigma < RBF_SIGMA_MAX:
        raise ValueError(
            f"[R] Lemma 19 / Thm 20 need sigma < sqrt(1/(2 ln 2)) = "
            f"{RBF_SIGMA_MAX:.6f}, got sigma={sigma}."
        )
    return sigma


# Every formula first checks the ranges that its Parameters section states, in
# that order.


# ---------------------------------------------------------------------------
# Section 6: lower bounds on optimal differential privacy
# ---------------------------------------------------------------------------


def _check_validity_args(
    eps: float | None, C: float | None, n: int | None
) -> tuple[float, float, int] | None:
    given = [v is not None for v in (eps, C, n)]
    if not any(given):
        return None
    if not all(given):
        raise ValueError("Pass all of eps, C and n to check the validity range.")
    assert eps is not None and C is not None and n is not None
    return (
        check_positive(eps, "eps"),
        check_positive(C, "C"),
        check_int(n, "n", minimum=2),
    )


def optimal_dp_lower_bound_linear(
    delta: float,
    *,
    eps: float | None = None,
    C: float | None = None,
    n: int | None = None,
) -> float:
    """Lower bound on the optimal DP of the linear-kernel hinge SVM ([R] Thm 18).

    Parameters
    ----------
    delta : float
        Failure probability δ ∈ (0, 1).
    eps : float, optional
        Usefulness accuracy ε. If ``eps``, ``C`` and ``n`` are given, the
        theorem's range ε < √C/(2n) (with n > 1) is checked.
    C : float, optional
        Regularisation weight (for the range check).
    n : int, optional
        Number of records (for the range check).

    Returns
    -------
    float
        The bound ln((1 − δ)/δ): every (ε, δ)-useful mechanism has β at least
        this. It is positive only for δ < ½.

    Raises
    ------
    ValueError
        If δ ∉ (0, 1), or the range check fails.

    References
    ----------
    [R] Theorem 18 (via Lemma 17), arXiv:0911.5708.

    Examples
    --------
    >>> round(optimal_dp_lower_bound_linear(0.01), 6)
    4.59512
    """
    delta = check_open_unit(delta, "delta")
    checked = _check_validity_args(eps, C, n)
    if checked is not None:
        e, c, nn = checked
        if not e < math.sqrt(c) / (2 * nn):
            raise ValueError(
                f"[R] Thm 18 needs eps < sqrt(C)/(2n) = {math.sqrt(c) / (2 * nn)}, "
                f"got eps={e}."
            )
    # [R] Thm 18: β ≥ ln((1 − δ)/δ).
    return math.log((1.0 - delta) / delta)


def linear_lower_bound_min_delta(beta: float) -> float:
    """Smallest δ compatible with β-DP and (ε, δ)-usefulness ([R] Thm 18, restated).

    Parameters
    ----------
    beta : float
        Privacy level β > 0 (pure DP).

    Returns
    -------
    float
        The level 1/(1 + e^β). For ε < √C/(2n), a β-DP mechanism can only be
        (ε, δ)-useful for δ ≥ 1/(1 + e^β). The paper restates this as
        δ ≥ e^{−β}, which is slightly stronger than what the bound implies.

    Raises
    ------
    ValueError
        If β is not positive.

    References
    ----------
    [R] Theorem 18, arXiv:0911.5708.

    Examples
    --------
    >>> round(linear_lower_bound_min_delta(1.0), 6)
    0.268941
    """
    beta = check_positive(beta, "beta")
    # β ≥ ln((1−δ)/δ) ⇔ δ ≥ 1/(1 + e^β); written with e^{−β} to avoid overflow.
    return math.exp(-beta) / (1.0 + math.exp(-beta))


def rbf_packing_size(sigma: float) -> int:
    """Number N of pairwise-neighbouring databases in [R] Lemma 19.

    Parameters
    ----------
    sigma : float
        RBF width σ > 0 (kernel exp(−‖x − y‖²/(2σ²))).

    Returns
    -------
    int
        N = ⌊(2/σ)·√(2/ln 2)⌋ = ⌊3.39729/σ⌋.

    Raises
    ------
    ValueError
        If σ ≤ 0 or N < 2 (the construction needs at least two databases).

    References
    ----------
    [R] Lemma 19, arXiv:0911.5708.

    Examples
    --------
    >>> rbf_packing_size(0.5)
    6
    """
    sigma = check_positive(sigma, "sigma")
    # [R] Lemma 19: N = ⌊(2/σ)√(2/ln 2)⌋.
    N = math.floor((2.0 / sigma) * math.sqrt(2.0 / math.log(2.0)))
    if N < 2:
        raise ValueError(
            f"[R] Lemma 19 needs N = floor((2/sigma)*sqrt(2/ln 2)) >= 2, got N={N} "
            f"for sigma={sigma}."
        )
    return N


def optimal_dp_lower_bound_rbf(
    delta: float,
    sigma: float,
    *,
    eps: float | None = None,
    C: float | None = None,
    n: int | None = None,
) -> float:
    """Lower bound on the optimal DP of the RBF-kernel hinge SVM ([R] Thm 20).

    Parameters
    ----------
    delta : float
        Failure probability δ ∈ (0, 1).
    sigma : float
        RBF width, 0 < σ < √(1/(2 ln 2)) ≈ 0.84932.
    eps : float, optional
        Usefulness accuracy ε. If ``eps``, ``C`` and ``n`` are given, the range
        n > C and ε < C/(4n) is checked. (Thm 20 prints ε ∈ (0, n/(4C)), a typo:
        Lemma 19, which it uses, needs ε < C/(4n).)
    C : float, optional
        Regularisation weight (for the range check).
    n : int, optional
        Number of records (for the range check).

    Returns
    -------
    float
        The bound ln((1 − δ)(N − 1)/δ) with N = :func:`rbf_packing_size` (σ).

    Raises
    ------
    ValueError
        If an argument is out of range or the range check fails.

    References
    ----------
    [R] Theorem 20 (via Lemma 19), arXiv:0911.5708.

    Examples
    --------
    >>> round(optimal_dp_lower_bound_rbf(0.01, 0.5), 6)
    6.204558
    """
    delta = check_open_unit(delta, "delta")
    sigma = _check_rbf_sigma(sigma)
    N = rbf_packing_size(sigma)
    checked = _check_validity_args(eps, C, n)
    if checked is not None:
        e, c, nn = checked
        if not nn > c:
            raise ValueError(f"[R] Thm 20 needs n > C, got n={nn}, C={c}.")
        if not e < c / (4 * nn):
            raise ValueError(
                f"[R] Thm 20 needs eps < C/(4n) = {c / (4 * nn)} (the printed "
                f"n/(4C) is a typo), got eps={e}."
            )
    # [R] Thm 20: β ≥ ln((1 − δ)(N − 1)/δ).
    return math.log((1.0 - delta) * (N - 1) / delta)


def rbf_lower_bound_min_delta(beta: float, sigma: float) -> float:
    """Smallest δ compatible with β-DP and (ε, δ)-usefulness for the RBF SVM.

    Parameters
    ----------
    beta : float
        Privacy level β > 0 (pure DP).
    sigma : float
        RBF width, 0 < σ < √(1/(2 ln 2)).

    Returns
    -------
    float
        (N − 1)/(N − 1 + e^β), the inverse of :func:`optimal_dp_lower_bound_rbf`
        in δ [derived from [R] Thm 20].

    Raises
    ------
    ValueError
        If an argument is out of range.

    References
    ----------
    [R] Theorem 20, arXiv:0911.5708.

    Examples
    --------
    >>> round(rbf_lower_bound_min_delta(1.0, 0.5), 6)
    0.647813
    """
    beta = check_positive(beta, "beta")
    sigma = _check_rbf_sigma(sigma, "sigma")
    N = rbf_packing_size(sigma)
    # β ≥ ln((1−δ)(N−1)/δ) ⇔ δ ≥ (N−1)/(N−1+e^β) = (N−1)e^{−β}/((N−1)e^{−β}+1).
    t = (N - 1) * math.exp(-beta)
    return t / (t + 1.0)


# ---------------------------------------------------------------------------
# Spectral second moments (Table 1, corrected)
# ---------------------------------------------------------------------------


def sigma_p_squared(
    kernel: str,
    d: int,
    *,
    sigma: float | None = None,
    gamma: float | None = None,
) -> float:
    """Second moment σ_p² = E_p‖ω‖² of a kernel's spectral density ([R] Lemma 13).

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}
        * ``"rbf"``: exp(−‖Δ‖²/(2σ²)), ω ∼ N(0, σ⁻²I): d/σ² (needs ``sigma``).
          Table 1 of [R] prints the density for σ = 1 only.
        * ``"gaussian"``: exp(−γ‖Δ‖²) (the [S] form), ω ∼ N(0, 2γI): 2γd (needs
          ``gamma``).
        * ``"laplacian"``: exp(−‖Δ‖₁), Cauchy frequencies: +inf (the d̂ bounds
          are vacuous).
        * ``"cauchy"``: the normalised ∏ᵢ 1/(1 + Δᵢ²), ω with iid Laplace(0, 1)
          coordinates: 2d. (Table 1 prints an unnormalised version.)
    d : int
        Input dimension.
    sigma : float, optional
        RBF width (``"rbf"`` only).
    gamma : float, optional
        Gaussian width parameter (``"gaussian"`` only).

    Returns
    -------
    float
        The second moment σ_p² (``math.inf`` for the Laplacian kernel).

    Raises
    ------
    ValueError
        If the kernel is unknown or its width parameter is missing or invalid.

    References
    ----------
    [R] Table 1 and Lemma 13, arXiv:0911.5708.

    Examples
    --------
    >>> sigma_p_squared("rbf", 3, sigma=0.5)
    12.0
    >>> sigma_p_squared("cauchy", 3)
    6.0
    """
    d = check_int(d, "d")
    name = str(kernel).lower()
    if name == "rbf":
        if sigma is None:
            raise ValueError("The 'rbf' kernel needs sigma.")
        sigma = check_positive(sigma, "sigma")
        return d / sigma**2
    if name == "gaussian":
        if gamma is None:
            raise ValueError("The 'gaussian' kernel needs gamma.")
        gamma = check_positive(gamma, "gamma")
        return 2.0 * gamma * d
    if name == "laplacian":
        return math.inf
    if name == "cauchy":
        return 2.0 * d
    raise ValueError(
        f"Unknown kernel {kernel!r}; expected 'rbf', 'gaussian', 'laplacian' or "
        "'cauchy'."
    )


# ---------------------------------------------------------------------------
# Closed-form fixtures from the lower-bound proofs
# ---------------------------------------------------------------------------


def _lemma17_geometry(n: int, C: float, eps: float) -> tuple[int, float, float, float]:
    n = check_int(n, "n", minimum=2)
    C = check_positive(C, "C")
    eps = check_positive(eps, "eps")
    # [R] Lemma 17 proof: M = 2nε/C, m = nε/C.
    M = 2.0 * n * eps / C
    m = n * eps / C
    # Validity: 1/M > C(Mn − m)/n (⇔ ε² < C/(2n(2n − 1)); implied by ε < √C/(2n)).
    if not 1.0 / M > C * (M * n - m) / n:
        raise ValueError(
            "[R] Lemma 17 closed form needs 1/M > C(Mn - m)/n, i.e. eps < "
            f"sqrt(C/(2n(2n-1))) = {math.sqrt(C / (2 * n * (2 * n - 1)))}; "
            f"got eps={eps}."
        )
    return n, C, M, m


def lemma17_databases(
    n: int, C: float, eps: float
) -> tuple[
    tuple[NDArray[np.float64], NDArray[np.int64]],
    tuple[NDArray[np.float64], NDArray[np.int64]],
]:
    """The two neighbouring 1-D databases of [R] Lemma 17.

    ⌊n/2⌋ negatives at x = −M, positives at x = M for indices ⌊n/2⌋+1 … n−1, and
    a last point x_n = M − m labelled −1 in D₁ and +1 in D₂, with M = 2nε/C and
    m = nε/C. Together with :func:`lemma17_solutions` this is an exact test
    fixture for a bias-free hinge-SVM solver.

    Parameters
    ----------
    n : int
        Number of records, n ≥ 2.
    C : float
        Regularisation weight.
    eps : float
        Half the target gap: |w₁* − w₂*| = 2ε.

    Returns
    -------
    (X1, y1), (X2, y2) : tuple of tuples of ndarray
        ``X`` of shape (n, 1) (identical in both) and labels in {−1, +1} of
        shape (n,), differing only in the last entry.

    Raises
    ------
    ValueError
        If n < 2, C or ε ≤ 0, or the closed form's condition 1/M > C(Mn − m)/n
        fails.

    References
    ----------
    [R] Lemma 17 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> (X1, y1), (X2, y2) = lemma17_databases(4, 1.0, 0.05)
    >>> X1.ravel().tolist(), y1.tolist(), y2.tolist()
    ([-0.4, -0.4, 0.4, 0.2], [-1, -1, 1, -1], [-1, -1, 1, 1])
    """
    n = check_int(n, "n", minimum=2)
    C = check_positive(C, "C")
    n, C, M, m = _lemma17_geometry(n, C, eps)
    half = n // 2
    x = np.empty(n, dtype=np.float64)
    x[:half] = -M
    x[half : n - 1] = M
    x[n - 1] = M - m
    y1 = np.empty(n, dtype=np.int64)
    y1[:half] = -1
    y1[half : n - 1] = 1
    y2 = y1.copy()
    y1[n - 1] = -1
    y2[n - 1] = 1
    X = x.reshape(-1, 1)
    return (X, y1), (X.copy(), y2)


def lemma17_solutions(n: int, C: float, eps: float) -> tuple[float, float]:
    """Closed-form bias-free hinge-SVM solutions w₁*, w₂* on the Lemma 17 databases.

    The objective is min_w ½w² + (C/n)·Σᵢ max(0, 1 − yᵢ·w·xᵢ).

    Parameters
    ----------
    n : int
        Number of records, n ≥ 2.
    C : float
        Regularisation weight.
    eps : float
        Half the target gap.

    Returns
    -------
    w1, w2 : float
        The solutions w₁* = C(M(n − 2) + m)/n and w₂* = C(Mn − m)/n, with
        |w₁* − w₂*| = 2C(M − m)/n = 2ε. The lemma says "> 2ε"; the proof gives
        "= 2ε".

    Raises
    ------
    ValueError
        If the closed form's condition 1/M > C(Mn − m)/n fails (see
        :func:`lemma17_databases`).

    References
    ----------
    [R] Lemma 17 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> w1, w2 = lemma17_solutions(4, 1.0, 0.05)
    >>> round(w1, 12), round(w2, 12), round(w2 - w1, 12)
    (0.25, 0.35, 0.1)
    """
    n = check_int(n, "n", minimum=2)
    C = check_positive(C, "C")
    n, C, M, m = _lemma17_geometry(n, C, eps)
    # [R] Lemma 17 proof: w₁* = C(M(n−2)+m)/n, w₂* = C(Mn − m)/n.
    return C * (M * (n - 2) + m) / n, C * (M * n - m) / n


@dataclass(frozen=True)
class Lemma19Fixture:
    """The N pairwise-neighbouring RBF databases of [R] Lemma 19 and their SVMs.

    Every database has the same kernel matrix and labels, so the dual solution is
    the same for all of them.

    Parameters
    ----------
    N : int
        Number of databases, ⌊(2/σ)√(2/ln 2)⌋.
    gamma : float
        Kernel value between the origin and a unit vector, exp(−1/(2σ²)).
    X : ndarray of shape (N, n, 2)
        ``X[i]`` is database i+1: n − 1 points at the origin and, last, the
        positive point (cos 2π(i+1)/N, sin 2π(i+1)/N).
    y : ndarray of shape (n,)
        Labels shared by all databases: n − 1 times −1, then +1.
    alpha : ndarray of shape (n,)
        A dual solution (box 0 ≤ α ≤ C/n, no equality constraint): the positive
        point has α = C/n; the negatives share min{C/n, (1 + γC/n)/(n − 1)}.
        Only the negatives' sum is unique (they are the same point).
    f_at_own_positive : float
        The value f_i(x_{i,n}) = C/n − (n − 1)·α_neg·γ, the same for every i.
    separation : float
        The gap min_{j≠i} |f_i(x_{i,n}) − f_j(x_{i,n})|
        = (C/n)(1 − exp(−(2/σ²)sin²(π/N))),
        which the lemma shows is ≥ C/(2n).
    """

    N: int
    gamma: float
    X: NDArray[np.float64]
    y: NDArray[np.int64]
    alpha: NDArray[np.float64]
    f_at_own_positive: float
    separation: float


def lemma19_databases(n: int, C: float, sigma: float) -> Lemma19Fixture:
    """Closed-form fixture of [R] Lemma 19 (hinge SVM, RBF kernel, no bias).

    Parameters
    ----------
    n : int
        Number of records per database, n ≥ 2 and n > C.
    C : float
        Regularisation weight.
    sigma : float
        RBF width, 0 < σ < √(1/(2 ln 2)).

    Returns
    -------
    Lemma19Fixture
        N, the databases, the shared dual solution and the function values.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Notes
    -----
    With n > C the positive point's box constraint is always active
    (∂/∂α_pos = 1 + γ(n−1)α_neg − α_pos > 0 at α_pos = C/n < 1); the negatives'
    common value then maximises a concave quadratic, giving
    α_neg = min{C/n, (1 + γC/n)/(n − 1)} [derived]. The paper's proof writes
    (1 + Cγ/n)/(n − 1)², an algebra slip that does not affect the lemma (which
    only uses α_pos = C/n).

    References
    ----------
    [R] Lemma 19 (proof), arXiv:0911.5708.

    Examples
    --------
    >>> fx = lemma19_databases(10, 2.0, 0.5)
    >>> fx.N, fx.X.shape, round(fx.separation, 6)
    (6, (6, 10, 2), 0.172933)
    """
    C = check_positive(C, "C")
    sigma = _check_rbf_sigma(sigma, "sigma")
    n = check_int(n, "n", minimum=2)
    if not n > C:
        raise ValueError(f"[R] Lemma 19 needs n > C, got n={n}, C={C}.")
    N = rbf_packing_size(sigma)
    gamma = math.exp(-1.0 / (2.0 * sigma**2))
    angles = 2.0 * math.pi * np.arange(1, N + 1) / N
    X = np.zeros((N, n, 2), dtype=np.float64)
    X[:, n - 1, 0] = np.cos(angles)
    X[:, n - 1, 1] = np.sin(angles)
    y = -np.ones(n, dtype=np.int64)
    y[n - 1] = 1
    box = C / n
    # [derived from [R] Lemma 19's reduced dual] α_pos = C/n,
    # α_neg = min{C/n, (1 + γC/n)/(n − 1)}.
    alpha_neg = min(box, (1.0 + gamma * box) / (n - 1))
    alpha = np.full(n, alpha_neg, dtype=np.float64)
    alpha[n - 1] = box
    f_own = box - (n - 1) * alpha_neg * gamma
    # Neighbouring positives are 2 sin(π/N) apart: k = exp(−(2/σ²) sin²(π/N)).
    separation = box * (1.0 - math.exp(-(2.0 / sigma**2) * math.sin(math.pi / N) ** 2))
    return Lemma19Fixture(
        N=N,
        gamma=gamma,
        X=X,
        y=y,
        alpha=alpha,
        f_at_own_positive=f_own,
        separation=separation,
    )
