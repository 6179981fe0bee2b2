# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm train``: train a private model and write it with a privacy report.

Also builds the estimator from the model options, which ``dpsvm sweep`` uses.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import warnings
from datetime import UTC, datetime
from typing import Any, TextIO

import numpy as np

from .. import __version__
from ..exceptions import PrivacyLeakWarning
from ..utils._cli import PROG, UsageError
from ._args import (
    _DEFAULT_N_COMPONENTS,
    _KERNEL_OPTIONS,
    _KERNELS,
    _LINEAR_ONLY_MECHANISMS,
    _add_data_options,
    _add_model_options,
    _classes,
    _priors,
)
from ._common import (
    _check_output,
    _fmt,
    _one_line,
    _removed_on_failure,
    _same_file,
    _warn,
)
from ._data import DataError
from ._metrics import evaluate_model, majority_warning
from ._reading import (
    _check_data_options,
    _check_schema_options,
    _data_format,
    _frame,
    _issparse,
    _read,
    _read_schema_frame,
    _schema_encoder,
    _schema_labels,
)
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
    busy,
    holdout_split,
    holdout_warning,
    privacy_parameter_warnings,
    tuned,
    unused_delta_line,
)

__all__ = ["add_train_subparser", "run_train_command"]

REPORT_FORMAT = "dpsvm-privacy-report"
REPORT_FORMAT_VERSION = 1


def add_train_subparser(sub: Any) -> None:
    """Add ``dpsvm train``."""
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


def run_train_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm train``: fit, then write the model and the report."""
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
            estimator.set_params(data_norm_l1=_schema_l1_bound(schema, estimator))
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


def _schema_l1_bound(schema: Any, estimator: Any) -> float:
    """Public L1 bound of a schema's encoded rows after the L2 projection.

    Each row has at most one non-zero in [−1, 1] per column (a number, or one 1
    per one-hot block), so ‖x‖₁ ≤ min(m, √m·√(R² − s²)) with m the number of
    columns (:func:`~dpsvm.perturbation.sparse_rows_l1_bound`); the estimator
    enforces it by its L1 clip, which changes no such row.
    """
    from ..perturbation import sparse_rows_l1_bound

    params = estimator.get_params()
    m = len(schema.features)
    R = params.get("data_norm")
    if isinstance(R, bool) or not isinstance(R, int | float):
        return float(m)  # no numeric R: each column adds at most 1
    const = float(params.get("intercept_scaling", 0.0))
    return sparse_rows_l1_bound(m, float(R), const if params["fit_intercept"] else 0.0)
