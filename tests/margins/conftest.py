# SPDX-License-Identifier: BSD-3-Clause
"""Shared empirical neighbouring-dataset audit for the margin learners."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpsvm.audit import epsilon_lower_bound

CONFIDENCE = 0.999  # a correct mechanism fails an audit with probability ≤ 1e-3


def balanced_pair(n: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows x = 1 with balanced labels; D′ flips the last label (replace-one).

    For the exponential-mechanism learners, w > 0 and w < 0 are equally likely
    on D and e^{ε} times apart on D′ (5/5 errors become 4/6).
    """
    X = np.ones((n, 1))
    y = np.where(np.arange(n) < n // 2, 1.0, -1.0)
    y2 = y.copy()
    y2[-1] = 1.0
    return X, y, y2


@pytest.fixture
def neighbour_audit() -> Callable[..., float]:
    """Return audit(make, runs, delta=0) → Clopper–Pearson lower bound on ε.

    ``make(seed)`` builds an unfitted estimator; each is fitted on the two
    neighbouring datasets of :func:`balanced_pair` and reduced to its score at
    x = 1.
    """

    def audit(make: Callable[[int], Any], runs: int, delta: float = 0.0) -> float:
        X, y, y2 = balanced_pair()
        probe = np.ones((1, 1))

        def stats(labels: np.ndarray, seed0: int) -> np.ndarray:
            return np.array(
                [
                    make(seed0 + i).fit(X, labels).decision_function(probe)[0]
                    for i in range(runs)
                ]
            )

        bound = epsilon_lower_bound(
            stats(y, 0), stats(y2, 10**6), delta=delta, confidence=CONFIDENCE
        )
        return float(bound.epsilon_lower)

    return audit
