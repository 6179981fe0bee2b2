# SPDX-License-Identifier: BSD-3-Clause
"""Adult from raw CSV + public schema through the command line.

Writes the public Adult schema (category lists from the UCI ``adult.names``
codebook and the documented numeric ranges, ``dpsvm.datasets.adult``: nothing
read from the data), turns the raw UCI files into CSV files with a header row
(the only change: ``adult.test``'s labels end with a ``.``, which is dropped,
and the first line of ``adult.test`` is a comment), then for each ε runs::

    dpsvm train --data train.csv --schema adult_schema.json --epsilon E --out m.json
    dpsvm evaluate --model m.json --data test.csv

with fresh CSPRNG noise, ``--draws`` times, once with the defaults and once
with ``--tune`` added, and prints mean ± sd test accuracy next to the
majority-class rate. On the same schema-encoded features (the
``SchemaTransformer`` of the same schema, ``data_norm`` = the schema's row-norm
bound) it also records diffprivlib's ``LogisticRegression`` at the same ε
(its defaults otherwise: C = 1, intercept; run in ``.venv-diffprivlib`` by
``_diffprivlib_worker.py``, created as ``bench_linear.py`` does unless
``--no-create-venv``) and the non-private baseline, scikit-learn's
``LogisticRegression`` (deterministic: one fit). Other options (e.g.
``--regularization``) are passed through to both dpsvm runs after ``--``.
Usage::

    python benchmarks/adult_schema_cli.py [--data-dir DIR] [--draws 3] \\
        [--epsilons 0.1,0.5,1,2] [--no-tune] [--no-diffprivlib] \\
        [-- --regularization 0.001]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bench_linear import DEFAULT_VENV, WORKER, ensure_diffprivlib_python
from sklearn.linear_model import LogisticRegression

from dpsvm.cli import main as dpsvm
from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.datasets.adult import ADULT_CATEGORIES, ADULT_COLUMNS, ADULT_NUMERIC_BOUNDS
from dpsvm.preprocessing import PublicSchema, SchemaTransformer


def adult_schema() -> dict[str, object]:
    """The public schema of Adult (codebook categories, documented ranges)."""
    features: list[dict[str, object]] = []
    for column in ADULT_COLUMNS[:-1]:
        if column in ADULT_NUMERIC_BOUNDS:
            lower, upper = ADULT_NUMERIC_BOUNDS[column]
            features.append(
                {"column": column, "type": "numeric", "lower": lower, "upper": upper}
            )
        else:
            categories = list(ADULT_CATEGORIES[column])
            features.append(
                {"column": column, "type": "categorical", "categories": categories}
            )
    return {
        "label": {"column": "income", "classes": ["<=50K", ">50K"]},
        "features": features,
    }


def raw_to_csv(src: str, dest: str) -> None:
    """A UCI Adult file as CSV with a header row (test labels lose their dot)."""
    with gzip.open(src, "rt") as f, open(dest, "w") as out:
        out.write(",".join(ADULT_COLUMNS) + "\n")
        for line in f:
            if not line.strip() or line.startswith("|"):
                continue
            out.write(re.sub(r"\.\s*$", "", line.rstrip()) + "\n")


def _run(*argv: str) -> str:
    buf, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = dpsvm(list(argv))
    if code:
        raise SystemExit(f"dpsvm {' '.join(argv)} failed: {err.getvalue()}")
    return buf.getvalue()


def _encoded(schema_path: str, train: str, test: str) -> dict[str, np.ndarray]:
    """Both files encoded by the public schema (labels as 0/1 class indices)."""
    schema = PublicSchema.from_json(Path(schema_path))
    encoder = SchemaTransformer(schema, sparse_output=False)
    data: dict[str, np.ndarray] = {}
    for part, path in (("train", train), ("test", test)):
        frame = pd.read_csv(path, skipinitialspace=True)
        labels = schema.encode_labels(frame[schema.label.column])
        X = (
            encoder.fit_transform(frame)
            if part == "train"
            else encoder.transform(frame)
        )
        data[f"X_{part}"] = np.asarray(X, dtype=np.float64)
        data[f"y_{part}"] = (labels == schema.classes[1]).astype(np.int64)
    return data


def _diffprivlib(
    python: Path, data: dict[str, np.ndarray], epsilons: list[float], draws: int,
    data_norm: float, tmp: str,
) -> dict[float, list[float]]:  # fmt: skip
    """diffprivlib's LogisticRegression (defaults, same features) per ε."""
    data_path, cfg_path, out_path = (
        os.path.join(tmp, name) for name in ("dpl.npz", "dpl.json", "dpl_out.json")
    )
    np.savez(data_path, **data)
    config = {
        "epsilons": epsilons,
        "draws": draws,
        "configs": [{"name": "diffprivlib LogisticRegression", "C": 1.0}],
        "data_norm": data_norm,
        "fit_intercept": True,
        "max_iter": 100,  # diffprivlib's defaults
        "tol": 1e-4,
    }
    with open(cfg_path, "w") as f:
        json.dump(config, f)
    cmd = [str(python), str(WORKER), "--data", data_path, "--config", cfg_path,
           "--out", out_path]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True)
    with open(out_path) as f:
        results = json.load(f)["results"]
    return {float(r["epsilon"]): r["accuracy"] for r in results}


