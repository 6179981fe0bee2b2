# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm sweep``: accuracy and the other figures against ε on a held-out split."""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ..utils._cli import PROG, UsageError, add_integer_argument
from ._args import _add_model_options, _epsilon
from ._common import OutputError, _check_output, _removed_on_failure, _same_file, _warn
from ._metrics import evaluate_model, majority_warning, sweep_rows, sweep_text
from ._reading import _frame
from ._tabular import add_dialect_options
from ._train import _build_estimator, _training_data
from ._workflow import (
    add_holdout_options,
    holdout_split,
    import_pyplot,
    privacy_parameter_warnings,
    progress,
    sweep_png,
    sweep_table,
    unused_delta_line,
)

__all__ = ["add_sweep_subparser", "run_sweep_command"]


def add_sweep_subparser(sub: Any) -> None:
    """Add ``dpsvm sweep``."""
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


def run_sweep_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm sweep``: the figures against ε, as a table and a plot."""
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
