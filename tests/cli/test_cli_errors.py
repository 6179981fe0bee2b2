# SPDX-License-Identifier: BSD-3-Clause
"""Every bad input gives one error line, a non-zero status and no output file."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsvm.cli import _main as cli_main
from dpsvm.cli import _reading, main
from dpsvm.exceptions import BudgetExceededError, DPSVMConvergenceError
from dpsvm.io import save_model
from dpsvm.models import DPLinearSVC

GOOD_ROWS = [
    "a,b,label",
    "0.1,0.2,1",
    "-0.3,0.1,-1",
    "0.2,-0.1,1",
    "-0.2,-0.4,-1",
]


@pytest.fixture
def env(tmp_path, capsys):
    """Input files in ``in/``, outputs in ``out/``; ``run`` checks the contract."""
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    out.mkdir()

    def write(name: str, text: str | bytes) -> str:
        p = inp / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return str(p)

    def run(*argv: str, code: int | None = None) -> str:
        before = sorted(os.listdir(out))
        status = main([a.replace("{out}", str(out)) for a in argv])
        cap = capsys.readouterr()
        assert status != 0
        if code is not None:
            assert status == code, cap.err
        lines = cap.err.splitlines()
        assert len(lines) == 1, cap.err
        assert lines[0].startswith("dpsvm: error: ")
        assert "Traceback" not in cap.err + cap.out
        # No output and no temporary file (hidden names included) is left.
        assert sorted(os.listdir(out)) == before
        return lines[0]

    return write, run, out


def _train(data: str, *extra: str) -> tuple[str, ...]:
    return ("train", "--data", data, "--out", "{out}/m.json",
            "--report", "{out}/r.json", *extra)  # fmt: skip


# ------------------------------------------------------------ bad data files
@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("", "empty file"),
        ("\n  \n\n", "empty file"),
        ("x,y,label\n", "no data rows"),
        ("0.1,0.2,1\n0.3,1\n", "first row is all numbers"),
        ("a,b,label\n0.1,0.2,1\n0.3,1\n", "a row has 2 columns; expected 3"),
        ("a,b,label\n0.1,0.2,1\n0.1,0.2,0.3,1\n", "a row has 4 columns; expected 3"),
        ("a,b,label\n0.1,0.2,1\n0.1,abc,1\n", "column 2 holds a value that"),
        ("a,b,label\n0.1,0.2,1\n0.1,,1\n", "column 2 has an empty value"),
        ("a,b,label\n0.1,0.2,1\nnan,0.2,1\n", "column 1 holds a non-finite"),
        ("a,b,label\n0.1,0.2,1\n0.1,NaN,1\n", "holds a non-finite value"),
        ("a,b,label\n0.1,0.2,1\n0.1,0.2,inf\n", "column 3 holds a non-f"),
        ("a,b,label\n0.1,0.2,1\n-Infinity,0.2,1\n", "holds a non-finite value"),
        ("a,b,label\n0.1,0.2,1\n1e999,0.2,1\n", "holds a non-finite value"),
        ('a,b,label\n0.1,"multi\nline",1\n', "column 2 holds a value that"),
        (",a,label\n0,0.1,1\n1,0.2,-1\n", "first column has no name"),
        ("a,a,label\n0.1,0.2,1\n", "columns 1 and 2 of the first row have the same"),
        ("\n".join([*GOOD_ROWS, "0.3,0.3,2"]), "labels are not binary"),
        ("a,b,y\n0.1,0.2,1\n0.2,0.1,1\n", "labels are not binary"),
        ("a\n0.1\n0.2\n", "one column only"),
    ],
)
def test_bad_csv(env, content, match):
    write, run, _ = env
    line = run(*_train(write("d.csv", content)), code=1)
    assert match in line


def test_non_utf8_csv(env):
    write, run, _ = env
    assert "not UTF-8" in run(*_train(write("d.csv", b"a,b,y\n0.1,\xff,1\n")), code=1)


def test_missing_file_and_directory(env, tmp_path):
    _, run, _ = env
    assert "No such file or directory" in run(*_train(str(tmp_path / "nope.csv")))
    assert "Is a directory" in run(*_train(str(tmp_path / "in")), code=1)


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (("--classes", "-1,1,2"), "exactly two distinct labels"),
        (("--classes", "1,1"), "exactly two distinct labels"),
        (("--classes", "a,b"), "two numeric labels"),
        (
            ("--classes", "0,2"),
            "the labels include values outside the public label set --classes 0,2",
        ),
        (("--label-column", "5"), "--label-column 5 is out of range"),
        (("--label-column", "-4"), "out of range"),
        (("--no-header", "--label-column", "label"), "has no header row"),
    ],
)
def test_bad_labels(env, extra, match):
    write, run, _ = env
    rows = GOOD_ROWS[1:] if "--no-header" in extra else GOOD_ROWS
    line = run(*_train(write("d.csv", "\n".join(rows)), *extra))
    assert match in line


def test_label_column_name_not_in_header(env):
    write, run, _ = env
    data = write("d.csv", "\n".join(["a,b,y", *GOOD_ROWS[1:]]))
    assert "is not a column" in run(*_train(data, "--label-column", "label"), code=1)


# ------------------------------------------------------------- bad options
@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (("--epsilon", "0"), "epsilon must be a finite number > 0, got 0"),
        (("--epsilon=-1",), "epsilon must be a finite number > 0, got -1"),
        (("--epsilon", "nan"), "got nan"),
        (("--epsilon", "inf"), "got inf"),
        (("--epsilon", "one"), "epsilon must be a number"),
        (("--delta", "1"), "delta must be in [0, 1), got 1"),
        (("--delta=-0.1",), "delta must be in [0, 1)"),
        (("--delta", "nan"), "delta must be in [0, 1)"),
        (("--bogus",), "unrecognized arguments: --bogus"),
        (("--mechanism", "laplace"), "invalid choice: 'laplace'"),
        (("--mechanism", "objective-2009"), "invalid choice"),
        (("--loss", "hinge"), "--mechanism objective needs a differentiable loss"),
        (("--model", "logistic", "--loss", "huber"), "apply to --model svm only"),
        (
            ("--loss", "logistic", "--huber-h", "0.2"),
            "--huber-h applies to --loss huber",
        ),
        (("--regularization", "0"), "--regularization must be a finite number > 0"),
        (("--data-norm", "-2"), "expected one argument|--data-norm must be"),
        (("--random-state", "-3"), "--random-state must be in"),
        (("--data-dir", "/tmp"), "--data-dir applies to --dataset adult only"),
    ],
)
def test_bad_options_fail_before_reading(env, extra, match, monkeypatch):
    write, run, _ = env

    def no_reading(*args, **kwargs):  # pragma: no cover - must not be called
        raise AssertionError("the data were read")

    monkeypatch.setattr(_reading, "read_csv", no_reading)
    line = run(*_train(write("d.csv", "\n".join(GOOD_ROWS)), *extra), code=2)
    assert any(m in line for m in match.split("|")), line


@pytest.mark.parametrize(
    "argv",
    [
        (),
        ("fly",),
        ("train", "--out", "{out}/m.json"),
        ("train", "--data", "a.csv", "--dataset", "adult", "--out", "{out}/m.json"),
        ("predict", "--model", "m.json", "--dataset", "adult"),
        ("evaluate", "--dataset", "adult"),
        ("evaluate", "--model", "m.json", "--data", "x.csv", "--no-labels"),
        ("demo", "--epsilon", "0"),
        ("demo", "--draws", "0"),
    ],
)
def test_usage_errors(env, argv):
    _, run, _ = env
    run(*argv, code=2)


# ------------------------------------------------------------ bad outputs
def test_unwritable_outputs(env, tmp_path):
    write, run, out = env
    data = write("d.csv", "\n".join(GOOD_ROWS))
    base = ("train", "--data", data, "--classes", "-1,1")
    out_no = ("--out", str(out / "no" / "m.json"))
    assert "does not exist" in run(*base, *out_no, code=1)
    # The parent is a file, and the destination is a directory.
    assert "does not exist" in run(*base, "--out", f"{data}/m.json", code=1)
    assert "is a directory" in run(*base, "--out", str(out), code=1)
    report_no = ("--report", str(out / "no" / "r.json"))
    assert "does not exist" in run(*base, "--out", "{out}/m.json", *report_no, code=1)
    same = ("--out", "{out}/m.json", "--report", "{out}/m.json")
    assert "different files" in run(*base, *same, code=2)
    assert "overwrite the --data file" in run(*base, "--out", data, code=2)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions"
)
def test_read_only_output_directory(env):
    write, run, out = env
    data = write("d.csv", "\n".join(GOOD_ROWS))
    out.chmod(0o500)
    try:
        assert "not writable" in run(*_train(data, "--classes", "-1,1"), code=1)
    finally:
        out.chmod(0o700)


def test_report_failure_removes_the_model(env, monkeypatch):
    write, run, out = env
    data = write("d.csv", "\n".join(GOOD_ROWS))
    import dpsvm.io as dio

    real = dio.atomic_write_text

    def failing(path, text):
        if str(path).endswith("r.json"):
            assert (out / "m.json").exists()  # the model was written first
            raise PermissionError(13, "Permission denied", str(path))
        real(path, text)

    monkeypatch.setattr(dio, "atomic_write_text", failing)
    line = run(*_train(data, "--classes", "-1,1"), code=1)
    assert line == f"dpsvm: error: {out}/r.json: Permission denied"
    assert os.listdir(out) == []  # the model written first was removed


@pytest.mark.parametrize(
    "error",
    [
        DPSVMConvergenceError("solver stopped at 1e-8\nIncrease max_iter"),
        BudgetExceededError("Privacy budget exceeded"),
        OSError(28, "No space left on device"),
    ],
)
def test_fit_failures_are_one_line(env, monkeypatch, error):
    write, run, _ = env

    def failing_fit(self, X, y):
        raise error

    monkeypatch.setattr(DPLinearSVC, "fit", failing_fit)
    line = run(*_train(write("d.csv", "\n".join(GOOD_ROWS)), "--classes", "-1,1"))
    assert line.startswith("dpsvm: error: ")
    assert "\n" not in line


def test_keyboard_interrupt_exits_130(env, monkeypatch):
    _, run, _ = env

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli_main._COMMANDS, "demo", interrupted)
    assert run("demo", code=130) == "dpsvm: error: interrupted"


# -------------------------------------------------- predict / evaluate
@pytest.fixture
def model_file(tmp_path):
    X = np.array([[0.1, 0.2], [-0.3, 0.1], [0.2, -0.1], [-0.2, -0.4]])
    clf = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, [1, -1, 1, -1])
    path = tmp_path / "model.json"
    save_model(clf, path)
    return path


def test_predict_and_evaluate_errors(env, model_file):
    write, run, out = env
    good = write("d.csv", "\n".join(GOOD_ROWS))
    three = write("t.csv", "0.1,0.2,0.3,1\n")
    pred = ("--out", "{out}/p.csv")
    assert "first row is all numbers" in run(
        "predict", "--model", str(model_file), "--data", three, *pred, code=1
    )
    assert "3 feature columns, but the model was trained on 2" in run(
        "predict", "--model", str(model_file), "--data", three, "--no-header", *pred
    )
    assert "No such file" in run(
        "predict", "--model", "nope.json", "--data", good, *pred
    )
    doc = json.loads(model_file.read_text())
    doc["format_version"] = 7
    bad = write("bad.json", json.dumps(doc))
    assert "unsupported format_version 7" in run(
        "evaluate", "--model", bad, "--data", good, code=1
    )
    assert "pickle" in run("evaluate", "--model", write("p.pkl", b"\x80\x04."),
                           "--data", good)  # fmt: skip
    assert "Invalid dpsvm model file: not JSON" in run(
        "evaluate", "--model", good, "--data", good
    )
    assert "is a directory" in run(
        "predict", "--model", str(model_file), "--data", good, "--out", str(out)
    )
    assert "--out would overwrite an input file" in run(
        "predict", "--model", str(model_file), "--data", good, "--out", good
    )
    assert "index 0" in run(
        "evaluate", "--model", str(model_file), "--data",
        write("z.libsvm", "1 0:0.5 1:0.1\n"),
    )  # fmt: skip
    assert "empty file" in run(
        "evaluate", "--model", str(model_file), "--data", write("e.libsvm", "")
    )
    assert "--label-column applies to CSV files" in run(
        "evaluate", "--model", str(model_file), "--data", write("x.svm", "1 1:0.5\n"),
        "--label-column", "0", code=2,
    )  # fmt: skip


# ------------------------------------------------------------------- fuzz
_CELLS = st.one_of(
    st.sampled_from(
        [
            "1",
            "-1",
            "0.5",
            "-.25",
            "1e-3",
            "2",
            "nan",
            "inf",
            "",
            " ",
            "1,2",
            '"',
            "abc",
            "1.2.3",
            "\n",
            "\r\n",
            "\x00",
            "1e999",
            "١",
            "0x10",
            "1_0",
        ]
    ),
    st.text(max_size=6),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(rows=st.lists(st.lists(_CELLS, min_size=1, max_size=4), max_size=6))
def test_fuzzed_csv_never_tracebacks(rows):
    text = "\n".join(",".join(r) for r in rows)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "d.csv"
        data.write_text(text, encoding="utf-8", errors="surrogatepass")
        out_dir = Path(tmp) / "out"
        out_dir.mkdir()
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(["train", "--data", str(data), "--classes", "-1,1",
                           "--out", str(out_dir / "m.json")])  # fmt: skip
        lines = err.getvalue().splitlines()
        if status == 0:
            assert all(ln.startswith("dpsvm: warning:") for ln in lines)
            assert os.listdir(out_dir) == ["m.json"]
        else:
            assert status == 1
            assert len(lines) == 1 and lines[0].startswith("dpsvm: error: ")
            assert os.listdir(out_dir) == []


@pytest.mark.parametrize("cell", ["TRUE", "false", "2020-01-01", "12:30:00"])
def test_booleans_and_dates_are_not_numbers(env, cell):
    write, run, _ = env
    data = write("d.csv", f"a,b,label\n0.1,{cell},1\n0.2,{cell},-1\n")
    line = run(*_train(data, "--classes", "-1,1"), code=1)
    assert "column 2 holds a value that is not a decimal number" in line
