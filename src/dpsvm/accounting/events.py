# SPDX-License-Identifier: BSD-3-Clause
"""Frozen records of privacy spends (in the spirit of dp-accounting's ``DpEvent``).

A :class:`PrivacyEvent` says what a mechanism released and what it cost: the
mechanism, ε, δ, the sensitivity it was calibrated to (and in which norm), the
neighbouring relation, and the paper and theorem the calibration comes from.
Events are immutable and hashable-free plain data; ``to_dict`` gives a JSON-ready
view used by privacy reports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["NEIGHBOURING_RELATIONS", "PrivacyEvent"]

#: Neighbouring relations dpsvm knows. Every mechanism in the papers implemented
#: here is calibrated for ``"replace-one"`` (datasets of equal size n differing in
#: one record); ``"replace-one-label"`` is the label-DP relation of paper 004.
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


def _thaw_plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw_plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, eq=False)
class PrivacyEvent:
    """An immutable record of one differentially private release.

    Parameters
    ----------
    mechanism : str
        Name of the mechanism, e.g. ``"objective-perturbation"``.
    epsilon : float
        The ε of the release (> 0).
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

    Examples
    --------
    >>> e = PrivacyEvent("laplace", 0.5, sensitivity=1.0, sensitivity_norm="l1")
    >>> e.epsilon, e.delta, e.neighbouring
    (0.5, 0.0, 'replace-one')
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
            All fields; infinite floats are written as strings.
        """
        return {
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
