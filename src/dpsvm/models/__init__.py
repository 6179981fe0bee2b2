# SPDX-License-Identifier: BSD-3-Clause
"""Private (and reference non-private) estimators: one hierarchy for every learner.

* linear (:mod:`dpsvm.models.linear`): :class:`DPLinearSVC`,
  :class:`DPLogisticRegression`, :class:`NonPrivateLinearClassifier`;
* random features (:mod:`dpsvm.models.kernel`): :class:`DPKernelSVC` and the
  non-private kernel references;
* output perturbation of a certified ERM for any convex Lipschitz loss in an
  explicit feature space: :class:`DPOutputPerturbationSVC`,
  :class:`DPOutputPerturbationRegressor`;
* kernel releases that never publish the model
  (:mod:`dpsvm.models.kernel_erm`): :class:`PerQueryLaplacePredictor`,
  :class:`DPGaussianProcessRelease`, and the non-private
  :class:`NonPrivateScalarOffsetRelease` (reproduction only).

The last five rest on Nie & Wang's Theorem 2 sensitivity (docs/nie_wang.md);
their former names (``NW…``) still import, with a :class:`FutureWarning`.

The linear, random-feature and explicit-feature output-perturbation estimators
take public weights (``class_weight``, ``class_priors``, ``max_weight`` and
``fit(..., sample_weight=...)``; the regressor ``max_weight`` and
``sample_weight``);
:func:`balanced_class_weight` gives the ``"balanced"`` weights 1/(k·p_c) of
public class proportions.
"""

from typing import Any

from ._explicit_output import DPOutputPerturbationRegressor, DPOutputPerturbationSVC
from ._kernel_release import (
    DPGaussianProcessRelease,
    NonPrivateScalarOffsetRelease,
    PerQueryLaplacePredictor,
    ScalarOffsetNotPrivateWarning,
)
from ._weights import balanced_class_weight
from .kernel import DPKernelSVC, NonPrivateKernelSVC, NonPrivateRandomFeatureSVC
from .linear import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from .nie_wang import deprecated_name as _deprecated_name

__all__ = [
    "DPGaussianProcessRelease",
    "DPKernelSVC",
    "DPLinearSVC",
    "DPLogisticRegression",
    "DPOutputPerturbationRegressor",
    "DPOutputPerturbationSVC",
    "NonPrivateKernelSVC",
    "NonPrivateLinearClassifier",
    "NonPrivateRandomFeatureSVC",
    "NonPrivateScalarOffsetRelease",
    "PerQueryLaplacePredictor",
    "ScalarOffsetNotPrivateWarning",
    "balanced_class_weight",
]


def __getattr__(name: str) -> Any:
    # The former NW… names: deprecated aliases (FutureWarning).
    return _deprecated_name(name, __name__)
