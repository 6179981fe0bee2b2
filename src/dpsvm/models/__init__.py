# SPDX-License-Identifier: BSD-3-Clause
"""Private (and reference non-private) linear classifiers."""

from .kernel import DPKernelSVC, NonPrivateKernelSVC, NonPrivateRandomFeatureSVC
from .linear import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from .nie_wang import (
    NWGaussianProcessRelease,
    NWOutputPerturbationRegressor,
    NWOutputPerturbationSVC,
    NWPrivatePredictor,
    NWScalarOffsetLiteral,
)

__all__ = [
    "DPKernelSVC",
    "DPLinearSVC",
    "DPLogisticRegression",
    "NWGaussianProcessRelease",
    "NWOutputPerturbationRegressor",
    "NWOutputPerturbationSVC",
    "NWPrivatePredictor",
    "NWScalarOffsetLiteral",
    "NonPrivateKernelSVC",
    "NonPrivateLinearClassifier",
    "NonPrivateRandomFeatureSVC",
]
