# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm predict`` and ``dpsvm evaluate``: use a saved model on data."""

from __future__ import annotations

import argparse
import csv
import io
import os
from typing import Any, TextIO

import numpy as np

from ..utils._cli import PROG, UsageError
from ._args import _add_data_options
from ._common import _check_output, _same_file, _warn
from ._data import DataError
from ._metrics import (
    METRICS,
    declared_classes,
    evaluate_model,
    evaluation_json,
    evaluation_text,
    majority_warning,
    metrics_option,
    reorder_columns,
)
from ._reading import (
    _check_data_options,
    _check_schema_options,
    _match_columns,
    _read,
    _read_schema_frame,
    _schema_labels,
    _schema_rows,
)

__all__ = ["add_predict_subparsers", "run_evaluate_command", "run_predict_command"]


def add_predict_subparsers(sub: Any) -> None:
    """Add ``dpsvm predict`` and ``dpsvm evaluate``."""
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


def _load(args: argparse.Namespace) -> Any:
    from ..io import load_model

    return load_model(args.model)


def run_predict_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm predict``: one label (or probability row) per line."""
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


def run_evaluate_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm evaluate``: print the chosen figures."""
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
