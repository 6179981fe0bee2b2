# SPDX-License-Identifier: BSD-3-Clause
"""Margin losses with the constants that privacy calibrations depend on.

Every loss is a function of the margin z = y·f(x) with y ∈ {−1, +1}. Each class
exposes its Lipschitz constant ``lipschitz`` (L, a bound on |ℓ′|, used by every
sensitivity calculation) and ``smoothness`` (c, a bound on |ℓ″|, used by the
objective-perturbation correction of Chaudhuri, Monteleoni & Sarwate 2011); ``None``
means the loss is not twice differentiable and objective perturbation refuses it.

References
----------
.. [S09] Sarwate, Chaudhuri, Monteleoni, "Differentially private support vector
   machines", arXiv:0912.0071 (2009), eq. (2) (Huber loss) and §3.1.
.. [R09] Rubinstein, Bartlett, Huang, Taft, "Learning in a large function space",
   arXiv:0911.5708 (2009), §2.1.
.. [B22] Bassily, Mohri, Suresh, "Differentially private learning with margin
   guarantees", NeurIPS 2022, §2 (ρ-hinge).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from .validation import check_positive

__all__ = [
    "HingeLoss",
    "HuberLoss",
    "LogisticLoss",
    "Loss",
    "RhoHingeLoss",
    "SquareLoss",
    "get_loss",
]

FloatArray = NDArray[np.float64]


class Loss(ABC):
    """A convex margin loss ℓ(z), z = y·f(x).

    Attributes
    ----------
    name : str
        Short name used in the public API (``loss=...``).
    lipschitz : float
        L = sup |ℓ′(z)| (``inf`` when the loss is not Lipschitz).
    smoothness : float or None
        c = sup |ℓ″(z)|, or ``None`` when ℓ is not twice differentiable.
    """

    name: str = ""
    lipschitz: float = math.inf
    smoothness: float | None = None

    @property
    def differentiable(self) -> bool:
        """Whether ℓ is differentiable everywhere (objective perturbation needs it)."""
        return self.smoothness is not None

    @abstractmethod
    def value(self, z: ArrayLike) -> FloatArray:
        """Loss at margins ``z``."""

    @abstractmethod
    def derivative(self, z: ArrayLike) -> FloatArray:
        """ℓ′(z) (a subgradient where ℓ is not differentiable)."""

    def second_derivative(self, z: ArrayLike) -> FloatArray:
        """ℓ″(z) where it exists (the right-hand value at kinks of ℓ′)."""
        raise NotImplementedError(f"{self.name} loss is not twice differentiable.")

    def value_and_derivative(self, z: ArrayLike) -> tuple[float, FloatArray]:
        """Σℓ(zᵢ) and ℓ′(z) in one pass (the solvers' hot path).

        Parameters
        ----------
        z : array-like
            Margins.

        Returns
        -------
        tuple
            (sum of the losses, array of derivatives).
        """
        return float(np.sum(self.value(z))), self.derivative(z)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class HingeLoss(Loss):
    """Hinge loss ℓ(z) = max(0, 1 − z); L = 1, not differentiable at z = 1.

    Usable with output perturbation only: [S09] §3.1 gives a counter-example
    in which the hinge loss breaks the objective-perturbation argument.

    Examples
    --------
    >>> HingeLoss().value([0.0, 2.0])
    array([1., 0.])
    """

    name = "hinge"
    lipschitz = 1.0
    smoothness = None

    def value(self, z: ArrayLike) -> FloatArray:
        return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float))

    def derivative(self, z: ArrayLike) -> FloatArray:
        return np.where(np.asarray(z, dtype=float) < 1.0, -1.0, 0.0)


class HuberLoss(Loss):
    """Huber (smoothed hinge) loss of [S09] eq. (2), with half-width h.

    ℓ_h(z) = 0 if z > 1 + h; (1 + h − z)²/(4h) if |1 − z| ≤ h; 1 − z if z < 1 − h.
    It is C¹, 1-Lipschitz (L = 1) and |ℓ″| ≤ c = 1/(2h) ([S09] eq. (2); the bound c
    is the one the JMLR 2011 correction uses). As h → 0 it tends to the hinge.

    Parameters
    ----------
    h : float, default=0.5
        Half-width of the quadratic zone around margin 1 (> 0).

    Examples
    --------
    >>> HuberLoss(0.5).value([2.0, 1.0, 0.0])
    array([0.   , 0.125, 1.   ])
    """

    name = "huber"
    lipschitz = 1.0

    def __init__(self, h: float = 0.5) -> None:
        self.h = check_positive(h, "huber_h")
        self.smoothness = 1.0 / (2.0 * self.h)  # c = 1/(2h), [S09] eq. (2)

    def value(self, z: ArrayLike) -> FloatArray:
        z = np.asarray(z, dtype=float)
        h = self.h
        t = 1.0 + h - z
        # u²/(4h) + max(t − 2h, 0) with u = clip(t, 0, 2h): the three zones of
        # eq. (2) without squaring a huge t (which would overflow).
        u = np.clip(t, 0.0, 2.0 * h)
        return u * u / (4 * h) + np.maximum(t - 2.0 * h, 0.0)

    def derivative(self, z: ArrayLike) -> FloatArray:
        z = np.asarray(z, dtype=float)
        h = self.h
        return np.where(
            z > 1 + h, 0.0, np.where(z < 1 - h, -1.0, -(1.0 + h - z) / (2 * h))
        )

    def second_derivative(self, z: ArrayLike) -> FloatArray:
        z = np.asarray(z, dtype=float)
        return np.where(np.abs(1.0 - z) <= self.h, 1.0 / (2 * self.h), 0.0)

    def value_and_derivative(self, z: ArrayLike) -> tuple[float, FloatArray]:
        # t = 1 + h − z; the quadratic zone is 0 ≤ t ≤ 2h.
        # With u = clip(t, 0, 2h): ℓ = u²/(4h) + max(t − 2h, 0) on every zone
        # (t > 2h: h + t − 2h = 1 − z; 0 ≤ t ≤ 2h: t²/(4h); t < 0: 0).
        h = self.h
        t = 1.0 + h - np.asarray(z, dtype=float)
        deriv = np.clip(t, 0.0, 2.0 * h)
        total = float(deriv @ deriv) / (4.0 * h)
        t -= 2.0 * h
        np.maximum(t, 0.0, out=t)
        total += float(np.sum(t))
        deriv *= -1.0 / (2.0 * h)
        return total, deriv

    def __repr__(self) -> str:
        return f"HuberLoss(h={self.h!r})"


class LogisticLoss(Loss):
    """Logistic loss ℓ(z) = log(1 + e^{−z}); L = 1, |ℓ″| ≤ c = 1/4.

    Examples
    --------
    >>> round(float(LogisticLoss().value(0.0)), 6)
    0.693147
    """

    name = "logistic"
    lipschitz = 1.0
    smoothness = 0.25

    def value(self, z: ArrayLike) -> FloatArray:
        return np.logaddexp(0.0, -np.asarray(z, dtype=float))

    def derivative(self, z: ArrayLike) -> FloatArray:
        return -expit(-np.asarray(z, dtype=float))

    def second_derivative(self, z: ArrayLike) -> FloatArray:
        z = np.asarray(z, dtype=float)
        return expit(z) * expit(-z)

    def value_and_derivative(self, z: ArrayLike) -> tuple[float, FloatArray]:
        # With e = exp(−|z|) ∈ (0, 1]: ℓ(z) = log1p(e) + max(−z, 0) and
        # ℓ′(z) = −σ(−z) = −e/(1 + e) for z ≥ 0, −1/(1 + e) for z < 0 — two
        # transcendental evaluations per margin, no overflow for any z.
        z = np.asarray(z, dtype=float)
        e = np.abs(z)
        np.negative(e, out=e)
        np.exp(e, out=e)
        total = float(np.sum(np.log1p(e))) - float(np.sum(np.minimum(z, 0.0)))
        deriv = np.where(z >= 0.0, e, 1.0)
        e += 1.0
        deriv /= e
        np.negative(deriv, out=deriv)
        return total, deriv


class RhoHingeLoss(Loss):
    """The ρ-hinge loss of [B22]: ℓ^ρ(z) = max(0, 1 − z/ρ); L = 1/ρ.

    This is the hinge on z/ρ, not max(0, ρ − z) ([B22] §2).

    Parameters
    ----------
    rho : float, default=1.0
        The margin ρ > 0.

    Examples
    --------
    >>> RhoHingeLoss(0.5).value([0.25, 1.0])
    array([0.5, 0. ])
    """

    name = "rho-hinge"
    smoothness = None

    def __init__(self, rho: float = 1.0) -> None:
        self.rho = check_positive(rho, "rho")
        self.lipschitz = 1.0 / self.rho  # L = 1/ρ, [B22] §2

    def value(self, z: ArrayLike) -> FloatArray:
        return np.maximum(0.0, 1.0 - np.asarray(z, dtype=float) / self.rho)

    def derivative(self, z: ArrayLike) -> FloatArray:
        return np.where(np.asarray(z, dtype=float) < self.rho, -1.0 / self.rho, 0.0)

    def __repr__(self) -> str:
        return f"RhoHingeLoss(rho={self.rho!r})"


class SquareLoss(Loss):
    """Square loss ℓ(z) = (1 − z)²: **not Lipschitz on ℝ** (L = ∞).

    Listed for completeness ([R09] §2.1 mentions it); no privacy theorem of the
    papers applies to it, and every dpsvm estimator refuses it.

    Examples
    --------
    >>> SquareLoss().lipschitz
    inf
    """

    name = "square"
    lipschitz = math.inf
    smoothness = 2.0

    def value(self, z: ArrayLike) -> FloatArray:
        return (1.0 - np.asarray(z, dtype=float)) ** 2

    def derivative(self, z: ArrayLike) -> FloatArray:
        return -2.0 * (1.0 - np.asarray(z, dtype=float))

    def second_derivative(self, z: ArrayLike) -> FloatArray:
        return np.full_like(np.asarray(z, dtype=float), 2.0)


def get_loss(name: str, *, huber_h: float = 0.5, rho: float = 1.0) -> Loss:
    """Build a loss from its public name.

    Parameters
    ----------
    name : {"hinge", "huber", "logistic", "rho-hinge", "square"}
        The loss.
    huber_h : float, default=0.5
        Half-width for ``"huber"``.
    rho : float, default=1.0
        Margin for ``"rho-hinge"``.

    Returns
    -------
    Loss
        The loss object.

    Examples
    --------
    >>> get_loss("huber", huber_h=0.1).smoothness
    5.0
    """
    if name == "hinge":
        return HingeLoss()
    if name == "huber":
        return HuberLoss(huber_h)
    if name == "logistic":
        return LogisticLoss()
    if name == "rho-hinge":
        return RhoHingeLoss(rho)
    if name == "square":
        return SquareLoss()
    raise ValueError(
        f"Unknown loss {name!r}; expected 'hinge', 'huber', 'logistic', "
        "'rho-hinge' or 'square'."
    )
