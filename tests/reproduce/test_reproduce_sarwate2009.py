# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm reproduce sarwate2009`` on tiny synthetic data (seconds).

The Adult files are synthetic (random records in the official layout, written
to a temporary directory), so the tests need no real data; the run uses the
hidden ``--tiny`` configuration (2 folds, 1 draw, 2 ε values, a few hundred
nested-balls points).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dpsvm.datasets.adult import ADULT_CATEGORIES
from dpsvm.models import DPLinearSVC, NonPrivateLinearClassifier
from dpsvm.reproduce import (
    ReproductionConfig,
    ReproductionError,
    _data,
    _runner,
    make_config,
    paper_numbers,
)
from dpsvm.reproduce._data import load_datasets
from dpsvm.reproduce._jobs import output_perturbation_from_solution
from dpsvm.reproduce._paper import FIG2A, FIG3A, FIG3B
from dpsvm.reproduce._progress import Progress
from dpsvm.reproduce._report import build_comparisons, render_markdown
from dpsvm.reproduce.cli import (
    add_reproduce_subparser,
    main,
    run_reproduce_command,
)

pytest.importorskip("matplotlib")

_CAT_ORDER = (
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
)


def _adult_line(rng: np.random.Generator, test: bool) -> str:
    cats = {
        c: ADULT_CATEGORIES[c][rng.integers(len(ADULT_CATEGORIES[c]))]
        for c in _CAT_ORDER
    }
    age = int(rng.integers(17, 90))
    edu_num = int(rng.integers(1, 17))
    hours = int(rng.integers(1, 99))
    gain = int(rng.integers(0, 5000)) if rng.random() < 0.2 else 0
    # A label with some signal, so that the classifiers learn something.
    score = 0.05 * (age - 40) + 0.4 * (edu_num - 10) + 0.03 * (hours - 40)
    label = ">50K" if score + rng.normal() > 1.0 else "<=50K"
    fields = [
        str(age),
        cats["workclass"],
        str(int(rng.integers(20000, 500000))),
        cats["education"],
        str(edu_num),
        cats["marital-status"],
        cats["occupation"],
        cats["relationship"],
        cats["race"],
        cats["sex"],
        str(gain),
        "0",
        str(hours),
        cats["native-country"],
        label + ("." if test else ""),
    ]
    return ", ".join(fields)


@pytest.fixture(scope="module")
def adult_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    target = root / "adult"
    target.mkdir()
    rng = np.random.default_rng(0)
    train = [_adult_line(rng, False) for _ in range(300)]
    test = [_adult_line(rng, True) for _ in range(100)]
    (target / "adult.data").write_text("\n".join(train) + "\n")
    (target / "adult.test").write_text(
        "|1x3 Cross validator\n" + "\n".join(test) + "\n"
    )
    return root


def _fake_kdd(data_dir: object, config: ReproductionConfig) -> _data.Dataset:
    """A synthetic stand-in for the KDD subset (the real files are not shipped)."""
    rng = np.random.default_rng(5)
    n = config.kdd_subset
    X = np.abs(rng.normal(size=(n, 12)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=n) > 0, 1, -1)
    return _data.Dataset(
        name="kdd",
        X=X,
        y=y.astype(np.int64),
        splits=_data._cv_splits(n, config, 2),
        description="synthetic stand-in for KDD Cup 99 (tests)",
        info={"n_samples": n, "n_features": 12},
    )


@pytest.fixture(scope="module")
def tiny_run(
    adult_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, int, str, str]:
    """One --tiny run through the CLI, with a synthetic KDD data set."""
    out = tmp_path_factory.mktemp("run") / "report"
    err = io.StringIO()
    stdout = io.StringIO()
    parser = argparse.ArgumentParser(prog="dpsvm")
    add_reproduce_subparser(parser.add_subparsers(dest="command"))
    argv = ["reproduce", "sarwate2009", "--data-dir", str(adult_dir), "--tiny"]
    args = parser.parse_args([*argv, "--out", str(out)])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_data, "_load_kdd", _fake_kdd)
        code = run_reproduce_command(args, out=stdout, err=err)
    return out, code, stdout.getvalue(), err.getvalue()


