# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm train --schema: raw CSV (text categories, string labels) in, model out."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from dpsvm.io import load_model
from dpsvm.preprocessing import PublicSchema

SCHEMA = {
    "label": {"column": "income", "classes": ["<=50K", ">50K"]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {"column": "job", "type": "categorical", "categories": ["a", "b", "c"]},
    ],
}


def _frame(n: int, seed: int) -> pd.DataFrame:
    # Seeded synthetic table: the label depends on age and job.
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    job = rng.choice(["a", "b", "c", "unlisted"], n)
    high = (age > 50) | (job == "c")
    return pd.DataFrame(
        {
            "id": np.arange(n),  # not in the schema: ignored
            "job": job,
            "age": age,
            "income": np.where(high, ">50K", "<=50K"),
        }
    )


@pytest.fixture
def setup(run, tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    _frame(2000, 0).to_csv(train, index=False)
    _frame(600, 1)[["income", "age", "job", "id"]].to_csv(test, index=False)
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(train), "--schema", str(schema), "--epsilon", "10",
        "--fit-intercept", "--out", str(model), "--report", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert code == 0, err
    assert err == ""  # public classes and bounds: nothing to warn about
    return tmp_path, model, test


def test_model_carries_the_schema(setup):
    tmp_path, model, _ = setup
    clf = load_model(model)
    assert clf.public_schema_ == PublicSchema.from_dict(SCHEMA)
    assert clf.classes_.tolist() == ["<=50K", ">50K"]
    assert clf.feature_names_in_.tolist() == ["age", "job_a", "job_b", "job_c"]
    # data_norm from the schema: sqrt(1 numeric + 1 categorical).
    assert clf.data_norm == pytest.approx(math.sqrt(2))
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["schema"] == PublicSchema.from_dict(SCHEMA).to_dict()
    assert report["label_set_public"] is True


def test_predict_and_evaluate_need_only_model_and_data(run, setup):
    tmp_path, model, test = setup
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(test))
    assert code == 0, err
    accuracy = float(re.match(r"accuracy: (\S+)", stdout).group(1))
    assert accuracy > 0.8
    pred = tmp_path / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(test), "--out", str(pred)
    )
    assert code == 0, err
    labels = pred.read_text().splitlines()
    assert set(labels) <= {"<=50K", ">50K"} and len(labels) == 600


def test_labels_outside_the_schema_are_refused_without_quoting(run, setup):
    tmp_path, model, _ = setup
    bad = _frame(50, 2)
    bad.loc[3, "income"] = "secret-label"
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(path))
    assert code == 1 and stdout == ""
    assert "'income'" in err and "secret" not in err


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (("--classes", "0,1"), "--classes does not apply with --schema"),
        (("--label-column", "age"), "--label-column does not apply"),
        (("--no-header",), "--no-header does not apply"),
    ],
)
def test_options_the_schema_replaces_are_refused(run, setup, extra, match):
    tmp_path, _, test = setup
    code, _, err = run(
        "train", "--data", str(test), "--schema", str(tmp_path / "schema.json"),
        *extra, "--out", str(tmp_path / "x.json"),
    )  # fmt: skip
    assert code == 2 and match in err
    assert not (tmp_path / "x.json").exists()


def test_bad_schema_and_missing_columns(run, setup):
    tmp_path, _, test = setup
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**SCHEMA, "features": []}))
    code, _, err = run("train", "--data", str(test), "--schema", str(bad),
                       "--out", str(tmp_path / "x.json"))  # fmt: skip
    assert code == 1 and "schema: features: must declare at least one" in err
    nolabel = tmp_path / "nolabel.csv"
    _frame(20, 3).drop(columns="income").to_csv(nolabel, index=False)
    code, _, err = run("train", "--data", str(nolabel), "--schema",
                       str(tmp_path / "schema.json"), "--out", "x.json")  # fmt: skip
    assert code == 1 and "no label column 'income'" in err


def test_tampered_schema_in_model_file_is_refused(setup):
    _, model, _ = setup
    doc = json.loads(model.read_text())
    doc["schema"]["features"][1]["categories"].append("d")
    model.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="schema's encoded feature names"):
        load_model(model)


def test_categories_are_read_as_text_not_inferred(run, tmp_path):
    # pyarrow would infer booleans, dates and integers: with a schema, every
    # non-numeric column is text, so the declared categories match as written.
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "label": {"column": "y", "classes": [-1, 1]},
                "features": [
                    {"column": "flag", "type": "categorical",
                     "categories": ["TRUE", "FALSE"]},
                    {"column": "day", "type": "categorical",
                     "categories": ["2020-01-01", "2020-01-02"]},
                ],
            }
        )
    )  # fmt: skip
    data = tmp_path / "d.csv"
    rows = ["flag,day,y"] + [
        f"{'TRUE' if i % 2 else 'FALSE'},2020-01-0{1 + i % 2},{1 if i % 2 else -1}"
        for i in range(200)
    ]
    data.write_text("\n".join(rows) + "\n")
    model = tmp_path / "m.json"
    code, _, err = run("train", "--data", str(data), "--schema", str(schema),
                       "--epsilon", "50", "--fit-intercept", "--random-state", "0",
                       "--out", str(model))  # fmt: skip
    assert code == 0, err
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(data))
    assert code == 0, err
    assert float(stdout.split()[1]) == 1.0  # all-zero encodings could not do this
