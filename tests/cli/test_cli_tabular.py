# SPDX-License-Identifier: BSD-3-Clause
"""Real tabular files: ``--delimiter``, ``--names`` for header-less files,
``dpsvm schema draft``, and extra columns at ``predict`` with a schema."""

from __future__ import annotations

import json

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
NAMES = "age,job,income"


def _frame(n: int, seed: int) -> pd.DataFrame:
    # Seeded synthetic table: the label depends on age and job.
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    job = rng.choice(["a", "b", "c"], n)
    high = (age > 50) | (job == "c")
    return pd.DataFrame(
        {"age": age, "job": job, "income": np.where(high, ">50K", "<=50K")}
    )


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    comma, semi = tmp_path / "comma.csv", tmp_path / "semi.csv"
    bare, tab = tmp_path / "bare.csv", tmp_path / "tab.tsv"
    frame = _frame(1200, 0)
    frame.to_csv(comma, index=False)
    frame.to_csv(semi, index=False, sep=";")
    frame.to_csv(bare, index=False, header=False)
    frame.to_csv(tab, index=False, header=False, sep="\t")
    return {"dir": tmp_path, "schema": schema, "comma": comma, "semi": semi,
            "bare": bare, "tab": tab}  # fmt: skip


def _train(run, files, data, *extra, name="m.json"):
    model = files["dir"] / name
    code, _, err = run(
        "train", "--data", str(data), "--schema", str(files["schema"]),
        "--epsilon", "10", "--random-state", "0", "--out", str(model), *extra,
    )  # fmt: skip
    return code, err, model


def _evaluate(run, model, data, *extra):
    code, out, err = run(
        "evaluate", "--model", str(model), "--data", str(data), "--json", *extra
    )
    assert code == 0, err
    return json.loads(out)


# -------------------------------------------------------------- --delimiter
def test_a_semicolon_file_needs_and_takes_delimiter(run, files):
    # Formerly the only way was to rewrite the file ("no label column 'income'").
    code, err, model = _train(run, files, files["semi"])
    assert code == 1 and "reads as one column" in err and "--delimiter" in err
    assert not model.exists()
    code, err, model = _train(run, files, files["semi"], "--delimiter", ";")
    assert code == 0, err
    code, err, reference = _train(run, files, files["comma"], name="ref.json")
    assert code == 0, err
    # Same rows, same seed: the same model, whichever separator the file uses.
    a, b = load_model(model), load_model(reference)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert _evaluate(run, model, files["semi"], "--delimiter", ";") == _evaluate(
        run, model, files["comma"]
    )


def test_sweep_and_predict_take_delimiter(run, files):
    table = files["dir"] / "t.csv"
    code, _, err = run(
        "sweep", "--data", str(files["semi"]), "--delimiter", "semicolon",
        "--schema", str(files["schema"]), "--epsilons", "5", "--seeds", "1",
        "--random-state", "0", "--out-csv", str(table),
    )  # fmt: skip
    assert code == 0, err
    assert pd.read_csv(table)["balanced_accuracy_mean"].iloc[0] > 0.6
    code, err, model = _train(run, files, files["comma"])
    outputs = []
    for data, extra in ((files["comma"], ()), (files["semi"], ("--delimiter", ";"))):
        out = files["dir"] / f"p-{data.stem}.csv"
        code, _, err = run(
            "predict", "--model", str(model), "--data", str(data), "--out", str(out),
            *extra,
        )  # fmt: skip
        assert code == 0, err
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]


def test_delimiter_for_numeric_csv_and_its_refusals(run, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    data = tmp_path / "d.txt"
    lines = ["a|b|y"] + [f"{u:.4f}|{v:.4f}|{t}" for (u, v), t in zip(X, y, strict=True)]
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(data), "--delimiter", "pipe", "--classes", "-1,1",
        "--epsilon", "5", "--random-state", "0", "--out", str(model),
    )  # fmt: skip
    assert code == 0, err
    assert load_model(model).feature_names_in_.tolist() == ["a", "b"]
    for bad, needle in (
        (("--delimiter", ";;"), "--delimiter takes one character"),
        (("--delimiter", "\n"), "--delimiter takes one character"),
    ):
        code, _, err = run("evaluate", "--model", str(model), "--data", str(data), *bad)
        assert code == 2 and needle in err
    code, _, err = run(
        "evaluate", "--model", str(model), "--dataset", "breast-cancer",
        "--delimiter", ";",
    )  # fmt: skip
    assert code == 2 and "--delimiter applies to --data CSV files only" in err


# ------------------------------------------------------------------ --names
def test_names_let_a_schema_read_a_headerless_file(run, files):
    code, err, model = _train(run, files, files["bare"], "--names", NAMES)
    assert code == 0, err
    code, err, reference = _train(run, files, files["comma"], name="ref.json")
    np.testing.assert_array_equal(load_model(model).coef_, load_model(reference).coef_)
    # predict and evaluate of a schema model read header-less files too, with
    # any separator; the first row is data (1,200 rows, not 1,199).
    expected = _evaluate(run, model, files["comma"])
    assert expected["n"] == 1200
    assert _evaluate(run, model, files["bare"], "--names", NAMES) == expected
    got = _evaluate(run, model, files["tab"], "--names", NAMES, "--delimiter", "tab")
    assert got == expected
    out = files["dir"] / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(files["bare"]),
        "--names", NAMES, "--no-header", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 1200


