# SPDX-License-Identifier: BSD-3-Clause
"""Private hyperparameter selection.

* :class:`PrivateParameterTuning` — Sarwate, Chaudhuri & Monteleoni (2009),
  Algorithm 3: m candidates fitted on disjoint parts with the full ε,
  exponential mechanism on a validation part.
* :class:`PrivateRandomSearch` — random stopping (Liu & Talwar 2019; Papernot &
  Steinke 2022): every candidate sees all the training data; pure cost 3ε₀
  (geometric), 2ε₀ (logarithmic), (2 + η)ε₀ (negative binomial).
* :class:`PrivateSelectThenFit` — selection on one part, final fit on the rest,
  one ε end to end.
* :func:`tune_on_public_data` — tuning on public data (no privacy cost), then one
  private fit (Sarwate, Chaudhuri & Monteleoni 2009, §5).

Every candidate grid is public: explicit values given by the user
(:func:`check_param_grid` refuses callables and the privacy parameters).
"""

from ._common import check_param_grid, partition_indices
from ._pipeline import PrivateSelectThenFit
from ._public import PublicTuningResult, tune_on_public_data
from ._repeated import (
    PrivateRandomSearch,
    repeated_selection_epsilon,
    sample_repetitions,
)
from ._sarwate import PrivateParameterTuning

__all__ = [
    "PrivateParameterTuning",
    "PrivateRandomSearch",
    "PrivateSelectThenFit",
    "PublicTuningResult",
    "check_param_grid",
    "partition_indices",
    "repeated_selection_epsilon",
    "sample_repetitions",
    "tune_on_public_data",
]
