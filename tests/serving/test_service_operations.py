# SPDX-License-Identifier: BSD-3-Clause
"""Operations of the service: /metrics, the JSON access log, readiness, the
request deadline, the idempotency window and DPSVM_* configuration."""

from __future__ import annotations

import io
import json
import logging
import os
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
pytest.importorskip("prometheus_client")

from _service_helpers import (
    KEY,
    LIMITED_KEY,
    OTHER_KEY,
    StatefulDouble,
    auth,
    infer_body,
    make_keys,
    make_ledger,
    make_served,
)
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from dpsvm.serving import Ledger, create_app
from dpsvm.serving._logging import configure_logging

URL = "/v2/models/dpsvm"


def _app(path, predictor=None, **kw):
    served = make_served(predictor if predictor is not None else StatefulDouble())
    ledger = kw.pop("ledger", None) or make_ledger(str(path), served)
    return create_app(served, ledger, make_keys(), **kw), served, ledger


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_count_requests_answers_refusals_and_the_budget(tmp_path):
    app, _, _ = _app(tmp_path / "l.db")
    with TestClient(app) as c:
        assert c.get("/metrics").status_code == 401  # needs a key, as /budget
        for i in range(3):
            r = c.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3], [i, 0, 0]]), headers=auth()
            )
            assert r.status_code == 200
        assert (
            c.post(
                f"{URL}/infer", json=infer_body([[1, 2]]), headers=auth()
            ).status_code
            == 422
        )
        assert c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]])).status_code == 401
        for _ in range(3):  # the limited key may receive 5 rows
            c.post(
                f"{URL}/infer",
                json=infer_body([[1, 1, 1]] * 2),
                headers=auth(LIMITED_KEY),
            )
        r = c.get("/metrics", headers=auth(OTHER_KEY))
        assert r.status_code == 200 and r.headers["content-type"].startswith(
            "text/plain"
        )
        text = r.text
    m = _samples(text)
    infer = "/v2/models/{name}/infer"
    assert m[("dpsvm_requests_total", (("route", infer), ("status", "200")))] == 5
    assert m[("dpsvm_requests_total", (("route", infer), ("status", "422")))] == 1
    assert m[("dpsvm_answers_total", ())] == 10  # rows answered
    assert m[("dpsvm_refusals_total", (("reason", "invalid_input"),))] == 1
    assert m[("dpsvm_refusals_total", (("reason", "unauthenticated"),))] == 2
    assert m[("dpsvm_refusals_total", (("reason", "key_limit"),))] == 1
    assert m[("dpsvm_request_duration_seconds_count", (("route", infer),))] == 8
    assert m[("dpsvm_ledger_commit_seconds_count", ())] >= 1
    assert m[("dpsvm_ledger_up", ())] == 1
    assert m[("dpsvm_epsilon_spent", ())] == pytest.approx(0.10)
    assert m[("dpsvm_epsilon_remaining", ())] == pytest.approx(0.90)
    assert m[("dpsvm_epsilon_charged_total", ())] == pytest.approx(0.10)
    assert m[("dpsvm_delta_spent", ())] == pytest.approx(1e-6)
    assert m[("dpsvm_delta_remaining", ())] == pytest.approx(0.0)
    assert m[("dpsvm_ledger_answered_rows", ())] == 10
    # Nothing per key: no label is a key or key id; neither appears.
    assert all(name != "key_id" for k in m for name, _ in k[1])
    key_id = make_keys().authenticate(KEY).key_id
    assert KEY not in text and key_id not in text


def test_two_apps_in_one_process_keep_their_own_metrics(tmp_path):
    a, _, _ = _app(tmp_path / "a.db")
    b, _, _ = _app(tmp_path / "b.db")
    with TestClient(a) as ca, TestClient(b) as cb:
        ca.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
        ma = _samples(ca.get("/metrics", headers=auth()).text)
        mb = _samples(cb.get("/metrics", headers=auth()).text)
    assert ma[("dpsvm_answers_total", ())] == 1
    assert mb[("dpsvm_answers_total", ())] == 0


@pytest.fixture
def log_lines():
    stream = io.StringIO()
    saved = {
        n: (
            logging.getLogger(n).handlers[:],
            logging.getLogger(n).level,
            logging.getLogger(n).propagate,
        )
        for n in ("dpsvm", "uvicorn", "uvicorn.error", "uvicorn.access")
    }
    configure_logging("info", stream)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    for n, (handlers, level, propagate) in saved.items():
        logger = logging.getLogger(n)
        logger.handlers, logger.propagate = handlers, propagate
        logger.setLevel(level)