def test_names_refusals(run, files):
    code, err, model = _train(run, files, files["bare"], "--names", "age,job")
    assert code == 1 and "--names gives 2 column names but the file has 3" in err
    assert not model.exists()
    code, err, _ = _train(run, files, files["bare"], "--names", "age,job,age")
    assert code == 2 and "--names repeats 'age'" in err
    code, err, _ = _train(run, files, files["bare"], "--names", "age,,income")
    assert code == 2 and "none empty" in err
    code, err, _ = _train(run, files, files["bare"], "--names", NAMES, "--header")
    assert code == 2 and "leave out --header" in err
    # Without --names a schema still needs the header row.
    code, err, _ = _train(run, files, files["bare"], "--no-header")
    assert code == 2 and "--names" in err


def test_names_without_a_schema_name_the_model_columns(run, tmp_path):
    rng = np.random.default_rng(2)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = np.where(X[:, 1] > 0, 1, -1)
    data = tmp_path / "bare.csv"
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y}).to_csv(
        data, index=False, header=False
    )
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(data), "--names", "a,b,y", "--label-column", "y",
        "--classes", "-1,1", "--epsilon", "5", "--random-state", "0",
        "--out", str(model),
    )  # fmt: skip
    assert code == 0, err
    assert load_model(model).feature_names_in_.tolist() == ["a", "b"]
    # Columns are matched by name: the names may come in another order.
    code, out, err = run(
        "evaluate", "--model", str(model), "--data", str(data),
        "--names", "a,b,y", "--label-column", "y", "--metrics", "accuracy",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("accuracy: ")


# ------------------------------------------------------------- schema draft
def test_schema_draft_writes_a_schema_to_review_and_warns(run, files):
    target = files["dir"] / "draft.json"
    code, out, err = run(
        "schema", "draft", str(files["semi"]), "--delimiter", ";", "--label",
        "income", "--out", str(target),
    )  # fmt: skip
    assert code == 0, err
    assert "warning: draft_schema reads the private data" in err
    assert "DRAFT" in out and "review" in out
    draft = PublicSchema.from_json(target)  # a valid schema file
    assert draft.label.column == "income"
    assert list(draft.classes) == ["<=50K", ">50K"]
    age = next(f for f in draft.features if f.column == "age")
    frame = _frame(1200, 0)
    assert (age.lower, age.upper) == (frame["age"].min(), frame["age"].max())
    # The draft trains (the user would review it first).
    code, err, _ = _train(run, {**files, "schema": target}, files["comma"])
    assert code == 0, err


def test_schema_draft_never_clobbers_without_force(run, files):
    target = files["dir"] / "reviewed.json"
    target.write_text("reviewed by hand\n")
    argv = ["schema", "draft", str(files["comma"]), "--label", "income", "--out",
            str(target)]  # fmt: skip
    code, out, err = run(*argv)
    assert code == 2 and "exists" in err and "--force" in err and out == ""
    assert target.read_text() == "reviewed by hand\n"
    code, _, err = run(*argv, "--force")
    assert code == 0, err
    assert PublicSchema.from_json(target).label.column == "income"


def test_schema_draft_refusals_write_nothing(run, files):
    target = files["dir"] / "draft.json"
    code, _, err = run(
        "schema", "draft", str(files["comma"]), "--label", "salary", "--out",
        str(target),
    )  # fmt: skip
    assert code == 1 and "no column 'salary'" in err and not target.exists()
    ids = files["dir"] / "ids.csv"
    _frame(300, 4).assign(name=[f"person {i}" for i in range(300)]).to_csv(
        ids, index=False
    )
    code, _, err = run(
        "schema", "draft", str(ids), "--label", "income", "--out", str(target)
    )
    assert code == 1 and "'name'" in err and "person" not in err
    assert not target.exists()
    code, _, err = run(
        "schema", "draft", str(files["bare"]), "--names", NAMES, "--label", "income",
        "--out", str(target),
    )  # fmt: skip
    assert code == 0, err  # header-less input named by --names


# ------------------------------------------------ extra columns at predict
def test_with_a_schema_extra_columns_are_ignored_as_documented(run, files):
    # The README's choice: with a schema, columns the schema does not name are
    # ignored at predict and evaluate, as at train; a missing one is refused.
    code, err, model = _train(run, files, files["comma"])
    assert code == 0, err
    extra = files["dir"] / "extra.csv"
    _frame(1200, 0).assign(id=np.arange(1200), note="x").to_csv(extra, index=False)
    outputs = []
    for data in (files["comma"], extra):
        out = files["dir"] / f"p-{data.stem}.csv"
        code, _, err = run(
            "predict", "--model", str(model), "--data", str(data), "--out", str(out)
        )
        assert code == 0 and err == "", err
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    missing = files["dir"] / "missing.csv"
    _frame(50, 0).drop(columns="job").to_csv(missing, index=False)
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(missing), "--out",
        str(files["dir"] / "p.csv"),
    )  # fmt: skip
    assert code == 1 and "job" in err
    assert not (files["dir"] / "p.csv").exists()