def _all_paper_numbers() -> list[str]:
    numbers: list[float] = []
    for row in FIG2A.values():
        numbers += row
    numbers += [v for row in FIG3A["alg1"] for v in row]
    numbers += list(FIG3B["huber_svm"])
    numbers += [v for row in FIG3B["alg1"] for v in row]
    numbers += [v for row in FIG3B["sensitivity"] for v in row]
    numbers += [0.0506, 0.0508, 0.1141]
    # Fig. 3(a)'s Huber column is printed with 5 decimals, everything else 4.
    return [f"{v:.4f}" for v in numbers] + [f"{v:.5f}" for v in FIG3A["huber_svm"]]


@pytest.mark.slow
def test_tiny_run_writes_report_plots_and_json(tiny_run) -> None:
    out, code, stdout, err = tiny_run
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert "sarwate2009.md" in names and "sarwate2009.json" in names
    pngs = [n for n in names if n.endswith(".png")]
    # 1(a), 1(b), 1(c), Adult learning curve, 1(d)-(e), 1(f), 4(a), 4(b).
    assert len(pngs) == 8, names
    for n in pngs:
        assert (out / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [n for n in names if n.startswith(".")], "temporary files left"
    assert "wrote" in stdout
    # The time estimate comes before the work, then a carriage-return line.
    assert err.index("expected time is about") < err.index("\rsarwate2009: ")
    assert " fits " in err and "ETA" in err


@pytest.mark.slow
def test_report_shows_every_paper_number(tiny_run) -> None:
    out, *_ = tiny_run
    md = (out / "sarwate2009.md").read_text()
    assert "TINY run" in md
    assert "dpsvm reproduce sarwate2009 --data-dir" in md and "--tiny" in md
    for text in _all_paper_numbers():
        assert text in md, f"paper number {text} missing from the report"
    for name, _ in json.loads((out / "sarwate2009.json").read_text())["figures"]:
        assert f"]({name})" in md


@pytest.mark.slow
def test_report_states_cpu_time_and_machine_load(tiny_run) -> None:
    out, *_ = tiny_run
    timing = json.loads((out / "sarwate2009.json").read_text())["results"]["timing"]
    cpu = timing["cpu_seconds"]
    assert cpu > 0
    assert sum(timing["job_cpu_seconds_by_kind"].values()) <= cpu + 1e-9
    if timing["load_average_start"] is not None:  # POSIX
        assert len(timing["load_average_start"]) == 3
    md = (out / "sarwate2009.md").read_text()
    assert f"({cpu:,.0f} s;" in md and "load average (1, 5, 15 min)" in md


@pytest.mark.slow
def test_json_has_ours_paper_and_differences(tiny_run) -> None:
    out, *_ = tiny_run
    doc = json.loads((out / "sarwate2009.json").read_text())
    assert doc["format"] == "dpsvm-reproduction" and doc["mode"] == "tiny"
    assert doc["paper_numbers"] == json.loads(json.dumps(paper_numbers()))
    rows = {r["method"]: r for r in doc["comparisons"]["fig2a"]["rows"]}
    # Rows in the paper's order: SVM, sensitivity, LR, Algorithm 1.
    assert list(rows)[:2] == ["huber_svm", "sensitivity"]
    for col, paper in enumerate((0.1762, 0.1853, 0.0179, 0.0181)):
        cell = rows["alg1_2009"]["cells"][col]
        assert cell["paper"] == paper
        assert 0.0 <= cell["ours"] <= 1.0
        assert math.isclose(cell["diff"], cell["ours"] - cell["paper"])
    # Fig. 3(a): the tiny grid (Λ = 1e-2, 1e-3; ε = 0.2, 0.1) inside the union
    # with the paper's grid (6 Λ × 4 ε).
    t = next(
        t for t in doc["comparisons"]["fig3a"]["tables"] if t["method"] == "alg1_2009"
    )
    assert t["epsilons"] == [0.2, 0.15, 0.1, 0.05]
    by_lam = {r["lambda"]: r["cells"] for r in t["rows"]}
    assert sorted(by_lam) == sorted(FIG3A["lambdas"])
    assert by_lam[1e-3][0]["paper"] == 0.1762 and by_lam[1e-3][0]["ours"] is not None
    assert by_lam[1e-3][2]["paper"] == 0.1853 and by_lam[1e-3][2]["ours"] is not None
    assert by_lam[1e-3][1]["ours"] is None  # ε = 0.15 is not in the tiny grid
    assert by_lam[1e-7][0] == {
        "ours": None,
        "paper": 0.2909,
        "diff": None,
        "std": None,
        "n": 0,
    }
    # Fig. 3(b) (synthetic KDD): the sensitivity method's paper column.
    sens = next(
        t for t in doc["comparisons"]["fig3b"]["tables"] if t["method"] == "sensitivity"
    )
    by_lam = {r["lambda"]: r["cells"] for r in sens["rows"]}
    assert by_lam[1e-1][0]["paper"] == 0.0753 and by_lam[1e-1][0]["ours"] is not None
    kern = {r["method"]: r for r in doc["comparisons"]["fig2b"]["rows"]}
    assert kern["alg2_2009"]["paper"] == 0.1141
    assert kern["alg2_2009"]["ours"] is not None
    # Counts: 2 folds × 1 draw per private cell; every error is a rate.
    adult = doc["results"]["grids"]["adult"]
    assert adult["methods"]["alg1"][0][0]["n"] == 2
    for g in doc["results"]["grids"].values():
        for rows_ in g["methods"].values():
            for row in rows_:
                for c in row:
                    assert c["mean"] is None or 0.0 <= c["mean"] <= 1.0


@pytest.mark.slow
def test_report_without_kdd_says_so_and_keeps_paper_numbers(tiny_run) -> None:
    out, *_ = tiny_run
    doc = json.loads((out / "sarwate2009.json").read_text())
    res = doc["results"]
    del res["grids"]["kdd"], res["learning_curves"]["kdd"]
    doc["comparisons"] = build_comparisons(res, 0.25)
    md = render_markdown(doc, make_config("tiny"))
    missing = "not rerun: the KDD Cup 99 files"
    assert doc["comparisons"]["fig3b"]["missing"].startswith(missing)
    rows = {r["method"]: r for r in doc["comparisons"]["fig2a"]["rows"]}
    assert rows["huber_svm"]["cells"][2]["missing"].startswith(missing)
    assert f"KDD columns: **{missing}" in md and f"**KDD columns {missing}" in md
    for text in _all_paper_numbers():
        assert text in md, f"paper number {text} missing from the report"


def test_missing_kdd_is_a_note(adult_dir: Path) -> None:
    datasets, notes = load_datasets(adult_dir, make_config("tiny"))
    assert sorted(datasets) == ["adult", "adult-compact", "nested-balls"]
    assert any(n.startswith("KDD files not found") for n in notes)
    # The paper's data-max scaling is flagged as outside the DP guarantee.
    assert any("data-max" in n for n in notes)
    assert datasets["adult"].X.shape[1] == 105


def test_missing_data_dir_leaves_nothing(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    code = main(
        [
            "sarwate2009",
            "--data-dir",
            str(tmp_path / "nope"),
            "--tiny",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("dpsvm: error: --data-dir ") and "no such directory" in err
    assert err.count("\n") == 1
    assert not out.exists()


def test_missing_adult_files_leave_nothing(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "out"
    code = main(["sarwate2009", "--data-dir", str(empty), "--tiny", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert "UCI Adult files" in err and str(empty) in err
    assert not out.exists()


def test_failure_during_run_leaves_no_partial_report(
    adult_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "existing"
    out.mkdir()
    (out / "keep.txt").write_text("other file")

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated failure in the middle of the run")

    monkeypatch.setattr(_runner, "_run_jobs", boom)
    with pytest.raises(RuntimeError, match="simulated"):
        from dpsvm.reproduce import run_sarwate2009

        run_sarwate2009(adult_dir, out, config=make_config("tiny"))
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_out_is_a_file(adult_dir: Path, tmp_path: Path, capsys) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    code = main(
        ["sarwate2009", "--data-dir", str(adult_dir), "--tiny", "--out", str(f)]
    )
    assert code == 1
    assert "is not a directory" in capsys.readouterr().err
    assert f.read_text() == "x"


def test_usage_errors(capsys) -> None:
    assert main(["nosuchpaper"]) == 2
    assert main(["sarwate2009", "--draws", "0"]) == 2
    assert "--draws must be >= 1" in capsys.readouterr().err
    assert main(["sarwate2009", "--n-jobs", "0"]) == 2


def test_output_shortcut_equals_the_estimator() -> None:
    # The grid reuses the Huber SVM's solution for the sensitivity method's 50
    # draws; it must release exactly what DPLinearSVC(mechanism="output") does
    # for the same generator: coef + b, ‖b‖ ~ Gamma(d, (2/(nΛ))(1 + 2·1e-3)/ε).
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=400) > 0, 1, -1)
    lam, eps = 1e-2, 0.5
    est = DPLinearSVC(
        mechanism="output",
        epsilon=eps,
        regularization=lam,
        fit_intercept=False,
        classes=[-1, 1],
        random_state=11,  # the stream of np.random.default_rng(11)
    ).fit(X, y)
    ref = NonPrivateLinearClassifier(regularization=lam, classes=[-1, 1]).fit(X, y)
    ours = output_perturbation_from_solution(
        ref.coef_.ravel(), 400, lam, eps, np.random.default_rng(11)
    )
    scale = 2.0 / (400 * lam) * (1 + 2e-3) / eps
    assert math.isclose(est.privacy_event_.details["noise_scale_internal"], scale)
    np.testing.assert_allclose(ours, est.coef_.ravel(), rtol=0, atol=1e-6)


def test_config_presets_and_overrides() -> None:
    full = make_config("full")
    assert (full.folds, full.n_splits, full.draws) == (10, 10, 50)
    assert full.adult_lambdas == FIG3A["lambdas"]
    assert full.adult_epsilons == FIG3A["epsilons"]
    assert full.kdd_lambdas == FIG3B["lambdas"]
    assert len(full.tuning_lambdas) == 7  # paper footnote 5
    quick = make_config("quick", folds=3, draws=4)
    assert (quick.folds, quick.n_splits, quick.draws) == (3, 10, 4)
    assert make_config("quick", folds=12).n_splits == 12
    with pytest.raises(ValueError, match="mode"):
        make_config("huge")
    with pytest.raises(ValueError, match="draws"):
        make_config(draws=0)


def test_progress_line_counts_and_eta() -> None:
    buf = io.StringIO()
    bar = Progress(10, 10.0, buf, label="t", min_interval=0.0)
    bar.advance(5, 5.0)
    assert "\rt: 5/10 fits   50.0%" in buf.getvalue()
    bar.advance(5, 5.0)
    bar.close()
    assert "10/10 fits  100.0%" in buf.getvalue()
    assert "ETA 0s" in buf.getvalue()


def test_reproduction_error_is_a_value_error() -> None:
    # The dpsvm wrapper reports ValueErrors as one line, exit status 1.
    assert issubclass(ReproductionError, ValueError)


def test_missing_matplotlib_is_a_clear_error(
    adult_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now fails
    out = tmp_path / "out"
    code = main(
        ["sarwate2009", "--data-dir", str(adult_dir), "--tiny", "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "matplotlib" in err and "pip install" in err
    assert not out.exists()
