# SPDX-License-Identifier: BSD-3-Clause
"""Private (and reference non-private) linear classifiers."""

from .linear import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from .nie_wang import (
    NWGaussianProcessRelease,
    NWOutputPerturbationRegressor,
    NWOutputPerturbationSVC,
    NWPrivatePredictor,
    NWScalarOffsetLiteral,
)

__all__ = [
    "DPLinearSVC",
    "DPLogisticRegression",
    "NWGaussianProcessRelease",
    "NWOutputPerturbationRegressor",
    "NWOutputPerturbationSVC",
    "NWPrivatePredictor",
    "NWScalarOffsetLiteral",
    "NonPrivateLinearClassifier",
]
