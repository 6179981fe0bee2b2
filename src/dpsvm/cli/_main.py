# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm`` command: ``demo``, ``train``, ``predict`` and ``evaluate``.

Errors are reported as one line ``dpsvm: error: <message>`` on standard error,
with exit status 2 for a usage error (bad option or option value) and 1 for a
failure while running (unreadable or malformed data, unwritable output, ...);
an interrupt exits with 130. No traceback is printed and no output file is left
behind: every file is written atomically (:func:`dpsvm.io.atomic_write_text`),
and ``train`` removes its model file when writing the report fails.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import os
import stat
import sys
import warnings
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from .. import __version__
from ..exceptions import DPSVMConvergenceError, PrivacyLeakWarning
from ..utils._cli import (
    PROG,
    UsageError,
    add_integer_argument,
    add_positive_argument,
    add_seed_argument,
    delta_option,
)
from ..utils._cli import RaisingParser as _Parser
from ..utils._cli import positive_option as _positive
from ._data import (
    DATASETS,
    DataError,
    labels_to_numbers,
    load_dataset,
    read_csv,
    read_frame,
    read_libsvm,
    resolve_label_column,
)
from ._demo import DEMO_EPSILONS
from ._metrics import (
    METRICS,
    declared_classes,
    evaluate_model,
    evaluation_json,
    evaluation_text,
    majority_warning,
    metrics_option,
    reorder_columns,
    sweep_rows,
    sweep_text,
)
from ._tabular import add_dialect_options, add_schema_subparser, run_schema_command
from ._weights import (
    add_weight_options,
    configure_weights,
    sample_weights,
    weight_column_name,
)
from ._workflow import (
    ABSURD_EPSILON,
    TUNE_GRID,
    TUNE_MULTIPLIERS,
    add_holdout_options,
    add_report_subparser,
    busy,
    holdout_split,
    holdout_warning,
    import_pyplot,
    privacy_parameter_warnings,
    progress,
    render_report,
    sweep_png,
    sweep_table,
    tuned,
    unused_delta_line,
)

__all__ = ["build_parser", "main"]

#: --mechanism: "output-laplace", "objective-laplace" and "objective-gaussian"
#: are for --kernel linear, "rubinstein" for the kernels; the non-private
#: "objective-2009" reading is not offered.
_MECHANISMS = (
    "objective",
    "objective-laplace",
    "objective-gaussian",
    "output",
    "output-laplace",
    "rubinstein",
)
#: The --mechanism values of --kernel linear only.
_LINEAR_ONLY_MECHANISMS = ("output-laplace", "objective-laplace", "objective-gaussian")
_LOSSES = ("huber", "hinge", "logistic")
#: --kernel: "linear" (DPLinearSVC / DPLogisticRegression) or a translation-
#: invariant kernel approximated by random Fourier features (DPKernelSVC).
_KERNELS = ("linear", "rbf", "laplacian", "cauchy")
#: Options that only a non-linear --kernel uses, as (option, argparse dest).
_KERNEL_OPTIONS = (
    ("--gamma", "gamma"),
    ("--n-components", "n_components"),
    ("--feature-map", "feature_map"),
    ("--norm-handling", "norm_handling"),
    ("--feature-seed", "feature_seed"),
)
_DEFAULT_N_COMPONENTS = 100
_MAX_N_COMPONENTS = 1_000_000
_LIBSVM_SUFFIXES = (".libsvm", ".svm", ".svmlight")
#: Options whose value may start with "-" (a negative label or column index).
_DASH_VALUE_OPTIONS = ("--classes", "--label-column", "--class-weight")
REPORT_FORMAT = "dpsvm-privacy-report"
REPORT_FORMAT_VERSION = 1


# ------------------------------------------------------------ option types
_epsilon = _positive("epsilon")
_delta = delta_option("delta")


def _gamma(text: str) -> float:
    if text.strip().lower() in ("scale", "auto"):
        raise argparse.ArgumentTypeError(
            f"--gamma {text!r} would be computed from the data, which the privacy "
            "guarantee does not cover; give the public kernel width as a number > 0"
        )
    return _positive("--gamma")(text)


def _classes(text: str) -> list[int] | list[float]:
    parts = [p.strip() for p in text.split(",")]
    values = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--classes takes two numeric labels such as -1,1; got {p!r}"
            ) from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"--classes: non-finite label {p!r}")
        values.append(v)
    if len(values) != 2 or values[0] == values[1]:
        raise argparse.ArgumentTypeError(
            f"--classes takes exactly two distinct labels such as -1,1; got {text!r}"
        )
    labels = labels_to_numbers(np.array(values))
    result: list[int] | list[float] = labels.tolist()
    return result


