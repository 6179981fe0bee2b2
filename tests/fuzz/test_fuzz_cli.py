# SPDX-License-Identifier: BSD-3-Clause
"""Property-based fuzzing of the ``dpsvm`` command line (``dpsvm.cli.main``).

Random argument vectors (commands, options with valid and invalid values,
paths to good, bad, missing and directory files, junk tokens) run against random
CSV and LibSVM files (headers, NaN, text, ragged rows, invalid UTF-8, empty
files) and good or corrupted model files. Every run must

* exit with status 0, 1 or 2, never raise and never print a traceback;
* on failure, end standard error with exactly one ``dpsvm: error: ...`` line
  (other lines are ``dpsvm: warning: ...``);
* on failure, leave the directory exactly as it was (no partial or temporary
  output file, no input modified); on success, create or change only the
  declared ``--out``/``--report`` files, complete (a model file loads).

The ``demo`` command and the named data sets are excluded (they train on
hundreds to tens of thousands of rows); ``demo --help`` is included.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

cli = pytest.importorskip("dpsvm.cli")
from dpsvm.io import load_model  # noqa: E402 - after the importorskip

FUZZ = settings.get_profile("dpsvm-fuzz")
SCALE = float(os.environ.get("DPSVM_FUZZ_SCALE", "1"))


def examples(n: int) -> int:
    """Number of examples of a test, scaled by ``DPSVM_FUZZ_SCALE``."""
    return max(1, round(n * SCALE))


# --------------------------------------------------------------------------- #
# Files
# --------------------------------------------------------------------------- #
CELLS = ["0.5", "-1", "3e2", "0", "1e309", "nan", "inf", "", "abc", " 2 ", "1,5", "é"]


@st.composite
def csv_texts(draw: st.DrawFn) -> bytes:
    """CSV files: mostly well formed, with every kind of defect sprinkled in."""
    kind = draw(
        st.sampled_from(
            ["good", "good", "good", "good", "cells", "ragged", "empty", "binary"]
        )
    )
    if kind == "empty":
        return draw(st.sampled_from([b"", b"\n", b"a,b,c\n", b"\xef\xbb\xbf1,2\n"]))
    if kind == "binary":
        return draw(st.binary(max_size=40))
    n = draw(st.sampled_from([8, 12, 3, 1, 0]))
    d = draw(st.sampled_from([2, 1, 3]))
    labels = draw(
        st.sampled_from(
            [["-1", "1"], ["-1", "1"], ["0", "1"], ["1", "2", "3"], ["1"], ["a", "b"]]
        )
    )
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    lines = []
    if draw(st.booleans()):
        lines.append(",".join([f"f{j}" for j in range(d)] + ["label"]))
    for i in range(n):
        row = [f"{v:.6g}" for v in rng.uniform(-0.5, 0.5, size=d)]
        row.append(labels[i % len(labels)])
        if kind == "cells" and rng.random() < 0.3:
            row[rng.integers(len(row))] = CELLS[rng.integers(len(CELLS))]
        if kind == "ragged" and rng.random() < 0.3:
            row = row[:-1] if rng.random() < 0.5 else [*row, "0"]
        lines.append(",".join(row))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return (newline.join(lines) + (newline if lines else "")).encode()


LIBSVM = [b"1 1:0.5 2:-0.1\n-1 1:-0.3\n", b"1 0:1\n", b"x 1:a\n", b"", b"1 2:0.1 1:3\n"]


def _model_text(kind: str, good: str) -> str:
    if kind == "good":
        return good
    if kind == "truncated":
        return good[: len(good) // 2]
    if kind == "not-json":
        return "not json at all"
    doc = json.loads(good)
    if kind == "wrong-format":
        doc["format"] = "something-else"
    elif kind == "nan-coef":
        return good.replace(str(doc["state"]["coef"][0][0]), "NaN", 1)
    elif kind == "missing-key":
        doc.pop(next(iter(doc)))
    return json.dumps(doc)


@pytest.fixture(scope="module")
def good_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A valid model file (2 features), trained once through the CLI itself."""
    d = tmp_path_factory.mktemp("model")
    data = d / "train.csv"
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(40, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    rows = (f"{a!r},{b!r},{c}" for (a, b), c in zip(X.tolist(), y, strict=True))
    data.write_text("\n".join(rows))
    out = d / "model.json"
    with contextlib.redirect_stdout(io.StringIO()):
        argv = ["train", "--data", str(data), "--no-header", "--out", str(out)]
        code = cli.main([*argv, "--classes", "-1,1", "--random-state", "0"])
    assert code == 0
    return out.read_text()


# --------------------------------------------------------------------------- #
# Argument vectors
# --------------------------------------------------------------------------- #
# Option values: valid ones first (hypothesis favours early entries), then edge
# cases and invalid ones.
DATA_OPTIONS: dict[str, list[str]] = {
    "--data": ["DATA", "DATA", "LIBSVM", "MISSING", "DIR", "MODEL"],
    "--format": ["csv", "libsvm", "xml"],
    "--label-column": ["-1", "0", "label", "2", "9", "nope", "-9"],
    "--dataset": ["nope", "iris"],
    "--data-dir": ["DIR", "MISSING"],
    "--feature-set": ["full", "compact", "tiny"],
}
TRAIN_OPTIONS: dict[str, list[str]] = {
    **DATA_OPTIONS,
    "--out": ["OUT", "OUT", "REPORT", "DATA", "DIR", "NODIR", "MODEL"],
    "--report": ["REPORT", "REPORT", "OUT", "NODIR", "DIR"],
    "--model": ["svm", "logistic", "xyz"],
    "--epsilon": ["1", "0.5", "1e-300", "1e300", "0", "-1", "nan", "inf", "abc"],
    "--delta": ["0", "1e-6", "1", "-0.1", "nan"],
    "--mechanism": [
        "objective",
        "output",
        "output-laplace",
        "objective-2009",
        "rubinstein",
    ],
    "--kernel": ["linear", "rbf", "rbf", "laplacian", "cauchy", "poly"],
    "--gamma": ["0.5", "1", "scale", "auto", "0", "-1", "nan", "inf", "1e-300"],
    "--n-components": ["8", "16", "0", "-3", "1.5", "x", "2000000"],
    "--feature-map": ["cos-sin", "cos-phase", "cos"],
    "--norm-handling": ["scale", "bound", "clip", "paper"],
    "--feature-seed": ["0", "3", "-1", "x"],
    "--loss": ["huber", "hinge", "logistic", "squared"],
    "--huber-h": ["0.5", "1e300", "0", "-1"],
    "--regularization": ["0.01", "1", "1e-300", "0", "inf"],
    "--data-norm": ["1", "2", "1e-300", "1e300", "0"],
    "--classes": ["-1,1", "-1,1", "0,1", "1,1", "1", "a,b", "1,2,3", "-1,inf"],
    "--random-state": ["0", "7", "-1", "18446744073709551616", "x"],
    "--n-features": ["2", "3", "1", "0", "x"],
}
PREDICT_OPTIONS: dict[str, list[str]] = {
    **DATA_OPTIONS,
    "--model": ["MODEL", "MODEL", "MISSING", "DATA", "DIR"],
    "--out": ["OUT", "OUT", "DATA", "MODEL", "DIR", "NODIR"],
}
EVALUATE_OPTIONS: dict[str, list[str]] = {
    **DATA_OPTIONS,
    "--model": ["MODEL", "MODEL", "MISSING", "DATA", "DIR"],
}
COMMANDS: dict[str, tuple[list[str], dict[str, list[str]]]] = {
    "train": (["--data", "DATA", "--out", "OUT"], TRAIN_OPTIONS),
    "predict": (
        ["--model", "MODEL", "--data", "DATA", "--out", "OUT"],
        PREDICT_OPTIONS,
    ),
    "evaluate": (["--model", "MODEL", "--data", "DATA"], EVALUATE_OPTIONS),
}
FLAGS = [
    "--fit-intercept",
    "--no-labels",
    "--header",
    "--no-header",
    "--help",
    "--version",
    "--",
    "-x",
]


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    command = draw(
        st.sampled_from(
            ["train", "predict", "evaluate", "train", "evaluate", "bogus", "", "demo"]
        )
    )
    if command == "demo":
        return ["demo", "--help"]  # demo trains on real data: only its help here
    if command not in COMMANDS:
        return [command] if command else []
    base, options = COMMANDS[command]
    argv = [command]
    if draw(st.integers(0, 5)) < 5:  # usually past "required arguments"
        argv += base
    for _ in range(draw(st.sampled_from([0, 1, 2, 0, 1, 3, 5]))):
        what = draw(
            st.sampled_from(["own", "own", "own", "own", "other", "flag", "junk"])
        )
        if what in ("own", "other"):
            table = options if what == "own" else TRAIN_OPTIONS
            opt = draw(st.sampled_from(sorted(table)))
            argv += [opt, draw(st.sampled_from(table[opt]))]
        elif what == "flag":
            argv.append(draw(st.sampled_from(FLAGS)))
        else:
            argv.append(draw(st.text(max_size=6)))
    return argv


def _resolve(argv: list[str], root: Path) -> list[str]:
    names = {
        "DATA": root / "data.csv",
        "LIBSVM": root / "data.libsvm",
        "MISSING": root / "missing.csv",
        "DIR": root / "sub",
        "MODEL": root / "model.json",
        "OUT": root / "out.json",
        "REPORT": root / "report.json",
        "NODIR": root / "no-such-dir" / "x.json",
    }
    return [str(names[a]) if a in names else a for a in argv]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(root.rglob("*"))
    }


