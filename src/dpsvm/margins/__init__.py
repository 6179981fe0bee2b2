# SPDX-License-Identifier: BSD-3-Clause
"""Margin-based private learners of Bassily, Mohri & Suresh (2022).

Shared pieces: :mod:`~dpsvm.margins.projections` (JL maps, ball projection),
:mod:`~dpsvm.margins.losses` (ρ-hinge and its smoothing),
:mod:`~dpsvm.margins.selection` (exponential mechanism, generalized exponential
mechanism, permute-and-flip),
:mod:`~dpsvm.margins.erm` (private ERM on a ball) and :mod:`~dpsvm.margins.bounds`.
"""

from __future__ import annotations

from .label_private import LabelPrivateMarginClassifier, greedy_linf_net

__all__ = ["LabelPrivateMarginClassifier", "greedy_linf_net"]
