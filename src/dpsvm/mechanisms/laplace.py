# SPDX-License-Identifier: BSD-3-Clause
"""The Laplace mechanism: i.i.d. Laplace noise on every coordinate.

Used for output perturbation with an L1 sensitivity bound, e.g. PRIVATESVM-FINITE
and PRIVATESVM of Rubinstein, Bartlett, Huang & Taft (arXiv:0911.5708, Alg. 2 and
3, Thm 7 and Cor. 9).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..utils._random import RandomStateLike, check_random_state
from ..validation import check_positive
from .base import Mechanism, check_size

__all__ = ["LaplaceVector", "sample_laplace"]

_REFERENCE = (
    "Dwork, McSherry, Nissim & Smith (2006), 'Calibrating noise to sensitivity in "
    "private data analysis', TCC, Prop. 1: Laplace scale = L1 sensitivity / epsilon; "
    "used by Rubinstein, Bartlett, Huang & Taft (arXiv:0911.5708v1), Thm 7 / Cor. 9."
)


def sample_laplace(
    size: int | tuple[int, ...], scale: float, rng: RandomStateLike = None
) -> NDArray[np.float64]:
    """Draw i.i.d. Laplace(0, scale) noise, density exp(−|x|/scale)/(2·scale).

    A low-level sampler for callers that computed the scale themselves.

    Parameters
    ----------
    size : int or tuple of int
        Number of draws or output shape (entries > 0).
    scale : float
        The Laplace scale λ > 0 (finite); the mean absolute value is λ.
    rng : None, int or numpy.random.Generator, default=None
        Passed through :func:`dpsvm.utils._random.check_random_state`: ``None``
        draws from a fresh CSPRNG; an int is for tests and documentation only;
        a Generator is used (and advanced) as is.

    Returns
    -------
    ndarray of float64
        The noise.

    Raises
    ------
    ValueError
        If ``size`` or ``scale`` is not positive.

    Notes
    -----
    Drawn with :meth:`numpy.random.Generator.laplace` (a floating-point inverse-CDF
    transform; see the caveat in :mod:`dpsvm.mechanisms.base`).

    Examples
    --------
    >>> sample_laplace(3, 2.0, rng=0).shape
    (3,)
    """
    size = check_size(size)
    scale = check_positive(scale, "scale")
    gen = check_random_state(rng)
    return np.asarray(gen.laplace(0.0, scale, size=size), dtype=np.float64)


class LaplaceVector(Mechanism):
    """Pure ε-DP Laplace mechanism for a vector with bounded L1 sensitivity.

    Adds i.i.d. Laplace(0, λ) noise to every coordinate with λ = Δ₁/ε.

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    sensitivity : float
        The L1 sensitivity Δ₁ = max ‖f(D) − f(D′)‖₁ over neighbouring datasets,
        > 0 (finite). It must be a public bound, fixed before the data are seen.

    Attributes
    ----------
    epsilon : float
        ε.
    delta : float
        Always 0.
    sensitivity : float
        Δ₁.

    Notes
    -----
    **Privacy.** For any two neighbouring datasets D, D′ (the neighbouring
    relation is whatever Δ₁ was computed for; every dpsvm caller uses
    replace-one), if ‖f(D) − f(D′)‖₁ ≤ Δ₁ then releasing f(D) + μ with
    μᵢ ~ Laplace(0, Δ₁/ε) i.i.d. is ε-differentially private (pure DP, δ = 0):
    the density ratio is exp((‖y − f(D′)‖₁ − ‖y − f(D)‖₁)/λ) ≤ exp(Δ₁/λ) = e^ε.
    The whole vector is protected; the guarantee assumes Δ₁ is a true,
    data-independent bound.

    References
    ----------
    .. [1] C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to
       sensitivity in private data analysis", TCC 2006, Proposition 1.
    .. [2] B. I. P. Rubinstein, P. L. Bartlett, L. Huang and N. Taft, "Learning
       in a large function space: privacy-preserving mechanisms for SVM
       learning", arXiv:0911.5708v1, Theorem 7 and Corollary 9.

    Examples
    --------
    >>> mech = LaplaceVector(epsilon=0.5, sensitivity=2.0)
    >>> mech.scale
    4.0
    >>> mech.randomise([1.0, 2.0, 3.0], random_state=0).shape
    (3,)
    """

    name: ClassVar[str] = "laplace"
    sensitivity_norm: ClassVar[str] = "l1"
    reference: ClassVar[str] = _REFERENCE

    def __init__(self, *, epsilon: float, sensitivity: float) -> None:
        super().__init__(epsilon=epsilon, delta=0.0, sensitivity=sensitivity)
        # Dwork et al. (2006), Prop. 1; Rubinstein et al. (arXiv:0911.5708v1),
        # Thm 7: lambda = Delta_1 / epsilon.
        self._scale = self._sensitivity / self._epsilon

    @property
    def scale(self) -> float:
        """The Laplace scale λ = Δ₁/ε (mean absolute noise per coordinate).

        Examples
        --------
        >>> LaplaceVector(epsilon=0.5, sensitivity=2.0).scale
        4.0
        """
        return self._scale

    @staticmethod
    def epsilon_for_scale(scale: float, sensitivity: float) -> float:
        """Return the ε of Laplace noise of a given scale: ε = Δ₁/λ.

        Used to report the ε that a published noise calibration gives, e.g.
        λ = 4LCκ√F/(βn) in Rubinstein et al. (arXiv:0911.5708v1), Thm 7.

        Parameters
        ----------
        scale : float
            The Laplace scale λ > 0.
        sensitivity : float
            The L1 sensitivity Δ₁ > 0.

        Returns
        -------
        float
            The privacy-loss bound ε = Δ₁/λ.

        Examples
        --------
        >>> LaplaceVector.epsilon_for_scale(4.0, 2.0)
        0.5
        """
        scale = check_positive(scale, "scale")
        sensitivity = check_positive(sensitivity, "sensitivity")
        # Dwork et al. (2006), Prop. 1 solved for epsilon: epsilon = Delta_1 / lambda.
        return sensitivity / scale

    def sample(
        self, size: int | tuple[int, ...], random_state: RandomStateLike = None
    ) -> NDArray[np.float64]:
        """Draw i.i.d. Laplace(0, λ) noise.

        Parameters
        ----------
        size : int or tuple of int
            Number of draws or output shape (entries > 0).
        random_state : None, int or numpy.random.Generator, default=None
            ``None`` draws from a fresh CSPRNG (use this for real releases); an
            int is for tests and documentation only; a Generator is used as is.

        Returns
        -------
        ndarray of float64
            The noise.

        Examples
        --------
        >>> LaplaceVector(epsilon=1.0, sensitivity=1.0).sample((2, 3), 0).shape
        (2, 3)
        """
        return sample_laplace(size, self._scale, random_state)

    def _event_details(self) -> dict[str, Any]:
        return {"scale": self._scale}