def _last_value(argv: list[str], option: str) -> str | None:
    value = None
    for i, a in enumerate(argv[:-1]):
        if a == option:
            value = argv[i + 1]
    return value


def _declared_outputs(argv: list[str]) -> set[str]:
    out = set()
    for i, a in enumerate(argv[:-1]):
        if a in ("--out", "--report"):
            out.add(argv[i + 1])
        elif a.startswith(("--out=", "--report=")):
            out.add(a.split("=", 1)[1])
    return out


# --------------------------------------------------------------------------- #
# The property
# --------------------------------------------------------------------------- #
@settings(FUZZ, max_examples=examples(60), deadline=None)
@given(
    argv=argvs(),
    csv=csv_texts(),
    libsvm=st.sampled_from(LIBSVM),
    model_kind=st.sampled_from(
        [
            "good",
            "good",
            "truncated",
            "not-json",
            "wrong-format",
            "nan-coef",
            "missing-key",
        ]
    ),
)
def test_cli_exits_cleanly_and_leaves_no_partial_output(
    good_model, argv, csv, libsvm, model_kind
):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "data.csv").write_bytes(csv)
        (root / "data.libsvm").write_bytes(libsvm)
        (root / "sub").mkdir()
        (root / "model.json").write_text(_model_text(model_kind, good_model))
        args = _resolve(argv, root)
        before = _snapshot(root)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(args)
            except BaseException as exc:  # the property: main never raises
                pytest.fail(f"main raised {type(exc).__name__}: {exc}\nargv={args}")
        after = _snapshot(root)
        event(f"{args[0] if args else '(none)'} -> status {code}")
        _check_run(code, err.getvalue(), before, after, args, root)


