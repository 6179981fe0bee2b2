# SPDX-License-Identifier: BSD-3-Clause
"""Base classes of the dpsvm noise mechanisms.

Two small abstract classes, in the spirit of diffprivlib's mechanisms and Google
dp_accounting's frozen events:

* :class:`BaseMechanism` holds the privacy parameters (ε, δ and the sensitivity the
  mechanism is calibrated to), validates them once in ``__init__`` and turns them
  into a frozen :class:`~dpsvm.accounting.PrivacyEvent`. Mechanisms that do not add
  noise to a value (the exponential mechanism selects an index) derive from it
  directly.
* :class:`Mechanism` adds the additive-noise interface: :meth:`Mechanism.sample`
  (the noise alone) and :meth:`Mechanism.randomise` (a value plus fresh noise).

Mechanism objects are immutable: ε, δ and the sensitivity are read-only, so the
noise scale derived from them cannot drift away from the recorded event.

Floating-point hardening (see ``docs/privacy.md``). Noise is drawn from a
CSPRNG-backed :class:`numpy.random.Generator`
(:func:`dpsvm.utils._random.as_generator`), so it is unpredictable. The
*release* ``value + noise`` is a different matter: evaluated with textbook
floating-point samplers, its set of possible doubles depends on the value, which
the precision-based attacks of Mironov (CCS 2012) and Haney et al. (2022)
exploit.

* Laplace releases (:class:`~dpsvm.mechanisms.LaplaceVector` ``randomise`` and
  :func:`~dpsvm.mechanisms.laplace_release`) default to the discretised
  Laplace of :mod:`dpsvm.mechanisms._snapping`: the value is snapped to a
  public grid 2^m and exact integer noise is added (Canonne, Kamath & Steinke
  2020), which needs no floating-point assumption (arXiv:2107.10138 §5.1).
* :meth:`Mechanism.sample` (noise alone), the Gamma-norm (L2) and Gaussian
  samplers and the exponential mechanism remain floating-point transforms:
  they are guarded against degenerate draws (zero norms, overflow, underflow)
  but a release ``value + sample(...)`` is not protected against those
  attacks.
"""

from __future__ import annotations

import abc
import math
import numbers
import sys
from typing import Any, ClassVar, Generic, TypeVar, cast, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..accounting.events import PrivacyEvent
from ..utils._random import GeneratorLike, as_generator
from ..validation import check_delta, check_epsilon, check_positive

__all__ = [
    "BaseMechanism",
    "Mechanism",
    "check_noise_scale",
    "check_release_value",
    "check_size",
]

#: Smallest accepted noise scale, 2^-969 = (smallest normal double)/(machine
#: epsilon): a draw of relative size >= 2^-53 of the scale is then a normal
#: double, never a subnormal or a zero that would leave the value unperturbed.
MIN_NOISE_SCALE = math.ldexp(1.0, -969)


def check_size(size: int | tuple[int, ...]) -> int | tuple[int, ...]:
    """Check a sample size: a positive int or a tuple of positive ints.

    Parameters
    ----------
    size : int or tuple of int
        The number of draws (an int) or the output shape (a tuple; the empty
        tuple gives a single draw as a 0-d array).

    Returns
    -------
    int or tuple of int
        ``size`` with numpy integers turned into Python ints.

    Raises
    ------
    TypeError
        If ``size`` (or an entry of it) is not an integer.
    ValueError
        If ``size`` (or an entry of it) is not positive.

    Examples
    --------
    >>> check_size(3), check_size((2, 4))
    (3, (2, 4))
    """
    if isinstance(size, tuple):
        return tuple(_check_positive_int(s, "size entries") for s in size)
    return _check_positive_int(size, "size")


def check_noise_scale(scale: float, name: str, *, headroom: float = 64.0) -> float:
    """Check a floating-point noise scale against underflow and overflow.

    Parameters
    ----------
    scale : float
        The scale of the noise distribution, > 0.
    name : str
        Its name, for the error message.
    headroom : float, default=64.0
        How many scales a draw may reach before it must still be finite (64 for
        numpy's Laplace, whose draws stay within 37 scales; more for Gamma norms).

    Returns
    -------
    float
        ``scale`` as a float.

    Raises
    ------
    TypeError
        If ``scale`` is not a real number.
    ValueError
        If ``scale`` is not positive and finite, is below 2⁻⁹⁶⁹ (draws could
        underflow to subnormals or zero, releasing a value unperturbed) or
        ``scale * headroom`` overflows.

    Examples
    --------
    >>> check_noise_scale(0.5, "scale")
    0.5
    """
    v = check_positive(scale, name)
    if v < MIN_NOISE_SCALE:
        raise ValueError(
            f"{name} must be at least 2^-969 (about 2.0e-292), got {v!r}: noise of "
            "this scale can underflow to zero and leave the value unperturbed."
        )
    if not v * headroom <= sys.float_info.max:
        raise ValueError(
            f"{name} = {v!r} is too large: noise draws of up to {headroom:g} scales "
            "would overflow to inf."
        )
    return v


