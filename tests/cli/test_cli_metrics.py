# SPDX-License-Identifier: BSD-3-Clause
"""Metrics that tell the truth: ``evaluate`` and ``sweep`` print the majority-class
rate, balanced accuracy, F1 of each class, ROC AUC and the confusion matrix beside
the accuracy, in the declared class order, and warn at or below the majority rate."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    balanced_accuracy_score,
    confusion_matrix,
    f1_score,
    roc_auc_score,
)

from dpsvm.cli._metrics import (
    METRICS,
    evaluate_predictions,
    majority_warning,
    metrics_option,
)
from dpsvm.io import load_model

#: Classes declared in the non-sorted order [2, 1]: the second (1) is the
#: positive class of the ROC AUC, and every listing keeps this order.
SCHEMA = {
    "label": {"column": "y", "classes": [2, 1]},
    "features": [
        {"column": "age", "type": "numeric", "lower": 17, "upper": 90},
        {"column": "job", "type": "categorical", "categories": ["a", "b", "c"]},
    ],
}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _table(n: int, seed: int, rare: float = 0.2) -> pd.DataFrame:
    """Seeded imbalanced table: class 2 is the rare one, driven by age and job."""
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    job = rng.choice(["a", "b", "c"], n)
    score = (age - 54) / 12 + 1.5 * (job == "c") + rng.normal(0, 0.7, n)
    cut = np.quantile(score, 1 - rare)
    return pd.DataFrame({"age": age, "job": job, "y": np.where(score > cut, 2, 1)})


@pytest.fixture
def files(run, tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    _table(2000, 0).to_csv(train, index=False)
    _table(500, 1).to_csv(test, index=False)
    model = tmp_path / "m.json"
    code, _, err = run(
        "train", "--data", str(train), "--schema", str(schema), "--model",
        "logistic", "--epsilon", "20", "--random-state", "0", "--out", str(model),
    )  # fmt: skip
    assert code == 0, err
    return {"dir": tmp_path, "schema": schema, "train": train, "test": test,
            "model": model}  # fmt: skip


def _predicted(run, files, *extra):
    out = files["dir"] / "p.csv"
    code, _, err = run(
        "predict", "--model", str(files["model"]), "--data", str(files["test"]),
        "--out", str(out), *extra,
    )  # fmt: skip
    assert code == 0, err
    return out


# ------------------------------------------------------------- the figures
def test_known_answer_of_a_model_that_always_answers_the_majority():
    # 3 of 4 rows are class 0 and the model always says 0: accuracy 3/4 equals
    # the majority rate, recall is 1 and 0 (balanced 1/2), F1 of 0 is
    # 2·3/(2·3 + 1) = 6/7 and F1 of 1 is 0.
    ev = evaluate_predictions([0, 0, 0, 1], [0, 0, 0, 0], [0, 1])
    assert ev.accuracy == ev.majority_rate == 0.75
    assert ev.balanced_accuracy == 0.5
    assert ev.f1 == pytest.approx([6 / 7, 0.0])
    assert ev.confusion.tolist() == [[3, 0], [1, 0]]
    assert ev.roc_auc is None and "no scores" in ev.roc_auc_note
    assert "most frequent class" in majority_warning(ev.accuracy, ev.majority_rate)
    assert majority_warning(0.76, 0.75) is None


def test_declared_order_orders_f1_confusion_and_the_positive_class():
    truth = [1, 1, 2, 2, 2]
    predicted = [1, 2, 2, 2, 1]
    scores = np.array([[0.1, 0.9], [0.6, 0.4], [0.8, 0.2], [0.7, 0.3], [0.45, 0.55]])
    ev = evaluate_predictions(truth, predicted, [2, 1], scores)
    assert ev.classes == [2, 1]
    assert (
        ev.confusion.tolist()
        == confusion_matrix(truth, predicted, labels=[2, 1]).tolist()
    )
    assert ev.f1 == pytest.approx(
        f1_score(truth, predicted, labels=[2, 1], average=None)
    )
    # The second declared class (1) is the positive one, scored by column 1.
    positive = np.array(truth) == 1
    assert ev.roc_auc == pytest.approx(roc_auc_score(positive, scores[:, 1]))
    # Labels compare as Python values: 1.0 is the class 1.
    assert evaluate_predictions([1.0, 2.0], [1, 2], [2, 1]).accuracy == 1.0


def test_multiclass_roc_auc_is_the_macro_one_vs_rest_average():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 200)
    scores = rng.dirichlet([1, 1, 1], 200) + 0.5 * np.eye(3)[truth]
    scores /= scores.sum(axis=1, keepdims=True)
    predicted = scores.argmax(axis=1)
    ev = evaluate_predictions(truth, predicted, [0, 1, 2], scores)
    expected = roc_auc_score(truth, scores, multi_class="ovr", average="macro")
    assert ev.roc_auc == pytest.approx(expected)
    assert "macro" in ev.roc_auc_note
    assert ev.balanced_accuracy == pytest.approx(
        balanced_accuracy_score(truth, predicted)
    )


def test_metrics_option_chooses_and_refuses():
    assert metrics_option("all") == METRICS
    assert metrics_option("roc_auc,accuracy") == ("accuracy", "roc-auc")
    with pytest.raises(argparse.ArgumentTypeError, match="unknown metric 'auc'"):
        metrics_option("accuracy,auc")


# ---------------------------------------------------------------- evaluate
def test_evaluate_prints_every_figure_beside_the_accuracy(run, files):
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"])
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("accuracy: ") and lines[0].endswith("(n = 500)")
    for text in ("majority-class rate: ", "balanced accuracy: ", "F1 of 2: ",
                 "F1 of 1: ", "ROC AUC: ", "confusion matrix"):  # fmt: skip
        assert any(line.startswith(text) for line in lines), (text, out)
    # Confusion matrix rows and columns in the declared order 2, 1.
    head = next(i for i, line in enumerate(lines) if line.startswith("confusion"))
    assert lines[head + 1].split()[-2:] == ["2", "1"]
    assert [lines[head + 2].split()[0], lines[head + 3].split()[0]] == ["2", "1"]


def test_evaluate_json_agrees_with_sklearn_on_predict_output(run, files):
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"]),
        "--json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    truth = pd.read_csv(files["test"])["y"].to_numpy()
    predicted = np.array(_predicted(run, files).read_text().split(), dtype=int)
    proba = pd.read_csv(_predicted(run, files, "--proba"))
    assert doc["classes"] == [2, 1] and doc["n"] == 500
    assert doc["accuracy"] == pytest.approx(np.mean(predicted == truth))
    assert doc["majority_rate"] == pytest.approx(
        max(np.mean(truth == 1), np.mean(truth == 2))
    )
    assert doc["balanced_accuracy"] == pytest.approx(
        balanced_accuracy_score(truth, predicted)
    )
    assert doc["f1"] == pytest.approx(
        f1_score(truth, predicted, labels=[2, 1], average=None)
    )
    assert (
        doc["confusion_matrix"]
        == confusion_matrix(truth, predicted, labels=[2, 1]).tolist()
    )
    # ROC AUC of the second declared class, 1, from the model's scores (the
    # probability of 1 ranks rows as the decision function does).
    assert doc["roc_auc"] == pytest.approx(roc_auc_score(truth == 1, proba["1"]))
    assert doc["differentially_private"] is False


def test_evaluate_metrics_chooses_what_is_printed(run, files):
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"]),
        "--metrics", "balanced-accuracy,f1",
    )  # fmt: skip
    assert code == 0, err
    assert [line.split(":")[0] for line in out.splitlines()] == [
        "balanced accuracy", "F1 of 2", "F1 of 1",
    ]  # fmt: skip
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"]),
        "--metrics", "accuracy", "--json",
    )  # fmt: skip
    assert set(json.loads(out)) == {"n", "classes", "accuracy", "warnings",
                                    "differentially_private"}  # fmt: skip
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"]),
        "--metrics", "precision",
    )  # fmt: skip
    assert code == 2 and out == "" and "unknown metric 'precision'" in err


def test_an_accuracy_at_the_majority_rate_gets_a_warning(run, files):
    # ε = 0.01 on 2,000 rows: Λ = "auto" is huge and the noise dominates, so
    # the (seeded) model answers one class for every row; its accuracy cannot
    # beat always answering the most frequent class.
    model = files["dir"] / "weak.json"
    code, _, err = run(
        "train", "--data", str(files["train"]), "--schema", str(files["schema"]),
        "--epsilon", "0.01", "--random-state", "3", "--out", str(model),
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run(
        "evaluate", "--model", str(model), "--data", str(files["test"]), "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["accuracy"] <= doc["majority_rate"]
    assert len(doc["warnings"]) == 1 and "majority-class rate" in doc["warnings"][0]
    assert "warning: the accuracy" in err and err.count("\n") == 1
    # The good model gets no warning.
    code, out, err = run(
        "evaluate", "--model", str(files["model"]), "--data", str(files["test"]),
        "--json",
    )  # fmt: skip
    assert json.loads(out)["warnings"] == [] and err == ""


# --------------------------------------------------- declared class order
def test_declared_class_order_in_proba_header_and_report(run, files):
    proba = pd.read_csv(_predicted(run, files, "--proba"))
    assert list(proba.columns) == ["2", "1"]
    model = load_model(files["model"])
    assert sorted(model.classes_.tolist()) == [1, 2]  # sorted inside the model
    X = pd.read_csv(files["test"])
    from dpsvm.preprocessing import SchemaTransformer

    rows = SchemaTransformer(model.public_schema_).set_output(transform="pandas")
    expected = model.predict_proba(rows.fit_transform(X))
    j = {c: i for i, c in enumerate(model.classes_.tolist())}
    np.testing.assert_allclose(proba["2"], expected[:, j[2]], atol=1e-6)
    np.testing.assert_allclose(proba["1"], expected[:, j[1]], atol=1e-6)
    code, out, err = run("report", str(files["model"]))
    assert code == 0, err
    assert "classes 2, 1" in out and "label set (classes): 2, 1" in out


# ------------------------------------------------------------------- sweep
def test_sweep_writes_the_figures_the_majority_and_the_plot(run, files):
    table, plot = files["dir"] / "t.csv", files["dir"] / "p.png"
    code, out, err = run(
        "sweep", "--data", str(files["train"]), "--schema", str(files["schema"]),
        "--epsilons", "0.01", "20", "--seeds", "2", "--random-state", "3",
        "--out-csv", str(table), "--out-png", str(plot),
    )  # fmt: skip
    assert code == 0, err
    frame = pd.read_csv(table)
    expected = {
        "majority_rate", "balanced_accuracy_mean", "nonprivate_balanced_accuracy",
        "roc_auc_mean", "nonprivate_roc_auc", "f1_mean[2]", "f1_mean[1]",
        "nonprivate_f1[2]", "confusion_mean[2][1]",
    }  # fmt: skip
    assert expected <= set(frame.columns)
    # Columns of each class in the declared order 2, 1.
    f1 = [c for c in frame.columns if c.startswith("f1_mean[")]
    assert f1 == ["f1_mean[2]", "f1_mean[1]"]
    # The majority rate is that of the held-out rows (20 % of 2,000 = 400 a seed).
    counts = frame[[c for c in frame.columns if c.startswith("confusion_mean")]]
    assert counts.sum(axis=1).tolist() == pytest.approx([400, 400])
    rare = frame["confusion_mean[2][2]"] + frame["confusion_mean[2][1]"]
    assert frame["majority_rate"].tolist() == pytest.approx((1 - rare / 400).tolist())
    # At ε = 0.01 the model is not above the majority: a warning names ε.
    low, high = frame.iloc[0], frame.iloc[1]
    assert low["accuracy_mean"] <= low["majority_rate"] + 1e-9
    assert "warning: at ε = 0.01 the accuracy" in err
    assert "at ε = 20 the accuracy" not in err
    assert high["balanced_accuracy_mean"] > 0.6
    # The printed table has the non-private and majority rows beside ε.
    assert "non-private" in out and "majority class" in out
    assert "confusion matrix at ε = 20" in out
    assert plot.read_bytes()[:8] == PNG_MAGIC
