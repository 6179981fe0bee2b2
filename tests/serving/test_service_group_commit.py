# SPDX-License-Identifier: BSD-3-Clause
"""Group commit: a transaction's charges written once before its commit.

The ledger buffers the charges of one transaction (one group of concurrent
requests) and writes them just before the commit; inside the transaction its
reads must still see them, and a failure must leave nothing of the group.
A released model's labels are computed outside the answering lock.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import (
    KEY,
    StatefulDouble,
    auth,
    infer_body,
    make_keys,
    make_ledger,
    make_served,
)
from fastapi.testclient import TestClient

from dpsvm.serving import Ledger, ReleasedModel, create_app


def _open(tmp_path):
    served = make_served(StatefulDouble())
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    ledger.open(served.predictor.state_dict())
    return ledger


def _charge(txn, state, rid, rows, eps, history):
    return txn.record(
        state,
        key_id="k1",
        request_id=rid,
        request_hash="h-" + rid,
        response={"id": rid, "rows": rows},
        rows=rows,
        epsilon_spent=eps,
        delta_spent=0.0,
        state={"history": history},
    )


def test_a_group_sees_its_own_records_and_commits_them_all(tmp_path):
    ledger = _open(tmp_path)
    with ledger.transaction() as txn:
        state = txn.state()
        state = _charge(txn, state, "a", 2, 0.02, [1, 1])
        # Reads inside the transaction include what it recorded.
        assert txn.key_answers("k1") == 2
        stored = txn.lookup("k1", "a")
        assert stored is not None and stored.request_hash == "h-a"
        assert stored.response == {"id": "a", "rows": 2}
        state = _charge(txn, state, "b", 3, 0.05, [1, 1, -1, -1, 1])
        assert txn.key_answers("k1") == 5
    snap = ledger.snapshot()
    assert snap.version == 2 and snap.answers == 5
    assert snap.epsilon_spent == pytest.approx(0.05)
    assert snap.state == {"history": [1, 1, -1, -1, 1]}  # the last charge's
    assert ledger.key_answers("k1") == 5
    assert ledger.answer_records() == 2
    with ledger.transaction() as txn:  # committed: visible to the next group
        assert txn.lookup("k1", "b").response == {"id": "b", "rows": 3}
        assert txn.key_answers("k1") == 5
    ledger.dispose()


def test_a_failed_group_leaves_nothing(tmp_path):
    ledger = _open(tmp_path)
    with pytest.raises(RuntimeError, match="after the records"):
        with ledger.transaction() as txn:
            state = _charge(txn, txn.state(), "a", 2, 0.02, [1, 1])
            raise RuntimeError("after the records")
    # A failure in the flush itself (the same request id twice) also rolls back.
    with pytest.raises(Exception, match=r"(?i)unique|integrity"):
        with ledger.transaction() as txn:
            state = _charge(txn, txn.state(), "a", 1, 0.01, [1])
            txn._recorded.clear()  # hide the first so the second is written too
            _charge(txn, state, "a", 1, 0.02, [1, 1])
    snap = ledger.snapshot()
    assert snap.version == 0 and snap.answers == 0 and snap.epsilon_spent == 0.0
    assert ledger.key_answers("k1") == 0 and ledger.answer_records() == 0
    ledger.dispose()


def test_released_model_labels_are_computed_outside_the_lock(monkeypatch):
    from sklearn.datasets import make_classification

    from dpsvm.models import DPLinearSVC

    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    y = np.where(y == 1, 1, -1)
    model = DPLinearSVC(epsilon=0.5, classes=[-1, 1], random_state=0).fit(X, y)
    predictor = ReleasedModel(model)
    served = make_served(predictor, d=4, free=True, mechanism="released")
    ledger = Ledger(
        "sqlite://",
        fingerprint="e" * 64,
        model_name="dpsvm",
        mechanism="released",
        epsilon_total=0.5,
        delta_total=0.0,
    )
    app = create_app(served, ledger, make_keys())
    lock: threading.Lock = app.state.service.lock
    held = []
    original = ReleasedModel.labels

    def labels(self, X):
        held.append(lock.locked())
        return original(self, X)

    monkeypatch.setattr(ReleasedModel, "labels", labels)
    with TestClient(app) as client:
        for i in range(3):
            r = client.post(
                "/v2/models/dpsvm/infer",
                json=infer_body(X[i : i + 2].tolist()),
                headers=auth(KEY),
            )
            assert r.status_code == 200
            assert (
                r.json()["outputs"][0]["data"] == model.predict(X[i : i + 2]).tolist()
            )
        assert ledger.snapshot().answers == 6
    assert held == [False, False, False]
    assert predictor.n_answers == 6


class _SlowDouble(StatefulDouble):
    def answer(self, X):
        import time

        time.sleep(0.05)
        return super().answer(X)


def test_a_failed_group_commit_hands_the_lead_on(tmp_path):
    """Leader and followers: the first group's commit fails (nothing kept), the
    requests queued behind it are still answered by the next leader (no waiter
    is left asleep), and every answer is recorded exactly once."""
    import contextlib
    import json
    import time

    import sqlalchemy as sa

    from dpsvm.serving._protocol import decode_request

    served = make_served(_SlowDouble())
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    original = ledger.transaction
    calls = []

    @contextlib.contextmanager
    def failing_first():
        calls.append(1)
        with original() as txn:
            yield txn
            if len(calls) == 1:  # after the mechanism ran: a failed commit
                raise sa.exc.OperationalError("COMMIT", {}, Exception("disk full"))

    ledger.transaction = failing_first  # type: ignore[method-assign]
    keys = make_keys()
    service = create_app(served, ledger, keys).state.service
    key = keys.authenticate(KEY)
    outcomes: list[str] = []
    lock = threading.Lock()

    def send(i):
        body = json.dumps(infer_body([[i + 1.0, 1.0, 1.0]])).encode()
        try:
            service.infer(decode_request(body, None), key)
            outcome = "answered"
        except sa.exc.OperationalError:
            outcome = "failed"
        with lock:
            outcomes.append(outcome)

    # Daemon threads: a waiter that is never woken fails the test, not the run.
    threads = [threading.Thread(target=send, args=(i,), daemon=True) for i in range(10)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads)  # nobody left waiting
    answered = outcomes.count("answered")
    assert sorted(set(outcomes)) == ["answered", "failed"] and len(outcomes) == 10
    assert len(calls) < 10  # the later requests shared commits
    assert ledger.snapshot().answers == answered
    # The failed group was rolled back: the mechanism holds only what was sent.
    assert len(served.predictor.history) == answered
    ledger.dispose()
