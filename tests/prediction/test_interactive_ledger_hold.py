# SPDX-License-Identifier: BSD-3-Clause
"""A batch of interactive answers holds the shared ledger from check to spend.

Regression: the sparse-vector batch is charged for the updates it made, which
depend on the data; with the ledger free between the worst-case check and the
spend, a concurrent release could take budget in between and whether the batch
was then refused depended on the data (an uncharged one-bit signal).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np

from dpsvm.accounting import BudgetAccountant, PrivacyEvent
from dpsvm.prediction import PrivateInteractivePredictor, VacuousCalibrationWarning


def test_a_concurrent_spend_waits_for_the_batch_to_be_charged(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(200, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    acc = BudgetAccountant(1e5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        p = PrivateInteractivePredictor(
            mechanism="sparse-vector",
            epsilon=1e4,
            n_queries=40,
            classes=[-1, 1],
            regularization=1.0,
            B_rule=3,
            accountant=acc,
            random_state=0,
            on_vacuous="warn",
        ).fit(X, y)
    other = threading.Thread(
        target=lambda: acc.spend(PrivacyEvent("concurrent-release", 1.0))
    )
    blocked = []
    compute = p._answer_updates

    def answer_while_another_release_spends(Z):  # type: ignore[no-untyped-def]
        other.start()
        other.join(timeout=0.3)
        blocked.append(other.is_alive())  # still waiting for the ledger
        return compute(Z)

    monkeypatch.setattr(p, "_answer_updates", answer_while_another_release_spends)
    out = p.answer(rng.uniform(-0.5, 0.5, size=(5, 2)))
    other.join(timeout=10)
    assert blocked == [True] and not other.is_alive()
    # The batch was charged first, then the concurrent release.
    names = [e.mechanism for e in acc.ledger]
    assert names[-1] == "concurrent-release" and len(names) >= 2
    assert out.n_answers == 5
