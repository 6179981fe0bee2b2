# SPDX-License-Identifier: BSD-3-Clause
"""Translation-invariant kernels, their spectral samplers and exact Gram matrices.

Bochner's theorem: a continuous positive-definite k(x, y) = g(x − y) with
g(0) = 1 is g(Δ) = E_{ω∼p}[cos⟨ω, Δ⟩] for a probability density p, the
normalised Fourier transform p(ω) = (2π)^{−d} ∫ e^{−j⟨ω,Δ⟩} g(Δ) dΔ (correction:
the "2⁻¹ ∫ …" printed in Alg. 3 of Rubinstein et al. 2012 is not a probability
density). Every kernel here has
one public width parameter ``gamma`` > 0 and g(0) = 1:

============  ==============================  ==============================  =======
kernel        k(x, y)                         frequencies ω (iid coordinates)  σ_p²
============  ==============================  ==============================  =======
``"rbf"``     exp(−γ‖x − y‖₂²)                N(0, 2γ), i.e. N(0, σ⁻²I)        2γd
``"laplacian"`` exp(−γ‖x − y‖₁)               Cauchy(0, γ)                     ∞
``"cauchy"``  ∏ᵢ 1/(1 + γ(xᵢ − yᵢ)²)          Laplace(0, √γ)                   2γd
============  ==============================  ==============================  =======

``"gaussian"`` is an alias of ``"rbf"``. The RBF of Rubinstein et al. (2012),
Table 1, exp(−‖Δ‖²/(2σ²)), is γ = 1/(2σ²); correction: Table 1 prints its
density for σ = 1 only. The Laplacian exp(−‖Δ‖₁/s) is γ = 1/s. Their Cauchy
kernel ∏ 2/(1 + Δᵢ²) has g(0) = 2^d (correction: not a normalised kernel); the
normalised ∏ 1/(1 + Δᵢ²) (γ = 1) is used, with Laplace(0, 1) frequencies
(``docs/kernels.md``, the section on the kernels' spectral laws). σ_p² = E‖ω‖²
is the second moment of their Lemma 13.

All samplers take a seeded or unseeded :class:`numpy.random.Generator`: the
frequencies are drawn independently of the data and are released with the
model, so they need no cryptographic generator.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.metrics.pairwise import (
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
)

from ..utils._random import GeneratorLike, as_generator

__all__ = [
    "EXACT_KERNELS",
    "SHIFT_INVARIANT_KERNELS",
    "check_gamma",
    "kernel_matrix",
    "reject_string_gamma",
    "sample_frequencies",
    "spectral_second_moment",
]

#: Kernels with a spectral sampler (random Fourier features).
SHIFT_INVARIANT_KERNELS = ("rbf", "gaussian", "laplacian", "cauchy")
#: Kernels that :func:`kernel_matrix` evaluates exactly.
EXACT_KERNELS = (*SHIFT_INVARIANT_KERNELS, "linear", "poly")


def check_gamma(gamma: object, owner: str = "kernel") -> float:
    """Check a public kernel width γ > 0 and refuse data-dependent settings.

    Parameters
    ----------
    gamma : object
        The width parameter.
    owner : str, default="kernel"
        Name used in the error message.

    Returns
    -------
    float
        γ as a float.

    Raises
    ------
    ValueError
        If ``gamma`` is a string (scikit-learn's ``"scale"`` and ``"auto"`` are
        computed from the data), not positive or not finite.
    TypeError
        If ``gamma`` is not a real number.

    Examples
    --------
    >>> check_gamma(0.5)
    0.5
    >>> check_gamma("scale")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: gamma='scale' is not allowed for kernel: ...
    """
    reject_string_gamma(gamma, owner)
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise TypeError(f"gamma must be a real number > 0, got {type(gamma).__name__}.")
    g = float(gamma)
    if not (math.isfinite(g) and g > 0):
        raise ValueError(f"gamma must be a finite real number > 0, got {gamma!r}.")
    return g


def reject_string_gamma(gamma: object, owner: str = "kernel") -> None:
    """Raise a clear error for a string ``gamma`` (a data-dependent bandwidth).

    Parameters
    ----------
    gamma : object
        The width parameter.
    owner : str, default="kernel"
        Name used in the error message.

    Raises
    ------
    ValueError
        If ``gamma`` is a string.

    Examples
    --------
    >>> reject_string_gamma(1.0)
    """
    if isinstance(gamma, str):
        raise ValueError(
            f"gamma={gamma!r} is not allowed for {owner}: scikit-learn's 'scale' "
            "and 'auto' bandwidths are computed from the data (X.var(), "
            "n_features), so the feature map would depend on the private records "
            "and leak them. Pass a public positive float fixed before seeing the "
            "data, e.g. gamma=1/(2*sigma**2) for an RBF of width sigma."
        )


def _check_kernel(kernel: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(kernel, str) or kernel not in allowed:
        raise ValueError(f"Unknown kernel {kernel!r}; expected one of {list(allowed)}.")
    return "rbf" if kernel == "gaussian" else kernel


def sample_frequencies(
    kernel: str,
    gamma: float,
    n_features: int,
    n_components: int,
    random_state: GeneratorLike = None,
) -> NDArray[np.float64]:
    """Draw iid frequencies ω₁ … ω_m from a kernel's spectral density.

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}
        The kernel (see the module docstring for the parametrisation).
    gamma : float
        Public width γ > 0.
    n_features : int
        Input dimension d ≥ 1.
    n_components : int
        Number m ≥ 1 of frequencies.
    random_state : None, int or numpy.random.Generator, default=None
        Non-privacy randomness (the frequencies are public).

    Returns
    -------
    ndarray of shape (n_features, n_components)
        Column j is ωⱼ.

    Raises
    ------
    ValueError
        For an unknown kernel, a non-positive or string γ, or sizes < 1.

    Notes
    -----
    * RBF exp(−γ‖Δ‖²): ω ∼ N(0, 2γI) (Sarwate, Chaudhuri & Monteleoni 2009,
      Sec. 4.2; Rubinstein et al. 2012, Table 1, corrected to a general
      σ = 1/√(2γ)).
    * Laplacian exp(−γ‖Δ‖₁): ωᵢ ∼ Cauchy(0, γ), since
      E cos(ωΔ) = e^{−γ|Δ|} for that law (Rubinstein et al. 2012, Table 1 with
      a bandwidth).
    * Cauchy ∏ 1/(1 + γΔᵢ²): ωᵢ ∼ Laplace(0, √γ), since
      ∫ e^{−|ω|/b}/(2b) cos(ωΔ) dω = 1/(1 + b²Δ²) (correction of Rubinstein et
      al. 2012, Table 1, which prints an unnormalised kernel and density).

    Examples
    --------
    >>> W = sample_frequencies("rbf", 0.5, 5, 100, random_state=0)
    >>> W.shape
    (5, 100)
    """
    name = _check_kernel(kernel, SHIFT_INVARIANT_KERNELS)
    g = check_gamma(gamma)
    for value, label in ((n_features, "n_features"), (n_components, "n_components")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{label} must be an int, got {type(value).__name__}.")
        if value < 1:
            raise ValueError(f"{label} must be >= 1, got {value}.")
    rng = as_generator(random_state, secure=False)
    shape = (int(n_features), int(n_components))
    if name == "rbf":
        # exp(−γ‖Δ‖²) = E cos⟨ω, Δ⟩ for ω ∼ N(0, 2γ I) (Sarwate, Chaudhuri &
        # Monteleoni 2009, Sec. 4.2).
        return rng.normal(0.0, math.sqrt(2.0 * g), size=shape)
    if name == "laplacian":
        # exp(−γ|Δ|) is the characteristic function of Cauchy(0, γ)
        # (Rubinstein et al. 2012, Table 1, with a bandwidth).
        return g * rng.standard_cauchy(size=shape)
    # 1/(1 + γΔ²) is the characteristic function of Laplace(0, √γ) (correction
    # of Rubinstein et al. 2012, Table 1: their Cauchy kernel is unnormalised).
    return rng.laplace(0.0, math.sqrt(g), size=shape)


def spectral_second_moment(kernel: str, gamma: float, n_features: int) -> float:
    """Second moment σ_p² = E_p‖ω‖² of the spectral density p.

    It enters the d̂ bound of Rubinstein et al. (2012), Lemma 13.

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "laplacian", "cauchy"}
        The kernel.
    gamma : float
        Public width γ > 0.
    n_features : int
        Input dimension d.

    Returns
    -------
    float
        2γd for the RBF and Cauchy kernels; ``math.inf`` for the Laplacian
        (Cauchy frequencies have no second moment, so the d̂ bounds of
        Rubinstein et al. 2012, Lemma 13 and Thm 14 are vacuous for it).

    Raises
    ------
    ValueError
        For an unknown kernel or invalid γ or d.

    See Also
    --------
    dpsvm.bounds.rubinstein.sigma_p_squared : The same moments in the paper's
        parametrisations (σ for the RBF, γ = 1 for the Cauchy kernel).

    Examples
    --------
    >>> spectral_second_moment("rbf", 0.5, 5)
    5.0
    >>> spectral_second_moment("laplacian", 1.0, 5)
    inf
    """
    name = _check_kernel(kernel, SHIFT_INVARIANT_KERNELS)
    g = check_gamma(gamma)
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral):
        raise TypeError("n_features must be an int.")
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}.")
    if name == "laplacian":
        return math.inf
    # RBF: E‖ω‖² = d·2γ (= d/σ²); Cauchy: Var Laplace(0, √γ) = 2γ per coordinate.
    return 2.0 * g * int(n_features)


def _cauchy_kernel(X: NDArray[np.float64], Y: NDArray[np.float64], gamma: float):  # type: ignore[no-untyped-def]
    K = np.ones((X.shape[0], Y.shape[0]))
    for j in range(X.shape[1]):  # d is small; one (n × m) pass per coordinate
        diff = X[:, j, None] - Y[None, :, j]
        np.square(diff, out=diff)
        diff *= gamma
        diff += 1.0
        K /= diff
    return K


def kernel_matrix(
    X: ArrayLike,
    Y: ArrayLike | None = None,
    *,
    kernel: str = "rbf",
    gamma: float = 1.0,
    degree: int = 2,
    coef0: float = 1.0,
) -> NDArray[np.float64]:
    """Exact Gram matrix k(xᵢ, yⱼ).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Rows xᵢ.
    Y : array-like of shape (m, d), optional
        Rows yⱼ (``X`` when omitted).
    kernel : {"rbf", "gaussian", "laplacian", "cauchy", "linear", "poly"}, \
            default="rbf"
        The kernel; ``"linear"`` is xᵀy and ``"poly"`` is (xᵀy + coef0)^degree
        (the scikit-learn ``gamma`` of the polynomial kernel is not used).
    gamma : float, default=1.0
        Width of the translation-invariant kernels (ignored by linear/poly).
    degree : int, default=2
        Degree of ``"poly"``.
    coef0 : float, default=1.0
        Offset of ``"poly"``.

    Returns
    -------
    ndarray of shape (n, m)
        The kernel values.

    Examples
    --------
    >>> K = kernel_matrix([[0.0, 0.0], [1.0, 0.0]], kernel="cauchy", gamma=1.0)
    >>> K.tolist()
    [[1.0, 0.5], [0.5, 1.0]]
    """
    name = _check_kernel(kernel, EXACT_KERNELS)
    Xa = np.asarray(X, dtype=np.float64)
    Ya = Xa if Y is None else np.asarray(Y, dtype=np.float64)
    if name == "linear":
        return np.asarray(linear_kernel(Xa, Ya), dtype=np.float64)
    if name == "poly":
        return np.asarray(
            polynomial_kernel(Xa, Ya, degree=degree, gamma=1.0, coef0=coef0),
            dtype=np.float64,
        )
    g = check_gamma(gamma)
    # Finite rows far outside any ball (no ball is declared here) must not give
    # NaN: a distance beyond the float range is +inf and its kernel value 0.
    with np.errstate(over="ignore", invalid="ignore"):
        if name == "rbf":
            K = np.asarray(rbf_kernel(Xa, Ya, gamma=g), dtype=np.float64)
            return _direct_rbf_where_nan(K, Xa, Ya, g)
        if name == "laplacian":
            return np.asarray(laplacian_kernel(Xa, Ya, gamma=g), dtype=np.float64)
        return np.asarray(_cauchy_kernel(Xa, Ya, g), dtype=np.float64)


def _direct_rbf_where_nan(
    K: NDArray[np.float64], X: NDArray[np.float64], Y: NDArray[np.float64], g: float
) -> NDArray[np.float64]:
    """Recompute exp(−γ‖x − y‖²) directly where the expansion gave NaN.

    scikit-learn's ‖x‖² + ‖y‖² − 2⟨x, y⟩ is inf − inf for finite rows of huge
    norm; the direct sum of (xₗ − yₗ)² is +inf there (kernel 0), and NaN only
    for a NaN or infinite entry.
    """
    i, j = np.nonzero(np.isnan(K))
    if i.size:
        with np.errstate(over="ignore", invalid="ignore"):
            diff = X[i] - Y[j]
            K[i, j] = np.exp(-g * np.einsum("ij,ij->i", diff, diff))
    return K
