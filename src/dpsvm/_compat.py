# SPDX-License-Identifier: BSD-3-Clause
"""The only module that imports private scikit-learn names.

scikit-learn's parameter-validation helpers are not public API. Keeping every such
import here means one file to adapt when scikit-learn moves them.
"""

from __future__ import annotations

from collections.abc import Callable

from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import validate_data

__all__ = [
    "HasMethods",
    "Interval",
    "PredicateConstraint",
    "StrOptions",
    "_fit_context",
    "validate_data",
    "validate_params",
]


def validate_params(estimator: object) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    estimator._validate_params()  # type: ignore[attr-defined]


class PredicateConstraint(HasMethods):
    """A parameter constraint given by a function, for ``_parameter_constraints``.

    scikit-learn's validation (``_fit_context``) accepts the value when
    ``check(value)`` is true and otherwise raises its ``InvalidParameterError``
    naming ``description``; ``check`` may raise a more specific error itself
    (the ``random_state`` constraint does, for generator objects). Built on
    ``HasMethods`` because scikit-learn accepts only its own constraint classes.

    Parameters
    ----------
    check : callable
        ``check(value) -> bool``.
    description : str
        What the parameter accepts, for scikit-learn's message.
    """

    def __init__(self, check: Callable[[object], bool], description: str) -> None:
        super().__init__("__class__")
        self._check = check
        self._description = description

    def is_satisfied_by(self, val: object) -> bool:
        """Whether ``val`` is accepted (``check`` may raise instead)."""
        return bool(self._check(val))

    def __str__(self) -> str:
        return self._description
