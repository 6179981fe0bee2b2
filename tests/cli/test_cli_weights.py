# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm train --class-weight / --weight-column / --max-weight (public weights)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsvm.io import load_model

SCHEMA = {
    "label": {"column": "y", "classes": ["no", "yes"], "priors": [0.9, 0.1]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 0, "upper": 100},
        {"column": "job", "type": "categorical", "categories": ["a", "b"]},
    ],
}


def _frame(n=600, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.uniform(0, 100, n)
    yes = (age > 80) & (rng.random(n) < 0.6)
    return pd.DataFrame(
        {
            "age": age,
            "job": rng.choice(["a", "b"], n),
            "w": rng.uniform(0.0, 3.0, n),
            "y": np.where(yes, "yes", "no"),
        }
    )


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    data = tmp_path / "train.csv"
    _frame().to_csv(data, index=False)
    return tmp_path, schema, data


def _train(run, tmp_path, *extra):
    out, report = tmp_path / "m.json", tmp_path / "r.json"
    code, stdout, err = run(
        "train", *extra, "--epsilon", "2", "--random-state", "0", "--quiet",
        "--out", str(out), "--report", str(report),
    )  # fmt: skip
    return code, stdout, err, out, report


def test_balanced_uses_the_schema_priors(run, files):
    tmp_path, schema, data = files
    code, stdout, err, out, report = _train(
        run, tmp_path, "--data", str(data), "--schema", str(schema),
        "--class-weight", "balanced",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(report.read_text())["weights"]
    assert doc["class_weight"] == pytest.approx({"no": 1 / 1.8, "yes": 5.0})
    assert doc["weight_bound"] == pytest.approx(5.0)
    assert "W = 5" in stdout
    model = load_model(out)
    assert model.privacy_event_.details["weight_bound"] == pytest.approx(5.0)


def test_weight_column_of_the_schema_with_its_bound(run, files):
    tmp_path, _, data = files
    schema = tmp_path / "schema_w.json"
    schema.write_text(json.dumps({**SCHEMA, "weight": {"column": "w", "upper": 2}}))
    code, _, err, out, report = _train(
        run, tmp_path, "--data", str(data), "--schema", str(schema),
        "--class-weight", "no=1,yes=4",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(report.read_text())["weights"]
    assert doc["weight_column"] == "w" and doc["max_weight"] == 2.0
    assert doc["weight_bound"] == 8.0
    assert list(load_model(out).feature_names_in_) == ["age", "job_a", "job_b"]


def test_weight_column_without_schema(run, tmp_path):
    frame = _frame()
    frame["y"] = np.where(frame["y"] == "yes", 1, 0)
    frame["job"] = (frame["job"] == "a").astype(float)
    frame["age"] /= 100.0
    data = tmp_path / "train.csv"
    frame.to_csv(data, index=False)
    code, _, err, out, _ = _train(
        run, tmp_path, "--data", str(data), "--label-column", "y",
        "--classes", "0,1", "--weight-column", "w", "--max-weight", "1.5",
    )  # fmt: skip
    assert code == 0, err
    model = load_model(out)
    assert list(model.feature_names_in_) == ["age", "job"]  # w is no feature
    assert model.privacy_event_.details["weight_bound"] == 1.5


@pytest.mark.parametrize(
    "extra, match",
    [
        (("--class-weight", "balanced"), "label.priors"),
        (("--class-weight", "no=1,maybe=2"), "'maybe' is not a class"),
        (("--class-weight", "no=-1"), "must be a number >= 0"),
        (("--class-weight", "no"), "is not class=weight"),
        (("--weight-column", "w"), "needs --max-weight"),
        (("--max-weight", "2"), "--max-weight applies with --weight-column"),
        (("--weight-column", "nope", "--max-weight", "2"), "no weight column"),
    ],
)
def test_bad_weight_options_fail_cleanly(run, files, extra, match):
    tmp_path, _, data = files
    doc = dict(SCHEMA)
    if extra[:2] == ("--class-weight", "balanced"):
        doc = {**SCHEMA, "label": {"column": "y", "classes": ["no", "yes"]}}
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(doc))
    code, _, err, out, _ = _train(
        run, tmp_path, "--data", str(data), "--schema", str(plain), *extra
    )
    assert code != 0 and match in err and "Traceback" not in err
    assert not out.exists()


def test_negative_class_labels_in_class_weight(run, tmp_path):
    frame = _frame()
    out = pd.DataFrame(
        {"age": frame["age"] / 100.0, "y": np.where(frame["y"] == "yes", 1, -1)}
    )
    data = tmp_path / "train.csv"
    out.to_csv(data, index=False)
    code, _, err, model, report = _train(
        run, tmp_path, "--data", str(data), "--classes", "-1,1",
        "--class-weight", "-1=0.5,1=4",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(report.read_text())["weights"]["class_weight"] == {
        "-1": 0.5,
        "1": 4.0,
    }
    assert load_model(model).privacy_event_.details["weight_bound"] == 4.0


def test_sweep_says_it_does_not_use_the_weight_column(run, files):
    tmp_path, _, data = files
    schema = tmp_path / "schema_w.json"
    schema.write_text(json.dumps({**SCHEMA, "weight": {"column": "w", "upper": 2}}))
    code, _, err = run(
        "sweep", "--data", str(data), "--schema", str(schema), "--epsilons", "1",
        "--seeds", "1", "--random-state", "0", "--quiet",
        "--out-csv", str(tmp_path / "s.csv"),
    )  # fmt: skip
    assert code == 0, err
    assert "sweep fits unweighted models" in err
