# SPDX-License-Identifier: BSD-3-Clause
"""Reproductions of the papers' experiments, as reports with tables and plots.

* :func:`run_sarwate2009` — Sarwate, Chaudhuri & Monteleoni (
  "Differentially private support vector machines", arXiv:0912.0071): Figures
  1–4 on UCI Adult, nested balls and, when present, KDD Cup 99; a Markdown
  report with every table next to the paper's numbers and the difference, PNG
  plots and a JSON file. Also ``dpsvm reproduce sarwate2009`` on the command
  line (:mod:`dpsvm.reproduce.cli`).
* :func:`make_config` / :class:`ReproductionConfig` — the full (paper
  protocol), quick and tiny settings, with every parameter the paper leaves
  unstated.
* :func:`paper_numbers` — the paper's printed numbers.
"""

from __future__ import annotations

from ._config import ReproductionConfig, make_config
from ._data import ReproductionError
from ._paper import paper_numbers
from ._sarwate2009 import run_sarwate2009

__all__ = [
    "ReproductionConfig",
    "ReproductionError",
    "make_config",
    "paper_numbers",
    "run_sarwate2009",
]
