# SPDX-License-Identifier: BSD-3-Clause
"""The real ``dpsvm serve`` process: SIGKILL at random moments, parallel clients.

All traffic is on 127.0.0.1; every loop is bounded in count and in time.
"""

from __future__ import annotations

import math
import random
import threading
import time

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import (
    KEY,
    OTHER_KEY,
    free_port,
    query_body,
    read_ledger,
    spawn_server,
    start_server,
    stop,
    write_training_files,
)

pytestmark = pytest.mark.slow
URL = "http://127.0.0.1:{port}/v2/models/dpsvm"


def test_sigkill_never_returns_budget_or_loses_a_sent_answer(tmp_path):
    """Stream queries, SIGKILL the server at seeded random moments, restart.

    After every kill the ledger must hold every answer the client received
    (spend never behind the answers) and never more than the total budget;
    a retried request id gets the stored answer and spends nothing; at the
    end exactly ``max_queries`` rows were ever answered.
    """
    files = write_training_files(tmp_path)
    ledger = str(tmp_path / "ledger.db")
    epsilon, max_queries = 1.0, 40
    eps_q = epsilon / max_queries
    rng = random.Random(20261125)
    received: dict[str, dict] = {}
    headers = {"Authorization": f"Bearer {KEY}"}
    next_id = 0
    in_flight: str | None = None
    exhausted = False
    for _round in range(2):
        port = free_port()
        proc = start_server(
            files, ledger, epsilon=epsilon, max_queries=max_queries, port=port
        )
        try:
            stop_at = time.monotonic() + rng.uniform(0.05, 0.5)
            with httpx.Client(timeout=5) as client:
                if in_flight is not None:
                    # Retry the request the kill interrupted: stored or new.
                    r = client.post(
                        URL.format(port=port) + "/infer",
                        json=query_body(in_flight, seed=int(in_flight)),
                        headers=headers,
                    )
                    if r.status_code == 200:
                        received[in_flight] = r.json()
                    in_flight = None
                for rid in list(received)[:3]:  # retries of delivered answers
                    before = read_ledger(ledger)[:2]
                    r = client.post(
                        URL.format(port=port) + "/infer",
                        json=query_body(rid, seed=int(rid)),
                        headers=headers,
                    )
                    assert r.status_code == 200 and r.json() == received[rid]
                    assert read_ledger(ledger)[:2] == before
                killer = threading.Timer(
                    max(0.0, stop_at - time.monotonic()), proc.kill
                )
                killer.start()
                try:
                    for _ in range(200):  # bounded; the kill usually comes first
                        rid = str(next_id)
                        next_id += 1
                        in_flight = rid
                        try:
                            r = client.post(
                                URL.format(port=port) + "/infer",
                                json=query_body(rid, seed=int(rid)),
                                headers=headers,
                            )
                        except httpx.HTTPError:
                            break  # killed mid-request
                        in_flight = None
                        if r.status_code == 429:
                            exhausted = True
                            break
                        assert r.status_code == 200, r.text
                        received[rid] = r.json()
                finally:
                    killer.cancel()
        finally:
            stop(proc)
        eps_spent, answered, stored = read_ledger(ledger)
        # Never behind the answers actually received ...
        assert answered >= len(received)
        assert eps_spent >= len(received) * eps_q - 1e-9
        for rid, resp in received.items():
            assert stored[rid] == resp
        # ... and never over the budget.
        assert answered <= max_queries
        assert eps_spent <= epsilon * (1 + 1e-9)
        assert math.isclose(eps_spent, answered * eps_q, rel_tol=1e-9, abs_tol=1e-12)
        if exhausted:
            break
    # Spend the rest: exactly max_queries rows are ever answered, then 429.
    port = free_port()
    proc = start_server(
        files, ledger, epsilon=epsilon, max_queries=max_queries, port=port
    )
    try:
        with httpx.Client(timeout=5) as client:
            for _ in range(max_queries + 2):
                rid = str(next_id)
                next_id += 1
                r = client.post(
                    URL.format(port=port) + "/infer",
                    json=query_body(rid, seed=next_id),
                    headers=headers,
                )
                if r.status_code == 429:
                    assert "privacy budget exhausted" in r.json()["error"]
                    break
                assert r.status_code == 200
            else:
                pytest.fail("the budget never ran out")
            budget = client.get(URL.format(port=port) + "/budget", headers=headers)
            assert budget.json()["exhausted"] is True
    finally:
        stop(proc)
    eps_spent, answered, _ = read_ledger(ledger)
    assert answered == max_queries
    assert math.isclose(eps_spent, epsilon)