# ------------------------------------------------------------------ parser
def _priors(text: str) -> list[float]:
    """``--class-priors P1,P2,...``: public class proportions."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None
    if len(values) < 2 or not all(0.0 < v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError(
            "expected at least 2 proportions in (0, 1], one per class"
        )
    return values


def _add_data_options(p: argparse.ArgumentParser, *, part: str, labels: str) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", metavar="PATH", help="CSV or LibSVM data file")
    src.add_argument(
        "--dataset",
        choices=DATASETS,
        help=f"a named data set instead of a file (its {part} part; labels -1/+1)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="directory with the UCI Adult files (--dataset adult)",
    )
    p.add_argument(
        "--feature-set",
        choices=("full", "compact"),
        default="full",
        help="Adult feature layout (--dataset adult; default: full)",
    )
    p.add_argument(
        "--format",
        choices=("csv", "libsvm"),
        help="file format (default: libsvm for .libsvm/.svm/.svmlight, else csv). "
        "CSV: ',' separated decimal numbers, optional header row. LibSVM: "
        "'label index:value ...' with 1-based indices",
    )
    head = p.add_mutually_exclusive_group()
    head.add_argument(
        "--header",
        dest="header",
        action="store_const",
        const=True,
        help="the CSV file's first row is a header of column names",
    )
    head.add_argument(
        "--no-header",
        dest="header",
        action="store_const",
        const=False,
        help="the CSV file has no header row (by default the first row is the "
        "header, and a first row of numbers only is refused as ambiguous)",
    )
    add_dialect_options(p)
    if part == "training":
        add_integer_argument(
            p,
            "--n-features",
            1,
            10**8,
            metavar="N",
            help="LibSVM: the public number of features (required: the width is "
            "never read from the private file; an index above N is refused)",
        )
    lab = p.add_mutually_exclusive_group() if labels == "optional" else p
    lab.add_argument(
        "--label-column",
        metavar="N|NAME",
        help="CSV label column: 0-based index (negative counts from the end) or "
        "header name (default: the last column)",
    )
    if labels == "optional":
        lab.add_argument(
            "--no-labels",
            action="store_true",
            help="the CSV file has feature columns only",
        )


def _add_model_options(p: argparse.ArgumentParser, *, epsilon: bool = True) -> None:
    """The model and privacy options shared by ``train`` and ``sweep``."""
    p.add_argument(
        "--model",
        choices=("svm", "logistic"),
        default="svm",
        help="svm: DPLinearSVC, or DPKernelSVC with a non-linear --kernel; "
        "logistic: DPLogisticRegression (--kernel linear only) (default svm)",
    )
    if epsilon:
        p.add_argument("--epsilon", type=_epsilon, default=1.0, help="ε (default 1)")
    p.add_argument(
        "--delta",
        type=_delta,
        default=0.0,
        help="δ (default 0; every mechanism but objective-gaussian is pure ε-DP "
        "and spends δ = 0); 'auto': n^-1.5 of the number of training rows n (0 "
        "for a pure mechanism); a δ of at least 1/n is refused where it is spent",
    )
    p.add_argument(
        "--mechanism",
        choices=_MECHANISMS,
        default="objective",
        help="objective (CMS11 Alg. 2; with a kernel: Sarwate et al. Alg. 2), "
        "objective-laplace (CMS11 Alg. 2 with Laplace noise on rows of a public L1 "
        "bound, the schema's number of columns; best at small ε with --schema), "
        "objective-gaussian ((ε, δ)-DP, Kifer, Smith & Thakurta 2012 Alg. 1; needs "
        "--delta > 0), output (CMS11 Alg. 1), output-laplace (Rubinstein et al. "
        "Alg. 2) — these three for --kernel linear only — or rubinstein "
        "(PRIVATESVM, Rubinstein et al. Alg. 3; kernels only) (default objective)",
    )
    p.add_argument(
        "--loss",
        choices=_LOSSES,
        help="loss of --model svm and of the kernel models (default huber)",
    )
    add_positive_argument(
        p,
        "--huber-h",
        help="Huber half-width (default 0.5 linear, 1 with a kernel)",
    )
    add_positive_argument(
        p,
        "--regularization",
        help="Λ in (1/n)Σℓ + (Λ/2)‖w‖² (default: the public a-priori rule "
        "regularization='auto', ≈ 20/(nε) linear, ≈ 4/(nε) kernel; "
        "docs/defaults.md; train --tune chooses it privately)",
    )
    add_positive_argument(
        p,
        "--data-norm",
        help="public bound R on the row norm; longer rows are projected (default "
        "1; --kernel linear only)",
    )
    p.add_argument(
        "--fit-intercept",
        action=argparse.BooleanOptionalAction,
        help="fit an intercept as a public constant feature inside R (default on "
        "for --kernel linear; the kernel models are bias-free, as in both papers)",
    )
    kern = p.add_argument_group(
        "kernel options",
        "for --kernel rbf, laplacian or cauchy (DPKernelSVC on random Fourier "
        "features; see docs/kernels.md)",
    )
    kern.add_argument(
        "--kernel",
        choices=_KERNELS,
        default="linear",
        help="linear: a linear model (default); rbf: exp(-γ‖x-y‖²); laplacian: "
        "exp(-γ‖x-y‖₁); cauchy: ∏ 1/(1+γ(xᵢ-yᵢ)²)",
    )
    kern.add_argument(
        "--gamma",
        type=_gamma,
        help="public kernel width γ > 0 (required with a kernel; data-dependent "
        "values such as 'scale' are refused)",
    )
    add_integer_argument(
        kern,
        "--n-components",
        1,
        _MAX_N_COMPONENTS,
        metavar="N",
        help="number of random frequencies: 2N features for cos-sin, N for "
        f"cos-phase (default {_DEFAULT_N_COMPONENTS})",
    )
    kern.add_argument(
        "--feature-map",
        choices=("cos-sin", "cos-phase"),
        help="cos-sin (Rubinstein et al. eq. (4.1), norm exactly 1) or cos-phase "
        "(Sarwate et al. Alg. 2) (default: cos-sin for rubinstein and output, "
        "cos-phase for objective)",
    )
    kern.add_argument(
        "--norm-handling",
        choices=("scale", "bound", "clip"),
        help="cos-phase only: scale the features to norm <= 1, calibrate the noise "
        "for their bound √2, or project them onto the unit ball (default clip)",
    )
    add_seed_argument(
        kern,
        "--feature-seed",
        help="seed the random frequencies (they are public and written into the "
        "model, so seeding them is allowed; the seed is not written; default: "
        "fresh OS entropy)",
    )
    add_seed_argument(
        p,
        "--random-state",
        help="seed the noise: tests only, never for a real release",
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``dpsvm`` command.

    Returns
    -------
    argparse.ArgumentParser
        The parser; its ``error`` raises :class:`UsageError` instead of exiting.
    """
    parser = _Parser(
        prog=PROG,
        description="Differentially private linear and kernel SVMs from the "
        "command line.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    demo = sub.add_parser(
        "demo",
        help="train a private linear SVM on the bundled breast-cancer data",
        description="Train DPLinearSVC with its defaults (objective perturbation, "
        "Huber loss, intercept, regularization='auto') at several ε on the "
        "breast-cancer data bundled with scikit-learn and compare its test "
        "accuracy with non-private references and the majority class.",
    )
    demo.add_argument(
        "--epsilon",
        type=_epsilon,
        nargs="+",
        default=list(DEMO_EPSILONS),
        metavar="E",
        help="ε per model, one or more values "
        f"(default {' '.join(f'{e:g}' for e in DEMO_EPSILONS)})",
    )
    add_seed_argument(
        demo,
        "--random-state",
        help="seed the noise (reproducible output; tests and docs only)",
    )
    add_integer_argument(
        demo,
        "--draws",
        1,
        1000,
        default=10,
        help="number of private models (noise draws) to average (default 10)",
    )

    train = sub.add_parser(
        "train",
        help="train a private model and write it with a privacy report",
        description="Train a differentially private linear or kernel classifier "
        "and write the model (JSON, see dpsvm.io) and optionally a privacy report. "
        "Linear models (--kernel linear, the default): rows are projected onto the "
        "ball of radius --data-norm (default 1), so scale your features with public "
        "bounds first. Kernel models (--kernel rbf, laplacian or cauchy): "
        "DPKernelSVC on random Fourier features with public width --gamma; the "
        "features have a public norm bound, so rows of any norm are used as they "
        "are. The random frequencies are drawn without looking at the data and are "
        "written into the model file.",
    )
    _add_data_options(train, part="training", labels="required")
    _add_model_options(train)
    train.add_argument(
        "--schema",
        metavar="SCHEMA.json",
        help="public schema of a CSV file with a header (docs/schema.md): label "
        "column and classes, numeric ranges, categories. Rows are encoded by it "
        "(numbers clipped and scaled to [-1, 1], categories one-hot), --classes "
        "and --data-norm come from it, and the model file carries it, so predict "
        "and evaluate need only --model and --data",
    )
    train.add_argument(
        "--classes",
        type=_classes,
        metavar="A,B",
        help="the public label set; without it the labels present in the data are "
        "used, which the privacy guarantee does not cover",
    )
    train.add_argument(
        "--tune",
        action="store_true",
        help="choose Λ privately from the public grid "
        f"{', '.join(f'{v:g}' for v in TUNE_MULTIPLIERS)} × the a-priori Λ of "
        "regularization='auto' (a non-linear --kernel: "
        f"{', '.join(f'{v:g}' for v in TUNE_GRID)}; PrivateSelectThenFit: "
        "selection on a tenth of the rows, final fit on the rest; the same "
        "--epsilon covers both)",
    )
    add_weight_options(train)
    train.add_argument(
        "--metric",
        choices=("accuracy", "weighted-error"),
        default=None,
        help="how --tune scores a candidate: accuracy (mistake count, the "
        "default) or weighted-error (mistakes weighted by the public class "
        "priors: use it on imbalanced data, where accuracy favours a constant "
        "classifier; its grid reaches lower: 1/64, 1/16, 1/4 and 1 × the "
        "a-priori Λ)",
    )
    train.add_argument(
        "--class-priors",
        type=_priors,
        metavar="P1,P2",
        help="public class proportions for --metric weighted-error, in the order "
        "of the classes, summing to 1 (default: the schema's label.priors); from "
        "public knowledge, never counted on the data",
    )
    add_holdout_options(train, default=None)
    train.add_argument("--out", required=True, metavar="MODEL.json", help="model file")
    train.add_argument("--report", metavar="REPORT.json", help="privacy report file")

    predict = sub.add_parser(
        "predict",
        help="write one predicted label per line",
        description="Predict labels with a saved model; writes one label per line.",
    )
    predict.add_argument("--model", required=True, metavar="MODEL.json")
    _add_data_options(predict, part="test", labels="optional")
    predict.add_argument("--out", required=True, metavar="PRED.csv")
    predict.add_argument(
        "--proba",
        action="store_true",
        help="write class probabilities (one column per class, headed by the "
        "class names) instead of labels; needs a model trained with --model "
        "logistic",
    )

    evaluate = sub.add_parser(
        "evaluate",
        help="print a saved model's accuracy, balanced accuracy, F1, ROC AUC, "
        "confusion matrix and the majority-class rate",
        description="Print a saved model's figures on labelled data: accuracy, "
        "the majority-class rate beside it (always answering the most frequent "
        "class), balanced accuracy, the F1 of each class, the ROC AUC (from the "
        "model's scores) and the confusion matrix, classes in their declared "
        "order. An accuracy at or below the majority-class rate gets a warning. "
        "The figures are computed exactly from the data, which you hold: they "
        "are evaluation figures, not differentially private releases.",
    )
    evaluate.add_argument("--model", required=True, metavar="MODEL.json")
    _add_data_options(evaluate, part="test", labels="required")
    evaluate.add_argument(
        "--metrics",
        type=metrics_option,
        default=METRICS,
        metavar="M[,M...]",
        help=f"which figures to print, comma-separated: {', '.join(METRICS)} or "
        "all (default all). The majority-class rate is the accuracy of always "
        "answering the most frequent class of these rows",
    )
    evaluate.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (n, classes in declared order, the chosen "
        "metrics, warnings) instead of text, for scripts",
    )

    # Defined outside dpsvm.audit and dpsvm.reproduce: importing those packages
    # costs seconds, which every command (and --help) would pay.
    from ..utils._subcommands import add_audit_subparser, add_reproduce_subparser

    add_audit_subparser(sub)
    add_reproduce_subparser(sub)
    from ._serve import add_serve_subparser

    add_serve_subparser(sub)
    add_report_subparser(sub)
    add_schema_subparser(sub)

    sweep = sub.add_parser(
        "sweep",
        help="accuracy, balanced accuracy, F1 and ROC AUC against ε on a held-out "
        "split, as a CSV table and a plot",
        description="Train one private model per --epsilons value (and per seed) "
        "on a random training split of a CSV file encoded by a public schema, "
        "and measure its accuracy, balanced accuracy, F1 of each class, ROC AUC "
        "and confusion matrix on the held-out rows beside a non-private "
        "baseline (scikit-learn LogisticRegression on the same encoded "
        "features) and the majority-class rate (always answering the most "
        "frequent class). The figures are computed exactly from private rows: "
        "they are NOT differentially private.",
    )
    sweep.add_argument("--data", required=True, metavar="PATH", help="CSV file")
    sweep.add_argument(
        "--schema", required=True, metavar="SCHEMA.json", help="public schema"
    )
    add_dialect_options(sweep)
    sweep.add_argument(
        "--epsilons",
        type=_epsilon,
        nargs="+",
        required=True,
        metavar="E",
        help="the ε values, e.g. --epsilons 0.1 0.5 1 2",
    )
    add_integer_argument(
        sweep,
        "--seeds",
        1,
        1000,
        default=3,
        metavar="K",
        help="noise draws (and splits) per ε (default 3)",
    )
    _add_model_options(sweep, epsilon=False)
    add_holdout_options(sweep, default=0.2)
    sweep.add_argument("--out-csv", required=True, metavar="TABLE.csv")
    sweep.add_argument(
        "--out-png", metavar="PLOT.png", help="plot (needs the plot extra)"
    )
    return parser


