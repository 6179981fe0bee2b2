# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm serve --mechanism model``: release once, answer forever.

The charge and the released model are committed to the ledger in one
transaction at the first start; a restart or a second replica loads that
model (never trains again); a replica that loses the race to commit discards
its own model. Also: the budget endpoint of the interactive mechanisms and the
O(1) laplace charge (issue 21, item 4).
"""

from __future__ import annotations

import json
import math
import sqlite3
import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import KEY, auth, write_training_files
from fastapi.testclient import TestClient

from dpsvm.accounting.composition import best_composition, best_repeated_composition
from dpsvm.cli import _serve as serve_cli
from dpsvm.cli import main
from dpsvm.cli._main import build_parser
from dpsvm.preprocessing import PublicSchema
from dpsvm.serving import ApiKeys, Ledger, create_app, model_from_json, release_once

ROWS = [[80.0, 60.0, "Private"], [20.0, 5.0, "State-gov"], [45.0, 40.0, "Private"]]


def _args(files, ledger, *extra):
    args = build_parser().parse_args(
        [
            "serve",
            "--data",
            files["data"],
            "--schema",
            files["schema"],
            "--epsilon",
            "0.8",
            "--ledger",
            str(ledger),
            "--api-key-file",
            files["keys"],
            *extra,
        ]
    )
    serve_cli._check_args(args)
    return args


def _start(args):
    """What ``run_serve_command`` does up to the app (no uvicorn)."""
    schema_json = PublicSchema.from_json(args.schema).to_json()
    served, ledger = serve_cli.MECHANISMS[args.mechanism].start(
        args, serve_cli._fingerprinter(args, schema_json)
    )
    return served, ledger, create_app(served, ledger, ApiKeys([(KEY, None)]))


def _body(rows=ROWS):
    return {
        "inputs": [
            {
                "name": "input",
                "shape": [len(rows), 3],
                "datatype": "BYTES",
                "data": [v for r in rows for v in r],
            }
        ]
    }


def _ledger_rows(path):
    with sqlite3.connect(path) as conn:
        state = conn.execute(
            "SELECT version, epsilon_spent, delta_spent, answers "
            "FROM dpsvm_ledger_state"
        ).fetchone()
        releases = conn.execute(
            "SELECT model_json, epsilon, delta FROM dpsvm_ledger_release"
        ).fetchall()
    return state, releases


@pytest.fixture
def files(tmp_path):
    return write_training_files(tmp_path, n=200)


def test_model_is_the_default_mechanism(files, tmp_path):
    args = _args(files, tmp_path / "l.db")
    assert args.mechanism == "model" and args.kernel == "rbf"


@pytest.mark.parametrize(
    ("kernel", "estimator"),
    [
        ("linear", "DPLinearSVC"),
        ("rbf", "DPKernelSVC"),
        ("cauchy", "DPKernelSVC"),
        ("poly", "DPLinearSVC"),
    ],
)
def test_one_charge_equal_to_the_release_event(files, tmp_path, kernel, estimator):
    path = tmp_path / "l.db"
    served, ledger, app = _start(_args(files, path, "--kernel", kernel))
    model = served.predictor._model
    event = model.privacy_event_
    assert type(model).__name__ == estimator and served.free
    assert event.epsilon == 0.8 and event.delta == 0.0
    (version, eps, delta, answers), releases = _ledger_rows(path)
    # One charge (version 1), equal to the estimator's event, before any answer.
    assert (version, eps, delta, answers) == (1, event.epsilon, event.delta, 0)
    assert len(releases) == 1 and releases[0][1:] == (event.epsilon, event.delta)
    # The stored model is the library's model file, without secret state.
    doc = json.loads(releases[0][0])
    assert doc["format"] == "dpsvm-model"
    assert not any("random_state" in k for k in doc["params"])
    assert "solver_info" not in releases[0][0]
    stored = model_from_json(releases[0][0])
    assert stored.privacy_event_.to_dict() == event.to_dict()
    with TestClient(app) as client:
        for _ in range(3):  # free: the spend never moves
            r = client.post("/v2/models/dpsvm/infer", json=_body(), headers=auth())
            assert r.status_code == 200, r.text
    (version, eps2, _, answers), releases = _ledger_rows(path)
    assert eps2 == eps and answers == 9 and len(releases) == 1
    ledger.dispose()


def test_budget_endpoint_of_a_released_model(files, tmp_path):
    served, ledger, app = _start(_args(files, tmp_path / "l.db", "--delta", "1e-6"))
    with TestClient(app) as client:
        client.post("/v2/models/dpsvm/infer", json=_body(), headers=auth())
        b = client.get("/v2/models/dpsvm/budget", headers=auth()).json()
        meta = client.get("/v2/models/dpsvm", headers=auth()).json()
    assert b["mechanism"] == "model"
    assert b["answers_remaining"] is None and b["exhausted"] is False
    assert b["post_processing"] is True and b["answers"] == 3
    assert (b["epsilon_total"], b["delta_total"]) == (0.8, 1e-6)
    event = served.predictor._model.privacy_event_
    assert (b["epsilon_spent"], b["delta_spent"]) == (event.epsilon, event.delta)
    assert meta["parameters"]["post_processing"] is True
    assert meta["parameters"]["estimator"] == "DPKernelSVC"
    ledger.dispose()


def test_restart_loads_answers_identically_and_spends_nothing(
    files, tmp_path, monkeypatch
):
    path = tmp_path / "l.db"
    args = _args(files, path, "--kernel", "rbf")
    served, ledger, app = _start(args)
    assert served.details["trained_at_this_start"] is True
    with TestClient(app) as client:
        first = client.post("/v2/models/dpsvm/infer", json=_body(), headers=auth())
    ledger.dispose()
    before, _ = _ledger_rows(path)

    def never(*a, **k):
        raise AssertionError("a restart must not train again")

    monkeypatch.setattr(serve_cli, "_train_release", never)
    served2, ledger2, app2 = _start(args)
    assert served2.details["trained_at_this_start"] is False
    with TestClient(app2) as client:
        again = client.post("/v2/models/dpsvm/infer", json=_body(), headers=auth())
    assert again.json()["outputs"] == first.json()["outputs"]
    after, releases = _ledger_rows(path)
    assert after[1:3] == before[1:3] and len(releases) == 1  # nothing spent
    np.testing.assert_array_equal(
        served2.predictor._model.frequencies_, served.predictor._model.frequencies_
    )
    ledger2.dispose()


def test_second_replica_loads_while_the_first_serves(files, tmp_path, monkeypatch):
    path = tmp_path / "l.db"
    args = _args(files, path, "--kernel", "linear")
    served, ledger, app = _start(args)
    monkeypatch.setattr(
        serve_cli,
        "_train_release",
        lambda *a: pytest.fail("the second replica trained"),
    )
    served2, ledger2, app2 = _start(args)
    with TestClient(app) as c1, TestClient(app2) as c2:
        a = c1.post("/v2/models/dpsvm/infer", json=_body(), headers=auth()).json()
        b = c2.post("/v2/models/dpsvm/infer", json=_body(), headers=auth()).json()
    assert a["outputs"] == b["outputs"]
    np.testing.assert_array_equal(
        served.predictor._model.coef_, served2.predictor._model.coef_
    )
    (_, eps, _, answers), releases = _ledger_rows(path)
    assert eps == 0.8 and answers == 6 and len(releases) == 1
    ledger.dispose()
    ledger2.dispose()


def test_race_of_two_replicas_commits_one_charge(files, tmp_path):
    """Both train at once; one commits, the other discards its model."""
    path = str(tmp_path / "l.db")
    args = _args(files, path, "--kernel", "linear")
    schema = PublicSchema.from_json(args.schema)
    barrier = threading.Barrier(2, timeout=60)
    results: list = [None, None]
    trained_models: list = [None, None]

    def replica(i):
        ledger = Ledger(
            path,
            fingerprint="e" * 64,
            model_name="dpsvm",
            mechanism="model",
            epsilon_total=0.8,
            delta_total=0.0,
        )

        def train():
            model = serve_cli._train_release(args, schema)
            trained_models[i] = model.coef_.copy()
            barrier.wait()  # both hold a trained model before either commits
            return model

        results[i] = release_once(ledger, train, {"n_answers": 0})
        ledger.dispose()

    threads = [threading.Thread(target=replica, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(r is not None for r in results)
    assert sorted(r[1] for r in results) == [False, True]  # one committed
    winner = next(i for i in range(2) if results[i][1])
    loser = 1 - winner
    # Fresh noise: the two fits differ; both replicas serve the winner's model.
    assert not np.array_equal(trained_models[0], trained_models[1])
    for model, _ in results:
        np.testing.assert_array_equal(model.coef_, trained_models[winner])
    assert not np.array_equal(results[loser][0].coef_, trained_models[loser])
    (version, eps, delta, answers), releases = _ledger_rows(path)
    assert (version, eps, delta, answers) == (1, 0.8, 0.0, 0) and len(releases) == 1


def test_commit_release_refuses_a_second_release_and_an_overspend(tmp_path):
    ledger = Ledger(
        str(tmp_path / "l.db"),
        fingerprint="e" * 64,
        model_name="dpsvm",
        mechanism="model",
        epsilon_total=1.0,
        delta_total=0.0,
    )
    ledger.open({"n_answers": 0})
    from dpsvm.serving import LedgerError

    with pytest.raises(LedgerError, match="more than the ledger's total"):
        ledger.commit_release("{}", epsilon=1.5, delta=0.0, state={"n_answers": 0})
    assert ledger.released_model() is None
    assert ledger.commit_release("{}", epsilon=1.0, delta=0.0, state={"n_answers": 0})
    assert not ledger.commit_release(
        '{"x": 1}', epsilon=1.0, delta=0.0, state={"n_answers": 0}
    )
    assert ledger.released_model() == "{}"
    assert ledger.snapshot().version == 1 and ledger.snapshot().epsilon_spent == 1.0
    ledger.dispose()


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (("--mechanism", "pinp", "--kernel", "laplacian"), "takes --kernel"),
        (("--classifier", "logistic"), "--classifier logistic applies"),
        (("--mechanism", "laplace", "--n-components", "50"), "--mechanism model"),
        (("--kernel", "linear", "--n-components", "50"), "random-feature kernels"),
    ],
)
def test_model_option_usage_errors(files, tmp_path, capsys, extra, fragment):
    code = main(
        [
            "serve",
            "--data",
            files["data"],
            "--schema",
            files["schema"],
            "--epsilon",
            "1",
            "--ledger",
            str(tmp_path / "l.db"),
            "--api-key-file",
            files["keys"],
            *extra,
        ]
    )
    assert code == 2 and fragment in capsys.readouterr().err
    assert not (tmp_path / "l.db").exists()  # nothing opened, nothing spent


def test_wide_poly_map_is_refused_before_reading_data(tmp_path, monkeypatch):
    schema = {
        "label": {"column": "y", "classes": ["a", "b"]},
        "features": [
            {"column": f"c{j}", "type": "numeric", "lower": 0, "upper": 1}
            for j in range(60)
        ],
    }
    files = write_training_files(tmp_path)
    (tmp_path / "wide.json").write_text(json.dumps(schema))
    files["schema"] = str(tmp_path / "wide.json")
    monkeypatch.setattr(
        serve_cli, "_train_release", lambda *a: pytest.fail("read the data")
    )
    from dpsvm.utils._cli import UsageError

    with pytest.raises(UsageError, match="polynomial features"):
        _start(_args(files, tmp_path / "l.db", "--kernel", "poly"))


# --------------------------------------------------------- issue 21, item 4
def _pinp_app(X, y, path):
    from test_service_cli import _pip_served

    served = _pip_served(X, y, "pinp")
    p = served.predictor
    ledger = Ledger(
        path,
        fingerprint=served.fingerprint,
        model_name="dpsvm",
        mechanism="pinp",
        epsilon_total=p.total_epsilon,
        delta_total=p.total_delta,
    )
    return served, ledger, create_app(served, ledger, ApiKeys([(KEY, None)]))


@pytest.mark.filterwarnings("ignore::dpsvm.prediction.VacuousCalibrationWarning")
def test_pinp_budget_is_not_exhausted_while_answers_remain(tmp_path):
    """Regression: the budget endpoint said exhausted once another replica had
    answered (PINP charges its whole ε at the first answer, then answers T)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(80, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    path = str(tmp_path / "l.db")
    _, ledger1, app1 = _pinp_app(X, y, path)
    _, ledger2, app2 = _pinp_app(X, y, path)
    body = {"inputs": [{"name": "input", "shape": [2, 2], "datatype": "FP64"}]}
    body["inputs"][0]["data"] = X[:2].ravel().tolist()
    with TestClient(app1) as c1, TestClient(app2) as c2:
        assert c1.post("/v2/models/dpsvm/infer", json=body, headers=auth()).is_success
        for client in (c1, c2):
            b = client.get("/v2/models/dpsvm/budget", headers=auth()).json()
            assert b["epsilon_remaining"] == 0.0  # the whole ε, charged once
            assert b["exhausted"] is False and b["answers_remaining"] == 48
        # The replica that did not answer serves the next answers in sync.
        assert c2.post("/v2/models/dpsvm/infer", json=body, headers=auth()).is_success
        b = c1.get("/v2/models/dpsvm/budget", headers=auth()).json()
        assert b["answers"] == 4 and b["answers_remaining"] == 46
        assert b["exhausted"] is False
    ledger1.dispose()
    ledger2.dispose()


@pytest.mark.parametrize("eps", [1e-3, 0.02, 0.5])
@pytest.mark.parametrize("slack", [0.0, 1e-6, 0.05])
def test_repeated_composition_equals_the_list_composition(eps, slack):
    for k in [0, 1, 2, 5, 17, 100, 1234]:
        fast = best_repeated_composition(eps, k, slack, slack if slack else 1.0)
        slow = best_composition([(eps, 0.0)] * k, slack, slack if slack else 1.0)
        assert fast[1] == slow[1]
        assert math.isclose(fast[0], slow[0], rel_tol=1e-14, abs_tol=0.0)


def test_laplace_spend_is_the_old_bound_and_does_not_grow_in_cost():
    from dpsvm.prediction import PrivateInteractivePredictor

    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(60, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    pip = PrivateInteractivePredictor(
        mechanism="laplace",
        epsilon=1.0,
        delta=1e-6,
        n_queries=400,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    spent = []
    for _ in range(5):
        pip.answer(X[:7])
        old = best_composition(
            [(pip._eps_q, 0.0)] * pip.n_answers, delta_slack=1e-6, max_delta=1e-6
        )
        assert math.isclose(pip.spent_epsilon, min(old[0], 1.0), rel_tol=1e-14)
        assert pip.spent_delta == old[1]
        spent.append(pip.spent_epsilon)
    assert spent == sorted(spent)

    def cost(n):
        best = math.inf
        for _ in range(5):
            t0 = time.perf_counter()
            pip._spent_after(n, 0)
            best = min(best, time.perf_counter() - t0)
        return best

    # O(1): a million answers so far cost what ten do (the old list
    # composition took about a second here).
    assert cost(10**6) < 20 * cost(10) + 2e-3


def test_prediction_utility_benchmark_builds_its_data_and_table(tmp_path, monkeypatch):
    """benchmarks/bench_prediction_utility.py cannot rot silently (no server)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "benchmarks" / "bench_prediction_utility.py"
    spec = importlib.util.spec_from_file_location("bench_prediction_utility", path)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_prediction_utility", bench)
    spec.loader.exec_module(bench)
    assert "model" in bench.BENCHMARKS
    ctx = bench.Context(tmp_path, None, tmp_path / "keys.txt")
    train, schema, rows, labels = bench.separable_csv(ctx, n=50, d=5)
    assert PublicSchema.from_json(schema).columns == tuple(f"x{j}" for j in range(5))
    assert len(rows) == len(labels) == 200 and set(labels) <= {"neg", "pos"}
    assert train.read_text().count("\n") == 51
    row = {"data": "d", "mechanism": "model", "answers": 2, "accuracy": 1.0}
    row.update(answers_possible="unlimited", releases=1, epsilon_spent=1.0)
    assert "| d | model | 2 | 1.0000 | unlimited | 1, 1 | — |" in bench._table([row])
