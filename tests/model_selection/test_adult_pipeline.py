# SPDX-License-Identifier: BSD-3-Clause
"""End-to-end private pipeline on UCI Adult: private choice of Λ, then one fit.

The design and its settings are those of benchmarks/adult_pipeline.py (design
"A3": Sarwate, Chaudhuri & Monteleoni's (2009) Algorithm 3 on 40 % of the rows
with noise-matched Λ, final fit on the other 60 %, one ε end to end).
docs/selection.md reports the mean over 10 seeds (error 0.168 at ε = 1); this
test runs one fixed seed and checks the budget and a bound with margin. Skipped
when the Adult files are absent.
"""

from __future__ import annotations

import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.datasets import load_adult
from dpsvm.model_selection import PrivateSelectThenFit
from dpsvm.models import DPLinearSVC

pytestmark = [pytest.mark.adult, pytest.mark.slow]

GRID = {"regularization": [1e-4, 3e-4, 1e-3, 3e-3, 1e-2]}


def test_private_pipeline_at_epsilon_one():
    try:
        data = load_adult(feature_set="compact")
    except FileNotFoundError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"UCI Adult files not found: {exc}")
    acc = BudgetAccountant(epsilon=1.0)
    pipe = PrivateSelectThenFit(
        DPLinearSVC(mechanism="objective", huber_h=0.5, classes=[-1, 1]),
        GRID,
        epsilon=1.0,
        selection_fraction=0.4,
        selector="parameter-tuning",
        transfer="noise-matched",
        accountant=acc,
        random_state=0,
    ).fit(data.X_train, data.y_train)
    # ONE event of the total budget for selection and final fit together.
    assert len(acc) == 1 and acc.total() == (1.0, 0.0)
    error = 1.0 - pipe.score(data.X_test, data.y_test)
    # Non-private Huber SVM: 0.157 (Λ = 1e-4); best fixed Λ at ε = 1 on all rows:
    # 0.163. The pipeline pays for selection with 40 % of the rows.
    assert error <= 0.175