# ------------------------------------------------------------------ helpers
def _one_line(text: str) -> str:
    return " ".join(text.split())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        name = exc.filename2 if exc.filename2 is not None else exc.filename
        if name is not None:
            return _one_line(f"{os.fsdecode(name)}: {exc.strerror}")
        return _one_line(exc.strerror)
    return _one_line(str(exc)) or type(exc).__name__


def _fmt(value: float) -> str:
    return f"{value:g}"


class OutputError(ValueError):
    """An output file that cannot be written (a runtime error, exit status 1)."""


def _check_output(path: str, option: str) -> Path:
    """Refuse an output path that cannot be written, before any work is done.

    ``-`` (standard output), character devices and FIFOs are written through;
    a symbolic link is followed (see :func:`dpsvm.io.atomic_write_text`).
    """
    p = Path(path)
    if path == "-":
        return p
    if p.is_dir():
        raise OutputError(f"{option} {path!r} is a directory")
    if p.exists():
        mode = os.stat(p).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            if not os.access(p, os.W_OK):
                raise OutputError(f"{option} {path!r} is not writable")
            return p
        if not stat.S_ISREG(mode):
            raise OutputError(
                f"{option} {path!r} is not a regular file, character device or FIFO"
            )
    parent = Path(os.path.realpath(p)).parent
    if not parent.is_dir():
        raise OutputError(
            f"{option} {path!r}: directory {str(parent)!r} does not exist"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"{option} {path!r}: directory {str(parent)!r} is not writable"
        )
    return p


def _is_regular_output(path: Path) -> bool:
    """Whether ``path`` names a regular file (after links): safe to remove."""
    return str(path) != "-" and Path(os.path.realpath(path)).is_file()


@contextlib.contextmanager
def _removed_on_failure(path: Path, err: TextIO) -> Iterator[None]:
    """Remove the already written ``path`` when the block fails: no partial output.

    Only a regular file is removed: never a device, a FIFO or standard output.
    """
    try:
        yield
    except BaseException:
        if _is_regular_output(path):
            try:
                os.unlink(os.path.realpath(path))
            except OSError:  # pragma: no cover - the file stays; say so
                err.write(f"{PROG}: warning: could not remove {path}\n")
        raise


def _same_file(a: str | Path, b: str | Path) -> bool:
    if "-" in (str(a), str(b)):
        return False  # standard input or output
    return Path(a).resolve() == Path(b).resolve()


def _data_format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return str(args.format)
    return "libsvm" if Path(args.data).suffix.lower() in _LIBSVM_SUFFIXES else "csv"


def _check_schema_options(args: argparse.Namespace, what: str) -> None:
    """Options that a public schema (given, or carried by the model) replaces."""
    if args.data is None:
        raise UsageError(f"{what} needs --data, a CSV file with a header row")
    if _data_format(args) != "csv":
        raise UsageError(f"{what} applies to CSV files only (not --format libsvm)")
    for option, value in (
        ("--label-column", args.label_column),
        ("--classes", getattr(args, "classes", None)),
    ):
        if value is not None:
            raise UsageError(
                f"{option} does not apply with {what}: the schema names the label "
                "column and its classes"
            )
    if args.header is False and args.names is None:
        raise UsageError(
            f"--no-header does not apply with {what}: columns are matched by the "
            "names in the header row (or given by --names A,B,...)"
        )


