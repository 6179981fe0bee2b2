# SPDX-License-Identifier: BSD-3-Clause
"""The OIP v2 endpoints, the ledger binding, retries and bad input (TestClient)."""

from __future__ import annotations

import json
import math
import os
import stat
import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

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
    service_fixture,  # noqa: F401 (the `service` fixture)
)
from fastapi.testclient import TestClient

from dpsvm.serving import Ledger, LedgerError, ReleasedModel, create_app

URL = "/v2/models/dpsvm"


def post(client, rows, key=KEY, rid=None):
    return client.post(f"{URL}/infer", json=infer_body(rows, rid), headers=auth(key))


def budget(client, key=KEY):
    r = client.get(f"{URL}/budget", headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


def test_health_needs_no_key(service):
    client, _, _ = service
    assert client.get("/v2/health/live").json() == {"live": True}
    assert client.get("/v2/health/ready").json() == {"ready": True}
    assert client.get(f"{URL}/ready").status_code == 200


def test_openapi_schema_lists_the_endpoints(service):
    client, _, _ = service
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/v2/models/{name}/infer", "/v2/models/{name}/budget", "/v2/health/live"):
        assert p in paths


def test_metadata(service):
    client, _, _ = service
    meta = client.get(URL, headers=auth()).json()
    assert meta["name"] == "dpsvm"
    assert meta["inputs"] == [{"name": "input", "datatype": "FP64", "shape": [-1, 3]}]
    assert meta["outputs"][0]["datatype"] == "INT64"
    assert meta["parameters"]["classes"] == [-1, 1]
    assert meta["parameters"]["mechanism"] == "test-double"
    assert "fingerprint" not in json.dumps(meta)


def test_infer_answers_and_the_budget_falls(service):
    client, _, _ = service
    before = budget(client)
    assert before["epsilon_spent"] == 0 and before["answers"] == 0
    r = client.post(
        f"{URL}/infer", json=infer_body([[1, 2, 3], [-1, -2, -3]], "r1"), headers=auth()
    )
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["id"] == "r1" and out["model_name"] == "dpsvm"
    assert out["outputs"] == [
        {"name": "label", "shape": [2], "datatype": "INT64", "data": [1, -1]}
    ]
    after = budget(client)
    assert after["answers"] == 2
    assert math.isclose(after["epsilon_spent"], 0.02)
    assert math.isclose(after["epsilon_remaining"], 0.98)
    assert after["epsilon_total"] == 1.0 and after["delta_total"] == 1e-6
    assert after["key_answers"] == 2


def test_nested_data_and_bytes_numbers_are_accepted(service):
    client, _, _ = service
    body = infer_body([[1, 2, 3]])
    body["inputs"][0]["data"] = [[1, 2, 3]]
    assert client.post(f"{URL}/infer", json=body, headers=auth()).status_code == 200
    body = infer_body([["1", "2", "-9"]], datatype="BYTES")
    r = client.post(f"{URL}/infer", json=body, headers=auth())
    assert r.status_code == 200 and r.json()["outputs"][0]["data"] == [-1]


def test_retry_with_same_id_returns_stored_answer_and_spends_nothing(service):
    client, _, _ = service
    body = infer_body([[1, 2, 3]], "same")
    first = client.post(f"{URL}/infer", json=body, headers=auth()).json()
    spent = budget(client)["epsilon_spent"]
    again = client.post(f"{URL}/infer", json=body, headers=auth()).json()
    assert again == first
    assert budget(client)["epsilon_spent"] == spent
    # The same id under another key is another request.
    r = client.post(f"{URL}/infer", json=body, headers=auth(OTHER_KEY))
    assert r.status_code == 200
    assert budget(client)["epsilon_spent"] > spent


def test_reused_id_with_other_inputs_is_refused(service):
    client, _, _ = service
    client.post(f"{URL}/infer", json=infer_body([[1, 2, 3]], "x"), headers=auth())
    spent = budget(client)["epsilon_spent"]
    r = client.post(f"{URL}/infer", json=infer_body([[3, 2, 1]], "x"), headers=auth())
    assert r.status_code == 409 and "already used" in r.json()["error"]
    assert budget(client)["epsilon_spent"] == spent


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (infer_body([[1, 2]]), "expected shape [B, 3]"),
        (infer_body([[1, 2, 3]], shape=[2, 3]), "declared shape holds 6"),
        (infer_body([[1, 2, 3]], shape=[3]), "expected shape [B, 3]"),
        (infer_body([[1, "a", 3]]), "must be numbers"),
        (infer_body([[1, True, 3]]), "must be numbers"),
        (infer_body([[1, None, 3]]), "must be numbers"),
        (infer_body([[1, 2, 3]], datatype="BOOL"), "not supported"),
        (infer_body([["1", "x", "2"]], datatype="BYTES"), "non-numeric"),
        (infer_body([[0.0] * 3] * 65), "at most 64"),
        (infer_body([[0.0] * 3] * 0, shape=[0, 3]), "empty"),
        ({"inputs": []}, "inputs: List should have at least 1 item"),
        ({"inputs": [{"name": "input"}]}, "invalid request body"),
        ({"id": "x" * 300, "inputs": []}, "invalid request body"),
    ],
)
def test_bad_input_is_422_and_spends_nothing(service, body, fragment):
    client, served, _ = service
    r = client.post(f"{URL}/infer", json=body, headers=auth())
    assert r.status_code == 422, r.text
    assert fragment in r.json()["error"]
    b = budget(client)
    assert b["epsilon_spent"] == 0 and b["answers"] == 0
    assert served.predictor.n_answers == 0


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_tokens_are_422(service, token):
    client, _, _ = service
    text = '{"inputs": [{"name": "input", "shape": [1, 3], "datatype": "FP64", '
    text += f'"data": [1, {token}, 2]}}]}}'
    r = client.post(
        f"{URL}/infer",
        content=text,
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and "finite" in r.json()["error"]
    assert budget(client)["answers"] == 0


def test_malformed_json_is_422(service):
    client, _, _ = service
    r = client.post(
        f"{URL}/infer",
        content="{not json",
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert r.status_code == 422 and "error" in r.json()


def test_oversized_body_is_413(tmp_path):
    served = make_served()
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    app = create_app(served, ledger, make_keys(), max_body_bytes=1000)
    with TestClient(app) as client:
        r = client.post(
            f"{URL}/infer", json=infer_body([[0.5] * 3] * 200), headers=auth()
        )
        assert r.status_code == 413 and "larger than 1000 bytes" in r.json()["error"]
        assert budget(client)["answers"] == 0


def test_unknown_model_is_404(service):
    client, _, _ = service
    r = client.post(
        "/v2/models/other/infer", json=infer_body([[1, 2, 3]]), headers=auth()
    )
    assert r.status_code == 404 and "unknown model" in r.json()["error"]


def test_exhausted_budget_answers_429_and_stays_exhausted(tmp_path):
    served = make_served(StatefulDouble(total=0.05, eps_q=0.01))
    path = str(tmp_path / "l.db")
    ledger = make_ledger(path, served)
    with TestClient(create_app(served, ledger, make_keys())) as client:
        for _ in range(5):
            r = client.post(
                f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth()
            )
            assert r.status_code == 200
        r = post(client, [[1, 2, 3]])
        assert r.status_code == 429
        assert "privacy budget exhausted" in r.json()["error"]
        b = budget(client)
        assert b["exhausted"] and math.isclose(b["epsilon_spent"], 0.05)
    # A restart does not restore the budget.
    served2 = make_served(StatefulDouble(total=0.05, eps_q=0.01))
    with TestClient(create_app(served2, make_ledger(path, served2), make_keys())) as c2:
        r = c2.post(f"{URL}/infer", json=infer_body([[1, 2, 3]]), headers=auth())
        assert r.status_code == 429
        assert budget(c2)["answers"] == 5
        assert served2.predictor.n_answers == 5


def test_batch_larger_than_remaining_budget_is_429_and_spends_nothing(tmp_path):
    served = make_served(StatefulDouble(total=0.05, eps_q=0.01))
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    with TestClient(create_app(served, ledger, make_keys())) as client:
        r = client.post(
            f"{URL}/infer", json=infer_body([[1, 2, 3]] * 6), headers=auth()
        )
        assert r.status_code == 429
        assert budget(client)["answers"] == 0
        assert served.predictor.n_answers == 0


def test_per_key_answer_limit(service):
    client, _, _ = service
    r = client.post(
        f"{URL}/infer", json=infer_body([[1, 2, 3]] * 4), headers=auth(LIMITED_KEY)
    )
    assert r.status_code == 200
    r = client.post(
        f"{URL}/infer", json=infer_body([[1, 2, 3]] * 2), headers=auth(LIMITED_KEY)
    )
    assert r.status_code == 429 and "has 1 left" in r.json()["error"]
    b = budget(client, LIMITED_KEY)
    assert b["key_answers"] == 4 and b["key_max_answers"] == 5 and b["answers"] == 4
    # Other keys are not limited by it.
    r = client.post(f"{URL}/infer", json=infer_body([[1, 2, 3]] * 2), headers=auth())
    assert r.status_code == 200


def test_restart_restores_state_and_spend(tmp_path):
    path = str(tmp_path / "l.db")
    served = make_served()
    with TestClient(create_app(served, make_ledger(path, served), make_keys())) as c:
        for i in range(3):
            c.post(f"{URL}/infer", json=infer_body([[i - 1, 0, 0]]), headers=auth())
        history = list(served.predictor.history)
    served2 = make_served()
    with TestClient(create_app(served2, make_ledger(path, served2), make_keys())) as c:
        assert served2.predictor.history == history
        assert math.isclose(budget(c)["epsilon_spent"], 0.03)


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_new_sqlite_ledger_is_readable_by_its_owner_only(tmp_path):
    # Regression (fails before the fix): the ledger holds server-secret
    # mechanism state (the threshold noise ρ) but was created world-readable.
    path = tmp_path / "l.db"
    served = make_served()
    old = os.umask(0o022)
    try:
        with TestClient(
            create_app(served, make_ledger(str(path), served), make_keys())
        ) as c:
            c.post(f"{URL}/infer", json=infer_body([[0, 0, 0]]), headers=auth())
    finally:
        os.umask(old)
    assert path.exists()
    for f in tmp_path.glob("l.db*"):  # the database and its WAL files
        assert stat.S_IMODE(f.stat().st_mode) & 0o077 == 0, f.name


def test_ledger_refuses_another_total_budget_or_model(tmp_path):
    path = str(tmp_path / "l.db")
    served = make_served()
    create_app(served, make_ledger(path, served), make_keys())
    with pytest.raises(LedgerError, match="total budget is fixed"):
        create_app(served, make_ledger(path, served, epsilon_total=2.0), make_keys())
    with pytest.raises(LedgerError, match="total budget is fixed"):
        create_app(served, make_ledger(path, served, delta_total=1e-5), make_keys())
    with pytest.raises(LedgerError, match="another model or training data"):
        create_app(served, make_ledger(path, served, fingerprint="0" * 64), make_keys())


def test_failed_commit_rolls_the_mechanism_back(service, monkeypatch):
    client, served, _ = service
    ledger = client.app.state.service.ledger  # type: ignore[attr-defined]
    from dpsvm.serving import _ledger

    def boom(self, *a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(_ledger.LedgerTransaction, "record", boom)
    with pytest.raises(RuntimeError, match="disk full"):
        post(client, [[1, 2, 3]])
    assert served.predictor.n_answers == 0
    assert ledger.snapshot().answers == 0


def test_released_model_answers_are_free(tmp_path):
    from sklearn.datasets import make_classification

    from dpsvm.models import DPLinearSVC

    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    y = np.where(y == 1, 1, -1)
    model = DPLinearSVC(epsilon=0.5, classes=[-1, 1], random_state=0).fit(X, y)
    served = make_served(ReleasedModel(model), d=4, free=True, mechanism="released")
    ledger = Ledger(
        "sqlite://",
        fingerprint="e" * 64,
        model_name="dpsvm",
        mechanism="released",
        epsilon_total=0.5,
        delta_total=0.0,
    )
    with TestClient(create_app(served, ledger, make_keys())) as client:
        r = client.post(f"{URL}/infer", json=infer_body(X[:5].tolist()), headers=auth())
        assert r.status_code == 200
        assert r.json()["outputs"][0]["data"] == model.predict(X[:5]).tolist()
        b = budget(client)
        assert b["post_processing"] is True and "post-processing" in b["note"]
        assert b["epsilon_total"] == 0.5 and b["answers"] == 5


class _SlowDouble(StatefulDouble):
    def answer(self, X):
        time.sleep(0.1)
        return super().answer(X)


def test_concurrent_charges_share_one_commit_and_all_are_recorded(tmp_path):
    served = make_served(_SlowDouble())
    ledger = make_ledger(str(tmp_path / "l.db"), served)
    transactions = []
    original = ledger.transaction

    def counting():
        transactions.append(1)
        return original()

    ledger.transaction = counting  # type: ignore[method-assign]
    with TestClient(create_app(served, ledger, make_keys())) as client:
        codes = []
        threads = [
            threading.Thread(
                target=lambda i=i: codes.append(post(client, [[i, 1, 1]]).status_code)
            )
            for i in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        b = budget(client)
    assert codes == [200] * 8
    assert b["answers"] == 8 and math.isclose(b["epsilon_spent"], 0.08)
    assert len(served.predictor.history) == 8
    assert len(transactions) < 8  # queued charges were committed together


def test_ledger_meta_table_keeps_its_on_disk_schema_and_binding_row(tmp_path):
    # Ledgers outlive releases: the meta table's columns (order, types, NOT
    # NULL) are the on-disk format, and a new ledger's row holds the binding.
    import sqlite3

    path = tmp_path / "meta.db"
    ledger = Ledger(
        str(path),
        fingerprint="f" * 64,
        model_name="m",
        mechanism="laplace",
        epsilon_total=2.0,
        delta_total=1e-6,
    )
    ledger.open({"n": 0})
    ledger.dispose()
    with sqlite3.connect(path) as conn:
        columns = conn.execute("PRAGMA table_info(dpsvm_ledger_meta)").fetchall()
        row = conn.execute(
            "SELECT id, format_version, fingerprint, model_name, mechanism, "
            "epsilon_total, delta_total FROM dpsvm_ledger_meta"
        ).fetchall()
    assert [(c[1], c[2], c[3], c[5]) for c in columns] == [
        ("id", "INTEGER", 1, 1),
        ("format_version", "INTEGER", 1, 0),
        ("fingerprint", "VARCHAR(64)", 1, 0),
        ("model_name", "VARCHAR(200)", 1, 0),
        ("mechanism", "VARCHAR(100)", 1, 0),
        ("epsilon_total", "FLOAT", 1, 0),
        ("delta_total", "FLOAT", 1, 0),
        ("created_unix", "FLOAT", 1, 0),
    ]
    assert row == [(1, 1, "f" * 64, "m", "laplace", 2.0, 1e-6)]
