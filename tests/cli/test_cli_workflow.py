# SPDX-License-Identifier: BSD-3-Clause
"""The tabular workflow: multiclass string labels, --proba, --tune, --holdout,
``dpsvm report``, ``dpsvm sweep``, the ε/δ warnings and their refusals."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from dpsvm.cli import _workflow
from dpsvm.io import load_model

CLASSES = ["low", "mid", "high"]
SCHEMA = {
    "label": {"column": "level", "classes": CLASSES},
    "features": [
        {"column": "age", "type": "numeric", "lower": 18, "upper": 80},
        {
            "column": "city",
            "type": "categorical",
            "categories": ["north", "south", "east"],
        },
    ],
}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _table(n: int, seed: int) -> pd.DataFrame:
    # Seeded synthetic table with three string classes driven by age and city.
    rng = np.random.default_rng(seed)
    age = rng.uniform(20, 70, n)
    city = rng.choice(["north", "south", "east"], n)
    score = (age - 45) / 25 + 0.8 * (city == "north") - 0.8 * (city == "east")
    score = score + rng.normal(0, 0.3, n)
    level = np.where(score > 0.5, "high", np.where(score < -0.5, "low", "mid"))
    return pd.DataFrame({"age": age.round(1), "city": city, "level": level})


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    data = tmp_path / "data.csv"
    _table(1500, 0).to_csv(data, index=False)
    return {"schema": schema, "data": data, "dir": tmp_path}


def _train(run, files, *extra):
    model = files["dir"] / "m.json"
    code, out, err = run(
        "train", "--data", str(files["data"]), "--schema", str(files["schema"]),
        "--out", str(model), *extra,
    )  # fmt: skip
    return code, out, err, model


# ------------------------------------------------------------- multiclass
def test_multiclass_string_labels_split_the_budget_and_say_so(run, files):
    code, out, err, model = _train(run, files, "--epsilon", "3", "--random-state", "0")
    assert code == 0, err
    # ε/K per class, stated in words (one-vs-rest, sequential composition).
    assert "one-vs-rest over 3 classes" in out
    assert "ε/3 = 1 per class" in out
    m = load_model(str(model))
    assert sorted(m.classes_.tolist()) == sorted(CLASSES)
    event = m.privacy_event_
    assert event.epsilon == pytest.approx(3.0)
    assert [c.epsilon for c in event.children] == pytest.approx([1.0, 1.0, 1.0])
    pred = files["dir"] / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(files["data"]),
        "--out", str(pred),
    )  # fmt: skip
    assert code == 0, err
    labels = pred.read_text().split()
    assert len(labels) == 1500 and set(labels) <= set(CLASSES)


def test_proba_writes_the_class_names_as_header(run, files):
    code, _, err, model = _train(
        run, files, "--model", "logistic", "--epsilon", "5", "--random-state", "1"
    )
    assert code == 0, err
    pred = files["dir"] / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(files["data"]),
        "--proba", "--out", str(pred),
    )  # fmt: skip
    assert code == 0, err
    table = pd.read_csv(pred)
    assert sorted(table.columns) == sorted(CLASSES)
    assert len(table) == 1500
    np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-5)
    assert ((table >= 0) & (table <= 1)).all().all()
    # The probabilities agree with the labels predict writes.
    labels = files["dir"] / "l.csv"
    run("predict", "--model", str(model), "--data", str(files["data"]),
        "--out", str(labels))  # fmt: skip
    assert (table.idxmax(axis=1).to_numpy() == labels.read_text().split()).mean() > 0.99


def test_proba_refused_for_a_model_without_probabilities(run, files):
    code, _, err, model = _train(run, files, "--random-state", "0")
    assert code == 0, err
    pred = files["dir"] / "p.csv"
    code, _, err = run(
        "predict", "--model", str(model), "--data", str(files["data"]),
        "--proba", "--out", str(pred),
    )  # fmt: skip
    assert code == 2
    assert err.count("\n") == 1 and "--model logistic" in err
    assert "Traceback" not in err and not pred.exists()


# ---------------------------------------------------------- tune, holdout
def test_tune_spends_one_epsilon_and_records_the_selection(run, files):
    code, out, err, model = _train(
        run, files, "--tune", "--epsilon", "2", "--random-state", "3"
    )
    assert code == 0, err
    assert "--tune: Λ =" in out and "ε = 2 end to end" in out
    m = load_model(str(model))
    event = m.selection_event_  # the whole procedure, beside the final fit's
    assert event.mechanism == "private-select-then-fit"
    assert event.epsilon == pytest.approx(2.0)  # one ε end to end
    assert event.children[-1].to_dict() == m.privacy_event_.to_dict()
    # The grid is public: multiples of the a-priori Λ for the final fit's
    # n_F = 1500 − ⌈0.1·1500⌉ = 1350 rows (from n, ε, the classes and R only).
    auto = clone(m).set_params(regularization="auto")
    base = auto._resolve_regularization(1350, m.data_norm, 3)
    expected = [k * base for k in _workflow.TUNE_MULTIPLIERS]
    assert any(m.regularization == pytest.approx(g) for g in expected)
    code, out, _ = run("report", str(model))
    assert code == 0 and "private-select-then-fit" in out
    # The model still matches columns by name (predict works on raw data).
    code, _, err = run("evaluate", "--model", str(model), "--data", str(files["data"]))
    assert code == 0, err
    # A selection event that does not end with the model's own is refused.
    doc = json.loads(model.read_text())
    doc["selection_event"]["children"] = doc["selection_event"]["children"][:1]
    model.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="selection_event"):
        load_model(str(model))


def test_tune_refuses_an_explicit_regularization(run, files):
    code, _, err, model = _train(run, files, "--tune", "--regularization", "0.1")
    assert code == 2
    assert "--regularization" in err and "--tune" in err and err.count("\n") == 1
    assert not model.exists()


def test_holdout_prints_accuracy_with_a_warning_and_keeps_it_out_of_files(run, files):
    report = files["dir"] / "r.json"
    code, out, err, model = _train(
        run, files, "--holdout", "0.25", "--epsilon", "5", "--random-state", "0",
        "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    match = re.search(r"held-out accuracy (\d\.\d+)", out)
    assert match is not None and 0.5 < float(match.group(1)) <= 1.0
    # Beside it, the majority-class rate and the balanced accuracy of those rows.
    assert re.search(
        r"\(majority-class rate 0\.\d{4}, balanced accuracy 0\.\d{4}\)", out
    )
    assert "NOT differentially private" in err
    # Trained on the other 75 %: the event records the smaller n.
    details = load_model(str(model)).privacy_event_.children[0].details
    assert details["n_samples"] == 1125
    assert "held-out" not in model.read_text() and "held" not in report.read_text()


@pytest.mark.parametrize("value", ["0", "1", "1.5", "x"])
def test_bad_holdout_is_refused(run, files, value):
    code, _, err, model = _train(run, files, "--holdout", value)
    assert code == 2 and "--holdout" in err and err.count("\n") == 1
    assert not model.exists()


def test_holdout_split_is_a_partition():
    tr, te = _workflow.holdout_split(101, 0.2, 0)
    assert len(te) == 21 and len(tr) == 80
    assert sorted(np.concatenate([tr, te]).tolist()) == list(range(101))
    with pytest.raises(ValueError, match="--holdout"):
        _workflow.holdout_split(1, 0.5, 0)


# ---------------------------------------------------------- ε/δ warnings
def test_absurd_epsilon_is_warned_about(run, files):
    code, _, err, _ = _train(run, files, "--epsilon", "200", "--random-state", "0")
    assert code == 0, err
    assert "--epsilon 200 is so large that the guarantee is meaningless" in err


def test_epsilon_too_large_for_floating_point_is_refused_in_plain_words(run, files):
    code, _, err, model = _train(run, files, "--epsilon", "1e300")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "--epsilon 1e+300 is too large" in err and "scale must be" not in err
    assert not model.exists()


@pytest.mark.parametrize("tune", [(), ("--tune",)], ids=["fit", "tune"])
def test_delta_above_one_over_n_is_warned_and_said_unused(run, files, tune):
    # Regression (issue 20, item 5): --delta 0.01 with 1,500 rows and a pure
    # mechanism printed "δ = 0" and nothing else, although docs/cli.md promises
    # a warning for δ ≥ 1/n.
    code, out, err, model = _train(
        run, files, "--delta", "0.01", "--random-state", "0", *tune
    )
    assert code == 0, err
    assert load_model(str(model)).privacy_event_.delta == 0.0  # pure ε-DP
    assert "δ = 0" in out
    (line,) = [x for x in out.splitlines() if "δ is not used" in x]
    assert "--mechanism objective is ε-DP" in line and "--delta 0.01" in line
    (warning,) = [x for x in err.splitlines() if "at least 1 / (number" in x]
    assert warning.startswith("dpsvm: warning: --delta 0.01") and "not use δ" in warning
    assert "1500" not in warning and "1,500" not in warning  # n: compared only


def test_small_unused_delta_is_said_in_one_line_without_a_warning(run, files):
    code, out, err, _ = _train(run, files, "--delta", "1e-9", "--random-state", "0")
    assert code == 0, err
    assert sum("δ is not used" in x for x in out.splitlines()) == 1
    assert "at least 1 / (number" not in err


def test_no_delta_no_delta_line(run, files):
    code, out, err, _ = _train(run, files, "--random-state", "0")
    assert code == 0, err
    assert "δ is not used" not in out + err


def test_sweep_says_delta_is_not_used_and_warns(run, files):
    code, out, err = run(
        "sweep", "--data", str(files["data"]), "--schema", str(files["schema"]),
        "--epsilons", "1", "--seeds", "1", "--delta", "0.01", "--random-state", "0",
        "--out-csv", str(files["dir"] / "s.csv"),
    )  # fmt: skip
    assert code == 0, err
    assert sum("δ is not used" in x for x in out.splitlines()) == 1
    assert "--delta 0.01 is at least 1 / (number of training rows)" in err


def test_delta_auto_resolves_from_the_row_count(run, files):
    # --delta auto resolves from the public row count: 0 for a pure mechanism.
    code, _, err, model = _train(run, files, "--delta", "auto", "--random-state", "0")
    assert code == 0, err
    assert load_model(str(model)).privacy_event_.delta == 0.0


def test_privacy_parameter_warnings_thresholds():
    warn = _workflow.privacy_parameter_warnings
    assert warn(50.0, 0.0, 10) == []  # at the threshold: no warning
    assert len(warn(50.1, 0.0, 10)) == 1
    assert warn(1.0, 0.0099, 100) == []  # δ < 1/n
    (note,) = warn(1.0, 0.01, 100)  # δ = 1/n
    assert "--delta" in note and "100" not in note and "meaningless" in note
    (unused,) = warn(1.0, 0.01, 100, delta_used=False)
    assert "does not use δ" in unused and "100" not in unused


def test_unused_delta_line():
    line = _workflow.unused_delta_line
    assert line(0.01, 0.0, "output").startswith("δ is not used: --mechanism output")
    assert line(0.0, 0.0, "output") is None  # no δ given
    assert line(0.01, 0.01, "output") is None  # δ spent
    assert line("auto", 0.0, "output") is None  # a rule, not a number


# ------------------------------------------------------------------ report
def test_report_says_what_is_protected_and_what_was_public(run, files):
    code, _, err, model = _train(
        run, files, "--model", "logistic", "--epsilon", "1.5", "--random-state", "0"
    )
    assert code == 0, err
    code, out, err = run("report", str(model))
    assert code == 0, err
    assert "ε-differential privacy with ε = 1.5 (pure DP, δ = 0)" in out
    assert "all its feature values and its label" in out and "replace-one" in out
    assert "Chaudhuri, Monteleoni & Sarwate" in out  # the paper and theorem
    assert "one-vs-rest over 3 classes" in out and "ε/3 = 0.5 per class" in out
    assert "certified solver residual charged" in out
    assert "age: numeric range [18, 80]" in out and "city: 3 declared categories" in out
    assert "Non-private steps" in out and "none recorded" in out


def test_report_calls_an_infinite_epsilon_not_private():
    from dpsvm.accounting import PrivacyEvent
    from dpsvm.models import DPLinearSVC

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(50, 2)) / 3, np.repeat([-1, 1], 25)
    model = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)
    model.privacy_event_ = PrivacyEvent("exact-erm", float("inf"))
    text = _workflow.render_report(model, "m.json")
    assert "NOT differentially private" in text
    assert "nothing is guaranteed" in text
    assert "- exact-erm" in text.split("Non-private steps")[1]


def test_report_of_a_missing_model_is_one_line(run, tmp_path):
    code, _, err = run("report", str(tmp_path / "none.json"))
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err


# ------------------------------------------------------------------- sweep
def test_sweep_writes_a_table_and_a_png(run, files):
    table, plot = files["dir"] / "t.csv", files["dir"] / "p.png"
    code, _, err = run(
        "sweep", "--data", str(files["data"]), "--schema", str(files["schema"]),
        "--epsilons", "0.5", "5", "--seeds", "2", "--model", "logistic",
        "--random-state", "0", "--out-csv", str(table), "--out-png", str(plot),
    )  # fmt: skip
    assert code == 0, err
    assert "NOT differentially private" in err
    frame = pd.read_csv(table)
    # The former columns first, then the honest metrics (tests/cli/test_cli_metrics.py).
    assert list(frame.columns[:5]) == list(_workflow.SWEEP_COLUMNS)
    assert {"majority_rate", "balanced_accuracy_mean", "roc_auc_mean"} <= set(frame)
    assert frame["epsilon"].tolist() == [0.5, 5.0]
    assert (frame["seeds"] == 2).all()
    assert frame["accuracy_mean"].between(0, 1).all()
    # The non-private baseline on the same features beats chance (1/3) clearly.
    assert (frame["nonprivate_accuracy"] > 0.6).all()
    assert plot.read_bytes()[:8] == PNG_MAGIC


def test_sweep_removes_its_table_when_the_plot_cannot_be_written(
    run, files, monkeypatch
):
    import dpsvm.io

    write = dpsvm.io.atomic_write_bytes

    def failing(path, data, *args, **kwargs):
        if str(path).endswith(".png"):
            raise OSError(f"{path}: disk full")
        return write(path, data, *args, **kwargs)

    monkeypatch.setattr("dpsvm.io.atomic_write_bytes", failing)
    table, plot = files["dir"] / "t.csv", files["dir"] / "p.png"
    code, _, err = run(
        "sweep", "--data", str(files["data"]), "--schema", str(files["schema"]),
        "--epsilons", "1", "--seeds", "1", "--random-state", "0",
        "--out-csv", str(table), "--out-png", str(plot),
    )  # fmt: skip
    assert code == 1 and "disk full" in err and "Traceback" not in err
    assert not table.exists() and not plot.exists()  # no partial output


def test_sweep_without_matplotlib_is_refused_before_any_work(run, files, monkeypatch):
    def missing():
        raise ImportError("--out-png needs matplotlib: pip install 'dpsvm[plot]'")

    monkeypatch.setattr("dpsvm.cli._sweep.import_pyplot", missing)
    table, plot = files["dir"] / "t.csv", files["dir"] / "p.png"
    code, _, err = run(
        "sweep", "--data", str(files["data"]), "--schema", str(files["schema"]),
        "--epsilons", "1", "--out-csv", str(table), "--out-png", str(plot),
    )  # fmt: skip
    assert code == 1 and err.count("\n") == 1 and "dpsvm[plot]" in err
    assert not table.exists() and not plot.exists()


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("--epsilons", "0"), "epsilon"),
        (("--epsilons", "1", "--seeds", "0"), "--seeds"),
        (("--epsilons", "1", "--holdout", "2"), "--holdout"),
    ],
)
def test_sweep_refusals_are_one_line_and_write_nothing(run, files, argv, needle):
    table = files["dir"] / "t.csv"
    code, _, err = run(
        "sweep", "--data", str(files["data"]), "--schema", str(files["schema"]),
        *argv, "--out-csv", str(table),
    )  # fmt: skip
    assert code == 2 and needle in err and err.count("\n") == 1
    assert "Traceback" not in err and not table.exists()


def test_progress_is_silent_when_not_a_terminal(capsys):
    assert list(_workflow.progress(range(3), total=3, desc="x", quiet=False)) == [
        0,
        1,
        2,
    ]
    with _workflow.busy("x", quiet=False):
        pass
    assert capsys.readouterr().err == ""


def test_example_adult_schema_is_valid_and_matches_the_public_codebook():
    from pathlib import Path

    from dpsvm.datasets.adult import ADULT_CATEGORIES, ADULT_NUMERIC_BOUNDS
    from dpsvm.preprocessing import NumericFeature, PublicSchema

    path = Path(__file__).parents[2] / "examples" / "adult_schema.json"
    schema = PublicSchema.from_json(str(path))
    assert list(schema.classes) == ["<=50K", ">50K"]
    for f in schema.features:
        if isinstance(f, NumericFeature):
            assert (f.lower, f.upper) == tuple(ADULT_NUMERIC_BOUNDS[f.column])
        else:
            assert list(f.categories) == list(ADULT_CATEGORIES[f.column])


def test_convergence_failure_names_a_cli_option_not_max_iter(run, files, monkeypatch):
    from dpsvm.exceptions import DPSVMConvergenceError
    from dpsvm.models import DPLinearSVC

    def failing_fit(self, X, y):
        raise DPSVMConvergenceError("stopped. Increase max_iter (a larger tol ...)")

    monkeypatch.setattr(DPLinearSVC, "fit", failing_fit)
    code, _, err, model = _train(run, files)
    assert code == 1 and err.count("\n") == 1
    assert "--regularization" in err and "max_iter" not in err and "tol" not in err
    assert not model.exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_progress_bar_on_a_terminal_unless_quiet(monkeypatch, quiet):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    items = list(_workflow.progress(range(3), total=3, desc="sweep", quiet=quiet))
    assert items == [0, 1, 2]
    assert ("sweep" in terminal.getvalue()) is not quiet
