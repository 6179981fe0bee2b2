# SPDX-License-Identifier: BSD-3-Clause
"""Adult from raw CSV + public schema through the command line.

Writes the public Adult schema (category lists from the UCI ``adult.names``
codebook and the documented numeric ranges, ``dpsvm.datasets.adult``: nothing
read from the data), turns the raw UCI files into CSV files with a header row
(the only change: ``adult.test``'s labels end with a ``.``, which is dropped,
and the first line of ``adult.test`` is a comment), then for each ε runs::

    dpsvm train --data train.csv --schema adult_schema.json --epsilon E \\
        --fit-intercept --out m.json
    dpsvm evaluate --model m.json --data test.csv

with fresh CSPRNG noise, ``--draws`` times, and prints mean ± sd test accuracy
next to the majority-class rate. Other options (e.g. ``--regularization``) are
passed through after ``--``. Usage::

    python benchmarks/adult_schema_cli.py [--data-dir DIR] [--draws 5] \\
        [--epsilons 0.1,0.5,1,2] [-- --regularization 0.001]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import re
import tempfile

import numpy as np

from dpsvm.cli import main as dpsvm
from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.datasets.adult import ADULT_CATEGORIES, ADULT_COLUMNS, ADULT_NUMERIC_BOUNDS


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


def main() -> None:
    """Run the sweep and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir")
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--epsilons", default="0.1,0.5,1,2")
    parser.add_argument("extra", nargs="*", help="options passed to dpsvm train")
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)
    if data_dir is None:
        raise SystemExit("the UCI Adult files were not found: pass --data-dir DIR")
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
        print(f"majority class: {majority:.4f}; extra options: {args.extra}")
        print("| ε | test accuracy (mean ± sd) |\n|---:|---|")
        model = os.path.join(tmp, "m.json")
        for eps in args.epsilons.split(","):
            accs = []
            for _ in range(args.draws):
                _run("train", "--data", train, "--schema", schema, "--epsilon", eps,
                     "--fit-intercept", *args.extra, "--out", model)  # fmt: skip
                out = _run("evaluate", "--model", model, "--data", test)
                accs.append(float(out.split()[1]))
            print(f"| {eps} | {np.mean(accs):.4f} ± {np.std(accs):.4f} |")


if __name__ == "__main__":
    main()
