# SPDX-License-Identifier: BSD-3-Clause
"""Bound calculators: the privacy, utility and sample-size formulas of the papers.

One module per paper; every function is a pure formula with validated inputs.

* :mod:`dpsvm.bounds.rubinstein`: Rubinstein, Bartlett, Huang & Taft
  (arXiv:0911.5708): noise scales, usefulness conditions, random-feature counts,
  bounds on optimal differential privacy and the Lemma 17 / 19 fixtures.
* :mod:`dpsvm.bounds.sarwate`: Sarwate, Chaudhuri & Monteleoni (arXiv:0912.0071)
  and the JMLR 2011 calibration helpers for objective and output perturbation.
* :mod:`dpsvm.bounds.nie_wang`: Nie & Wang: sensitivities, noise scales, the
  Section 4 error analysis and the parameter rules.
* :mod:`dpsvm.bounds.prediction`: Jain & Thakurta (ICML 2013): private kernel
  prediction parameters (update caps, thresholds, noisy-label scales) and bounds.
"""

from __future__ import annotations

from . import nie_wang, prediction, rubinstein, sarwate

__all__ = ["nie_wang", "prediction", "rubinstein", "sarwate"]
