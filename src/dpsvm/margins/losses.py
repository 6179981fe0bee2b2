# SPDX-License-Identifier: BSD-3-Clause
"""Margin losses of Bassily, Mohri & Suresh (2022): ρ-hinge, its smoothing, error rates.

The ρ-hinge ℓ^ρ(t) = max(0, 1 − t/ρ) of the margin t = y⟨w, x⟩ lives in
:class:`dpsvm.losses.RhoHingeLoss` (re-exported here); this module adds its Moreau
envelope (the smoothed loss the phased-SGD oracle needs) and the zero-one error
rates at margin 0 and ρ that the exponential-mechanism learners score.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..losses import Loss, RhoHingeLoss
from ..validation import check_positive

__all__ = ["RhoHingeLoss", "SmoothedRhoHingeLoss", "margin_error", "zero_one_error"]

FloatArray = NDArray[np.float64]


class SmoothedRhoHingeLoss(Loss):
    """Moreau envelope φ_λ of the ρ-hinge in the margin t = y⟨w, x⟩.

    φ_λ(t) = 0 for t ≥ ρ; (ρ − t)²/(2λ) for ρ − λ/ρ < t < ρ;
    (ρ − t)/ρ − λ/(2ρ²) for t ≤ ρ − λ/ρ.

    Parameters
    ----------
    rho : float, default=1.0
        The margin ρ > 0.
    smoothing : float, default=1.0
        The Moreau parameter λ > 0.

    Attributes
    ----------
    lipschitz : float
        1/ρ (φ_λ′ ∈ [−1/ρ, 0]).
    smoothness : float
        1/λ (the Moreau envelope of a convex function is 1/λ-smooth).
    max_gap : float
        λ/(2ρ²) = sup (ℓ^ρ − φ_λ) ≥ 0.

    Notes
    -----
    The closed form is the scalar Moreau envelope min_u ℓ^ρ(u) + (t − u)²/(2λ),
    the smoothing used by the phased SGD for generalized linear losses
    (Bassily, Guzmán & Menart 2021, Alg. 2, cited by Bassily, Mohri & Suresh
    2022, App. B.2). It satisfies 0 ≤ ℓ^ρ − φ_λ ≤ λ/(2ρ²). The gradient in w is
    φ_λ′(t)·y·x, of norm ≤ ‖x‖/ρ.

    References
    ----------
    .. [1] R. Bassily, M. Mohri, A. T. Suresh, "Differentially private learning
       with margin guarantees", NeurIPS 2022 (arXiv:2204.10376), App. B.2.
    .. [2] R. Bassily, C. Guzmán, M. Menart, "Differentially private stochastic
       optimization: new results in convex and non-convex settings", NeurIPS
       2021, Alg. 2.

    Examples
    --------
    >>> loss = SmoothedRhoHingeLoss(rho=1.0, smoothing=0.5)
    >>> loss.value([2.0, 0.75, -1.0]).tolist()
    [0.0, 0.0625, 1.75]
    """

    name = "smoothed-rho-hinge"

    def __init__(self, rho: float = 1.0, smoothing: float = 1.0) -> None:
        self.rho = check_positive(rho, "rho")
        self.smoothing = check_positive(smoothing, "smoothing")
        self.lipschitz = 1.0 / self.rho
        self.smoothness = 1.0 / self.smoothing
        self.max_gap = self.smoothing / (2.0 * self.rho**2)

    def value(self, z: ArrayLike) -> FloatArray:
        t = np.asarray(z, dtype=np.float64)
        rho, lam = self.rho, self.smoothing
        gap = rho - t
        quad = gap**2 / (2.0 * lam)
        lin = gap / rho - lam / (2.0 * rho**2)
        return np.where(t >= rho, 0.0, np.where(t > rho - lam / rho, quad, lin))

    def derivative(self, z: ArrayLike) -> FloatArray:
        t = np.asarray(z, dtype=np.float64)
        rho, lam = self.rho, self.smoothing
        return np.where(
            t >= rho, 0.0, np.where(t > rho - lam / rho, -(rho - t) / lam, -1.0 / rho)
        )

    def second_derivative(self, z: ArrayLike) -> FloatArray:
        t = np.asarray(z, dtype=np.float64)
        rho, lam = self.rho, self.smoothing
        inside = (t < rho) & (t > rho - lam / rho)
        return np.where(inside, 1.0 / lam, 0.0)

    def __repr__(self) -> str:
        return f"SmoothedRhoHingeLoss(rho={self.rho!r}, smoothing={self.smoothing!r})"


def margin_error(scores: ArrayLike, y: ArrayLike, rho: float) -> float:
    """Empirical ρ-margin error (1/m)·#{i : yᵢ·scoreᵢ ≤ ρ}.

    Parameters
    ----------
    scores : array-like of shape (m,)
        Real scores h(xᵢ).
    y : array-like of shape (m,)
        Labels in {−1, +1}.
    rho : float
        The margin ρ ≥ 0 (ρ = 0 gives :func:`zero_one_error`).

    Returns
    -------
    float
        The fraction of examples with margin ≤ ρ (ties count as errors).

    Examples
    --------
    >>> margin_error([0.5, 2.0, -1.0], [1, 1, 1], 1.0)
    0.6666666666666666
    """
    t = np.asarray(y, dtype=np.float64) * np.asarray(scores, dtype=np.float64)
    return float(np.mean(t <= rho))


def zero_one_error(scores: ArrayLike, y: ArrayLike) -> float:
    """Empirical zero-one error (1/m)·#{i : yᵢ·scoreᵢ ≤ 0}; a tie is an error.

    Parameters
    ----------
    scores : array-like of shape (m,)
        Real scores h(xᵢ).
    y : array-like of shape (m,)
        Labels in {−1, +1}.

    Returns
    -------
    float
        The error rate (Bassily, Mohri & Suresh 2022, §2: y·h(x) = 0 is an error).

    Examples
    --------
    >>> zero_one_error([0.0, 1.0], [1, 1])
    0.5
    """
    return margin_error(scores, y, 0.0)
