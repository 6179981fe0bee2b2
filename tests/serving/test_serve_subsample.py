# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm serve`` refuses vacuous mechanisms; subsample-aggregate served."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import KEY, auth, write_training_files
from fastapi.testclient import TestClient

from dpsvm.cli import main
from dpsvm.prediction import SubsampleAggregatePredictor
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
    ("mechanism", "fragment"),
    [
        ("pinp", "training rows"),
        ("subsample-aggregate", "training rows (n_teachers >= "),
    ],
)
def test_vacuous_mechanism_refuses_to_start(tmp_path, capsys, mechanism, fragment):
    files = write_training_files(tmp_path)
    ledger = tmp_path / "ledger.db"
    code = _serve(
        files,
        *("--epsilon", "1", "--delta", "1e-6", "--ledger", str(ledger)),
        *("--mechanism", mechanism),
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dpsvm: error: ") and err.count("\n") == 1
    assert "vacuous" in err and fragment in err and "Traceback" not in err
    assert not ledger.exists()  # refused before anything was served


def test_delta_at_least_one_over_n_refuses_to_start(tmp_path, capsys):
    # Regression (fails before the fix): --delta 0.5 was accepted.
    files = write_training_files(tmp_path)
    ledger = tmp_path / "ledger.db"
    code = _serve(
        files,
        *("--epsilon", "1", "--delta", "0.5", "--ledger", str(ledger)),
        *("--mechanism", "subsample-aggregate"),
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dpsvm: error: ") and err.count("\n") == 1
    assert "below 1/" in err and "Traceback" not in err
    assert not ledger.exists()


def test_teachers_only_with_subsample_aggregate(tmp_path, capsys):
    files = write_training_files(tmp_path)
    extra = ("--epsilon", "1", "--delta", "1e-6", "--ledger", str(tmp_path / "x.db"))
    assert _serve(files, *extra, "--teachers", "8") == 2
    assert "--teachers applies to --mechanism subsample-aggregate" in (
        capsys.readouterr().err
    )


def test_subsample_aggregate_is_served_and_resumes(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    path = str(tmp_path / "l.db")

    def app_for():
        p = SubsampleAggregatePredictor(
            epsilon=2.0, n_queries=50, classes=[-1, 1], random_state=0
        ).fit(X, y)
        served = ServedModel(
            name="dpsvm",
            predictor=p,
            inputs=InputSpec(["a", "b"]),
            classes=[-1, 1],
            mechanism="subsample-aggregate",
            free=False,
            fingerprint="b" * 64,
        )
        ledger = Ledger(
            path,
            fingerprint=served.fingerprint,
            model_name="dpsvm",
            mechanism="subsample-aggregate",
            epsilon_total=p.total_epsilon,
            delta_total=p.total_delta,
        )
        return served, create_app(served, ledger, ApiKeys([(KEY, None)]))

    served, app = app_for()
    p = served.predictor
    with TestClient(app) as client:
        for q in ([0.4, 0.1], [-0.3, 0.2]):
            body = {
                "inputs": [
                    {"name": "input", "shape": [1, 2], "datatype": "FP64", "data": q}
                ]
            }
            r = client.post("/v2/models/dpsvm/infer", json=body, headers=auth())
            assert r.status_code == 200, r.text
            assert r.json()["outputs"][0]["data"] == [1 if q[0] > 0 else -1]
        budget = client.get("/v2/models/dpsvm/budget", headers=auth()).json()
        state = p.state_dict()
    # The guaranteed reach, not n_queries − answers.
    assert budget["answers_remaining"] == p.answers_remaining
    assert budget["answers_remaining"] == min(50 - 2, p.max_charged_ - p.n_charged)
    assert budget["epsilon_spent"] == pytest.approx(p.spent_epsilon)
    assert budget["delta_spent"] == pytest.approx(p.spent_delta)
    # The whole (ε, δ) from the first answer, as the predictor charges it.
    assert (budget["epsilon_spent"], budget["delta_spent"]) == pytest.approx(
        (p.total_epsilon, p.total_delta)
    )
    served2, app2 = app_for()
    with TestClient(app2):
        assert served2.predictor.state_dict() == state


def test_start_fits_subsample_aggregate_with_teachers(tmp_path):
    from dpsvm.cli._main import build_parser
    from dpsvm.cli._serve import MECHANISMS, _fingerprinter
    from dpsvm.preprocessing import PublicSchema

    files = write_training_files(tmp_path, n=2000, seed=1)

    def start(teachers: str):
        args = build_parser().parse_args(
            [
                "serve",
                *("--data", files["data"], "--schema", files["schema"]),
                *("--api-key-file", files["keys"], "--ledger", str(tmp_path / "l.db")),
                *("--epsilon", "2", "--delta", "1e-6", "--max-queries", "100"),
                *("--mechanism", "subsample-aggregate", "--teachers", teachers),
            ]
        )
        schema_json = PublicSchema.from_json(args.schema).to_json()
        fingerprint = _fingerprinter(args, schema_json)
        served, ledger = MECHANISMS[args.mechanism].start(args, fingerprint)
        ledger.dispose()
        return served

    served = start("100")
    predictor, details = served.predictor, served.details
    assert isinstance(predictor, SubsampleAggregatePredictor)
    assert predictor.n_teachers_ == details["n_teachers"] == 100
    assert details["teachers"] == 100
    assert details["answers_guaranteed"] == predictor.answers_guaranteed_ >= 1
    assert predictor.total_delta == 1e-6 and predictor.n_queries == 100
    # The number of teachers is part of the ledger's fingerprint.
    other = start("90")
    assert other.fingerprint != served.fingerprint
