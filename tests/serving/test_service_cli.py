# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm serve`` refusals, and the real PINP / sparse-vector predictor served."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import (
    KEY,
    auth,
    service_fixture,  # noqa: F401 (the `service` fixture)
    write_training_files,
)
from fastapi.testclient import TestClient

from dpsvm.cli import main
from dpsvm.prediction import PrivateInteractivePredictor
from dpsvm.serving import ApiKeys, InputSpec, Ledger, ServedModel, create_app


def _serve(files, *extra):
    return main(
        [
            "serve",
            "--data",
            files["data"],
            "--schema",
            files["schema"],
            "--api-key-file",
            files["keys"],
            *extra,
        ]
    )


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ((), "--data needs --epsilon, --ledger"),
        (
            ("--epsilon", "1", "--ledger", "x.db", "--mechanism", "pinp"),
            "--mechanism pinp is (epsilon, delta)",
        ),
        (("--epsilon", "-1"), "epsilon must be a finite number > 0"),
        (("--epsilon", "1", "--mechanism", "svm"), "invalid choice"),
    ],
)
def test_usage_errors(tmp_path, capsys, extra, fragment):
    files = write_training_files(tmp_path)
    assert _serve(files, *extra) == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize("gamma", ["2", "0.5"])
def test_poly_kernel_with_a_width_is_refused_before_anything_runs(
    tmp_path, capsys, gamma
):
    # Regression: --kernel poly --gamma X (X != 1) used to fail at fit time with a
    # traceback; the polynomial kernel (<x, y> + c0)^p has no width.
    files = write_training_files(tmp_path)
    ledger = tmp_path / "ledger.db"
    extra = ("--epsilon", "1", "--delta", "1e-6", "--ledger", str(ledger))
    code = _serve(files, *extra, "--kernel", "poly", "--gamma", gamma)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dpsvm: error: --kernel poly")
    assert (
        f"--gamma must be 1 (the default) with --kernel poly, got --gamma {gamma}"
        in err
    )
    assert "Traceback" not in err and err.count("\n") == 1
    assert not ledger.exists()  # refused before the ledger was opened


def test_model_mode_refuses_epsilon(tmp_path, capsys):
    files = write_training_files(tmp_path)
    code = main(
        [
            "serve",
            "--model",
            files["data"],
            "--epsilon",
            "1",
            "--api-key-file",
            files["keys"],
        ]
    )
    assert code == 2
    assert "do not apply to --model" in capsys.readouterr().err


def test_bad_key_file_is_refused_without_quoting_keys(tmp_path, capsys):
    files = write_training_files(tmp_path)
    (tmp_path / "keys.txt").write_text("short-secret\n")
    ledger = str(tmp_path / "l.db")
    code = _serve(files, "--epsilon", "1", "--ledger", ledger, "--mechanism", "laplace")
    err = capsys.readouterr().err
    assert code == 1 and "line 1" in err and "at least 16" in err
    assert "short-secret" not in err


def test_key_file_format(tmp_path):
    p = tmp_path / "k.txt"
    p.write_text(f"# comment\n\n{KEY} 10\n{'z' * 16}\n")
    keys = ApiKeys.from_file(p)
    assert len(keys) == 2
    found = keys.authenticate(KEY)
    assert found is not None and found.max_answers == 10
    assert keys.authenticate(KEY + "x") is None and keys.authenticate("") is None
    assert KEY not in repr(found) and found.digest != KEY.encode()
    p.write_text(f"{KEY}\n{KEY}\n")
    with pytest.raises(ValueError, match="same key twice"):
        ApiKeys.from_file(p)
    p.write_text(f"{KEY} -3\n")
    with pytest.raises(ValueError, match="MAX_ANSWERS"):
        ApiKeys.from_file(p)
    p.write_text("\n# nothing\n")
    with pytest.raises(ValueError, match="no API key"):
        ApiKeys.from_file(p)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-key-0000000000000"},
        {"Authorization": f"Basic {KEY}"},
        {"Authorization": "Bearer"},
        {"X-Api-Key": KEY},
    ],
)
def test_every_endpoint_but_health_needs_a_key(service, headers):
    client, served, _ = service
    body = {
        "inputs": [
            {"name": "input", "shape": [1, 3], "datatype": "FP64", "data": [1, 2, 3]}
        ]
    }
    for method, url in [
        ("GET", "/v2"),
        ("GET", "/v2/models/dpsvm"),
        ("GET", "/v2/models/dpsvm/budget"),
        ("POST", "/v2/models/dpsvm/infer"),
        ("GET", "/v2/models/nope/budget"),
    ]:
        r = client.request(method, url, headers=headers, json=body)
        assert r.status_code == 401, (url, r.text)
        assert r.headers["www-authenticate"] == "Bearer"
        assert "API key" in r.json()["error"]
    assert served.predictor.n_answers == 0
    assert client.get("/v2/health/live").status_code == 200


