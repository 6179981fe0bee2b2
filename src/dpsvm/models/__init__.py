# SPDX-License-Identifier: BSD-3-Clause
"""Private (and reference non-private) linear classifiers."""

from .linear import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier

__all__ = ["DPLinearSVC", "DPLogisticRegression", "NonPrivateLinearClassifier"]