def test_access_log_is_json_with_key_id_rows_and_epsilon_never_the_key(
    tmp_path, log_lines
):
    app, _, _ = _app(tmp_path / "l.db")
    key_id = make_keys().authenticate(KEY).key_id
    with TestClient(app) as c:
        c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]] * 3, "q-7"), headers=auth())
        c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]] * 3, "q-7"), headers=auth())
        c.post(
            f"{URL}/infer",
            json=infer_body([[1, 2, 3]]),
            headers={"Authorization": "Bearer " + "z" * 24},
        )
    lines = log_lines()
    access = [x for x in lines if x["logger"] == "dpsvm.access"]
    assert len(access) == 3
    first, retry, bad = access
    assert first["request_id"] == "q-7" and first["key_id"] == key_id
    assert first["status"] == 200 and first["rows"] == 3
    assert first["epsilon"] == pytest.approx(0.03) and first["latency_ms"] > 0
    assert retry["status"] == 200 and retry["epsilon"] == 0.0  # stored answer
    assert bad["status"] == 401 and bad["key_id"] is None
    assert bad["reason"] == "unauthenticated"
    text = json.dumps(lines)
    assert KEY not in text and "z" * 24 not in text


def test_readiness_503_when_exhausted_liveness_unaffected(tmp_path):
    app, _, _ = _app(tmp_path / "l.db", StatefulDouble(total=0.02, eps_q=0.01))
    with TestClient(app) as c:
        assert c.get("/v2/health/ready").json() == {"ready": True}
        assert (
            c.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3]] * 2), headers=auth()
            ).status_code
            == 200
        )
        r = c.get("/v2/health/ready")
        assert r.status_code == 503 and r.json()["ready"] is False
        assert "exhausted" in r.json()["error"]
        assert c.get(f"{URL}/ready").status_code == 503
        assert c.get("/v2/health/live").status_code == 200
        m = _samples(c.get("/metrics", headers=auth()).text)
        assert m[("dpsvm_budget_exhausted", ())] == 1


def test_readiness_503_while_the_ledger_is_unreachable_and_back_after(tmp_path):
    where = tmp_path / "db"
    where.mkdir()
    app, _, ledger = _app(where / "l.db")
    with TestClient(app) as c:
        assert (
            c.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth()
            ).status_code
            == 200
        )
        os.rename(where, tmp_path / "away")  # the database vanishes
        ledger.engine.dispose()
        try:
            r = c.get("/v2/health/ready")
            assert r.status_code == 503 and "unreachable" in r.json()["error"]
            assert c.get("/v2/health/live").status_code == 200
            r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
            assert r.status_code == 503 and "ledger" in r.json()["error"]
            m = _samples(c.get("/metrics", headers=auth()).text)
            assert m[("dpsvm_ledger_up", ())] == 0
            assert m[("dpsvm_refusals_total", (("reason", "ledger_unavailable"),))] == 1
        finally:
            os.rename(tmp_path / "away", where)
        assert c.get("/v2/health/ready").status_code == 200
        b = c.get(f"{URL}/budget", headers=auth()).json()
        assert b["answers"] == 1  # the refused request spent nothing


class SlowDouble(StatefulDouble):
    def answer(self, X):
        time.sleep(0.3)
        return super().answer(X)


def test_deadline_refuses_only_before_the_mechanism_runs(tmp_path):
    # Past the deadline before the mechanism starts: 503, nothing spent.
    app, _, ledger = _app(tmp_path / "a.db", request_timeout=1e-9)
    with TestClient(app) as c:
        r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
        assert r.status_code == 503 and "nothing was spent" in r.json()["error"]
        m = _samples(c.get("/metrics", headers=auth()).text)
    assert m[("dpsvm_refusals_total", (("reason", "deadline"),))] == 1
    assert ledger.snapshot().version == 0
    # The deadline passes while the mechanism runs: the charge commits, 200.
    app, _, ledger = _app(tmp_path / "b.db", SlowDouble(), request_timeout=0.1)
    with TestClient(app) as c:
        r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
    assert r.status_code == 200
    assert ledger.snapshot().epsilon_spent == pytest.approx(0.01)