def check_release_value(value: ArrayLike) -> NDArray[np.float64]:
    """Check a value to be released and return a float64 copy of it.

    Parameters
    ----------
    value : array-like of real numbers
        The exact (sensitive) value, any shape.

    Returns
    -------
    ndarray of float64
        A new array (``value`` is never modified) with the shape of ``value``.

    Raises
    ------
    TypeError
        If ``value`` is not real-valued (complex, strings, objects).
    ValueError
        If ``value`` is empty or has a non-finite entry (an infinite value
        would be released unchanged, so it is refused).

    Examples
    --------
    >>> check_release_value([1, 2])
    array([1., 2.])
    """
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"value must be real-valued, got dtype {arr.dtype}.")
    out = np.array(arr, dtype=np.float64, copy=True)
    if out.size == 0:
        raise ValueError("value must be non-empty.")
    if not np.all(np.isfinite(out)):
        raise ValueError("value must be finite (no NaN or inf entries).")
    return out


def _check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a positive int (or a tuple of them), "
            f"got {type(value).__name__}."
        )
    if value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value}.")
    return int(value)


T = TypeVar("T")


class ReadOnly(Generic[T]):
    """A read-only public attribute ``name`` whose value is stored as ``_name``.

    The parameters of a mechanism (ε, δ, the sensitivity and the noise scale
    derived from them) are set once in ``__init__``; assigning to the public
    name raises ``AttributeError``, so the noise cannot drift away from the
    recorded event.
    """

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self._attr = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._attr = "_" + name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> ReadOnly[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object, owner: type | None = None) -> T | ReadOnly[T]:
        if obj is None:
            return self
        return cast(T, getattr(obj, self._attr))

    def __set__(self, obj: object, value: object) -> None:
        raise AttributeError(f"{self._attr[1:]} is read-only.")


class BaseMechanism(abc.ABC):
    """Privacy parameters and event of a differentially private mechanism.

    Subclasses set the class attributes ``name`` (the event's mechanism name),
    ``sensitivity_norm`` (``"l1"``, ``"l2"`` or ``"utility"``) and ``reference``
    (the paper and theorem of the calibration), and implement
    ``_event_details`` (the calibration facts, e.g. the noise scale, recorded in
    every event).

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    delta : float
        The failure probability δ ∈ [0, 1).
    sensitivity : float
        The sensitivity the noise is calibrated to, > 0 (finite), in the norm
        given by ``sensitivity_norm``.
    allow_zero_delta : bool, default=True
        Whether δ = 0 is accepted.

    Raises
    ------
    TypeError
        If a parameter is not a real number.
    ValueError
        If ε or the sensitivity is not a finite positive number, or δ is outside
        its range.

    Examples
    --------
    >>> from dpsvm.mechanisms import ExponentialMechanism
    >>> em = ExponentialMechanism(epsilon=0.5, sensitivity=1.0)
    >>> isinstance(em, BaseMechanism), em.epsilon, em.delta
    (True, 0.5, 0.0)
    """

    name: ClassVar[str] = ""
    sensitivity_norm: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    #: Whether ``delta`` is a constructor parameter of the subclass (for ``repr``).
    _delta_is_parameter: ClassVar[bool] = False

    def __init__(
        self,
        *,
        epsilon: float,
        delta: float,
        sensitivity: float,
        allow_zero_delta: bool = True,
    ) -> None:
        self._epsilon = check_epsilon(epsilon)
        self._delta = check_delta(delta, allow_zero=allow_zero_delta)
        self._sensitivity = check_positive(sensitivity, "sensitivity")

    epsilon: ReadOnly[float] = ReadOnly("The privacy-loss bound ε (read-only).")
    delta: ReadOnly[float] = ReadOnly(
        "The failure probability δ (read-only; 0 for pure DP)."
    )
    sensitivity: ReadOnly[float] = ReadOnly(
        "The sensitivity the noise is calibrated to (read-only)."
    )

    @abc.abstractmethod
    def _event_details(self) -> dict[str, Any]:
        """Return the calibration facts recorded in every event (e.g. the scale)."""

    def privacy_event(
        self, *, neighbouring: str = "replace-one", **details: Any
    ) -> PrivacyEvent:
        """Return a frozen record of one release by this mechanism.

        Parameters
        ----------
        neighbouring : str, default="replace-one"
            The neighbouring relation under which the sensitivity was computed.
        **details
            Further facts to record (dimension, regularisation, ...); they are
            added to the mechanism's own details (its noise scale).

        Returns
        -------
        PrivacyEvent
            The event: name, ε, δ, sensitivity, its norm, the reference and the
            details.

        Examples
        --------
        >>> from dpsvm.mechanisms import LaplaceVector
        >>> event = LaplaceVector(epsilon=0.5, sensitivity=2.0).privacy_event(dim=3)
        >>> event.mechanism, event.sensitivity_norm, event.details["dim"]
        ('laplace', 'l1', 3)
        >>> event.details["scale"], event.details["release"]
        (4.0, 'discrete')
        """
        return PrivacyEvent(
            mechanism=self.name,
            epsilon=self._epsilon,
            delta=self._delta,
            sensitivity=self._sensitivity,
            sensitivity_norm=self.sensitivity_norm,
            neighbouring=neighbouring,
            reference=self.reference,
            details={**self._event_details(), **details},
        )

    def __repr__(self) -> str:
        args = f"epsilon={self._epsilon!r}"
        if self._delta_is_parameter:
            args += f", delta={self._delta!r}"
        return f"{type(self).__name__}({args}, sensitivity={self._sensitivity!r})"


