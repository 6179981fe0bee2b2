# SPDX-License-Identifier: BSD-3-Clause
"""The Laplace mechanism: i.i.d. Laplace noise on every coordinate.

Used for output perturbation with an L1 sensitivity bound, e.g. PRIVATESVM-FINITE
and PRIVATESVM of Rubinstein, Bartlett, Huang & Taft (arXiv:0911.5708, Alg. 2 and
3, Thm 7 and Cor. 9).

Releases (:meth:`LaplaceVector.randomise`, :func:`laplace_release`) use the
floating-point-safe discretised Laplace of :mod:`dpsvm.mechanisms._snapping` by
default; :func:`sample_laplace` and :meth:`LaplaceVector.sample` return the noise
alone from numpy's floating-point sampler (which cannot be made safe on its own:
the leak is in the sum ``value + noise``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._random import GeneratorLike, as_generator
from ..validation import check_positive
from ._snapping import laplace_release
from .base import Mechanism, ReadOnly, check_noise_scale, check_size

__all__ = ["LaplaceVector", "laplace_release", "sample_laplace"]

_REFERENCE = (
    "Dwork, McSherry, Nissim & Smith (2006), 'Calibrating noise to sensitivity in "
    "private data analysis', TCC, Prop. 1: Laplace scale = L1 sensitivity / epsilon; "
    "used by Rubinstein, Bartlett, Huang & Taft (arXiv:0911.5708v1), Thm 7 / Cor. 9."
)


def sample_laplace(
    size: int | tuple[int, ...], scale: float, rng: GeneratorLike = None
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
        Passed through :func:`dpsvm.utils._random.as_generator`: ``None``
        draws from a fresh CSPRNG; an int is for tests and documentation only;
        a Generator is used (and advanced) as is.

    Returns
    -------
    ndarray of float64
        The noise.

    Raises
    ------
    ValueError
        If ``size`` or ``scale`` is not positive, or ``scale`` is outside
        [2⁻⁹⁶⁹, 2¹⁰¹⁶] (noise that could underflow to zero or overflow).

    Notes
    -----
    Drawn with :meth:`numpy.random.Generator.laplace` (a floating-point inverse-CDF
    transform). This is the noise alone: ``value + sample_laplace(...)`` is the
    *naive* release that Mironov (CCS 2012) attacks; release values with
    :func:`laplace_release` (discretised Laplace) instead.

    Examples
    --------
    >>> sample_laplace(3, 2.0, rng=0).shape
    (3,)
    """
    size = check_size(size)
    scale = check_noise_scale(scale, "scale")
    gen = as_generator(rng)
    return np.asarray(gen.laplace(0.0, scale, size=size), dtype=np.float64)


