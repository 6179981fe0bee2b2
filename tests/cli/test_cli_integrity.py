# SPDX-License-Identifier: BSD-3-Clause
"""Regression tests: the CLI's inputs give no silent wrong answer (issue 10).

Each test reproduces a defect of the former CLI: a LibSVM width read from the
private file, pandas' index column trained on as a feature, columns matched by
position, a numeric header read as data, an accuracy over unknown labels.
"""

from __future__ import annotations

import gzip
import io
import re
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file

from dpsvm.io import load_model


def _problem(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    # Seeded synthetic data: rows in [-0.5, 0.5]^3, labels by a hyperplane.
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    score = X @ np.array([1.0, -0.5, 0.25])
    keep = np.abs(score) > 0.05
    return X[keep], np.where(score[keep] > 0, 1, -1)


def _frame(X: np.ndarray, y: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "label": y})


TRAIN = ("--epsilon", "20", "--classes", "-1,1", "--random-state", "0")


def _accuracy(stdout: str) -> float:
    m = re.match(r"accuracy: (\d\.\d+)", stdout)
    assert m, stdout
    return float(m.group(1))


@pytest.fixture
def trained(run, tmp_path):
    """A model trained on a CSV with the header a,b,c,label; and test data."""
    X, y = _problem(1500, seed=0)
    train = tmp_path / "train.csv"
    _frame(X[:1000], y[:1000]).to_csv(train, index=False)
    model = tmp_path / "m.json"
    code, _, err = run("train", "--data", str(train), *TRAIN, "--out", str(model))
    assert code == 0, err
    return model, X[1000:], y[1000:]


# ------------------------------------------------- item 2: LibSVM width
def test_libsvm_width_is_public_and_never_read_from_the_file(run, tmp_path):
    X, y = _problem(200, seed=1)
    path = tmp_path / "d.libsvm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    with open(path, "a") as f:
        f.write("1 57:0.5\n")  # one record with a far index
    out = tmp_path / "m.json"
    # Without --n-features the command refuses (formerly: width 57 released).
    code, _, err = run("train", "--data", str(path), *TRAIN, "--out", str(out))
    assert code == 2 and "--n-features" in err
    code, _, err = run(
        "train", "--data", str(path), *TRAIN, "--n-features", "3", "--out", str(out)
    )
    assert code == 1
    assert "a feature index is larger than --n-features 3" in err
    # The private index is not quoted (the temporary path may contain "57":
    # pytest numbers its directories, so look only at the message after it).
    assert "57" not in err.replace(str(path), "<path>")
    assert not out.exists()
    # Within the public width the file trains, at that width.
    path.write_text(path.read_text().replace("1 57:0.5\n", "1 3:0.5\n"))
    code, _, err = run(
        "train", "--data", str(path), *TRAIN, "--n-features", "5", "--out", str(out)
    )
    assert code == 0, err
    assert load_model(out).n_features_in_ == 5


