# SPDX-License-Identifier: BSD-3-Clause
"""Frozen, typed records of privacy spends (in the spirit of dp-accounting DpEvent).

A :class:`PrivacyEvent` says what a mechanism released and what it cost: the
mechanism, ε, δ, the sensitivity it was calibrated to (and in which norm), the
neighbouring relation, and the paper and theorem the calibration comes from.
Events are immutable plain data; ``to_dict`` gives a JSON-ready view used by
privacy reports and model files, and :meth:`PrivacyEvent.from_dict` reads it back.

The guarantee is a **type**, not a string in the mechanism's name:

* :class:`PureDpEvent`: ε-DP (finite ε, δ = 0);
* :class:`ApproximateDpEvent`: (ε, δ)-DP (finite ε, 0 < δ ≤ 1);
* :class:`NonPrivateEvent`: no differential-privacy guarantee at all (ε = ∞,
  δ = 1), e.g. a paper's mechanism as printed whose proof is wrong. Its
  ``reason`` says why and names the option that gives a private release.

``PrivacyEvent(...)`` itself stays constructible with the same fields and returns
the matching subclass: ε = ∞ or a non-private child gives a
:class:`NonPrivateEvent`, δ > 0 an :class:`ApproximateDpEvent`, otherwise a
:class:`PureDpEvent`.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

__all__ = [
    "NEIGHBOURING_RELATIONS",
    "ApproximateDpEvent",
    "NonPrivateEvent",
    "PrivacyEvent",
    "PureDpEvent",
]

#: Neighbouring relations dpsvm knows. Every mechanism in the papers implemented
#: here is calibrated for ``"replace-one"`` (datasets of equal size n differing in
#: one record); ``"replace-one-label"`` is the label-DP relation of Bassily,
#: Mohri & Suresh ("Differentially private learning with margin guarantees").
NEIGHBOURING_RELATIONS = ("replace-one", "replace-one-label")


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    if isinstance(value, PrivacyEvent):
        return value.to_dict()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _same(a: Any, b: Any) -> bool:
    """Value equality of frozen ``details`` (mappings, tuples, arrays, scalars)."""
    if a is b:
        return True
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and bool(np.array_equal(a, b))
    return bool(a == b)


def _thaw_plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw_plain(v) for k, v in value.items()}
    return value


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], name: str) -> Any:
    index = _FIELD_ORDER.index(name)
    if index < len(args):
        return args[index]
    return kwargs.get(name, _DEFAULTS.get(name))


def _number(value: Any) -> float:
    """``value`` as a float, NaN for anything that is not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _event_type(args: tuple[Any, ...], kwargs: dict[str, Any]) -> type[PrivacyEvent]:
    """The subclass that ``PrivacyEvent(*args, **kwargs)`` builds."""
    children = _argument(args, kwargs, "children")
    if _number(_argument(args, kwargs, "epsilon")) == math.inf or any(
        isinstance(c, NonPrivateEvent) for c in (children or ())
    ):
        return NonPrivateEvent
    if _number(_argument(args, kwargs, "delta")) > 0:
        return ApproximateDpEvent
    return PureDpEvent