class Mechanism(BaseMechanism):
    """An additive-noise mechanism: release ``value + noise``.

    Subclasses implement ``_draw(size, generator)`` (noise of a checked size
    from a generator); :meth:`sample` checks the size (``_check_sample_size``,
    :func:`check_size` unless a subclass accepts fewer sizes) and the random
    state and draws, and :meth:`randomise` releases a float64 copy of the value
    plus fresh noise (``_release``: one draw of the value's shape added, unless
    a subclass releases differently, e.g. on a grid).

    Parameters
    ----------
    epsilon : float
        The privacy-loss bound ε > 0 (finite).
    delta : float
        The failure probability δ ∈ [0, 1).
    sensitivity : float
        The sensitivity the noise is calibrated to, > 0 (finite), in the norm
        given by ``sensitivity_norm``.
    allow_zero_delta : bool, default=True
        Whether δ = 0 is accepted.

    Examples
    --------
    >>> from dpsvm.mechanisms import AnalyticGaussian
    >>> mech = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    >>> isinstance(mech, Mechanism)
    True
    """

    @abc.abstractmethod
    def _draw(
        self, size: int | tuple[int, ...], gen: np.random.Generator
    ) -> NDArray[np.float64]:
        """Return noise of a checked ``size`` (an int or a shape) from ``gen``."""

    def _check_sample_size(self, size: Any) -> int | tuple[int, ...]:
        """Return the checked ``size`` of :meth:`sample` (an int or a shape)."""
        return check_size(size)

    def sample(
        self, size: int | tuple[int, ...], random_state: GeneratorLike = None
    ) -> NDArray[np.float64]:
        """Draw the noise alone, from a floating-point sampler.

        Parameters
        ----------
        size : int or tuple of int
            Number of draws or output shape (entries > 0).
        random_state : None, int or numpy.random.Generator, default=None
            ``None`` (the default, and the only choice for a real release) draws
            from a fresh CSPRNG; an int gives reproducible noise **for tests and
            documentation only** (anyone who knows it can subtract the noise); a
            Generator is used (and advanced) as is, never stored (a mechanism keeps
            no generator; estimators refuse generator objects as their own
            ``random_state``).

        Returns
        -------
        ndarray of float64
            The noise.

        Notes
        -----
        Adding this noise to a value yourself is the naive release that
        Mironov (CCS 2012) attacks; release a value with :meth:`randomise`
        (a discretised Laplace for :class:`~dpsvm.mechanisms.LaplaceVector`).

        Examples
        --------
        >>> from dpsvm.mechanisms import LaplaceVector
        >>> LaplaceVector(epsilon=1.0, sensitivity=1.0).sample(4, random_state=0).shape
        (4,)
        >>> from dpsvm.mechanisms import AnalyticGaussian
        >>> mech = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)
        >>> mech.sample((2, 3), random_state=0).shape
        (2, 3)
        """
        return self._draw(self._check_sample_size(size), as_generator(random_state))

    def randomise(
        self, value: ArrayLike, random_state: GeneratorLike = None
    ) -> NDArray[np.float64]:
        """Return ``value`` plus fresh noise, as a new float64 array.

        Parameters
        ----------
        value : array-like of real numbers
            The exact (sensitive) value, e.g. a weight vector. It must be
            finite and non-empty; it is not modified.
        random_state : None, int or numpy.random.Generator, default=None
            See :meth:`sample`.

        Returns
        -------
        ndarray of float64
            ``value + noise``, with the shape of ``value``; a
            :class:`~dpsvm.mechanisms.LaplaceVector` release lies on the
            public grid 2^m (``method="discrete"``, its default).

        Raises
        ------
        TypeError
            If ``value`` is not real-valued.
        ValueError
            If ``value`` is empty or has a non-finite entry (an infinite value
            would be released unchanged, so it is refused).

        Examples
        --------
        >>> from dpsvm.mechanisms import LaplaceVector
        >>> mech = LaplaceVector(epsilon=1.0, sensitivity=1.0)
        >>> w = mech.randomise([1, 2, 3], random_state=0)
        >>> w.dtype, w.shape
        (dtype('float64'), (3,))
        """
        return self._release(value, random_state)

    def _release(
        self, value: ArrayLike, random_state: GeneratorLike
    ) -> NDArray[np.float64]:
        """Return a float64 copy of the checked ``value`` plus one draw of its shape."""
        out = check_release_value(value)
        rng = as_generator(random_state)
        out += self._draw(out.shape, rng)
        return out