def test_many_parallel_clients_never_overspend(tmp_path):
    files = write_training_files(tmp_path, seed=1)
    ledger = str(tmp_path / "ledger.db")
    epsilon, max_queries = 1.0, 150
    port = free_port()
    proc = start_server(
        files, ledger, epsilon=epsilon, max_queries=max_queries, port=port
    )
    codes: list[int] = []
    rows_ok = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + 20

    def client_loop(c: int) -> None:
        key = KEY if c % 2 else OTHER_KEY
        with httpx.Client(timeout=10) as client:
            for i in range(12):  # 24 clients × 12 requests × 1-2 rows > 150 rows
                if time.monotonic() > deadline:
                    return
                rows = 1 + (i % 2)
                r = client.post(
                    URL.format(port=port) + "/infer",
                    json=query_body(f"{c}-{i}", rows=rows, seed=i),
                    headers={"Authorization": f"Bearer {key}"},
                )
                with lock:
                    codes.append(r.status_code)
                    if r.status_code == 200:
                        assert len(r.json()["outputs"][0]["data"]) == rows
                        rows_ok[0] += rows

    try:
        threads = [threading.Thread(target=client_loop, args=(c,)) for c in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads)
    finally:
        stop(proc)
    assert set(codes) <= {200, 429}
    assert 429 in codes
    eps_spent, answered, _ = read_ledger(ledger)
    assert answered == rows_ok[0]
    assert max_queries - 1 <= answered <= max_queries  # a 2-row batch may not fit
    assert eps_spent <= epsilon * (1 + 1e-9)
    assert math.isclose(eps_spent, answered * epsilon / max_queries)


def _releases(path: str) -> list[tuple[float, float]]:
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        if "dpsvm_ledger_release" not in tables:
            return []
        return list(con.execute("SELECT epsilon, delta FROM dpsvm_ledger_release"))
    finally:
        con.close()


def test_sigkill_of_a_model_server_never_spends_twice(tmp_path):
    """--mechanism model: SIGKILL during the start, then after it; restarts
    load the one released model, answer identically and charge nothing."""
    import os

    files = write_training_files(tmp_path)
    ledger = str(tmp_path / "ledger.db")
    epsilon = 0.7
    extra = ("--kernel", "linear")
    headers = {"Authorization": f"Bearer {KEY}"}
    body = query_body("q", rows=4, seed=3)
    del body["id"]
    # 1. Killed while starting (importing, reading or training): at most one
    # release can have been committed, never a charge without its model.
    proc = spawn_server(
        files, ledger, epsilon=epsilon, max_queries=1, port=free_port(),
        mechanism="model", extra=extra,
    )  # fmt: skip
    time.sleep(random.Random(21).uniform(0.2, 1.5))
    stop(proc)
    if os.path.exists(ledger):
        releases = _releases(ledger)
        assert len(releases) <= 1
        assert read_ledger(ledger)[0] == (epsilon if releases else 0.0)
    outputs = []
    for _round in range(2):
        port = free_port()
        proc = start_server(
            files, ledger, epsilon=epsilon, max_queries=1, port=port,
            mechanism="model", extra=extra,
        )  # fmt: skip
        try:
            with httpx.Client(timeout=10) as client:
                r = client.post(URL.format(port=port) + "/infer", json=body,
                                headers=headers)  # fmt: skip
                assert r.status_code == 200, r.text
                outputs.append(r.json()["outputs"])
                budget = client.get(URL.format(port=port) + "/budget", headers=headers)
                assert budget.json()["answers_remaining"] is None
        finally:
            stop(proc)  # 2. SIGKILL after the start (and an answer)
        assert _releases(ledger) == [(epsilon, 0.0)]  # one charge, ever
        assert read_ledger(ledger)[0] == epsilon
    assert outputs[0] == outputs[1]