def _read_schema_frame(args: argparse.Namespace, schema: Any) -> tuple[Any, str]:
    """The --data CSV as a data frame for a schema: text kept as text.

    A file of numbers only is read as numbers (:func:`read_frame`'s fast path;
    a category or label compares as the same value either way). Otherwise only
    the schema's numeric columns are parsed as numbers; every other column
    (categories, the label) is read as text, so that no category is turned into
    a boolean, a date or a number by type inference.
    """
    from ..preprocessing import NumericFeature

    numeric = [f.column for f in schema.features if isinstance(f, NumericFeature)]
    frame, names, where = read_frame(
        args.data,
        # `dpsvm serve --data` reads its CSV here too, without these options.
        numeric_columns=numeric,
        delimiter=getattr(args, "delimiter", ","),
        column_names=getattr(args, "names", None),
    )
    assert names is not None
    declared = {schema.label.column, *schema.columns}
    if not declared.intersection(names):
        # Most likely a file without a header row: its first row (a private
        # record) was read as the header. Say so without quoting it.
        raise DataError(
            f"{where}: the first row names none of the schema's columns "
            f"({', '.join(map(repr, sorted(declared)[:5]))}"
            f"{', ...' if len(declared) > 5 else ''}); "
            + (
                "it reads as one column: if the file is separated by another "
                "character than ',', say which with --delimiter; otherwise the "
                if len(names) == 1
                else "the "
            )
            + "file needs a header row naming its columns: add one if it has "
            "none, or name them with --names"
        )
    return frame, where


def _schema_labels(schema: Any, frame: Any, where: str) -> np.ndarray:
    column = schema.label.column
    if column not in frame.columns:
        hint = (
            "; the header reads as one column: if the file is separated by "
            "another character than ',', say which with --delimiter"
            if len(frame.columns) == 1
            else ""
        )
        raise DataError(
            f"{where}: no label column {column!r} (named by the schema's "
            f"label.column){hint}"
        )
    values = frame[column]
    if values.dtype.kind == "f":
        # A file of numbers (read_frame's fast path; no missing value): map
        # each distinct label once, not every row through Python objects.
        import pandas as pd

        codes, uniques = pd.factorize(values.to_numpy())
        mapped: np.ndarray = schema.encode_labels(uniques)[codes]
        return mapped
    labels: np.ndarray = schema.encode_labels(values)
    return labels


def _schema_encoder(schema: Any, estimator: Any = None) -> Any:
    """The schema's encoder: CSR rows ("auto") for a model that takes them
    (``None``: a linear model, which does)."""
    from sklearn.utils import get_tags

    from ..preprocessing import SchemaTransformer

    sparse = estimator is None or get_tags(estimator).input_tags.sparse
    return SchemaTransformer(schema, sparse_output="auto" if sparse else False)


def _schema_rows(schema: Any, frame: Any, model: Any = None) -> Any:
    """The rows encoded by the schema, as a frame named like the model's inputs.

    CSR rows (one-hot dominated schemas, a model that takes CSR) become a
    sparse data frame, so that they stay sparse into the model.
    """
    return _frame(
        _schema_encoder(schema, model).fit_transform(frame),
        list(schema.feature_names_out),
    )


def _check_data_options(args: argparse.Namespace) -> None:
    n_features = getattr(args, "n_features", None)
    if args.dataset is not None or _data_format(args) == "libsvm":
        for option, given in (
            ("--delimiter", args.delimiter != ","),
            ("--names", args.names is not None),
        ):
            if given:
                raise UsageError(f"{option} applies to --data CSV files only")
    if args.names is not None and args.header:
        raise UsageError(
            "--names names the columns of a file without a header row: leave out "
            "--header (or leave out --names to use the file's header)"
        )
    if args.dataset is not None:
        if args.format is not None or args.label_column is not None:
            raise UsageError("--format and --label-column apply to --data files only")
        if args.header is not None:
            raise UsageError("--header and --no-header apply to --data CSV files only")
        if n_features is not None:
            raise UsageError("--n-features applies to --format libsvm files only")
        if args.dataset != "adult" and args.data_dir is not None:
            raise UsageError("--data-dir applies to --dataset adult only")
    else:
        if args.data_dir is not None:
            raise UsageError("--data-dir applies to --dataset adult only")
        libsvm = _data_format(args) == "libsvm"
        if libsvm and args.label_column is not None:
            raise UsageError(
                "--label-column applies to CSV files (LibSVM labels come first)"
            )
        if libsvm and args.header is not None:
            raise UsageError("--header and --no-header apply to CSV files only")
        if not libsvm and n_features is not None:
            raise UsageError(
                "--n-features applies to --format libsvm files only (a CSV file's "
                "width is its number of columns)"
            )
        if libsvm and args.command == "train" and n_features is None:
            raise UsageError(
                "--format libsvm needs --n-features N, the public number of "
                "features: it is never read from the private file"
            )


def _read(
    args: argparse.Namespace, *, part: str, labels: bool, n_features: int | None = None
) -> tuple[np.ndarray, np.ndarray | None, list[str] | None]:
    """Read the rows (and labels, when ``labels``) named by the data options.

    Returns the rows, the labels (or ``None``) and the feature names (the CSV
    header without the label column; ``None`` for files without a header, LibSVM
    files and named data sets).
    """
    if args.dataset is not None:
        X, y = load_dataset(
            args.dataset,
            part=part,
            data_dir=args.data_dir,
            feature_set=args.feature_set,
        )
        return np.asarray(X, dtype=np.float64), np.asarray(y), None
    if _data_format(args) == "libsvm":
        width = n_features if n_features is not None else args.n_features
        option = "--n-features" if n_features is None else "the model's n_features_in_"
        X, y = read_libsvm(args.data, width, width_option=option)
        return X, (y if labels else None), None
    table = read_csv(
        args.data,
        header=False if args.names is not None else args.header,
        delimiter=args.delimiter,
        column_names=args.names,
    )
    if not labels:
        return table.values, None, table.header
    j = resolve_label_column(args.label_column, table)
    y = labels_to_numbers(np.asarray(table.values[:, j], dtype=np.float64))
    # The last column (the default): the features are a view, without a copy
    # (Fortran order: each column contiguous, as read_csv returns them).
    features: np.ndarray = (
        table.values[:, :j]
        if j == table.values.shape[1] - 1
        else np.delete(table.values, j, axis=1)
    )
    names = None if table.header is None else table.header[:j] + table.header[j + 1 :]
    return features, y, names


def _match_columns(
    model: Any, X: np.ndarray, names: list[str] | None, where: str
) -> Any:
    """The rows in the model's column order, matched by name when it has names."""
    expected = getattr(model, "feature_names_in_", None)
    if expected is None:
        if X.shape[1] != model.n_features_in_:
            raise DataError(
                f"{where}: {X.shape[1]} feature columns, but the model was trained "
                f"on {model.n_features_in_}"
            )
        return X
    expected = [str(n) for n in expected]
    if names is None:
        raise DataError(
            f"{where}: the model was trained on named columns "
            f"({', '.join(map(repr, expected[:5]))}{', ...' * (len(expected) > 5)}); "
            "give a CSV file with a header row naming them (not --no-header or "
            "LibSVM)"
        )
    missing = [n for n in expected if n not in names]
    # The file's own header cells are named by position, never quoted: in a file
    # without a header row they are a private record (the model's names are
    # public: the model file carries them).
    extra = sum(n not in expected for n in names)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing column(s) {', '.join(map(repr, missing))}")
        if extra:
            shown = ", ".join(map(repr, expected[:8])) + ", ..." * (len(expected) > 8)
            parts.append(
                f"{extra} column(s) the model was not trained on (its columns are "
                f"{shown}; name the label column with --label-column, or remove "
                "the others)"
            )
        raise DataError(f"{where}: {'; '.join(parts)}")
    import pandas as pd

    order = [names.index(n) for n in expected]
    return pd.DataFrame(X[:, order], columns=expected, copy=False)


