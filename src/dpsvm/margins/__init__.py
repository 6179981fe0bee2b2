# SPDX-License-Identifier: BSD-3-Clause
"""Margin-based private learners of Bassily, Mohri & Suresh (2022).

Learners: :class:`JLExponentialMarginClassifier` (Alg. 1, pure ε-DP),
:class:`JLMarginClassifier` (Alg. 2 with Alg. 5 and honest substitutes, (ε, δ)),
:class:`KernelMarginClassifier` (Alg. 3, random features + Alg. 2, (ε, δ)),
:class:`LabelPrivateMarginClassifier` (Alg. 4, pure ε-**label**-DP: features
are not protected), :class:`NeuralMarginClassifier` (§5, pure ε-DP, tiny
networks), :class:`PrivateMarginSelection` (Alg. 6, private choice of the
margin).

Shared pieces: :mod:`~dpsvm.margins.projections` (JL maps, ball projection),
:mod:`~dpsvm.margins.losses` (ρ-hinge and its smoothing),
:mod:`~dpsvm.margins.selection` (exponential mechanism, generalized exponential
mechanism, permute-and-flip), :mod:`~dpsvm.margins.erm` (private ERM on a ball)
and :mod:`~dpsvm.margins.bounds` (dimensions and risk bounds).
"""

from __future__ import annotations

from .kernel import KernelMarginClassifier
from .label_private import LabelPrivateMarginClassifier, greedy_linf_net
from .linear import JLExponentialMarginClassifier, JLMarginClassifier
from .margin_selection import PrivateMarginSelection
from .neural import NeuralMarginClassifier

__all__ = [
    "JLExponentialMarginClassifier",
    "JLMarginClassifier",
    "KernelMarginClassifier",
    "LabelPrivateMarginClassifier",
    "NeuralMarginClassifier",
    "PrivateMarginSelection",
    "greedy_linf_net",
]
