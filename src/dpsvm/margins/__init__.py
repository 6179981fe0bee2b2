# SPDX-License-Identifier: BSD-3-Clause
"""Margin-based private learners (Bassily, Mohri & Suresh 2022)."""

from __future__ import annotations

from .label_private import LabelPrivateMarginClassifier, greedy_linf_net

__all__ = ["LabelPrivateMarginClassifier", "greedy_linf_net"]