def _check_run(
    code: Any,
    stderr: str,
    before: dict[str, bytes],
    after: dict[str, bytes],
    args: list[str],
    root: Path,
) -> None:
    context = f"argv={args}\nstatus={code}\nstderr={stderr!r}"
    assert code in (0, 1, 2), context
    assert "Traceback" not in stderr, context
    lines = stderr.splitlines()
    assert all(ln.startswith("dpsvm: ") for ln in lines), context
    errors = [ln for ln in lines if ln.startswith("dpsvm: error:")]
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    if code != 0:
        assert len(errors) == 1 and lines[-1] == errors[0], context
        assert not changed, f"a failed run changed {sorted(changed)}\n{context}"
        return
    assert not errors, context
    resolved_root = root.resolve()
    declared = {
        str(Path(p).resolve().relative_to(resolved_root))
        for p in _declared_outputs(args)
        if Path(p).resolve().is_relative_to(resolved_root)
    }
    assert changed <= declared, f"undeclared files {changed - declared}\n{context}"
    if args[:1] == ["train"]:
        for name in changed:
            json.loads((root / name).read_text())  # complete JSON, not partial
        model_path = _last_value(args, "--out")
        if model_path is not None and Path(model_path).is_file():
            model = load_model(model_path)
            assert np.all(np.isfinite(model.coef_)), context