def _cell(accs: list[float] | None) -> str:
    if not accs:
        return "n/a"
    return f"{np.mean(accs):.4f} ± {np.std(accs):.4f}"


def main() -> None:
    """Run the sweep and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--epsilons", default="0.1,0.5,1,2")
    parser.add_argument("--no-tune", action="store_true", help="skip --tune runs")
    parser.add_argument(
        "--no-diffprivlib", action="store_true", help="skip diffprivlib"
    )
    parser.add_argument(
        "--no-create-venv",
        action="store_true",
        help="do not create .venv-diffprivlib when it is missing",
    )
    parser.add_argument("extra", nargs="*", help="options passed to dpsvm train")
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("the UCI Adult files were not found: pass --data-dir DIR")
    epsilons = args.epsilons.split(",")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        schema = os.path.join(tmp, "adult_schema.json")
        with open(schema, "w") as f:
            json.dump(adult_schema(), f, indent=1)
        train, test = os.path.join(tmp, "train.csv"), os.path.join(tmp, "test.csv")
        raw_to_csv(os.path.join(data_dir, "adult", "adult.data.gz"), train)
        raw_to_csv(os.path.join(data_dir, "adult", "adult.test.gz"), test)
        with open(test) as f:
            labels = [line.rsplit(",", 1)[1].strip() for line in f][1:]
        majority = max(labels.count("<=50K"), labels.count(">50K")) / len(labels)
        print(f"majority class: {majority:.4f}; draws: {args.draws}; "
              f"extra options: {args.extra}")  # fmt: skip
        data = _encoded(schema, train, test)
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
                bound = PublicSchema.from_json(Path(schema)).row_norm_bound
                dpl = _diffprivlib(
                    python, data, [float(e) for e in epsilons], args.draws, bound, tmp
                )
        model = os.path.join(tmp, "m.json")
        variants = [("defaults", [])] + ([] if args.no_tune else [("tune", ["--tune"])])
        print(
            "| ε | dpsvm defaults | dpsvm `--tune` | diffprivlib LogisticRegression "
            "| non-private LogisticRegression |\n|---:|---|---|---|---|"
        )
        for eps in epsilons:
            cells: dict[str, list[float]] = {}
            for name, flags in variants:
                accs = cells.setdefault(name, [])
                for _ in range(args.draws):
                    _run("train", "--data", train, "--schema", schema, "--epsilon", eps,
                         *flags, *args.extra, "--quiet", "--out", model)  # fmt: skip
                    out = _run("evaluate", "--model", model, "--data", test)
                    accs.append(float(out.split()[1]))
            print(
                f"| {eps} | {_cell(cells['defaults'])} | {_cell(cells.get('tune'))} "
                f"| {_cell(dpl.get(float(eps)))} | {nonprivate:.4f} |"
            )
    print(f"total time: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
