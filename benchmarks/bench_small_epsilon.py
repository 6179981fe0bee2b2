# SPDX-License-Identifier: BSD-3-Clause
"""Adult at small ε: raw CSV + public schema, choices made on the training file.

Issue 25 item 1. Two parts, both reading only public quantities for the
privacy choices:

1. ``--cv`` (the choices; never reads ``adult.test``): 3-fold cross-validation
   on ``adult.data`` (random folds of the training file, seed 0; two noise
   draws per fold) of the mechanisms ``objective`` (Gamma-norm b, the default),
   ``objective-laplace`` (Laplace b on the schema's public L1 bound) and
   ``objective-gaussian`` (δ = 1e-6) with the ``"auto"`` Λ rule at Jacobian
   shares f ∈ {0.1, 0.2, 0.4}, at ε ∈ {0.1, 0.2}. The rows are the
   schema-encoded training rows, the model the estimator ``dpsvm train`` builds
   (Huber h = 1/2, intercept, ``data_norm`` = the schema's row-norm bound).
2. The test (default): for each ε in ``--epsilons`` and ``--draws`` fresh
   CSPRNG noise draws, in one process::

       dpsvm train --data train.csv --schema examples/adult_schema.json \\
           --epsilon E [--mechanism M [--delta 1e-6]] --out m.json
       dpsvm evaluate --model m.json --data test.csv

   for the defaults, ``--mechanism objective-laplace`` (pure ε-DP) and
   ``--mechanism objective-gaussian --delta 1e-6``; the UCI test file is scored
   once per draw. Beside them: diffprivlib's ``LogisticRegression`` (its
   defaults, C = 1, intercept, on the same schema-encoded features with
   ``data_norm`` = the schema's row-norm bound; diffprivlib has no linear SVM),
   run in ``.venv-diffprivlib`` as ``adult_schema_cli.py`` does, and the
   non-private scikit-learn ``LogisticRegression`` (one deterministic fit).

Prints a Markdown table (mean ± sd over the draws), the machine's load average
and the run time. Usage::

    python benchmarks/bench_small_epsilon.py [--data-dir DIR] [--draws 5] \\
        [--epsilons 0.1,0.2,0.5] [--no-diffprivlib] [--cv]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from adult_schema_cli import _diffprivlib, _encoded, _run, raw_to_csv
from bench_linear import DEFAULT_VENV, ensure_diffprivlib_python
from sklearn.linear_model import LogisticRegression

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.models import DPLinearSVC
from dpsvm.perturbation import auto_regularization, sparse_rows_l1_bound
from dpsvm.preprocessing import PublicSchema, SchemaTransformer

SCHEMA = Path(__file__).resolve().parents[1] / "examples" / "adult_schema.json"

#: (column title, extra ``dpsvm train`` options) of the test part.
VARIANTS = (
    ("defaults (objective, pure)", []),
    ("`--mechanism objective-laplace` (pure)", ["--mechanism", "objective-laplace"]),
    (
        "`--mechanism objective-gaussian --delta 1e-6`",
        ["--mechanism", "objective-gaussian", "--delta", "1e-6"],
    ),
)


def _cell(accs: list[float] | None) -> str:
    if not accs:
        return "n/a"
    return f"{np.mean(accs):.4f} ± {np.std(accs):.4f}"


#: The mechanisms of the cross-validation and their extra estimator options.
CV_MECHANISMS = ("objective", "objective-laplace", "objective-gaussian")


def cross_validate(
    train_csv: str,
    folds: int = 3,
    draws: int = 2,
    *,
    mechanisms: tuple[str, ...] = CV_MECHANISMS,
    shares: tuple[float, ...] = (0.1, 0.2, 0.4),
    epsilons: tuple[float, ...] = (0.2, 0.1),
    huber: tuple[float, ...] = (0.5,),
    l1_bound: str = "sparse",
    intercepts: tuple[float, ...] = (0.5,),
) -> None:
    """Part 1: the choices, by cross-validation on the training file only."""
    schema = PublicSchema.from_json(SCHEMA)
    frame = pd.read_csv(train_csv, skipinitialspace=True)
    y = np.where(schema.encode_labels(frame["income"]) == schema.classes[1], 1, -1)
    encoder = SchemaTransformer(schema, sparse_output=False)
    X = np.asarray(encoder.fit_transform(frame), dtype=np.float64)
    R, m = schema.row_norm_bound, len(schema.features)

    def extras(mech: str, s: float) -> dict[str, Any]:
        # The intercept column s/R (0: no intercept), and for the Laplace b the
        # CLI's data_norm_l1 = min(m, √m·√(R² − s²)) (or m, "columns").
        out: dict[str, Any] = {"fit_intercept": s > 0}
        if s > 0:
            out["intercept_scaling"] = s
        if mech == "objective-laplace":
            sparse = sparse_rows_l1_bound(m, R, s)
            out["data_norm_l1"] = sparse if l1_bound == "sparse" else float(m)
        if mech == "objective-gaussian":
            out["delta"] = 1e-6
        return out

    parts = np.array_split(np.random.default_rng(0).permutation(len(y)), folds)
    print(
        "| mechanism | s/R | Huber h | f | ε | CV accuracy (adult.data) |\n"
        "|---|---:|---:|---:|---:|---|"
    )
    grid = [(s, h) for s in intercepts for h in huber]
    for mech in mechanisms:
        for s, h in grid:
            for share in shares:
                for eps in epsilons:
                    accs = []
                    for k in range(folds):
                        held = parts[k]
                        fit = np.concatenate([p for j, p in enumerate(parts) if j != k])
                        # The auto rule reads c as max(c, 1) (docs/defaults.md).
                        lam = auto_regularization(eps, len(fit), 1.0, share) * R * R
                        for seed in range(draws):
                            clf = DPLinearSVC(
                                epsilon=eps, mechanism=mech, data_norm=R,
                                regularization=lam, classes=[-1, 1], huber_h=h,
                                random_state=100 * k + seed, **extras(mech, s),
                            )  # fmt: skip
                            clf.fit(X[fit], y[fit])
                            pred = clf.predict(X[held])
                            accs.append(float(np.mean(pred == y[held])))
                    row = f"| {mech} | {s} | {h} | {share} | {eps} | {_cell(accs)} |"
                    print(row, flush=True)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in text.split(","))


def main() -> None:
    """Run the chosen part and print Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--epsilons", default="0.1,0.2,0.5")
    parser.add_argument("--no-diffprivlib", action="store_true")
    parser.add_argument("--no-create-venv", action="store_true")
    parser.add_argument(
        "--cv", action="store_true", help="run the cross-validation on adult.data"
    )
    parser.add_argument("--cv-draws", type=int, default=2, help="noise draws/fold")
    parser.add_argument("--cv-mechanisms", default=",".join(CV_MECHANISMS))
    parser.add_argument("--cv-shares", default="0.1,0.2,0.4", help="Λ shares f")
    parser.add_argument("--cv-epsilons", default="0.2,0.1")
    parser.add_argument("--cv-huber", default="0.5", help="Huber h values")
    parser.add_argument(
        "--cv-intercept", default="0.5", help="intercept_scaling s/R (0: none)"
    )
    parser.add_argument(
        "--cv-l1-bound",
        choices=("sparse", "columns"),
        default="sparse",
        help="data_norm_l1 of objective-laplace: the CLI's min(m, √m·√(R² − s²)) "
        "or the number of columns m",
    )
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("the UCI Adult files were not found: pass --data-dir DIR")
    start = time.perf_counter()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        train, test = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        raw_to_csv(os.path.join(data_dir, "adult", "adult.data.gz"), train)
        if args.cv:
            cross_validate(
                train,
                draws=args.cv_draws,
                mechanisms=tuple(args.cv_mechanisms.split(",")),
                shares=_floats(args.cv_shares),
                epsilons=_floats(args.cv_epsilons),
                huber=_floats(args.cv_huber),
                l1_bound=args.cv_l1_bound,
                intercepts=_floats(args.cv_intercept),
            )
            print(f"load average before: {load_before}; after: {os.getloadavg()}")
            print(f"total time: {time.perf_counter() - start:.0f} s")
            return
        raw_to_csv(os.path.join(data_dir, "adult", "adult.test.gz"), test)
        epsilons = args.epsilons.split(",")
        data = _encoded(str(SCHEMA), train, test)
        baseline = LogisticRegression(max_iter=1000).fit(
            data["X_train"], data["y_train"]
        )
        nonprivate = float(baseline.score(data["X_test"], data["y_test"]))
        dpl: dict[float, list[float]] = {}
        if not args.no_diffprivlib:
            python = ensure_diffprivlib_python(
                DEFAULT_VENV, create=not args.no_create_venv, log=print
            )
            if python is not None:
                bound = PublicSchema.from_json(SCHEMA).row_norm_bound
                dpl = _diffprivlib(
                    python, data, [float(e) for e in epsilons], args.draws, bound, tmp
                )
        model = os.path.join(tmp, "m.json")
        titles = " | ".join(title for title, _ in VARIANTS)
        print(
            f"| ε | dpsvm {titles} | diffprivlib LogisticRegression | non-private "
            "LogisticRegression |\n|---:|" + "---|" * (len(VARIANTS) + 2)
        )
        for eps in epsilons:
            cells = []
            for _, flags in VARIANTS:
                accs = []
                for _ in range(args.draws):
                    argv = ["--schema", str(SCHEMA), "--epsilon", eps, *flags]
                    _run("train", "--data", train, *argv, "--quiet", "--out", model)
                    out = _run("evaluate", "--model", model, "--data", test)
                    accs.append(float(out.split()[1]))
                cells.append(_cell(accs))
            print(
                f"| {eps} | {' | '.join(cells)} | {_cell(dpl.get(float(eps)))} "
                f"| {nonprivate:.4f} |",
                flush=True,
            )
    print(f"draws: {args.draws} per cell (fresh OS-CSPRNG noise each)")
    print(f"load average before: {load_before}; after: {os.getloadavg()}")
    print(f"total time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
