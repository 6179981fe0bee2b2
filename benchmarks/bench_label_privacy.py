# SPDX-License-Identifier: BSD-3-Clause
"""Label DP on UCI Adult: LabelPrivateClassifier against full DP and no privacy.

Adult is encoded by the public schema ``examples/adult_schema.json``
(``dpsvm.preprocessing.SchemaTransformer``: public ranges and categories,
nothing read from the data). For each ε in ``--epsilons`` and ``--draws``
noise draws it measures test accuracy of:

* ``LabelPrivateClassifier()`` with its defaults (``mechanism="rr"``) and
  with ``mechanism="rr-with-prior"``, both with the default base estimator;
* Algorithm 4 of Bassily, Mohri & Suresh (``dpsvm.margins.
  LabelPrivateMarginClassifier`` with its current defaults, label DP);
* ``DPLinearSVC`` with its defaults (full DP: features and labels);
* the non-private default base estimator (one fit; it has no noise) and the
  majority-class rate.

``--select`` instead runs the evidence used to choose the defaults: 5-fold
cross-validation **on the training file only** (the test file is not read) of
both mechanisms with several base estimators. ``--draws 1 --epsilons 1`` is a
smoke test. Usage::

    python benchmarks/bench_label_privacy.py [--data-dir DIR] [--draws 10] \\
        [--epsilons 0.1,0.5,1,2] [--no-margins] [--select] [--threads 1]

Every random draw uses the OS CSPRNG (``random_state=None``) except in
``--select``, which seeds the noise so that all candidates see the same folds.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.datasets.adult import ADULT_COLUMNS
from dpsvm.label_privacy import LabelPrivateClassifier, default_estimator
from dpsvm.preprocessing import PublicSchema, SchemaTransformer

SCHEMA = Path(__file__).resolve().parents[1] / "examples" / "adult_schema.json"


def load_adult(data_dir: str) -> dict[str, np.ndarray]:
    """Adult's training and test files encoded by the public schema (labels 0/1)."""
    schema = PublicSchema.from_json(SCHEMA)
    encoder = SchemaTransformer(schema, sparse_output=False)  # dense for HGB
    out: dict[str, np.ndarray] = {}
    for part, name in (("train", "adult.data.gz"), ("test", "adult.test.gz")):
        with gzip.open(os.path.join(data_dir, "adult", name), "rt") as f:
            frame = pd.read_csv(
                f,
                names=list(ADULT_COLUMNS),
                skipinitialspace=True,
                comment="|",
                na_values=["?"],
                keep_default_na=False,
            )
        frame = frame.dropna(subset=[schema.label.column])
        labels = frame[schema.label.column].astype(str).str.rstrip(".")
        X = (
            encoder.fit_transform(frame)
            if part == "train"
            else encoder.transform(frame)
        )
        out[f"X_{part}"] = np.asarray(X, dtype=np.float64)
        out[f"y_{part}"] = (labels.to_numpy() == schema.classes[1]).astype(np.int64)
    out["data_norm"] = np.asarray(schema.row_norm_bound)
    return out


def _cell(accs: list[float]) -> str:
    if not accs:
        return "n/a"
    if len(accs) == 1:
        return f"{accs[0]:.4f}"
    return f"{np.mean(accs):.4f} ± {np.std(accs):.4f}"


def run_benchmark(
    data: dict[str, np.ndarray], epsilons: list[float], draws: int, margins: bool
) -> str:
    """The Markdown table of test accuracies (mean ± sd over ``draws``)."""
    from dpsvm.margins import LabelPrivateMarginClassifier
    from dpsvm.models import DPLinearSVC

    Xtr, ytr, Xte, yte = (data[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    norm = float(data["data_norm"])
    majority = max(np.mean(yte), 1 - np.mean(yte))
    nonprivate = clone(default_estimator()).fit(Xtr, ytr).score(Xte, yte)
    rows = [
        "| ε | plain RR (default) | RR with prior | Algorithm 4 (margins) "
        "| `DPLinearSVC` (full DP) | non-private | majority |",
        "|---:|---|---|---|---|---|---|",
    ]
    for eps in epsilons:
        acc: dict[str, list[float]] = {k: [] for k in ("prior", "rr", "alg4", "svc")}
        for _ in range(draws):
            for key, mech in (("prior", "rr-with-prior"), ("rr", "rr")):
                clf = LabelPrivateClassifier(
                    epsilon=eps, classes=[0, 1], mechanism=mech
                )
                acc[key].append(clf.fit(Xtr, ytr).score(Xte, yte))
            if margins:
                alg4 = LabelPrivateMarginClassifier(
                    epsilon=eps, classes=[0, 1], data_norm=norm
                )
                acc["alg4"].append(alg4.fit(Xtr, ytr).score(Xte, yte))
            svc = DPLinearSVC(epsilon=eps, classes=[0, 1], data_norm=norm)
            acc["svc"].append(svc.fit(Xtr, ytr).score(Xte, yte))
        rows.append(
            f"| {eps:g} | {_cell(acc['rr'])} | {_cell(acc['prior'])} | "
            f"{_cell(acc['alg4'])} | {_cell(acc['svc'])} | {nonprivate:.4f} | "
            f"{majority:.4f} |"
        )
        print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows)


def candidate_estimators() -> dict[str, object]:
    """The base estimators compared by ``--select``."""
    return {
        "HistGradientBoosting (default)": HistGradientBoostingClassifier(),
        "LogisticRegression": LogisticRegression(max_iter=1000),
    }


def run_selection(
    data: dict[str, np.ndarray], epsilons: list[float], folds: int
) -> str:
    """5-fold CV on the training file: mechanism × base estimator, mean accuracy."""
    X, y = data["X_train"], data["y_train"]
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y))
    rows = ["| ε | base estimator | RR with prior | plain RR |", "|---:|---|---|---|"]
    for eps in epsilons:
        for name, est in candidate_estimators().items():
            cells = []
            for mech in ("rr-with-prior", "rr"):
                scores = []
                for i, (tr, va) in enumerate(splits):
                    clf = LabelPrivateClassifier(
                        est,
                        epsilon=eps,
                        classes=[0, 1],
                        mechanism=mech,
                        random_state=i,
                    )
                    scores.append(clf.fit(X[tr], y[tr]).score(X[va], y[va]))
                cells.append(f"{np.mean(scores):.4f} ± {np.std(scores):.4f}")
            rows.append(f"| {eps:g} | {name} | {cells[0]} | {cells[1]} |")
            print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    """Parse the options, run and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--epsilons", default="0.1,0.5,1,2")
    parser.add_argument(
        "--no-margins",
        action="store_true",
        help="skip Algorithm 4 (LabelPrivateMarginClassifier)",
    )
    parser.add_argument(
        "--select",
        action="store_true",
        help="cross-validate the default choices on the training file",
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="OpenMP/BLAS threads (1 is fastest on a busy machine)",
    )
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("the UCI Adult files were not found: pass --data-dir DIR")
    epsilons = [float(e) for e in args.epsilons.split(",")]
    start = time.perf_counter()
    data = load_adult(str(data_dir))
    with warnings.catch_warnings(), threadpool_limits(args.threads):
        warnings.simplefilter("ignore", category=UserWarning)
        if args.select:
            table = run_selection(data, epsilons, args.folds)
        else:
            table = run_benchmark(data, epsilons, args.draws, not args.no_margins)
    print(table)
    print(
        f"\n{args.draws if not args.select else args.folds} "
        f"{'draws' if not args.select else 'folds'}; "
        f"{time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
