# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the service tests: a stateful test double, keys, request bodies.

A module, not a conftest.py (a second ``conftest`` module name clashes under
``--doctest-modules``); test modules import the ``service`` fixture from here.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
import pytest

from dpsvm.exceptions import BudgetExceededError
from dpsvm.serving import (
    Answers,
    ApiKeys,
    InputSpec,
    Ledger,
    ServedModel,
    create_app,
)

KEY = "test-key-" + "a" * 20
OTHER_KEY = "other-key-" + "b" * 20
LIMITED_KEY = "limited-key-" + "c" * 20


class StatefulDouble:
    """A stateful mechanism double: ε_q per row, state = every answered row sign.

    The state grows with each answer (like PINP's update list), so a lost or
    replayed state change shows up in ``state_dict``.
    """

    def __init__(self, total: float = 1.0, eps_q: float = 0.01) -> None:
        self.total_epsilon = total
        self.total_delta = 1e-6
        self.eps_q = eps_q
        self.history: list[int] = []

    @property
    def spent_epsilon(self) -> float:
        return self.eps_q * len(self.history)

    @property
    def spent_delta(self) -> float:
        return 1e-6 if self.history else 0.0

    @property
    def n_answers(self) -> int:
        return len(self.history)

    @property
    def budget_exhausted(self) -> bool:
        return self.spent_epsilon + self.eps_q > self.total_epsilon * (1 + 1e-12)

    def answer(self, X: Any) -> Answers:
        X = np.asarray(X, dtype=np.float64)
        k = X.shape[0]
        if self.eps_q * (len(self.history) + k) > self.total_epsilon * (1 + 1e-12):
            raise BudgetExceededError("batch larger than the remaining budget")
        labels = np.where(X.sum(axis=1) > 0, 1, -1)
        self.history.extend(int(v) for v in labels)
        return Answers(labels, self.budget_exhausted)

    def state_dict(self) -> dict[str, Any]:
        return {"history": list(self.history)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.history = [int(v) for v in state["history"]]


def make_served(predictor: Any = None, *, d: int = 3, **kw: Any) -> ServedModel:
    return ServedModel(
        name=kw.pop("name", "dpsvm"),
        predictor=predictor if predictor is not None else StatefulDouble(),
        inputs=kw.pop("inputs", InputSpec([f"x{j}" for j in range(d)])),
        classes=[-1, 1],
        mechanism=kw.pop("mechanism", "test-double"),
        free=kw.pop("free", False),
        fingerprint=kw.pop("fingerprint", "f" * 64),
    )


def make_ledger(path: str, served: ServedModel, **kw: Any) -> Ledger:
    return Ledger(
        path,
        fingerprint=kw.get("fingerprint", served.fingerprint),
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=kw.get("epsilon_total", served.predictor.total_epsilon),
        delta_total=kw.get("delta_total", served.predictor.total_delta),
    )


def make_keys() -> ApiKeys:
    return ApiKeys([(KEY, None), (OTHER_KEY, None), (LIMITED_KEY, 5)])


def auth(key: str = KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def infer_body(rows: list[list[Any]], rid: str | None = None, **kw: Any) -> dict:
    body: dict[str, Any] = {
        "inputs": [
            {
                "name": "input",
                "shape": kw.get("shape", [len(rows), len(rows[0]) if rows else 0]),
                "datatype": kw.get("datatype", "FP64"),
                "data": [v for r in rows for v in r],
            }
        ]
    }
    if rid is not None:
        body["id"] = rid
    return body


@pytest.fixture(name="service")
def service_fixture(tmp_path):
    """(client, served, ledger path) for a fresh SQLite ledger."""
    from fastapi.testclient import TestClient

    served = make_served()
    path = str(tmp_path / "ledger.db")
    ledger = make_ledger(path, served)
    app = create_app(served, ledger, make_keys(), max_batch=64)
    with TestClient(app) as client:
        yield client, served, path
    ledger.dispose()


def random_id() -> str:
    return secrets.token_hex(8)


# ------------------------------------------------------- a real server process
TRAIN_COLUMNS = ("age", "hours", "workclass")
SCHEMA = {
    "label": {"column": "income", "classes": ["<=50K", ">50K"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {"column": "hours", "type": "numeric", "lower": 1, "upper": 99},
        {
            "column": "workclass",
            "type": "categorical",
            "categories": ["Private", "State-gov"],
        },
    ],
}


def write_training_files(directory: Any, n: int = 120, seed: int = 0) -> dict:
    """A small CSV, its public schema and a key file; returns their paths."""
    import json
    from pathlib import Path

    d = Path(directory)
    rng = np.random.default_rng(seed)
    age = rng.uniform(17, 90, n)
    hours = rng.uniform(1, 99, n)
    wc = rng.choice(["Private", "State-gov", "Self-emp"], n)
    score = (age - 50) / 30 + (hours - 40) / 50 + 0.3 * (wc == "Private")
    y = np.where(score > 0, ">50K", "<=50K")
    lines = ["age,hours,workclass,income"]
    lines += [
        f"{a:.1f},{h:.1f},{w},{c}" for a, h, w, c in zip(age, hours, wc, y, strict=True)
    ]
    (d / "train.csv").write_text("\n".join(lines) + "\n")
    (d / "schema.json").write_text(json.dumps(SCHEMA))
    (d / "keys.txt").write_text(f"{KEY}\n{OTHER_KEY}\n")
    return {
        "data": str(d / "train.csv"),
        "schema": str(d / "schema.json"),
        "keys": str(d / "keys.txt"),
    }


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spawn_server(
    files: dict,
    ledger: str,
    *,
    epsilon: float,
    max_queries: int,
    port: int,
    mechanism: str = "laplace",
    extra: tuple[str, ...] = (),
) -> Any:
    """``dpsvm serve`` as a subprocess on 127.0.0.1 (not waited for)."""
    import subprocess
    import sys

    cmd = [
        sys.executable,
        "-m",
        "dpsvm.cli",
        "serve",
        "--data",
        files["data"],
        "--schema",
        files["schema"],
        "--epsilon",
        repr(epsilon),
        "--ledger",
        ledger,
        "--api-key-file",
        files["keys"],
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--mechanism",
        mechanism,
        "--max-queries",
        str(max_queries),
        # No access log: nobody reads the pipe until the end, and a full pipe
        # would block the server's writes.
        "--log-level",
        "warning",
        *extra,
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def start_server(
    files: dict,
    ledger: str,
    *,
    epsilon: float,
    max_queries: int,
    port: int,
    mechanism: str = "laplace",
    extra: tuple[str, ...] = (),
) -> Any:
    """``dpsvm serve`` as a subprocess on 127.0.0.1 (laplace answers by default),
    once it is ready."""
    import time

    import httpx

    proc = spawn_server(
        files,
        ledger,
        epsilon=epsilon,
        max_queries=max_queries,
        port=port,
        mechanism=mechanism,
        extra=extra,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            raise RuntimeError(f"dpsvm serve exited ({proc.returncode}): {out}")
        try:
            # Live, not ready: readiness is 503 once the budget is exhausted.
            r = httpx.get(f"http://127.0.0.1:{port}/v2/health/live", timeout=0.5)
            if r.status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    proc.kill()
    proc.communicate()
    raise RuntimeError("dpsvm serve did not become ready within 30 s")


def stop(proc: Any) -> None:
    """SIGKILL a server started by :func:`start_server` and reap it."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)
    if proc.stdout:
        proc.stdout.close()


def query_body(rid: str, rows: int = 1, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    data: list[Any] = []
    for _ in range(rows):
        data += [float(rng.uniform(17, 90)), float(rng.uniform(1, 99)), "Private"]
    return {
        "id": rid,
        "inputs": [
            {"name": "input", "shape": [rows, 3], "datatype": "BYTES", "data": data}
        ],
    }


def read_ledger(path: str) -> tuple[float, int, dict]:
    """(ε spent, rows answered, {request id: response}) straight from SQLite."""
    import json
    import sqlite3

    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    try:
        eps, answers = con.execute(
            "SELECT epsilon_spent, answers FROM dpsvm_ledger_state WHERE id = 1"
        ).fetchone()
        stored = {
            rid: json.loads(resp)
            for rid, resp in con.execute(
                "SELECT request_id, response_json FROM dpsvm_ledger_answers"
            )
        }
    finally:
        con.close()
    return float(eps), int(answers), stored