class LaplaceVector(Mechanism):
    """Pure ε-DP Laplace mechanism for a vector with bounded L1 sensitivity.

    Adds i.i.d. Laplace noise of scale λ = Δ₁/ε to every coordinate. By default
    :meth:`randomise` is floating-point safe: the value is snapped to a public
    grid 2^m and exact discrete Laplace noise is added
    (:func:`~dpsvm.mechanisms.laplace_release`).

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    sensitivity : float
        The L1 sensitivity Δ₁ = max ‖f(D) − f(D′)‖₁ over neighbouring datasets,
        > 0 (finite). It must be a public bound, fixed before the data are seen.
    method : {"discrete", "naive"}, default="discrete"
        How :meth:`randomise` releases a value: ``"discrete"`` (discretised
        Laplace on a 2^m grid, immune to the floating-point attack of Mironov
        2012) or ``"naive"`` (value + numpy's Laplace draw; for speed
        comparisons and tests only).
    bound : float or None, default=None
        Optional public bound B on |valueᵢ|: values are clamped to [−B, B]
        before snapping and releases to [−B, B] after (``"discrete"`` only).

    Attributes
    ----------
    epsilon : float
        ε.
    delta : float
        Always 0.
    sensitivity : float
        Δ₁.
    method : str
        The release method.
    bound : float or None
        B.

    Raises
    ------
    ValueError
        If ε or Δ₁ is not a finite positive number, ``bound`` is not positive,
        or ``method`` is unknown.

    Notes
    -----
    **Privacy.** For any two neighbouring datasets D, D′ (the neighbouring
    relation is whatever Δ₁ was computed for; every dpsvm caller uses
    replace-one), if ‖f(D) − f(D′)‖₁ ≤ Δ₁ then releasing f(D) + μ with
    μᵢ ~ Laplace(0, Δ₁/ε) i.i.d. is ε-differentially private (pure DP, δ = 0):
    the density ratio is exp((‖y − f(D′)‖₁ − ‖y − f(D)‖₁)/λ) ≤ exp(Δ₁/λ) = e^ε.
    The ``"discrete"`` release keeps this exact ε on a computer: snapping to the
    grid Λ raises the sensitivity to Δ₁/Λ + d grid units and the integer scale
    t = ⌈λ/Λ + dλ/Δ₁⌉ pays for it (Canonne, Kamath & Steinke 2020; see
    :mod:`dpsvm.mechanisms._snapping`). The whole vector is protected; the
    guarantee assumes Δ₁ (and B) are true, data-independent bounds.

    References
    ----------
    .. [1] C. Dwork, F. McSherry, K. Nissim and A. Smith, "Calibrating noise to
       sensitivity in private data analysis", TCC 2006, Proposition 1.
    .. [2] B. I. P. Rubinstein, P. L. Bartlett, L. Huang and N. Taft, "Learning
       in a large function space: privacy-preserving mechanisms for SVM
       learning", arXiv:0911.5708v1, Theorem 7 and Corollary 9.
    .. [3] I. Mironov, "On significance of the least significant bits for
       differential privacy", ACM CCS 2012.
    .. [4] C. L. Canonne, G. Kamath and T. Steinke, "The discrete Gaussian for
       differential privacy", NeurIPS 2020, arXiv:2004.00010, Alg. 1-2.

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

    def __init__(
        self,
        *,
        epsilon: float,
        sensitivity: float,
        method: str = "discrete",
        bound: float | None = None,
    ) -> None:
        super().__init__(epsilon=epsilon, delta=0.0, sensitivity=sensitivity)
        if method not in ("discrete", "naive"):
            raise ValueError(f"method must be 'discrete' or 'naive', got {method!r}.")
        self._method = method
        self._bound = None if bound is None else check_positive(bound, "bound")
        # Dwork et al. (2006), Prop. 1; Rubinstein et al. (arXiv:0911.5708v1),
        # Thm 7: lambda = Delta_1 / epsilon.
        self._scale = self._sensitivity / self._epsilon

    scale: ReadOnly[float] = ReadOnly(
        "The Laplace scale λ = Δ₁/ε (mean absolute noise per coordinate; the "
        '``"discrete"`` release adds noise of scale at most λ·(1 + 2⁻¹⁹), see '
        ":func:`~dpsvm.mechanisms._snapping.discrete_laplace_calibration`)."
    )
    method: ReadOnly[str] = ReadOnly(
        'The release method, ``"discrete"`` or ``"naive"`` (read-only).'
    )
    bound: ReadOnly[float | None] = ReadOnly(
        "The public bound B on |valueᵢ|, or ``None`` (read-only)."
    )

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

    def _draw(
        self, size: int | tuple[int, ...], gen: np.random.Generator
    ) -> NDArray[np.float64]:
        return sample_laplace(size, self._scale, gen)

    def _release(
        self, value: ArrayLike, random_state: GeneratorLike
    ) -> NDArray[np.float64]:
        # On the public grid 2^m ("discrete") or value + sample(...) ("naive").
        return laplace_release(
            value,
            self._scale,
            random_state,
            sensitivity=self._sensitivity,
            bound=self._bound,
            method=self._method,
        )

    def _event_details(self) -> dict[str, Any]:
        details: dict[str, Any] = {"scale": self._scale, "release": self._method}
        if self._bound is not None:
            details["bound"] = self._bound
        return details

    def __repr__(self) -> str:
        text = super().__repr__()[:-1]
        if self._method != "discrete":
            text += f", method={self._method!r}"
        if self._bound is not None:
            text += f", bound={self._bound!r}"
        return text + ")"
