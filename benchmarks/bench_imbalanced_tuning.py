# SPDX-License-Identifier: BSD-3-Clause
"""Private tuning of a SchemaTransformer + DPLinearSVC pipeline on Adult.

Two experiments with :class:`dpsvm.model_selection.PrivateSelectThenFit` on the
raw UCI Adult files (``$DPSVM_DATA/adult``, encoded by
``examples/adult_schema.json``), fresh CSPRNG noise in every run:

* **Adult as published** (24 % positives): ``--runs-full`` runs scored by
  accuracy; test accuracy on the UCI test file.
* **Imbalanced Adult**: the positives of both files subsampled (a fixed,
  seeded choice made before any run) so that they are 6 % of the rows; the
  public priors are then (0.94, 0.06) by construction. ``--runs`` runs with
  ``scoring="accuracy"`` and ``--runs`` with ``scoring="weighted-error"``
  (those priors). For each: how many selected models predict both classes
  on the test rows, and their balanced accuracy.
* With ``--cli-runs N``: the same imbalanced files through the command line,
  ``dpsvm train --schema examples/adult_schema.json --tune --metric
  weighted-error --class-priors 0.94,0.06`` (its grid: 1/64 … 1 × the a-priori
  Λ) then ``dpsvm predict`` on the test file, N times; and N times with
  ``--tune`` alone (accuracy, ½ and 1 × the a-priori Λ) for comparison.

Usage::

    python benchmarks/bench_imbalanced_tuning.py [--runs 20] [--runs-full 3] \\
        [--epsilon 1]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from adult_schema_cli import raw_to_csv  # this directory (run as a script)
from sklearn.metrics import balanced_accuracy_score
from sklearn.pipeline import make_pipeline

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.model_selection import PrivateSelectThenFit
from dpsvm.models import DPLinearSVC
from dpsvm.preprocessing import PublicSchema, SchemaTransformer

SCHEMA = Path(__file__).resolve().parent.parent / "examples" / "adult_schema.json"
GRID = {"dplinearsvc__regularization": [1e-5, 1e-4, 1e-3, 1e-2]}
POSITIVE_SHARE = 0.06


def _subsample(frame: pd.DataFrame, positive: str, seed: int) -> pd.DataFrame:
    """Keep every negative and enough positives to make them 6 % of the rows."""
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(frame["income"].to_numpy() == positive)
    neg = np.flatnonzero(frame["income"].to_numpy() != positive)
    k = round(POSITIVE_SHARE / (1 - POSITIVE_SHARE) * neg.size)
    keep = np.sort(np.concatenate([neg, rng.choice(pos, k, replace=False)]))
    return frame.iloc[keep].reset_index(drop=True)


def _runs(
    schema: PublicSchema,
    train: pd.DataFrame,
    test: pd.DataFrame,
    runs: int,
    epsilon: float,
    scoring: str,
    priors: dict[str, float] | None,
) -> dict[str, object]:
    y_tr = schema.encode_labels(train["income"])
    y_te = schema.encode_labels(test["income"])
    pipe = make_pipeline(
        SchemaTransformer(schema),
        DPLinearSVC(classes=list(schema.classes), data_norm=schema.row_norm_bound),
    )
    both, balanced, accuracy, chosen = 0, [], [], []
    t0 = time.perf_counter()
    for _ in range(runs):
        sel = PrivateSelectThenFit(
            pipe, GRID, epsilon=epsilon, scoring=scoring, class_priors=priors
        ).fit(train, y_tr)
        pred = sel.predict(test)
        both += len(set(pred)) == len(schema.classes)
        balanced.append(balanced_accuracy_score(y_te, pred))
        accuracy.append(float(np.mean(pred == y_te)))
        chosen.append(sel.best_params_["dplinearsvc__regularization"])
    return {
        "scoring": scoring,
        "runs": runs,
        "predicts_both_classes": both,
        "balanced_accuracy_mean": round(float(np.mean(balanced)), 4),
        "balanced_accuracy_sd": round(float(np.std(balanced)), 4),
        "accuracy_mean": round(float(np.mean(accuracy)), 4),
        "majority_rate": round(float(np.mean(y_te == schema.classes[0])), 4),
        "chosen_regularization": {
            f"{v:g}": chosen.count(v) for v in sorted(set(chosen))
        },
        "seconds": round(time.perf_counter() - t0, 1),
    }


def _cli_runs(
    train: pd.DataFrame,
    test: pd.DataFrame,
    runs: int,
    epsilon: float,
    schema: PublicSchema,
    metric: str,
) -> dict[str, object]:
    """``dpsvm train --tune --metric METRIC`` then ``predict``, N times."""
    from dpsvm.cli import main as dpsvm

    y_te = schema.encode_labels(test["income"])
    both, balanced = 0, []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        tr, te = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        model, pred = os.path.join(tmp, "m.json"), os.path.join(tmp, "p.csv")
        train.to_csv(tr, index=False)
        test.to_csv(te, index=False)
        for _ in range(runs):
            argv = ["train", "--data", tr, "--schema", str(SCHEMA), "--epsilon"]
            argv += [f"{epsilon:g}", "--tune", "--metric", metric]
            if metric == "weighted-error":
                priors = f"{1 - POSITIVE_SHARE:g},{POSITIVE_SHARE:g}"
                argv += ["--class-priors", priors]
            argv += ["--out", model, "--quiet"]
            with contextlib.redirect_stdout(io.StringIO()):
                if dpsvm(argv) or dpsvm(
                    ["predict", "--model", model, "--data", te, "--out", pred]
                ):
                    raise SystemExit("dpsvm failed")
            with open(pred) as fh:
                labels = np.array(fh.read().split())
            both += len(set(labels)) == len(schema.classes)
            balanced.append(balanced_accuracy_score(y_te, labels))
    return {
        "data": f"adult, positives subsampled to {POSITIVE_SHARE:.0%}, CLI",
        "scoring": f"dpsvm train --tune --metric {metric}",
        "runs": runs,
        "predicts_both_classes": both,
        "balanced_accuracy_mean": round(float(np.mean(balanced)), 4),
        "balanced_accuracy_sd": round(float(np.std(balanced)), 4),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--runs-full", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--cli-runs", type=int, default=0)
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("Adult files not found: set DPSVM_DATA or --data-dir")
    schema = PublicSchema.from_json(SCHEMA)
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for part, name in (("train", "adult.data.gz"), ("test", "adult.test.gz")):
            paths[part] = os.path.join(tmp, f"{part}.csv")
            raw_to_csv(os.path.join(data_dir, "adult", name), paths[part])
        train = pd.read_csv(paths["train"], skipinitialspace=True, dtype=str)
        test = pd.read_csv(paths["test"], skipinitialspace=True, dtype=str)
    results = []
    if args.runs_full:
        results.append(
            {
                "data": "adult",
                **_runs(
                    schema, train, test, args.runs_full, args.epsilon, "accuracy", None
                ),
            }
        )
    positive = str(schema.classes[1])
    train_i, test_i = _subsample(train, positive, 0), _subsample(test, positive, 1)
    priors = {
        str(schema.classes[0]): 1 - POSITIVE_SHARE,
        positive: POSITIVE_SHARE,
    }
    for scoring in ("accuracy", "weighted-error") if args.runs else ():
        results.append(
            {
                "data": f"adult, positives subsampled to {POSITIVE_SHARE:.0%}",
                "n_train": len(train_i),
                **_runs(
                    schema,
                    train_i,
                    test_i,
                    args.runs,
                    args.epsilon,
                    scoring,
                    priors if scoring == "weighted-error" else None,
                ),
            }
        )
    for metric in ("accuracy", "weighted-error") if args.cli_runs else ():
        results.append(
            _cli_runs(train_i, test_i, args.cli_runs, args.epsilon, schema, metric)
        )
    for r in results:
        print(json.dumps(r))
    print(json.dumps({"load_1min": os.getloadavg()[0], "epsilon": args.epsilon}))


if __name__ == "__main__":
    main()
