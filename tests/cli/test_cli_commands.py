# SPDX-License-Identifier: BSD-3-Clause
"""The dpsvm command: demo, train -> predict -> evaluate, reports, entry points."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import dump_svmlight_file

from dpsvm import __version__
from dpsvm.io import load_model
from dpsvm.models import DPLinearSVC


def _separable(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    # Rows in [-0.5, 0.5]^3 (norm <= 0.87 < 1), labelled by a hyperplane with margin.
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    score = X @ np.array([1.0, -0.5, 0.25])
    keep = np.abs(score) > 0.05
    return X[keep], np.where(score[keep] > 0, 1, -1)


def _write_csv(path: Path, X, y, header: list[str] | None = None) -> Path:
    if header is None:  # a header row, as pandas and spreadsheets write one
        header = [*"abcdefghij"[: np.shape(X)[1]], "label"]
    lines = [",".join(header)]
    lines += [
        ",".join([*(repr(float(v)) for v in row), str(lab)])
        for row, lab in zip(X, y, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def dirs(tmp_path):
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    out.mkdir()
    return inp, out


# --------------------------------------------------------------------- demo
def test_demo_prints_accuracies_and_privacy(run):
    code, out, err = run(
        "demo", "--random-state", "0", "--draws", "3", "--epsilon", "1"
    )
    assert code == 0, err
    assert err == ""
    m = re.search(r"^ +1 +(\S+) +(\d\.\d{3}) ± (\d\.\d{3}) +(\d\.\d{3})$", out, re.M)
    assert m, out
    lam, mean, noiseless = float(m.group(1)), float(m.group(2)), float(m.group(4))
    line = next(ln for ln in out.splitlines() if "scikit-learn LinearSVC" in ln)
    assert 0.5 < float(line.split()[-1]) <= 1.0
    assert "majority class of the training labels" in out
    assert "mechanism objective-perturbation" in out
    assert "Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011)" in out
    # Three ε = 1 releases compose (basic composition) to ε = 3.
    assert "all 3 models together: ε = 3, δ = 0" in out
    # The demo states the defaults it uses, not a hand-picked Λ without intercept.
    assert "intercept on" in out and 'regularization="auto"' in out
    assert "no intercept" not in out

    # The table reports what the estimator gives with its DEFAULTS and the same
    # seeds, draw i seeded with 0 + i (regularization="auto", fit_intercept=True).
    from dpsvm.datasets import load_breast_cancer
    from dpsvm.models import NonPrivateLinearClassifier

    data = load_breast_cancer()
    models = [
        DPLinearSVC(data_norm=1.0, classes=[-1, 1], random_state=draw).fit(
            data.X_train, data.y_train
        )
        for draw in range(3)
    ]
    assert all(m.get_params()["regularization"] == "auto" for m in models)
    assert all(m.get_params()["fit_intercept"] is True for m in models)
    accs = [m.score(data.X_test, data.y_test) for m in models]
    assert mean == pytest.approx(np.mean(accs), abs=5e-4)
    assert lam == pytest.approx(models[0].regularization_, rel=1e-2)
    ref = NonPrivateLinearClassifier(
        loss="huber", regularization=models[0].regularization_, data_norm=1.0,
        fit_intercept=True, classes=[-1, 1],
    ).fit(data.X_train, data.y_train)  # fmt: skip
    assert noiseless == pytest.approx(ref.score(data.X_test, data.y_test), abs=5e-4)


def test_demo_default_runs_every_default_epsilon_and_warns_at_the_majority(run):
    from dpsvm.cli._demo import DEMO_EPSILONS

    code, out, err = run("demo", "--draws", "2")
    assert code == 0, err
    for eps in DEMO_EPSILONS:
        assert re.search(rf"^ +{eps:g} +\S+ +\d\.\d{{3}} ±", out, re.M), out
    assert "fresh CSPRNG noise" in out
    # ε = 0.5 on 426 rows: Λ = "auto" is so large that the model answers the
    # majority class; the demo says so in words.
    code, out, err = run(
        "demo", "--draws", "2", "--epsilon", "0.5", "--random-state", "1"
    )
    assert code == 0, err
    assert "not above the majority class" in out


# ------------------------------------------------------ train/predict/eval
def test_train_predict_evaluate_csv(run, dirs):
    inp, out = dirs
    X, y = _separable(1200, seed=0)
    train_csv = _write_csv(
        inp / "train.csv", X[:900], y[:900], ["a", "b", "c", "label"]
    )
    test_csv = _write_csv(inp / "test.csv", X[900:], y[900:])
    model, report, pred = out / "model.json", out / "report.json", out / "pred.csv"

    code, stdout, err = run(
        "train", "--data", str(train_csv), "--label-column", "label",
        "--epsilon", "5", "--classes", "-1,1", "--out", str(model),
        "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    assert err == ""  # public label set, CSPRNG noise: nothing to warn about
    assert stdout.count("\n") == 1
    assert "DPLinearSVC" in stdout and f"on {len(y[:900])} rows × 3 features" in stdout

    clf = load_model(model)
    assert clf.privacy_event_.epsilon == 5.0
    assert clf.classes_.tolist() == [-1, 1]

    code, stdout, err = run(
        "predict", "--model", str(model), "--data", str(test_csv), "--out", str(pred)
    )
    assert code == 0, err
    lines = pred.read_text().splitlines()
    named = pd.DataFrame(X[900:], columns=["a", "b", "c"])
    assert lines == [str(v) for v in clf.predict(named).tolist()]
    assert set(lines) <= {"-1", "1"}

    code, stdout, err = run(
        "evaluate", "--model", str(model), "--data", str(test_csv),
        "--metrics", "accuracy",
    )  # fmt: skip
    assert code == 0, err
    m = re.fullmatch(r"accuracy: (\d\.\d{6}) \(n = (\d+)\)\n", stdout)
    assert m, stdout
    expected = np.mean(np.array(lines, dtype=int) == y[900:])
    assert float(m.group(1)) == pytest.approx(expected, abs=1e-6)
    assert int(m.group(2)) == len(y) - 900
    # ε = 5 on a separable problem with a margin: far above chance.
    assert expected > 0.75
    assert sorted(os.listdir(out)) == ["model.json", "pred.csv", "report.json"]


def test_report_content(run, dirs):
    inp, out = dirs
    X, y = _separable(300, seed=1)
    data = _write_csv(inp / "d.csv", X, y)
    model, report = out / "m.json", out / "r.json"
    code, _, err = run(
        "train", "--data", str(data), "--model", "logistic", "--mechanism", "output",
        "--epsilon", "0.5", "--delta", "1e-6", "--regularization", "0.05",
        "--fit-intercept", "--classes", "-1,1", "--random-state", "123457",
        "--out", str(model), "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    # The only warning: a seed makes the noise reproducible.
    assert err.count("\n") == 1 and err.startswith("dpsvm: warning: --random-state")
    text = report.read_text()
    rep = json.loads(text)
    mdl = json.loads(model.read_text())
    assert rep["format"] == "dpsvm-privacy-report" and rep["format_version"] == 1
    assert rep["dpsvm_version"] == __version__
    assert rep["estimator"] == "DPLogisticRegression"
    # Output perturbation is pure ε-DP: the δ spent is 0 whatever --delta allowed.
    assert (rep["epsilon"], rep["delta"]) == (0.5, 0.0)
    assert rep["params"]["delta"] == 1e-6
    assert rep["mechanism"] == "output-perturbation-l2"
    assert "Corollary 8" in rep["reference"]
    assert rep["n_samples"] == len(y)
    assert rep["label_set_public"] is True
    assert rep["params"] == mdl["params"]
    assert rep["params"]["regularization"] == 0.05 and rep["params"]["fit_intercept"]
    assert rep["privacy_event"] == mdl["privacy_event"]
    stamp = datetime.strptime(rep["created_utc"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs((datetime.now(UTC).replace(tzinfo=None) - stamp).total_seconds()) < 600
    # The seed is never published, and nothing but n is read from the data.
    assert "123457" not in text and "123457" not in model.read_text()
    assert "solver" not in json.dumps(rep["privacy_event"]).replace("solver_tol", "")
    assert rep["data"] == {"file": str(data), "format": "csv"}


def test_train_without_classes_warns_in_one_line(run, dirs):
    inp, out = dirs
    X, y = _separable(200, seed=2)
    data = _write_csv(inp / "d.csv", X, np.where(y > 0, 7, 3))
    model, report = out / "m.json", out / "r.json"
    code, _, err = run("train", "--data", str(data), "--out", str(model),
                       "--report", str(report))  # fmt: skip
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("dpsvm: warning:")
    assert "not covered by the privacy guarantee" in lines[0]
    assert "Traceback" not in err and "PrivacyLeakWarning" not in err
    rep = json.loads(report.read_text())
    assert rep["label_set_public"] is False
    assert len(rep["warnings"]) == 1 and "--classes" in rep["warnings"][0]
    assert load_model(model).classes_.tolist() == [3, 7]


def test_label_column_by_index_and_integral_float_labels(run, dirs):
    inp, out = dirs
    X, y = _separable(300, seed=3)
    lab = np.where(y > 0, 5.0, 0.0)  # written as "5.0", read back as the int 5
    rows = np.column_stack([lab, X])
    path = inp / "d.csv"
    path.write_text("\n".join(",".join(repr(float(v)) for v in r) for r in rows))
    model = out / "m.json"
    code, _, err = run("train", "--data", str(path), "--label-column", "0",
                       "--no-header", "--classes", "0,5",
                       "--out", str(model))  # fmt: skip
    assert code == 0, err
    clf = load_model(model)
    assert clf.classes_.tolist() == [0, 5]
    assert clf.classes_.dtype == np.int64
    # Prediction data without labels: features only.
    feats = inp / "f.csv"
    feats.write_text("\n".join(",".join(repr(float(v)) for v in r) for r in X[:10]))
    code, _, err = run("predict", "--model", str(model), "--data", str(feats),
                       "--no-labels", "--no-header",
                       "--out", str(out / "p.csv"))  # fmt: skip
    assert code == 0, err
    got = (out / "p.csv").read_text().splitlines()
    assert got == [str(v) for v in clf.predict(X[:10]).tolist()]
    assert set(got) <= {"0", "5"}


def test_libsvm_round_trip(run, dirs):
    inp, out = dirs
    X, y = _separable(400, seed=4)
    path = inp / "d.libsvm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    model = out / "m.json"
    code, _, err = run("train", "--data", str(path), "--classes", "-1,1",
                       "--n-features", "3", "--mechanism", "output",
                       "--loss", "hinge", "--out", str(model))  # fmt: skip
    assert code == 0, err
    assert load_model(model).n_features_in_ == 3
    code, stdout, err = run("evaluate", "--model", str(model), "--data", str(path))
    assert code == 0, err
    assert stdout.startswith("accuracy: ") and "(n = " in stdout


def test_named_dataset_train_and_evaluate(run, dirs):
    _, out = dirs
    model = out / "m.json"
    code, _, err = run("train", "--dataset", "nested-balls", "--out", str(model))
    assert code == 0, err
    assert err == ""  # the data sets' label set {-1, +1} is public
    code, stdout, err = run(
        "evaluate", "--model", str(model), "--dataset", "nested-balls"
    )
    assert code == 0, err
    assert "(n = 20000)" in stdout


def test_python_m_and_console_script():
    # The one subprocess test: the installed entry points start and fail cleanly.
    script = Path(sys.executable).with_name("dpsvm")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "dpsvm.cli"]
    res = subprocess.run(
        [*cmd, "--version"], capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0
    assert res.stdout.strip() == f"dpsvm {__version__}"
    res = subprocess.run(
        [sys.executable, "-m", "dpsvm.cli", "evaluate",
         "--model", "/nonexistent/m.json", "--dataset", "breast-cancer"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        "dpsvm: error: /nonexistent/m.json: No such file or directory"
    ]