def _labels_text(labels: np.ndarray) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for value in labels.tolist():
        writer.writerow([value])
    return buf.getvalue()


def _proba_text(proba: np.ndarray, classes: np.ndarray) -> str:
    """Probabilities as CSV, one column per class headed by its label."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([str(c) for c in np.asarray(classes).tolist()])
    for row in proba.tolist():
        writer.writerow([f"{p:.6g}" for p in row])
    return buf.getvalue()


def _warn(message: str, err: TextIO) -> None:
    err.write(f"{PROG}: warning: {_one_line(message)}\n")


# ------------------------------------------------------------------ commands
def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ._demo import run_demo

    run_demo(
        epsilons=args.epsilon,
        random_state=args.random_state,
        n_draws=args.draws,
        out=out,
    )
    return 0


def _loss(args: argparse.Namespace) -> tuple[str, float | None]:
    """The --loss and --huber-h of an SVM (linear or kernel), checked."""
    loss = args.loss or "huber"
    if args.huber_h is not None and loss != "huber":
        raise UsageError("--huber-h applies to --loss huber only")
    if loss == "hinge" and args.mechanism.startswith("objective"):
        laplace = "output-laplace" if args.kernel == "linear" else "rubinstein"
        raise UsageError(
            f"--mechanism {args.mechanism} needs a differentiable loss (huber or "
            "logistic); "
            "the hinge loss breaks objective perturbation. Use --loss huber, or "
            f"--mechanism output / {laplace} with the hinge loss"
        )
    return loss, args.huber_h


def _given(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The named options that were given (not ``None``), as estimator kwargs."""
    return {
        name: getattr(args, name) for name in names if getattr(args, name) is not None
    }


def _privacy_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """What every estimator of ``train`` and ``sweep`` takes: the budget, the
    mechanism, the public label set and the noise seed."""
    return {
        "epsilon": args.epsilon,
        "delta": args.delta,
        "mechanism": args.mechanism,
        "classes": args.classes,
        "random_state": args.random_state,
    }


def _build_linear(args: argparse.Namespace) -> Any:
    from ..models import DPLinearSVC, DPLogisticRegression

    for option, dest in _KERNEL_OPTIONS:
        if getattr(args, dest) is not None:
            raise UsageError(
                f"{option} applies to a non-linear --kernel ({', '.join(_KERNELS[1:])})"
                " only"
            )
    if args.mechanism == "rubinstein":
        raise UsageError(
            "--mechanism rubinstein (PRIVATESVM, Rubinstein et al. Alg. 3) works on "
            "random features: give a non-linear --kernel, or use --mechanism "
            "output-laplace (their Alg. 2) for a linear model"
        )
    if args.mechanism == "objective-gaussian" and not (
        isinstance(args.delta, int | float) and args.delta > 0
    ):
        raise UsageError(
            "--mechanism objective-gaussian is (ε, δ)-DP: give --delta > 0 (e.g. "
            "--delta 1e-6, well below 1/n), or use --mechanism objective-laplace or "
            "objective for pure ε-DP"
        )
    common: dict[str, Any] = {
        **_privacy_kwargs(args),
        "data_norm": 1.0 if args.data_norm is None else args.data_norm,
    }
    # Options left out keep the estimator's documented defaults.
    common.update(_given(args, "regularization", "fit_intercept"))
    if args.model == "logistic":
        if args.loss is not None or args.huber_h is not None:
            raise UsageError("--loss and --huber-h apply to --model svm only")
        return DPLogisticRegression(**common)
    loss, _ = _loss(args)
    return DPLinearSVC(loss=loss, **common, **_given(args, "huber_h"))


def _build_kernel(args: argparse.Namespace) -> Any:
    from ..models import DPKernelSVC

    kernel = args.kernel
    if args.gamma is None:
        raise UsageError(
            f"--kernel {kernel} needs --gamma, the public kernel width (a number "
            "> 0; it is never derived from the data)"
        )
    if args.model == "logistic":
        raise UsageError(
            "--model logistic applies to --kernel linear only; use --loss logistic "
            "for a kernel model"
        )
    if args.mechanism in _LINEAR_ONLY_MECHANISMS:
        raise UsageError(
            f"--mechanism {args.mechanism} applies to --kernel linear only; with "
            f"--kernel {kernel} use --mechanism objective, output or rubinstein "
            "(Laplace output perturbation on random features, Rubinstein et al. "
            "Alg. 3)"
        )
    if args.data_norm is not None:
        raise UsageError(
            "--data-norm applies to --kernel linear only: random features have a "
            "public norm bound (1, or √2 with --norm-handling bound)"
        )
    if args.fit_intercept:
        raise UsageError(
            "--fit-intercept applies to --kernel linear only: the kernel models are "
            "bias-free"
        )
    feature_map = args.feature_map
    if feature_map is None:  # DPKernelSVC's "auto", written out
        feature_map = "cos-phase" if args.mechanism == "objective" else "cos-sin"
    if args.norm_handling is not None and feature_map != "cos-phase":
        raise UsageError(
            "--norm-handling applies to --feature-map cos-phase only (cos-sin "
            "features have norm exactly 1)"
        )
    loss, _ = _loss(args)
    n_components = args.n_components
    return DPKernelSVC(
        kernel=kernel,
        gamma=args.gamma,
        n_components=_DEFAULT_N_COMPONENTS if n_components is None else n_components,
        feature_map=feature_map,
        loss=loss,
        feature_random_state=args.feature_seed,
        **_privacy_kwargs(args),
        # Options left out keep DPKernelSVC's documented defaults.
        **_given(args, "norm_handling", "huber_h", "regularization"),
    )


def _build_estimator(args: argparse.Namespace) -> Any:
    if args.kernel == "linear":
        return _build_linear(args)
    return _build_kernel(args)


def _check_binary_labels(y: np.ndarray, classes: list[Any] | None, where: str) -> None:
    present = np.unique(y)
    if classes is None:
        if present.size != 2:
            # Never quote how many labels were found: that count is private.
            raise DataError(
                f"{where}: the labels are not binary; dpsvm train needs exactly 2 "
                "label values: pass the public label set with --classes A,B (or "
                "use --schema for several classes)"
            )
        return
    if any(v not in classes for v in present.tolist()):
        # Never quote the labels found: which values occur is private.
        raise DataError(
            f"{where}: the labels include values outside the public label set "
            f"--classes {','.join(str(c) for c in classes)}; fix the data or "
            "--classes"
        )


