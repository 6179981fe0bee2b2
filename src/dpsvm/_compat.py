# SPDX-License-Identifier: BSD-3-Clause
"""The only module that imports private scikit-learn names.

scikit-learn's parameter-validation helpers are not public API. Keeping every such
import here means one file to adapt when scikit-learn moves them. The input
checks ``validate_data`` and ``check_array`` are wrapped here so that no error
they raise quotes a value of the (private) data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import _num_samples
from sklearn.utils.validation import check_array as _sklearn_check_array
from sklearn.utils.validation import validate_data as _sklearn_validate_data

__all__ = [
    "HasMethods",
    "Interval",
    "PredicateConstraint",
    "StrOptions",
    "_fit_context",
    "_num_samples",
    "check_array",
    "validate_data",
    "validate_params",
]

# numpy's and scikit-learn's input errors that print the data itself (a cell of
# X or y, or the whole array), each with a message that names what to change
# instead. The phrases "Reshape your data" and "Complex data not supported" are
# kept: scikit-learn's estimator checks match them.
_QUOTING_ERRORS = (
    (
        ("could not convert", "invalid literal", "could not be converted"),
        "{what} holds a value that is not a number; encode text and categories "
        "as numbers first (dpsvm.preprocessing.SchemaTransformer encodes a table "
        "by a public schema).",
    ),
    (("Complex data not supported",), "Complex data not supported in {what}."),
    (
        ("got 1D array instead",),
        "Expected 2D array, got 1D array instead. Reshape your data either using "
        "array.reshape(-1, 1) if your data has a single feature or "
        "array.reshape(1, -1) if it contains a single sample.",
    ),
    (
        ("got scalar array instead",),
        "Expected 2D array, got scalar array instead. Reshape your data to one "
        "row per sample and one column per feature.",
    ),
)


def _without_data(exc: ValueError, what: str) -> ValueError | None:
    """A message-only copy of an input error that quotes the data, else None."""
    text = str(exc)
    for phrases, message in _QUOTING_ERRORS:
        if any(p in text for p in phrases):
            return ValueError(message.format(what=what))
    return None


def validate_data(*args: Any, **kwargs: Any) -> Any:
    """scikit-learn's ``validate_data``, whose errors never quote the data.

    numpy's conversion error (``could not convert string to float: '<cell>'``)
    and scikit-learn's complex-data and 1-D messages print cells of the private
    data; they are re-raised with a message that names the input and what to
    change (docs/privacy.md, "No private value in any message").
    """
    try:
        return _sklearn_validate_data(*args, **kwargs)
    except ValueError as exc:
        safe = _without_data(exc, "the input X or y")
        if safe is None:
            raise
        raise safe from None


def check_array(array: Any, *args: Any, **kwargs: Any) -> Any:
    """scikit-learn's ``check_array``, whose errors never quote the data."""
    try:
        return _sklearn_check_array(array, *args, **kwargs)
    except ValueError as exc:
        safe = _without_data(exc, f"the input {kwargs.get('input_name') or 'X'}")
        if safe is None:
            raise
        raise safe from None


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