def test_n_features_applies_to_libsvm_only(run, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,label\n0.1,1\n-0.1,-1\n")
    code, _, err = run(
        "train", "--data", str(data), "--n-features", "3", "--out", "m.json"
    )
    assert code == 2 and "--n-features applies to --format libsvm" in err


# ------------------------------------------- item 7a: pandas index column
@pytest.mark.parametrize("index_label", [None, "Unnamed: 0"])
def test_pandas_index_column_is_refused(run, tmp_path, index_label):
    X, y = _problem(600, seed=2)
    data = tmp_path / "d.csv"
    # pandas' default to_csv writes the row index as an unnamed first column.
    frame = _frame(X, y)
    if index_label is None:
        frame.to_csv(data)
    else:  # read back and written again: the column is called "Unnamed: 0"
        frame.to_csv(data)
        pd.read_csv(data).to_csv(data, index=False)
    out = tmp_path / "m.json"
    code, _, err = run("train", "--data", str(data), *TRAIN, "--out", str(out))
    assert code == 1
    assert "first column has no name" in err and "index=False" in err
    assert not out.exists()


# ---------------------------------------- item 7b: columns matched by name
def test_columns_are_matched_by_name(run, tmp_path, trained):
    model, X, y = trained
    ordered, shuffled = tmp_path / "ordered.csv", tmp_path / "shuffled.csv"
    _frame(X, y).to_csv(ordered, index=False)
    _frame(X, y)[["label", "c", "a", "b"]].to_csv(shuffled, index=False)
    assert load_model(model).feature_names_in_.tolist() == ["a", "b", "c"]
    results = []
    for path in (ordered, shuffled):
        code, stdout, err = run(
            "evaluate", "--model", str(model), "--data", str(path),
            "--label-column", "label",
        )  # fmt: skip
        assert code == 0, err
        results.append(_accuracy(stdout))
    # Formerly the shuffled file was read by position (accuracy near chance).
    assert results[0] == results[1] > 0.85
    preds = []
    for path in (ordered, shuffled):
        out = tmp_path / f"p-{path.stem}.csv"
        code, _, err = run(
            "predict", "--model", str(model), "--data", str(path),
            "--label-column", "label", "--out", str(out),
        )  # fmt: skip
        assert code == 0, err
        preds.append(out.read_text())
    assert preds[0] == preds[1]


def test_missing_and_extra_columns_are_refused(run, tmp_path, trained):
    model, X, y = trained
    missing, extra = tmp_path / "missing.csv", tmp_path / "extra.csv"
    _frame(X, y).drop(columns="b").to_csv(missing, index=False)
    _frame(X, y).assign(d=1.0).to_csv(extra, index=False)
    code, _, err = run(
        "evaluate", "--model", str(model), "--data", str(missing),
        "--label-column", "label",
    )  # fmt: skip
    assert code == 1 and "missing column(s) 'b'" in err
    code, _, err = run(
        "evaluate", "--model", str(model), "--data", str(extra),
        "--label-column", "label",
    )  # fmt: skip
    assert code == 1 and "1 column(s) the model was not trained on" in err
    assert "'d'" not in err  # the file's header cells are never quoted
    headerless = tmp_path / "headerless.csv"
    _frame(X, y).to_csv(headerless, index=False, header=False)
    code, _, err = run(
        "evaluate", "--model", str(model), "--data", str(headerless), "--no-header"
    )
    assert code == 1 and "trained on named columns" in err


# ------------------------------------------ item 7c: a header of numbers
def test_numeric_header_is_never_read_as_data(run, tmp_path):
    X, y = _problem(300, seed=3)
    data = tmp_path / "d.csv"
    # A frame with integer column names: pandas writes the header "0,1,2,3".
    pd.DataFrame(np.column_stack([X, y])).to_csv(data, index=False)
    assert data.read_text().startswith("0,1,2,3\n")
    out = tmp_path / "m.json"
    code, _, err = run("train", "--data", str(data), *TRAIN, "--out", str(out))
    assert code == 1 and "--no-header" in err and "--header" in err
    assert not out.exists()
    code, stdout, err = run(
        "train", "--data", str(data), *TRAIN, "--header", "--out", str(out)
    )
    assert code == 0, err
    assert f"on {len(y)} rows" in stdout  # formerly one row more: the header
    assert load_model(out).feature_names_in_.tolist() == ["0", "1", "2"]


# ----------------------------------- item 7d: labels outside the classes
def test_evaluate_refuses_labels_outside_the_models_classes(run, tmp_path, trained):
    model, X, y = trained
    data = tmp_path / "t.csv"
    _frame(X, np.where(y > 0, 1, 0)).to_csv(data, index=False)  # 0/1, not -1/1
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(data))
    assert code == 1 and stdout == ""  # formerly: an accuracy was printed
    assert "not among the model's classes -1, 1" in err


# ------------------------------------------------------- gzip and stdin
def test_gzip_file_and_stdin(run, tmp_path, monkeypatch, trained):
    model, X, y = trained
    text = _frame(X, y).to_csv(index=False).encode()
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(text))
    plain = tmp_path / "t.csv"
    plain.write_bytes(text)
    code, expected, err = run("evaluate", "--model", str(model), "--data", str(plain))
    assert code == 0, err
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(gz))
    assert code == 0, err
    assert stdout == expected
    for payload in (text, gzip.compress(text)):
        stdin = io.TextIOWrapper(io.BytesIO(payload))
        monkeypatch.setattr(sys, "stdin", stdin)
        code, stdout, err = run("evaluate", "--model", str(model), "--data", "-")
        assert code == 0, err
        assert stdout == expected
