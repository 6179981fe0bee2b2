# SPDX-License-Identifier: BSD-3-Clause
"""The only module that imports private scikit-learn names.

scikit-learn's parameter-validation helpers are not public API. Keeping every such
import here means one file to adapt when scikit-learn moves them.
"""

from __future__ import annotations

from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import _num_samples, validate_data

__all__ = [
    "HasMethods",
    "Interval",
    "StrOptions",
    "_fit_context",
    "_num_samples",
    "validate_data",
    "validate_params",
]


def validate_params(estimator: object) -> None:
    """Check an estimator's parameters against its ``_parameter_constraints``."""
    estimator._validate_params()  # type: ignore[attr-defined]
