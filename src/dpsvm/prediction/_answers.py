# SPDX-License-Identifier: BSD-3-Clause
"""The answers of the private interactive predictor to one batch of queries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._common import FloatArray

__all__ = ["PredictionAnswers"]


@dataclass(frozen=True)
class PredictionAnswers:
    """The private answers to one batch of queries and what they cost.

    Attributes
    ----------
    labels : ndarray of shape (n_queries,)
        Labels in ``classes_`` (the sign of ``scores``), or the scores for a
        regression loss.
    scores : ndarray of shape (n_queries,)
        The released real answers ŷ_t.
    updates : ndarray of bool, shape (n_queries,)
        Which answers were update rounds (derivable from the answers).
    public_state : ndarray of bool, shape (n_queries,)
        Answers given after the update cap from the released state alone
        (post-processing: free, but with no accuracy guarantee).
    epsilon : float
        ε charged by this batch.
    delta : float
        δ charged by this batch.
    spent_epsilon : float
        Total ε spent after this batch.
    spent_delta : float
        Total δ spent after this batch.
    n_answers : int
        Answers given so far, this batch included.
    budget_exhausted : bool
        Whether no further query can be answered.
    """

    labels: np.ndarray
    scores: FloatArray
    updates: np.ndarray
    public_state: np.ndarray
    epsilon: float
    delta: float
    spent_epsilon: float
    spent_delta: float
    n_answers: int
    budget_exhausted: bool

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict (arrays as lists).

        Returns
        -------
        dict
            Every field.
        """
        return {
            "labels": self.labels.tolist(),
            "scores": self.scores.tolist(),
            "updates": self.updates.tolist(),
            "public_state": self.public_state.tolist(),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "spent_epsilon": self.spent_epsilon,
            "spent_delta": self.spent_delta,
            "n_answers": self.n_answers,
            "budget_exhausted": self.budget_exhausted,
        }