def _pip_served(X, y, mechanism):
    pip = PrivateInteractivePredictor(
        mechanism=mechanism,
        epsilon=2.0,
        delta=1e-6,
        n_queries=50,
        B_rule=3,
        regularization=0.05,
        classes=[-1, 1],
        random_state=0,
        on_vacuous="warn",  # tests the state machinery, not the utility
    ).fit(X, y)
    return ServedModel(
        name="dpsvm",
        predictor=pip,
        inputs=InputSpec(["a", "b"]),
        classes=[-1, 1],
        mechanism=mechanism,
        free=False,
        fingerprint="a" * 64,
    )


@pytest.mark.filterwarnings("ignore::dpsvm.prediction.VacuousCalibrationWarning")
@pytest.mark.parametrize("mechanism", ["pinp", "sparse-vector", "laplace"])
def test_real_predictor_state_survives_a_restart(tmp_path, mechanism):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(80, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    path = str(tmp_path / "l.db")
    keys = ApiKeys([(KEY, None)])

    def app_for():
        served = _pip_served(X, y, mechanism)
        p = served.predictor
        ledger = Ledger(
            path,
            fingerprint=served.fingerprint,
            model_name="dpsvm",
            mechanism=mechanism,
            epsilon_total=p.total_epsilon,
            delta_total=p.total_delta,
        )
        return served, create_app(served, ledger, keys)

    served, app = app_for()
    with TestClient(app) as client:
        for i in range(4):
            q = X[i : i + 3].ravel().tolist()
            body = {
                "inputs": [
                    {"name": "input", "shape": [3, 2], "datatype": "FP64", "data": q}
                ]
            }
            r = client.post("/v2/models/dpsvm/infer", json=body, headers=auth())
            assert r.status_code == 200, r.text
        state = served.predictor.state_dict()
        spent = client.get("/v2/models/dpsvm/budget", headers=auth()).json()
    assert spent["answers"] == 12 and spent["answers_remaining"] == 50 - 12
    assert math.isclose(spent["epsilon_spent"], served.predictor.spent_epsilon)
    served2, app2 = app_for()
    with TestClient(app2):
        assert served2.predictor.state_dict() == state


def test_serve_model_builds_a_free_released_model(tmp_path):
    from sklearn.datasets import make_classification

    from dpsvm.io import save_model
    from dpsvm.models import DPLinearSVC

    X, y = make_classification(
        n_samples=100, n_features=3, n_redundant=0, random_state=0
    )
    model = DPLinearSVC(epsilon=0.5, classes=[0, 1], random_state=0).fit(X, y)
    path = tmp_path / "m.json"
    save_model(model, path)
    served = _served_from_released(str(path))
    assert served.free and served.inputs.columns == ["x0", "x1", "x2"]
    assert served.predictor.total_epsilon == 0.5
    assert served.mechanism.startswith("released:")
    labels = served.predictor.answer(X[:4]).labels
    assert labels.tolist() == model.predict(X[:4]).tolist()


def test_serve_model_trained_with_a_schema_takes_raw_columns(tmp_path, capsys):
    import pandas as pd

    from dpsvm.io import load_model

    files = write_training_files(tmp_path, n=200)
    out = str(tmp_path / "m.json")
    assert (
        main(
            [
                "train",
                "--data",
                files["data"],
                "--schema",
                files["schema"],
                "--epsilon",
                "1",
                "--out",
                out,
            ]
        )
        == 0
    )
    served = _served_from_released(out)
    assert served.inputs.columns == ["age", "hours", "workclass"]
    assert served.inputs.categorical == [False, False, True]
    raw = np.array([[80.0, 60.0, "Private"], [20.0, 5.0, "State-gov"]], dtype=object)
    labels = served.predictor.answer(served.inputs.features(raw)).labels
    model = load_model(out)
    frame = pd.DataFrame(raw, columns=["age", "hours", "workclass"])
    from dpsvm.cli._reading import _schema_rows

    expected = model.predict(_schema_rows(model.public_schema_, frame))
    assert labels.tolist() == expected.tolist()


def _served_from_released(path):
    """``dpsvm serve --model PATH`` up to the served model (no HTTP)."""
    import argparse

    from dpsvm.cli._serve import _served_from_model

    args = argparse.Namespace(
        model=str(path),
        data=None,
        name="dpsvm",
        mechanism="pinp",
        kernel="rbf",
        gamma=1.0,
        regularization=0.01,
        max_queries=10,
    )
    return _served_from_model(args)


def test_unreachable_ledger_is_refused_without_its_password(tmp_path, capsys):
    files = write_training_files(tmp_path)
    url = f"sqlite:///{tmp_path}/no/such/dir/l.db"
    # --max-queries 100: the default 10⁴ Laplace answers on 120 rows are vacuous
    # (refused with exit 2 before the ledger is opened).
    few = ("--max-queries", "100")
    code = _serve(
        files, "--epsilon", "1", "--ledger", url, "--mechanism", "laplace", *few
    )
    err = capsys.readouterr().err
    assert code == 1 and "cannot use the database" in err
    code = _serve(
        files,
        *few,
        "--epsilon",
        "1",
        "--mechanism",
        "laplace",
        "--ledger",
        "postgresql+psycopg://u:s3cret-pw@127.0.0.1:1/db",
    )
    err = capsys.readouterr().err
    assert code == 1 and "cannot use the database" in err
    assert "s3cret-pw" not in err