def test_idempotency_records_are_pruned_after_the_window_totals_exact(tmp_path):
    served = make_served(StatefulDouble())
    ledger = Ledger(
        str(tmp_path / "l.db"),
        fingerprint=served.fingerprint,
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=1.0,
        delta_total=1e-6,
        idempotency_window=0.5,
    )
    app = create_app(served, ledger, make_keys())
    with TestClient(app) as c:
        for i in range(4):
            c.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3]], f"r{i}"), headers=auth()
            )
        again = c.post(
            f"{URL}/infer", json=infer_body([[1, 2, 3]], "r0"), headers=auth()
        )
        assert again.status_code == 200
        assert ledger.answer_records() == 4 and ledger.snapshot().answers == 4
        time.sleep(0.6)
        # Outside the window a reused id is a new request, answered and charged.
        c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]], "r0"), headers=auth())
        assert ledger.snapshot().answers == 5
        # Pruned after that commit: only the new r0 is left.
        assert ledger.answer_records() == 1
        assert ledger.prune(now=time.time() + 1) == 1
        assert ledger.answer_records() == 0
        b = c.get(f"{URL}/budget", headers=auth()).json()
    assert b["answers"] == 5 and b["epsilon_spent"] == pytest.approx(0.05)
    assert b["key_answers"] == 5


def test_ledger_refuses_a_nonpositive_timeout_or_window(tmp_path):
    kw = dict(
        fingerprint="f" * 64,
        model_name="m",
        mechanism="x",
        epsilon_total=1.0,
        delta_total=0.0,
    )
    with pytest.raises(ValueError, match="timeout"):
        Ledger(str(tmp_path / "a.db"), timeout=0, **kw)
    with pytest.raises(ValueError, match="idempotency_window"):
        Ledger(str(tmp_path / "a.db"), idempotency_window=-1.0, **kw)


# ------------------------------------------------ configuration from DPSVM_*
def _parse(argv, monkeypatch, env):
    from dpsvm.cli._main import build_parser

    for k in [k for k in os.environ if k.startswith("DPSVM_") and k != "DPSVM_DATA"]:
        monkeypatch.delenv(k)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return build_parser().parse_args(["serve", *argv])


def test_environment_gives_defaults_and_flags_win(monkeypatch):
    env = {
        "DPSVM_API_KEY_FILE": "keys.txt",
        "DPSVM_LEDGER": "ledger.db",
        "DPSVM_EPSILON": "0.5",
        "DPSVM_PORT": "9000",
        "DPSVM_MECHANISM": "laplace",
        "DPSVM_IDEMPOTENCY_WINDOW": "2h",
        "DPSVM_LOG_LEVEL": "warning",
    }
    args = _parse(["--data", "t.csv", "--port", "8081"], monkeypatch, env)
    assert args.api_key_file == "keys.txt" and args.ledger == "ledger.db"
    assert args.epsilon == 0.5 and args.port == 8081  # the flag wins
    assert args.mechanism == "laplace" and args.idempotency_window == 7200.0
    assert args.log_level == "warning"
    args = _parse(["--data", "t.csv", "--api-key-file", "k2"], monkeypatch, {})
    assert args.api_key_file == "k2" and args.idempotency_window == 86400.0


def test_a_bad_environment_value_names_the_variable(monkeypatch, capsys):
    from dpsvm.cli import main

    for k in [k for k in os.environ if k.startswith("DPSVM_") and k != "DPSVM_DATA"]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("DPSVM_MAX_BATCH", "lots")
    assert main(["serve", "--model", "m.json", "--api-key-file", "k"]) == 2
    assert "DPSVM_MAX_BATCH='lots'" in capsys.readouterr().err
    monkeypatch.setenv("DPSVM_MAX_BATCH", "64")
    monkeypatch.setenv("DPSVM_LEDGER_SYNC", "sometimes")
    assert main(["serve", "--model", "m.json", "--api-key-file", "k"]) == 2
    assert "DPSVM_LEDGER_SYNC='sometimes'" in capsys.readouterr().err