# eq=False: ``__eq__`` and ``__hash__`` are written below, because the generated
# hash would fail on the frozen ``details`` mapping.
@dataclass(frozen=True, eq=False)
class PrivacyEvent:
    """An immutable record of one release and the privacy it costs.

    ``PrivacyEvent(...)`` returns an instance of one of its three subclasses,
    chosen from the arguments: :class:`NonPrivateEvent` when ``epsilon`` is
    infinite or a child is non-private, :class:`ApproximateDpEvent` when
    ``delta`` > 0, :class:`PureDpEvent` otherwise. Test the guarantee with
    ``isinstance``, never with the mechanism's name.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism, e.g. ``"objective-perturbation"``.
    epsilon : float
        The ε of the release (≥ 0; ``inf`` for no guarantee).
    delta : float, default=0.0
        The δ of the release (0 for pure DP).
    sensitivity : float or None, default=None
        The sensitivity the noise was calibrated to.
    sensitivity_norm : str or None, default=None
        The norm of ``sensitivity`` (``"l1"``, ``"l2"``, ``"gradient-l2"``,
        ``"utility"``).
    neighbouring : str, default="replace-one"
        The neighbouring relation of the guarantee.
    reference : str, default=""
        Paper, theorem and equation of the calibration.
    details : mapping, default={}
        Further facts (noise scale, regularisation, norm bound, ...), frozen.
    children : tuple of PrivacyEvent, default=()
        Sub-events of a composed release (e.g. one per one-vs-rest class); the
        event's own ε and δ are their composition.

    See Also
    --------
    PureDpEvent, ApproximateDpEvent, NonPrivateEvent : The three guarantees.

    Examples
    --------
    >>> e = PrivacyEvent("laplace", 0.5, sensitivity=1.0, sensitivity_norm="l1")
    >>> e.epsilon, e.delta, e.neighbouring
    (0.5, 0.0, 'replace-one')
    >>> type(e).__name__, type(PrivacyEvent("gaussian", 0.5, 1e-6)).__name__
    ('PureDpEvent', 'ApproximateDpEvent')
    >>> isinstance(PrivacyEvent("x", float("inf")), NonPrivateEvent)
    True
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0
    sensitivity: float | None = None
    sensitivity_norm: str | None = None
    neighbouring: str = "replace-one"
    reference: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)
    children: tuple[PrivacyEvent, ...] = ()

    #: The guarantee in words, written to ``to_dict()["type"]``.
    guarantee: ClassVar[str] = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> PrivacyEvent:
        """Create the subclass that matches the guarantee (see the class docs).

        Parameters
        ----------
        *args, **kwargs
            The fields, as for the dataclass constructor.

        Returns
        -------
        PrivacyEvent
            An uninitialised instance of :class:`PureDpEvent`,
            :class:`ApproximateDpEvent` or :class:`NonPrivateEvent` (or of
            ``cls`` itself when a subclass is named explicitly).
        """
        target = _event_type(args, kwargs) if cls is PrivacyEvent else cls
        return object.__new__(target)

    def __post_init__(self) -> None:
        eps = float(self.epsilon)
        delta = float(self.delta)
        if math.isnan(eps) or eps < 0:
            raise ValueError(f"PrivacyEvent epsilon must be >= 0, got {eps}.")
        if math.isnan(delta) or not 0 <= delta <= 1:
            raise ValueError(f"PrivacyEvent delta must be in [0, 1], got {delta}.")
        if self.neighbouring not in NEIGHBOURING_RELATIONS:
            raise ValueError(
                f"Unknown neighbouring relation {self.neighbouring!r}; "
                f"expected one of {NEIGHBOURING_RELATIONS}."
            )
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "details", _freeze(dict(self.details)))
        object.__setattr__(self, "children", tuple(self.children))
        self._check_guarantee()

    def _check_guarantee(self) -> None:
        """Refuse fields that contradict the subclass's guarantee."""

    def _require_finite(self, delta_ok: bool, delta_rule: str) -> None:
        """Refuse an infinite ε, or a δ that breaks the subclass's ``delta_rule``."""
        if not math.isfinite(self.epsilon) or not delta_ok:
            name = type(self).__name__
            article = "An" if name[0] in "AEIOU" else "A"
            raise ValueError(
                f"{article} {name} needs a finite epsilon and {delta_rule}, got "
                f"epsilon={self.epsilon}, delta={self.delta}."
            )

    def _fields_but_details(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in fields(self) if f.name != "details")

    def __eq__(self, other: object) -> bool:
        """Return whether ``other`` records the same release (value equality).

        Two events are equal when they have the same type and equal fields,
        ``details`` and ``children`` included (compared by value).
        """
        if not isinstance(other, PrivacyEvent):
            return NotImplemented
        return self is other or (
            type(self) is type(other)
            and self._fields_but_details() == other._fields_but_details()
            and _same(self.details, other.details)
        )

    def __hash__(self) -> int:
        """Hash of the type and the fields other than ``details``.

        Consistent with ``==``: equal events have equal fields, hence equal
        hashes (``details`` may hold unhashable values, so it is left out).
        """
        return hash((type(self), self._fields_but_details()))

    def __getstate__(self) -> dict[str, Any]:
        # MappingProxyType cannot be pickled: store plain containers.
        state = dict(self.__dict__)
        state["details"] = _thaw_plain(self.details)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "details", _freeze(dict(state["details"])))

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict of the event.

        Returns
        -------
        dict
            ``type`` (``"pure"``, ``"approximate"`` or ``"non-private"``) and all
            fields (``reason`` too for a non-private event); infinite floats are
            written as strings.
        """
        return {
            "type": self.guarantee,
            "mechanism": self.mechanism,
            "epsilon": _thaw(self.epsilon),
            "delta": self.delta,
            "sensitivity": _thaw(self.sensitivity),
            "sensitivity_norm": self.sensitivity_norm,
            "neighbouring": self.neighbouring,
            "reference": self.reference,
            "details": _thaw(self.details),
            "children": [c.to_dict() for c in self.children],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PrivacyEvent:
        """Rebuild an event from :meth:`to_dict` output.

        Parameters
        ----------
        data : mapping
            A dict written by :meth:`to_dict` (``type`` may be absent, as in
            files written before events were typed: the type then follows from
            ε and δ as for ``PrivacyEvent(...)``).

        Returns
        -------
        PrivacyEvent
            An event of the recorded type, children included.

        Raises
        ------
        ValueError
            If ``type`` is unknown or contradicts ε and δ, or a field is invalid.

        Examples
        --------
        >>> e = NonPrivateEvent("demo", float("inf"), reason="no noise")
        >>> back = PrivacyEvent.from_dict(e.to_dict())
        >>> type(back).__name__, back.reason, back.delta
        ('NonPrivateEvent', 'no noise', 1.0)
        """
        kwargs = {
            name: data[name]
            for name in _FIELD_ORDER
            if name in data and name != "children"
        }
        for name in ("epsilon", "delta", "sensitivity"):
            value = kwargs.get(name)
            if isinstance(value, str):  # to_dict writes infinities as strings
                kwargs[name] = float(value)
        kwargs["children"] = tuple(
            c if isinstance(c, PrivacyEvent) else PrivacyEvent.from_dict(c)
            for c in data.get("children", ())
        )
        kind = data.get("type")
        if kind is None:
            return PrivacyEvent(**kwargs)
        target = _BY_GUARANTEE.get(kind)
        if target is None:
            raise ValueError(
                f"Unknown privacy event type {kind!r}; expected one of "
                f"{sorted(_BY_GUARANTEE)}."
            )
        if target is NonPrivateEvent:
            kwargs["reason"] = data.get("reason", "")
        elif _event_type((), kwargs) is not target:
            raise ValueError(
                f"A {kind!r} event cannot have epsilon={kwargs.get('epsilon')!r}, "
                f"delta={kwargs.get('delta')!r}."
            )
        return target(**kwargs)


@dataclass(frozen=True, eq=False)
class PureDpEvent(PrivacyEvent):
    """A release that is ε-differentially private (finite ε, δ = 0).

    Parameters
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon : float
        The ε of the release, finite and ≥ 0.
    delta : float, default=0.0
        Must be 0.
    sensitivity : float or None, default=None
        The sensitivity the noise was calibrated to.
    sensitivity_norm : str or None, default=None
        The norm of ``sensitivity``.
    neighbouring : str, default="replace-one"
        The neighbouring relation of the guarantee.
    reference : str, default=""
        Paper, theorem and equation of the calibration.
    details : mapping, default={}
        Further facts, frozen.
    children : tuple of PrivacyEvent, default=()
        Sub-events of a composed release.

    Examples
    --------
    >>> PureDpEvent("laplace", 0.5).to_dict()["type"]
    'pure'
    """

    guarantee: ClassVar[str] = "pure"

    def _check_guarantee(self) -> None:
        self._require_finite(self.delta == 0, "delta = 0")


@dataclass(frozen=True, eq=False)
class ApproximateDpEvent(PrivacyEvent):
    """A release that is (ε, δ)-differentially private (finite ε, δ > 0).

    Parameters
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon : float
        The ε of the release, finite and ≥ 0.
    delta : float, default=0.0
        The δ of the release, in (0, 1] (the default 0 is refused).
    sensitivity : float or None, default=None
        The sensitivity the noise was calibrated to.
    sensitivity_norm : str or None, default=None
        The norm of ``sensitivity``.
    neighbouring : str, default="replace-one"
        The neighbouring relation of the guarantee.
    reference : str, default=""
        Paper, theorem and equation of the calibration.
    details : mapping, default={}
        Further facts, frozen.
    children : tuple of PrivacyEvent, default=()
        Sub-events of a composed release.

    Examples
    --------
    >>> ApproximateDpEvent("gaussian", 0.5, 1e-6).to_dict()["type"]
    'approximate'
    """

    guarantee: ClassVar[str] = "approximate"

    def _check_guarantee(self) -> None:
        self._require_finite(self.delta > 0, "delta > 0")


@dataclass(frozen=True, eq=False)
class NonPrivateEvent(PrivacyEvent):
    """A release with **no** differential-privacy guarantee.

    Its cost is (ε, δ) = (∞, 1): every mechanism satisfies (ε, 1)-DP, and no
    smaller δ is justified for a release whose output distributions on
    neighbouring datasets may even have disjoint supports (for which (∞, 0)
    fails under the convention ∞·0 = 0). An ε given at construction that is
    finite (the *nominal* ε the mechanism claims) is kept only as
    ``details["nominal_epsilon"]``. Accountants with a finite budget and the
    private selectors refuse such releases.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon : float
        ``inf``, or the nominal ε the mechanism claims (moved to ``details``).
    delta : float, default=0.0
        Ignored: the event's δ is 1.
    sensitivity : float or None, default=None
        The sensitivity the noise was calibrated to (nominally).
    sensitivity_norm : str or None, default=None
        The norm of ``sensitivity``.
    neighbouring : str, default="replace-one"
        The neighbouring relation of the nominal claim.
    reference : str, default=""
        Paper, theorem and equation of the (flawed) calibration.
    details : mapping, default={}
        Further facts, frozen.
    children : tuple of PrivacyEvent, default=()
        Sub-events.
    reason : str, default=""
        Why the release is not private and which option gives a private one;
        when empty, taken from the first non-private child (or a generic text).

    Examples
    --------
    >>> e = NonPrivateEvent("objective-perturbation-2009", 1.0,
    ...                     reason="the 2009 calibration omits the Jacobian")
    >>> e.epsilon, e.delta, e.details["nominal_epsilon"]
    (inf, 1.0, 1.0)
    """

    reason: str = ""

    guarantee: ClassVar[str] = "non-private"

    def _check_guarantee(self) -> None:
        details = dict(self.details)
        if math.isfinite(self.epsilon):
            details.setdefault("nominal_epsilon", self.epsilon)
            object.__setattr__(self, "details", _freeze(details))
        object.__setattr__(self, "epsilon", math.inf)
        object.__setattr__(self, "delta", 1.0)
        reason = str(self.reason)
        if not reason:
            inner = [c.reason for c in self.children if isinstance(c, NonPrivateEvent)]
            reason = (
                f"composes a non-private release ({inner[0]})"
                if inner
                else "no differential-privacy guarantee (epsilon = inf)"
            )
        object.__setattr__(self, "reason", reason)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict of the event.

        Returns
        -------
        dict
            As :meth:`PrivacyEvent.to_dict`, with ``type`` ``"non-private"`` and
            ``reason``.
        """
        out = super().to_dict()
        out["reason"] = self.reason
        return out


# Position and default of each field of PrivacyEvent(...), for the dispatch in
# PrivacyEvent.__new__ (which sees the raw constructor arguments).
_FIELD_ORDER = tuple(f.name for f in fields(PrivacyEvent))
_DEFAULTS: dict[str, Any] = {
    f.name: f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc,operator]
    for f in fields(PrivacyEvent)
    if not (f.default is MISSING and f.default_factory is MISSING)
}

_BY_GUARANTEE: dict[str, type[PrivacyEvent]] = {
    cls.guarantee: cls for cls in (PureDpEvent, ApproximateDpEvent, NonPrivateEvent)
}

# PrivacyEvent.__new__ takes (*args, **kwargs); show each class's own fields.
for _cls in (PrivacyEvent, *_BY_GUARANTEE.values()):
    _init = inspect.signature(vars(_cls)["__init__"])
    _cls.__signature__ = _init.replace(  # type: ignore[attr-defined]
        parameters=list(_init.parameters.values())[1:]
    )
del _cls, _init
