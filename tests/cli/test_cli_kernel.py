# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm train --kernel ...``: kernel models through train, predict and evaluate."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsvm.cli import _reading, main
from dpsvm.io import load_model
from dpsvm.models import DPKernelSVC

# Seeds of the tests' noise and frequencies (never written into the files).
NOISE_SEED = 123457
FEATURE_SEED = 24681


def _circles(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    # Points in [-1, 1]², label +1 inside the circle of radius 0.65: about a
    # third positive, and no linear classifier does better than the majority.
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    return X, np.where(np.linalg.norm(X, axis=1) < 0.65, 1, -1)


def _write_csv(path: Path, X: np.ndarray, y: np.ndarray | None) -> Path:
    rows = X if y is None else np.column_stack([X, y])
    # repr: the CLI reads back the very same doubles.
    lines = [",".join(repr(float(v)) for v in row) for row in rows]
    names = [f"x{j}" for j in range(X.shape[1])] + ([] if y is None else ["label"])
    lines.insert(0, ",".join(names))  # a header row, matched by name at predict
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    inp = tmp_path_factory.mktemp("in")
    X, y = _circles(200, seed=0)
    Xt, yt = _circles(200, seed=1)
    return {
        "X": X,
        "y": y,
        "Xt": Xt,
        "Xt_named": pd.DataFrame(Xt, columns=["x0", "x1"]),
        "yt": yt,
        "train": _write_csv(inp / "train.csv", X, y),
        "test": _write_csv(inp / "test.csv", Xt, yt),
        "features": _write_csv(inp / "features.csv", Xt, None),
    }


# ------------------------------------------------------------- round trips
ROUND_TRIPS = [
    # (mechanism, --feature-map, extra options, the linear step's event name)
    ("objective", "cos-sin", (), "objective-perturbation"),
    ("objective", "cos-phase", (), "objective-perturbation"),
    ("rubinstein", "cos-sin", ("--loss", "hinge"), "output-perturbation-laplace"),
    ("output", "cos-phase", ("--norm-handling", "clip"), "output-perturbation-l2"),
]


@pytest.mark.parametrize(
    ("mechanism", "feature_map", "extra", "linear"),
    ROUND_TRIPS,
    ids=[f"{m}-{f}" for m, f, *_ in ROUND_TRIPS],
)
def test_train_predict_evaluate_round_trip(
    run, files, tmp_path, mechanism, feature_map, extra, linear
):
    model, report, pred = tmp_path / "m.json", tmp_path / "r.json", tmp_path / "p.csv"
    code, out, err = run(
        "train", "--data", str(files["train"]), "--kernel", "rbf", "--gamma", "2",
        "--n-components", "25", "--feature-map", feature_map,
        "--mechanism", mechanism, *extra, "--epsilon", "100",
        "--classes", "-1,1", "--random-state", str(NOISE_SEED),
        "--feature-seed", str(FEATURE_SEED), "--out", str(model),
        "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    # The only warnings: ε = 100 is meaningless, and the seeded noise.
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("dpsvm: warning: --epsilon 100 is so large")
    assert lines[1] == (
        "dpsvm: warning: --random-state makes the noise reproducible by anyone who "
        "knows the seed: for tests only, not for a real release"
    )
    assert out == (
        f"dpsvm: trained DPKernelSVC (random-fourier-features[{feature_map}]+{linear}, "
        f"ε = 100, δ = 0) on 200 rows × 2 features -> {model}, report -> {report}\n"
    )

    clf = load_model(model)
    assert isinstance(clf, DPKernelSVC)
    assert clf.feature_map_ == feature_map
    assert clf.frequencies_.shape == (2, 25)
    # cos-sin: a cosine and a sine per frequency; cos-phase: one feature each.
    assert clf.coef_.shape == (1, 50 if feature_map == "cos-sin" else 25)
    assert clf.privacy_event_.epsilon == 100.0

    # The command passes its options verbatim: the same estimator fitted here,
    # with the same seeds, gives the very same released numbers.
    loss = extra[1] if extra[:1] == ("--loss",) else "huber"
    handling = extra[1] if extra[:1] == ("--norm-handling",) else "clip"
    ref = DPKernelSVC(
        kernel="rbf", gamma=2.0, n_components=25, feature_map=feature_map,
        norm_handling=handling, mechanism=mechanism, loss=loss, epsilon=100.0,
        classes=[-1, 1], feature_random_state=FEATURE_SEED, random_state=NOISE_SEED,
    ).fit(files["X"], files["y"])  # fmt: skip
    assert np.array_equal(ref.frequencies_, clf.frequencies_)
    assert np.array_equal(ref.coef_, clf.coef_)
    assert np.array_equal(
        ref.decision_function(files["Xt"]),
        clf.decision_function(files["Xt_named"]),
    )

    code, out, err = run(
        "predict", "--model", str(model), "--data", str(files["test"]),
        "--out", str(pred),
    )  # fmt: skip
    assert code == 0, err
    assert out == f"dpsvm: wrote 200 predictions -> {pred}\n"
    lines = pred.read_text().splitlines()
    assert lines == [str(v) for v in ref.predict(files["Xt"]).tolist()]

    code, out, err = run(
        "evaluate", "--model", str(model), "--data", str(files["test"])
    )
    assert code == 0, err
    m = re.match(r"accuracy: (\d\.\d{6}) \(n = 200\)\n", out)
    assert m, out
    accuracy = float(m.group(1))
    expected = np.mean(np.array(lines, dtype=int) == files["yt"])
    assert accuracy == pytest.approx(expected, abs=1e-6)
    # ε = 100 on a circle: far above the majority rate (no linear model beats
    # it). Seeded, so this is a fixed number, not a flaky statistical check.
    majority = max(np.mean(files["yt"] == 1), np.mean(files["yt"] == -1))
    assert majority < 0.7 and accuracy > 0.8
    assert sorted(os.listdir(tmp_path)) == ["m.json", "p.csv", "r.json"]


def test_report_of_rubinstein_has_the_corollary_9_scale(run, files, tmp_path):
    model, report = tmp_path / "m.json", tmp_path / "r.json"
    code, _, err = run(
        "train", "--data", str(files["train"]), "--kernel", "rbf", "--gamma", "0.5",
        "--n-components", "16", "--mechanism", "rubinstein", "--loss", "hinge",
        "--epsilon", "0.5", "--regularization", "0.02", "--classes", "-1,1",
        "--random-state", str(NOISE_SEED), "--feature-seed", str(FEATURE_SEED),
        "--out", str(model), "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    text, model_text = report.read_text(), model.read_text()
    rep, mdl = json.loads(text), json.loads(model_text)
    assert rep["estimator"] == "DPKernelSVC"
    assert (rep["epsilon"], rep["delta"]) == (0.5, 0.0)
    assert rep["mechanism"] == (
        "random-fourier-features[cos-sin]+output-perturbation-laplace"
    )
    assert "Algorithm 3 (PRIVATESVM) and Corollary 9" in rep["reference"]
    assert rep["n_samples"] == 200 and rep["label_set_public"] is True
    details = rep["privacy_event"]["details"]
    # Rubinstein et al. Cor. 9: λ = 2^{2.5}·L·C·√d̂/(βn) with the hinge's L = 1,
    # C = 1/Λ = 50, d̂ = 16, β = 0.5, n = 200: 5.656854…·50·4/100 = 11.3137….
    assert details["laplace_scale_cor9"] == pytest.approx(
        2**2.5 * 1 * 50 * 4 / (0.5 * 200), rel=1e-12
    )
    assert details["n_laplace_draws"] == 32  # 2d̂ Laplace draws
    assert (details["kernel"], details["gamma"], details["n_components"]) == (
        "rbf",
        0.5,
        16,
    )
    assert details["feature_map"] == "cos-sin"
    assert rep["params"] == mdl["params"]
    assert rep["params"]["kernel"] == "rbf" and rep["params"]["mechanism"] == (
        "rubinstein"
    )
    assert rep["privacy_event"] == mdl["privacy_event"]
    # The frequencies are in the model (released), the seeds nowhere.
    assert len(mdl["state"]["random_features"]["frequencies"]) == 2
    assert mdl["state"]["random_features"]["phases"] is None
    for seed in (NOISE_SEED, FEATURE_SEED):
        assert str(seed) not in text and str(seed) not in model_text


def test_objective_report_and_default_feature_map(run, files, tmp_path):
    model, report = tmp_path / "m.json", tmp_path / "r.json"
    code, _, err = run(
        "train", "--data", str(files["train"]), "--kernel", "rbf", "--gamma", "2",
        "--n-components", "10", "--epsilon", "3", "--out", str(model),
        "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    # No --classes: one warning line, and the report says the label set was
    # read from the data.
    lines = err.splitlines()
    assert len(lines) == 1 and "not covered by the privacy guarantee" in lines[0]
    rep = json.loads(report.read_text())
    assert rep["label_set_public"] is False
    assert rep["epsilon"] == 3.0
    # objective is the default mechanism and pairs with the cos-phase map of
    # Sarwate, Chaudhuri & Monteleoni 2009, Alg. 2, and the Huber loss.
    assert (
        rep["mechanism"] == "random-fourier-features[cos-phase]+objective-perturbation"
    )
    assert "Sarwate, Chaudhuri & Monteleoni" in rep["reference"]
    params = rep["params"]
    assert (params["mechanism"], params["feature_map"], params["loss"]) == (
        "objective",
        "cos-phase",
        "huber",
    )
    assert (params["n_components"], params["norm_handling"]) == (10, "clip")
    clf = load_model(model)
    assert clf.phases_.shape == (10,)
    assert clf.feature_scale_ == pytest.approx(math.sqrt(2 / 10))  # "clip"
    assert "noise" in rep and "CSPRNG" in rep["noise"]


@pytest.mark.parametrize(("kernel", "gamma"), [("laplacian", "1.5"), ("cauchy", "4")])
def test_other_kernels_train_and_predict(run, files, tmp_path, kernel, gamma):
    model, pred = tmp_path / "m.json", tmp_path / "p.csv"
    code, _, err = run(
        "train", "--data", str(files["train"]), "--kernel", kernel, "--gamma", gamma,
        "--n-components", "20", "--mechanism", "output", "--classes", "-1,1",
        "--out", str(model),
    )  # fmt: skip
    assert code == 0, err
    assert err == ""
    clf = load_model(model)
    assert clf.kernel == kernel and clf.gamma == float(gamma)
    assert clf.privacy_event_.to_dict()["details"]["kernel"] == kernel
    # Feature-only rows (--no-labels) are predicted from the released numbers.
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(files["features"]),
        "--no-labels", "--out", str(pred),
    )  # fmt: skip
    assert code == 0, err
    got = pred.read_text().splitlines()
    assert got == [str(v) for v in clf.predict(files["Xt_named"]).tolist()]
    assert set(got) <= {"-1", "1"}


def test_help_lists_the_kernel_options(run):
    code, out, _ = run("train", "--help")
    assert code == 0
    text = " ".join(out.split())
    for option in (
        "--kernel {linear,rbf,laplacian,cauchy}",
        "--gamma GAMMA",
        "--n-components N",
        "--feature-map {cos-sin,cos-phase}",
        "--norm-handling {scale,bound,clip}",
        "--feature-seed FEATURE_SEED",
        "{objective,objective-laplace,objective-gaussian,output,output-laplace,rubinstein}",
    ):
        assert option in text, option
    assert "kernel options" in text and "'scale' are refused" in text


# ------------------------------------------------------------- bad inputs
@pytest.fixture
def env(tmp_path, capsys):
    """``run`` checks the error contract: one line, status, no file left."""
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    out.mkdir()
    data = inp / "d.csv"
    data.write_text("0.1,0.2,1\n-0.3,0.1,-1\n0.2,-0.1,1\n-0.2,-0.4,-1\n")

    def run(*argv: str, code: int) -> str:
        status = main([a.replace("{out}", str(out)) for a in argv])
        cap = capsys.readouterr()
        assert status == code, cap.err
        lines = cap.err.splitlines()
        assert len(lines) == 1, cap.err
        assert lines[0].startswith("dpsvm: error: ")
        assert "Traceback" not in cap.err + cap.out
        assert os.listdir(out) == []  # no model, report or temporary file
        return lines[0]

    return str(data), run


def _train(data: str, *extra: str) -> tuple[str, ...]:
    return ("train", "--data", data, "--classes", "-1,1", "--out", "{out}/m.json",
            "--report", "{out}/r.json", *extra)  # fmt: skip


RBF = ("--kernel", "rbf", "--gamma", "1")


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (("--kernel", "rbf"), "--kernel rbf needs --gamma, the public kernel width"),
        (("--kernel", "cauchy"), "--kernel cauchy needs --gamma"),
        (("--kernel", "rbf", "--gamma", "0"), "--gamma must be a finite number > 0"),
        (("--kernel", "rbf", "--gamma=-1"), "--gamma must be a finite number > 0"),
        (("--kernel", "rbf", "--gamma", "nan"), "--gamma must be a finite number"),
        (("--kernel", "rbf", "--gamma", "inf"), "--gamma must be a finite number"),
        (("--kernel", "rbf", "--gamma", "abc"), "--gamma must be a number, got 'abc'"),
        (("--kernel", "rbf", "--gamma", "scale"), "'scale' would be computed from"),
        (("--kernel", "rbf", "--gamma", "auto"), "'auto' would be computed from"),
        ((*RBF, "--n-components", "0"), "--n-components must be in [1, 1000000]"),
        ((*RBF, "--n-components=-3"), "--n-components must be in [1, 1000000]"),
        ((*RBF, "--n-components", "2.5"), "--n-components must be an integer"),
        ((*RBF, "--n-components", "ten"), "--n-components must be an integer"),
        ((*RBF, "--n-components", "2000000"), "must be in [1, 1000000], got 2000000"),
        (("--kernel", "poly"), "argument --kernel: invalid choice: 'poly'"),
        (("--kernel", "sigmoid", "--gamma", "1"), "invalid choice: 'sigmoid'"),
        # Kernel-only options with the (default) linear model.
        (("--gamma", "1"), "--gamma applies to a non-linear --kernel"),
        (("--n-components", "10"), "--n-components applies to a non-linear"),
        (("--feature-map", "cos-sin"), "--feature-map applies to a non-linear"),
        (("--kernel", "linear", "--norm-handling", "clip"), "--norm-handling applies"),
        (("--feature-seed", "3"), "--feature-seed applies to a non-linear --kernel"),
        # Mechanisms that do not exist for the chosen kind of model.
        (("--mechanism", "rubinstein"), "--mechanism rubinstein (PRIVATESVM"),
        ((*RBF, "--mechanism", "output-laplace"), "objective, output or rubinstein"),
        ((*RBF, "--mechanism", "objective-2009"), "invalid choice: 'objective-2009'"),
        ((*RBF, "--norm-handling", "paper"), "invalid choice: 'paper'"),
        ((*RBF, "--feature-map", "auto"), "invalid choice: 'auto'"),
        # Options of the linear models only.
        ((*RBF, "--data-norm", "2"), "--data-norm applies to --kernel linear only"),
        ((*RBF, "--fit-intercept"), "--fit-intercept applies to --kernel linear"),
        ((*RBF, "--model", "logistic"), "use --loss logistic for a kernel model"),
        # cos-sin features have norm exactly 1: nothing to handle.
        (
            (*RBF, "--mechanism", "rubinstein", "--norm-handling", "bound"),
            "--norm-handling applies to --feature-map cos-phase only",
        ),
        (
            (*RBF, "--feature-map", "cos-sin", "--norm-handling", "clip"),
            "--norm-handling applies to --feature-map cos-phase only",
        ),
        # The losses as for the linear SVM.
        (
            (*RBF, "--loss", "hinge"),
            "--mechanism objective needs a differentiable loss",
        ),
        ((*RBF, "--loss", "hinge"), "--mechanism output / rubinstein with the hinge"),
        ((*RBF, "--loss", "logistic", "--huber-h", "1"), "--huber-h applies to"),
    ],
)
def test_bad_kernel_options_fail_before_reading(env, monkeypatch, extra, match):
    data, run = env

    def no_reading(*args, **kwargs):  # pragma: no cover - must not be called
        raise AssertionError("the data were read")

    monkeypatch.setattr(_reading, "read_csv", no_reading)
    line = run(*_train(data, *extra), code=2)
    assert match in line, line


def test_kernel_model_files_fail_cleanly(env, files, tmp_path):
    data, run = env
    model = tmp_path / "kernel.json"
    assert main([
        "train", "--data", str(files["train"]), "--kernel", "rbf", "--gamma", "2",
        "--n-components", "5", "--classes", "-1,1", "--out", str(model),
    ]) == 0  # fmt: skip
    pred = ("--out", "{out}/p.csv")
    # Rows with another number of features than the frequencies expect.
    three = tmp_path / "three.csv"
    three.write_text("x0,x1,x2,label\n0.1,0.2,0.3,1\n")
    assert "1 column(s) the model was not trained on" in run(
        "predict", "--model", str(model), "--data", str(three), *pred, code=1
    )
    doc = json.loads(model.read_text())
    # Tampered: transposed frequencies, a NaN weight, an unknown key.
    bad = json.loads(json.dumps(doc))
    rf = bad["state"]["random_features"]
    rf["frequencies"] = np.array(rf["frequencies"]).T.tolist()
    (tmp_path / "bad1.json").write_text(json.dumps(bad))
    assert "random_features.frequencies has shape (5, 2); expected (2, 5)" in run(
        "predict", "--model", str(tmp_path / "bad1.json"), "--data", data, *pred,
        code=1,
    )  # fmt: skip
    text = json.dumps(doc).replace(repr(doc["state"]["coef"][0][0]), "NaN", 1)
    (tmp_path / "bad2.json").write_text(text)
    assert "non-finite number NaN" in run(
        "evaluate", "--model", str(tmp_path / "bad2.json"), "--data", data, code=1
    )
    (tmp_path / "bad3.json").write_text(json.dumps({**doc, "intercept": [0.0]}))
    assert "unknown key(s) 'intercept'" in run(
        "evaluate", "--model", str(tmp_path / "bad3.json"), "--data", data, code=1
    )