def _cmd_train(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..io import atomic_write_text, model_to_dict, save_model

    _check_data_options(args)
    estimator = _build_estimator(args)
    model_path = _check_output(args.out, "--out")
    report_path = _check_output(args.report, "--report") if args.report else None
    if report_path is not None and (
        _same_file(model_path, report_path) or args.out == args.report == "-"
    ):
        raise UsageError("--out and --report must be different files")
    if args.data is not None and any(
        _same_file(args.data, p) for p in (model_path, report_path) if p is not None
    ):
        raise UsageError("an output file would overwrite the --data file")

    if args.tune and args.regularization is not None:
        raise UsageError(
            "--tune chooses --regularization from its public grid: leave out "
            "--regularization, or leave out --tune"
        )
    if not args.tune and (args.metric is not None or args.class_priors is not None):
        raise UsageError(
            "--metric and --class-priors choose how --tune scores its candidates: "
            "add --tune, or leave them out"
        )
    if args.class_priors is not None and args.metric != "weighted-error":
        raise UsageError("--class-priors is used by --metric weighted-error only")
    X, y, names, schema, classes, _, weights = _training_data(args, estimator)
    weighting = configure_weights(args, estimator, schema, classes)

    notes: list[str] = []
    held_out = None
    if args.holdout is not None:
        fit_rows, held_out = holdout_split(X.shape[0], args.holdout, args.random_state)
        X_fit, y_fit = X[fit_rows], y[fit_rows]
        if weights is not None:
            weights = weights[fit_rows]
    else:
        X_fit, y_fit = X, y
    fit_kwargs = {} if weights is None else {"sample_weight": weights}
    fitted: Any = (
        tuned(
            estimator,
            args.epsilon,
            args.random_state,
            X_fit.shape[0],
            scoring=args.metric or "accuracy",
            class_priors=_class_priors(args, schema),
        )
        if args.tune
        else estimator
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with busy("tuning Λ" if args.tune else "training", quiet=args.quiet):
            try:
                # CSR rows go to the solvers as they are (no data frame: its
                # conversion back to CSR would copy them); the names are
                # recorded below.
                fitted.fit(
                    X_fit if _issparse(X_fit) else _frame(X_fit, names),
                    y_fit,
                    **fit_kwargs,
                )
            except ValueError as exc:
                if args.epsilon > ABSURD_EPSILON and "scale" in str(exc):
                    raise UsageError(
                        f"--epsilon {args.epsilon:g} is too large: the noise would be "
                        "too small to represent, and a guarantee this weak is "
                        "meaningless anyway; use --epsilon of about 0.1 to 10"
                    ) from None
                raise
    if args.tune:
        args.tune_grid = fitted.param_grid["regularization"]  # for the summary
        estimator = fitted.best_estimator_
        # The model keeps the final fit's event (what its parameters certify);
        # the whole procedure (selection and final fit, one ε) is recorded
        # beside it and written into the model file as selection_event.
        estimator.selection_event_ = fitted.privacy_event_
    if names is not None and (args.tune or _issparse(X_fit)):
        estimator.feature_names_in_ = np.asarray(names, dtype=object)
    if schema is not None:
        estimator.public_schema_ = schema  # written into the model file
    # Judged on what was spent and on the δ given, used or not (docs/cli.md:
    # δ ≥ 1/n warns); the row count is compared, never printed.
    spent = getattr(estimator, "selection_event_", None) or estimator.privacy_event_
    delta_line = unused_delta_line(args.delta, spent.delta, args.mechanism)
    requested = args.delta if isinstance(args.delta, int | float) else 0.0
    notes.extend(
        privacy_parameter_warnings(
            estimator.privacy_event_.epsilon,
            max(requested, spent.delta),
            X_fit.shape[0],
            delta_used=delta_line is None,
        )
    )
    for w in caught:
        if issubclass(w.category, PrivacyLeakWarning) and "classes" in str(w.message):
            notes.append(
                "no --classes given: the label set was read from the data, so which "
                "labels occur is not covered by the privacy guarantee; pass the public "
                "label set with --classes A,B"
            )
        else:
            notes.append(_one_line(str(w.message)))
    if args.random_state is not None:
        notes.append(
            "--random-state makes the noise reproducible by anyone who knows the "
            "seed: for tests only, not for a real release"
        )

    event = getattr(estimator, "selection_event_", None) or estimator.privacy_event_
    report: dict[str, Any] | None = None
    if report_path is not None:
        report = {
            "format": REPORT_FORMAT,
            "format_version": REPORT_FORMAT_VERSION,
            "dpsvm_version": __version__,
            "created_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "model_file": os.fspath(model_path),
            "estimator": type(estimator).__name__,
            "epsilon": event.epsilon,
            "delta": event.delta,
            "mechanism": event.mechanism,
            "reference": event.reference,
            "neighbouring": event.neighbouring,
            "n_samples": int(X_fit.shape[0]),
            "label_set_public": classes is not None,
            "schema": None if schema is None else schema.to_dict(),
            "noise": "seeded PCG64 (--random-state; NOT for a real release)"
            if args.random_state is not None
            else "ChaCha20 CSPRNG keyed from os.urandom",
            "data": {"dataset": args.dataset}
            if args.dataset is not None
            else {"file": os.fspath(args.data), "format": _data_format(args)},
            "params": model_to_dict(estimator)["params"],
            "privacy_event": event.to_dict(),
            "warnings": notes,
        }
        if weighting is not None:
            report["weights"] = weighting  # public: the bounds, never the weights
    # Serialise the report before writing anything, then write both files; if
    # the report cannot be written, remove the model so no partial output stays.
    report_text = None
    if report is not None:
        report_text = json.dumps(report, indent=2, allow_nan=False) + "\n"
    save_model(estimator, os.fspath(model_path))
    if report_path is not None and report_text is not None:
        with _removed_on_failure(model_path, err):
            atomic_write_text(os.fspath(report_path), report_text)
    for note in notes:
        _warn(note, err)
    # With --out - or --report - the status line must not mix into the output.
    status = err if "-" in (args.out, args.report) else out
    status.write(
        f"{PROG}: trained {type(estimator).__name__} ({event.mechanism}, "
        f"ε = {_fmt(event.epsilon)}, δ = {_fmt(event.delta)}) on {X_fit.shape[0]} "
        f"rows × {X.shape[1]} features -> {model_path}"
        + (f", report -> {report_path}" if report_path is not None else "")
        + "\n"
    )
    if delta_line is not None:
        status.write(f"{PROG}: {delta_line}\n")
    for line in _budget_lines(event, args):
        status.write(f"{PROG}: {line}\n")
    if weighting is not None:
        status.write(
            f"{PROG}: weighted fit; the noise scales with the public maximum weight "
            f"W = {_fmt(weighting['weight_bound'])}\n"
        )
    if held_out is not None:
        ev = evaluate_model(estimator, _frame(X[held_out], names), y[held_out])
        _warn(holdout_warning(), err)
        warning = majority_warning(ev.accuracy, ev.majority_rate, "held out: ")
        if warning is not None:
            _warn(warning, err)
        status.write(
            f"{PROG}: held-out accuracy {ev.accuracy:.4f} (majority-class rate "
            f"{ev.majority_rate:.4f}, balanced accuracy {ev.balanced_accuracy:.4f}) "
            f"on a random {args.holdout:g} of the rows (NOT differentially private)\n"
        )
    return 0


def _class_priors(args: argparse.Namespace, schema: Any) -> Any:
    """The public priors of --metric weighted-error: --class-priors, else the
    schema's label.priors; ``None`` for --metric accuracy."""
    if args.metric != "weighted-error":
        return None
    priors = args.class_priors
    if priors is None and schema is not None:
        priors = getattr(schema.label, "priors", None)
    if priors is None:
        raise UsageError(
            "--metric weighted-error needs the public class priors: give "
            "--class-priors P1,P2 (in the order of the classes) or declare "
            "label.priors in the schema"
        )
    classes = getattr(args, "classes", None)
    if classes is None:
        raise UsageError(
            "--metric weighted-error needs the public classes to pair the priors "
            "with: give --classes (or use --schema)"
        )
    if len(priors) != len(classes):
        raise UsageError(
            f"{len(priors)} class priors for {len(classes)} classes: give one "
            "proportion per class, in the order of the classes"
        )
    if not math.isclose(sum(priors), 1.0, abs_tol=1e-6):
        raise UsageError("the class priors must sum to 1 (public proportions)")
    return dict(zip(classes, priors, strict=True))


def _issparse(X: Any) -> bool:
    """``scipy.sparse.issparse`` (imported here: the CLI's imports stay lazy)."""
    import scipy.sparse

    return bool(scipy.sparse.issparse(X))


def _frame(X: Any, names: list[str] | None) -> Any:
    """A data frame when the columns are named (the estimator records the names,
    which the model file keeps so that predict and evaluate match by name).

    CSR rows become a sparse data frame (scikit-learn's validation turns it
    back into CSR, checking the names)."""
    if names is None:
        return X
    import pandas as pd

    if _issparse(X):
        return pd.DataFrame.sparse.from_spmatrix(X, columns=names)
    return pd.DataFrame(X, columns=names, copy=False)


def _budget_lines(event: Any, args: argparse.Namespace) -> list[str]:
    """How the budget was spent, in words (one-vs-rest split, tuning)."""
    lines: list[str] = []
    for e in _events(event):
        k = e.details.get("n_classes")
        if k is not None and e.children and not lines:
            lines.append(
                f"one-vs-rest over {k} classes: the budget is split evenly, "
                f"ε/{k} = {_fmt(e.epsilon / k)} per class (sequential composition)"
            )
    if args.tune:
        lines.append(
            f"--tune: Λ = {_fmt(_regularization_of(event))} chosen privately from "
            f"{', '.join(_fmt(v) for v in args.tune_grid)} on a tenth of the "
            "rows"
            + (
                " (by mistakes weighted by the public class priors)"
                if getattr(args, "metric", None) == "weighted-error"
                else ""
            )
            + ", "
            f"final fit on the rest; ε = {_fmt(event.epsilon)} end to end "
            "(parallel composition)"
        )
    return lines


def _events(event: Any) -> list[Any]:
    out = [event]
    for child in event.children:
        out.extend(_events(child))
    return out


def _regularization_of(event: Any) -> float:
    values = [
        e.details["regularization"]
        for e in _events(event.children[-1])
        if "regularization" in e.details
    ]
    return float(values[0]) if values else float("nan")


def _training_data(
    args: argparse.Namespace, estimator: Any
) -> tuple[np.ndarray, np.ndarray, list[str] | None, Any, Any, str, Any]:
    """Rows, labels, column names, schema, public classes, a place name and the
    sample weights (``None`` without --weight-column or a schema's ``weight``).

    Sets the estimator's ``classes`` (and ``data_norm`` for a schema) from
    public sources.
    """
    schema = None
    weights = None
    y: np.ndarray | None
    names: list[str] | None
    if args.schema is not None:
        from ..preprocessing import PublicSchema

        _check_schema_options(args, "--schema")
        schema = PublicSchema.from_json(args.schema)
        frame, where = _read_schema_frame(args, schema)
        y = _schema_labels(schema, frame, where)
        column = weight_column_name(args, schema)
        if column is not None:
            if column not in frame.columns:
                raise DataError(f"{where}: no weight column {column!r}")
            weights = sample_weights(frame[column])
            args.weight_column = column
        # CSR when one-hot columns dominate and the model takes CSR rows.
        X = _schema_encoder(schema, estimator).fit_transform(frame)
        names = list(schema.feature_names_out)
        estimator.set_params(classes=list(schema.classes))
        args.classes = list(schema.classes)
        if args.kernel == "linear" and args.data_norm is None:
            # The public bound of encoded rows: sqrt(#numeric + #categorical).
            estimator.set_params(data_norm=schema.row_norm_bound)
        if args.kernel == "linear" and args.mechanism == "objective-laplace":
            # Each encoded column adds at most 1 to ‖x‖₁ (numbers in [-1, 1],
            # one 1 per one-hot block): the public L1 bound is their number.
            estimator.set_params(data_norm_l1=float(len(schema.features)))
    else:
        X, y, names = _read(args, part="train", labels=True)
        column = weight_column_name(args, None)
        if column is not None:
            if names is None or column not in names:
                raise UsageError(
                    f"--weight-column {column!r} must name a column of the header "
                    "row of a --data CSV file (not the label column)"
                )
            k = names.index(column)
            weights = sample_weights(X[:, k])
            X = np.delete(X, k, axis=1)
            names = names[:k] + names[k + 1 :]
    assert y is not None
    where = args.data if args.data is not None else f"--dataset {args.dataset}"
    classes = getattr(args, "classes", None)
    if classes is None and args.dataset is not None:
        classes = [-1, 1]  # the loaders' documented, public label set
        estimator.set_params(classes=classes)
    _check_binary_labels(y, classes, where)
    return X, y, names, schema, classes, where, weights


def _load(args: argparse.Namespace) -> Any:
    from ..io import load_model

    return load_model(args.model)


def _cmd_predict(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..io import atomic_write_text

    _check_data_options(args)
    if args.no_labels and args.dataset is not None:
        raise UsageError("--no-labels applies to --data files only")
    out_path = _check_output(args.out, "--out")
    for src in (args.model, args.data):
        if src is not None and _same_file(src, out_path):
            raise UsageError("--out would overwrite an input file")
    model = _load(args)
    if args.proba and not hasattr(model, "predict_proba"):
        raise UsageError(
            f"--proba needs class probabilities, which {type(model).__name__} does "
            "not give: train with --model logistic, or leave out --proba"
        )
    schema = getattr(model, "public_schema_", None)
    if schema is not None:
        _check_schema_options(args, "a model trained with --schema")
        frame, _ = _read_schema_frame(args, schema)
        rows = _schema_rows(schema, frame, model)
    else:
        X, _, names = _read(
            args,
            part="test",
            labels=not args.no_labels,
            n_features=model.n_features_in_,
        )
        rows = _match_columns(model, X, names, args.data)
    if args.proba:
        # Columns in the declared order of the classes (the schema's).
        declared = declared_classes(model)
        proba = reorder_columns(
            np.asarray(model.predict_proba(rows)), model.classes_.tolist(), declared
        )
        predictions = proba
        text = _proba_text(proba, np.asarray(declared, dtype=object))
    else:
        predictions = np.asarray(model.predict(rows))
        text = _labels_text(predictions)
    atomic_write_text(os.fspath(out_path), text)
    status = err if args.out == "-" else out  # keep standard output clean
    status.write(f"{PROG}: wrote {len(predictions)} predictions -> {out_path}\n")
    return 0


def _cmd_evaluate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    _check_data_options(args)
    model = _load(args)
    schema = getattr(model, "public_schema_", None)
    if schema is not None:
        _check_schema_options(args, "a model trained with --schema")
        frame, where = _read_schema_frame(args, schema)
        # Labels outside the schema's classes are refused (not quoted).
        truth = _schema_labels(schema, frame, where)
        return _report_evaluation(
            args,
            evaluate_model(model, _schema_rows(schema, frame, model), truth),
            out,
            err,
        )
    X, y, names = _read(args, part="test", labels=True, n_features=model.n_features_in_)
    assert y is not None
    where = args.data if args.data is not None else f"--dataset {args.dataset}"
    known = set(np.asarray(model.classes_).tolist())
    if any(v not in known for v in np.unique(y).tolist()):
        # An accuracy over labels the model can never predict is meaningless;
        # the message names the model's (public) classes, not the values found.
        raise DataError(
            f"{where}: the labels include values that are not among the model's "
            f"classes {', '.join(map(str, model.classes_.tolist()))}; fix the "
            "labels or --label-column"
        )
    # Labels are compared as Python values: 1 == 1.0.
    evaluation = evaluate_model(model, _match_columns(model, X, names, where), y)
    return _report_evaluation(args, evaluation, out, err)


def _report_evaluation(
    args: argparse.Namespace, evaluation: Any, out: TextIO, err: TextIO
) -> int:
    """Print the chosen figures (text or --json) and the majority-class warning."""
    notes = []
    warning = majority_warning(evaluation.accuracy, evaluation.majority_rate)
    if warning is not None:
        notes.append(warning)
    if args.json:
        out.write(evaluation_json(evaluation, args.metrics, notes))
    else:
        out.write(evaluation_text(evaluation, args.metrics))
    for note in notes:
        _warn(note, err)
    return 0


def _cmd_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..audit.cli import run_audit_command

    return run_audit_command(args, out, err)


def _cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..reproduce.cli import run_reproduce_command

    return run_reproduce_command(args, out, err)


def _cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ._serve import run_serve_command

    return run_serve_command(args, out, err)


def _cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..io import load_model

    out.write(render_report(load_model(args.model), args.model))
    return 0


def _cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from sklearn.linear_model import LogisticRegression

    from ..io import atomic_write_bytes as atomic_write_bytes
    from ..io import atomic_write_text

    csv_path = _check_output(args.out_csv, "--out-csv")
    png_path = _check_output(args.out_png, "--out-png") if args.out_png else None
    if png_path is not None:
        try:
            import_pyplot()  # a missing plot extra is refused before any work
        except ImportError as exc:
            raise OutputError(str(exc)) from None
        if _same_file(csv_path, png_path):
            raise UsageError("--out-csv and --out-png must be different files")
    if any(_same_file(args.data, p) for p in (csv_path, png_path) if p is not None):
        raise UsageError("an output file would overwrite the --data file")
    # Defaults that train's data path reads but sweep does not offer.
    for name, value in (
        ("dataset", None),
        ("data_dir", None),
        ("format", None),
        ("header", None),
        ("label_column", None),
        ("classes", None),
        ("n_features", None),
        ("tune", False),
    ):
        setattr(args, name, value)
    epsilons = sorted(set(args.epsilons))
    args.epsilon = epsilons[0]
    estimator = _build_estimator(args)  # refuses bad option combinations early
    X, y, names, _, _, _, weights = _training_data(args, estimator)
    results: dict[float, list[Any]] = {eps: [] for eps in epsilons}
    baseline = []
    runs = [(seed, eps) for seed in range(args.seeds) for eps in epsilons]
    splits: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    with warnings.catch_warnings():
        # The per-fit warnings (e.g. seeded noise) are the same for every run.
        warnings.simplefilter("ignore")
        for seed, eps in progress(
            runs, total=len(runs), desc="sweep", quiet=args.quiet
        ):
            if seed not in splits:
                split_seed = (
                    None if args.random_state is None else args.random_state + seed
                )
                splits[seed] = holdout_split(X.shape[0], args.holdout, split_seed)
                tr, te = splits[seed]
                reference = LogisticRegression(max_iter=1000).fit(X[tr], y[tr])
                # Scored in the declared order of the public classes.
                baseline.append(evaluate_model(reference, X[te], y[te], args.classes))
            tr, te = splits[seed]
            args.epsilon = eps
            if args.random_state is not None:
                args.random_state += 1  # a different (seeded) noise draw per run
            model = _build_estimator(args)
            model.set_params(
                **{
                    k: v
                    for k, v in estimator.get_params().items()
                    if k in ("classes", "data_norm", "data_norm_l1")
                }
            )
            model.fit(_frame(X[tr], names), y[tr])
            results[eps].append(evaluate_model(model, _frame(X[te], names), y[te]))
    # Every run has the same mechanism: the last one says whether δ is spent.
    delta_line = unused_delta_line(
        args.delta, model.privacy_event_.delta, args.mechanism
    )
    requested = args.delta if isinstance(args.delta, int | float) else 0.0
    notes = {
        note
        for eps in epsilons
        for note in privacy_parameter_warnings(
            eps,
            max(requested, model.privacy_event_.delta),
            X.shape[0],
            delta_used=delta_line is None,
        )
    }
    if weights is not None:
        notes.add(
            "sweep fits unweighted models: the schema's weight column is used by "
            "dpsvm train only"
        )
    rows = sweep_rows(results, baseline)
    classes = baseline[0].classes
    table = sweep_table(rows)
    image = (
        sweep_png(rows, f"{type(estimator).__name__} on {Path(args.data).name}")
        if png_path is not None
        else None
    )
    atomic_write_text(os.fspath(csv_path), table)
    if png_path is not None and image is not None:
        with _removed_on_failure(csv_path, err):
            atomic_write_bytes(os.fspath(png_path), image)
    for note in sorted(notes):
        _warn(note, err)
    _warn(
        "the sweep's figures (accuracy, balanced accuracy, F1, ROC AUC, confusion "
        "matrix, majority-class rate) are computed exactly from private rows and "
        "are NOT differentially private: use them to choose ε, do not publish them",
        err,
    )
    for row in rows:
        warning = majority_warning(
            row["accuracy_mean"], row["majority_rate"], f"at ε = {row['epsilon']:g} "
        )
        if warning is not None:
            _warn(warning, err)
    status = err if "-" in (args.out_csv, args.out_png) else out
    status.write(sweep_text(rows, classes))
    if delta_line is not None:
        status.write(f"{PROG}: {delta_line}\n")
    status.write(
        f"{PROG}: {len(epsilons)} ε × {args.seeds} seeds -> {csv_path}"
        + (f", plot -> {png_path}" if png_path is not None else "")
        + "\n"
    )
    return 0


_COMMANDS = {
    "demo": _cmd_demo,
    "train": _cmd_train,
    "predict": _cmd_predict,
    "evaluate": _cmd_evaluate,
    "audit": _cmd_audit,
    "reproduce": _cmd_reproduce,
    "serve": _cmd_serve,
    "report": _cmd_report,
    "sweep": _cmd_sweep,
    "schema": run_schema_command,
}


def _safe_stream(stream: TextIO) -> TextIO:
    # ε, Λ and ± must not crash a terminal with a non-UTF-8 encoding.
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8" and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # pragma: no cover - stream already in use
            pass
    return stream


def _glue_option_values(argv: Sequence[str]) -> list[str]:
    """Let ``--classes -1,1`` through: argparse would read ``-1,1`` as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if arg in _DASH_VALUE_OPTIONS and nxt is not None and nxt.startswith("-"):
            if not nxt.startswith("--"):
                out.append(f"{arg}={nxt}")
                i += 2
                continue
        out.append(arg)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``dpsvm`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 1 for a runtime error, 2 for a usage
        error, 130 when interrupted.

    Examples
    --------
    >>> main(["--version"])
    dpsvm 0.1.0
    0
    """
    out = _safe_stream(sys.stdout)
    err = _safe_stream(sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(
            _glue_option_values(sys.argv[1:] if argv is None else list(argv))
        )
    except UsageError as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 2
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            status = _COMMANDS[args.command](args, out, err)
        for w in caught:
            _warn(str(w.message), err)
        out.flush()
        return status
    except UsageError as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"{PROG}: error: interrupted\n")
        return 130
    except DPSVMConvergenceError:
        # The estimators' message names max_iter/tol, which the command line
        # does not expose: name the option that helps instead.
        err.write(
            f"{PROG}: error: the solver did not reach the accuracy the privacy "
            "proof needs, so nothing was written; use a larger --regularization "
            "(it makes the problem better conditioned) or another --mechanism\n"
        )
        return 1
    except (
        ValueError,  # includes BudgetExceededError, JSON and Unicode errors
        TypeError,
        OSError,  # FileNotFoundError, PermissionError, IsADirectoryError, ...
        OverflowError,
    ) as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 1
