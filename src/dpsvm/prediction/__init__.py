# SPDX-License-Identifier: BSD-3-Clause
"""Private prediction with kernels (Jain & Thakurta, ICML 2013).

* :class:`PrivateInteractivePredictor` answers prediction queries one by one
  within a fixed (ε, δ) (Alg. 1, a sparse-vector variant, or per-query Laplace);
  its :meth:`~PrivateInteractivePredictor.state_dict` lets a server resume
  exactly after a crash.
* :class:`SubsampleAggregatePredictor` answers from k exact kernel models on
  disjoint chunks: free while their vote is stable (sparse vector on the
  distance to instability), a charged noisy vote otherwise (Bassily, Thakkar &
  Thakurta 2018, Alg. 1); any kernel, a callable included.
* :class:`TestDataDependentLearner` labels a public test sample with noisy
  predictions and fits a model to them (Alg. 2).
* :class:`TestDataIndependentLearner` builds a model from points chosen by the
  exponential mechanism over a data-independent candidate set (Alg. 3, honestly
  recalibrated).

Corrections to the printed calibrations and their derivations:
``docs/prediction.md``.
"""

from __future__ import annotations

from ..exceptions import BudgetExceededError
from ._common import (
    CallableKernelSpec,
    VacuousCalibrationError,
    VacuousCalibrationWarning,
)
from ._data_independent import TestDataIndependentLearner, sample_linear_exponential
from ._interactive import PredictionAnswers, PrivateInteractivePredictor
from ._subsample import AggregateAnswers, SubsampleAggregatePredictor
from ._subsample_calibration import (
    SubsampleAggregateCalibration,
    subsample_aggregate_calibration,
)
from ._test_data import TestDataDependentLearner, fit_noisy_labels, uniform_ball_points

__all__ = [
    "AggregateAnswers",
    "BudgetExceededError",
    "CallableKernelSpec",
    "PredictionAnswers",
    "PrivateInteractivePredictor",
    "SubsampleAggregateCalibration",
    "SubsampleAggregatePredictor",
    "TestDataDependentLearner",
    "TestDataIndependentLearner",
    "VacuousCalibrationError",
    "VacuousCalibrationWarning",
    "fit_noisy_labels",
    "sample_linear_exponential",
    "subsample_aggregate_calibration",
    "uniform_ball_points",
]