@pytest.mark.slow
def test_real_server_from_environment_logs_json_and_drains_on_sigterm(tmp_path):
    """`dpsvm serve` configured by DPSVM_* (a flag wins), JSON lines on
    stderr, /metrics, and a logged drain on SIGTERM."""
    import signal
    import subprocess
    import sys

    import httpx
    from _service_helpers import free_port, write_training_files

    files = write_training_files(tmp_path)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DPSVM_")}
    env.update(
        PYTHONPATH=os.pathsep.join(sys.path),
        DPSVM_API_KEY_FILE=files["keys"],
        DPSVM_LEDGER=str(tmp_path / "ledger.db"),
        DPSVM_EPSILON="1.0",
        DPSVM_MECHANISM="laplace",
        DPSVM_MAX_QUERIES="100",
        DPSVM_PORT="1",  # the flag below wins
        DPSVM_DRAIN_TIMEOUT="2",
        DPSVM_LOG_LEVEL="info",
    )
    cmd = [sys.executable, "-m", "dpsvm.cli", "serve", "--data", files["data"]]
    cmd += ["--schema", files["schema"], "--port", str(port)]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "not ready in 30 s"
            try:
                if httpx.get(f"{base}/v2/health/ready", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        body = {
            "id": "env-1",
            "inputs": [
                {
                    "name": "input",
                    "shape": [1, 3],
                    "datatype": "BYTES",
                    "data": ["40", "45", "Private"],
                }
            ],
        }
        r = httpx.post(f"{base}{URL}/infer", json=body, headers=auth(), timeout=10)
        assert r.status_code == 200, r.text
        m = httpx.get(f"{base}/metrics", headers=auth(), timeout=10)
        assert "dpsvm_answers_total 1.0" in m.text
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    # uvicorn re-raises the signal after its graceful shutdown.
    assert proc.returncode in (0, -signal.SIGTERM), err
    lines = [json.loads(x) for x in err.splitlines() if x.startswith("{")]
    events = [x.get("event") for x in lines]
    assert "start" in events and "drain_start" in events and "drain_end" in events
    drain = next(x for x in lines if x.get("event") == "drain_start")
    assert drain["signal"] == "SIGTERM" and drain["timeout_s"] == 2.0
    access = [x for x in lines if x["logger"] == "dpsvm.access" and x["status"] == 200]
    infer = next(x for x in access if x["route"] == "/v2/models/{name}/infer")
    assert infer["request_id"] == "env-1" and infer["rows"] == 1
    assert infer["epsilon"] > 0 and infer["key_id"]
    assert KEY not in err and KEY not in out


def test_docs_list_every_environment_variable():
    import argparse
    import pathlib
    import re

    from dpsvm.cli._main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve = sub.choices["serve"]
    expected = {
        "DPSVM_" + a.option_strings[0][2:].upper().replace("-", "_")
        for a in serve._actions
        if a.option_strings
        and a.option_strings[0].startswith("--")
        and a.dest not in ("data", "model", "help")
    }
    docs = pathlib.Path(__file__).parents[2] / "docs" / "serving.md"
    named = set(re.findall(r"DPSVM_[A-Z_]+[A-Z]", docs.read_text())) - {"DPSVM_DATA"}
    assert expected == named


def test_sqlite_writer_gives_up_after_the_ledger_timeout(tmp_path):
    """Another writer holds the SQLite ledger: 503 after --ledger-timeout,
    nothing spent, and answers again once the lock is released."""
    path = str(tmp_path / "l.db")
    served = make_served(StatefulDouble())
    kw = dict(
        fingerprint=served.fingerprint,
        model_name=served.name,
        mechanism=served.mechanism,
        epsilon_total=1.0,
        delta_total=1e-6,
    )
    app = create_app(served, Ledger(path, timeout=0.3, **kw), make_keys())
    holder = Ledger(path, **kw)
    with TestClient(app) as c:
        with holder.transaction() as txn:  # the write lock, held
            txn.state()
            t0 = time.monotonic()
            r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
            waited = time.monotonic() - t0
        assert r.status_code == 503 and "ledger" in r.json()["error"]
        assert 0.25 < waited < 3, waited
        r = c.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
        assert r.status_code == 200
        assert c.get(f"{URL}/budget", headers=auth()).json()["answers"] == 1
    holder.dispose()


def test_default_log_stream_follows_the_current_stderr(monkeypatch):
    # Regression: the handler kept the sys.stderr of configuration time, so a
    # later record went to a closed stream ("--- Logging error ---").
    first = io.StringIO()
    monkeypatch.setattr("sys.stderr", first)
    configure_logging("info")
    first.close()
    second = io.StringIO()
    monkeypatch.setattr("sys.stderr", second)
    logging.getLogger("dpsvm").info("request")
    assert json.loads(second.getvalue())["message"] == "request"
    configure_logging("warning", io.StringIO())  # leave no handler on stderr
