# SPDX-License-Identifier: BSD-3-Clause
"""Peak memory and time of ``dpsvm train --schema`` on a wide one-hot table.

Writes a synthetic table like a census extract: ``--rows`` rows (default
200,000), 40 categorical columns of 12 categories and 20 numeric columns (500
encoded columns), an imbalanced label (about 6 % positives), and its public
schema; then runs ``dpsvm train --schema`` in a child process under
``/usr/bin/time -v`` (when present) and prints the child's peak resident
memory (maxrss) and wall time. ``--dense`` forces
``SchemaTransformer(sparse_output=False)`` (the encoding before CSR output),
for the comparison. Usage::

    python benchmarks/bench_sparse_schema.py [--rows 200000] [--dense] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

N_CATEGORICAL, N_LEVELS, N_NUMERIC = 40, 12, 20

#: The child: the CLI, optionally with the dense encoding forced.
_CHILD = r"""
import sys
if sys.argv[1] == "dense":
    from dpsvm.preprocessing import _transformer
    _transformer.sparse_by_default = lambda schema: False
from dpsvm.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def write_table(directory: str, rows: int, seed: int = 0) -> tuple[str, str]:
    """Write ``data.csv`` and ``schema.json`` into ``directory``; their paths."""
    rng = np.random.default_rng(seed)
    levels = [f"v{k}" for k in range(N_LEVELS)]
    cats = rng.integers(0, N_LEVELS, size=(rows, N_CATEGORICAL))
    nums = rng.uniform(0.0, 100.0, size=(rows, N_NUMERIC))
    effect = rng.normal(0.0, 0.6, size=(N_CATEGORICAL, N_LEVELS))
    score = effect[np.arange(N_CATEGORICAL), cats].sum(axis=1)
    score += (nums[:, :5] - 50.0).sum(axis=1) / 60.0
    score -= np.quantile(score, 0.94)  # about 6 % positives
    label = np.where(score + rng.logistic(size=rows) * 0.5 > 0, ">50K", "<=50K")
    columns = [f"c{j}" for j in range(N_CATEGORICAL)]
    numeric = [f"n{j}" for j in range(N_NUMERIC)]
    data = os.path.join(directory, "data.csv")
    with open(data, "w") as fh:
        fh.write(",".join([*columns, *numeric, "income"]) + "\n")
        step = 20_000
        for start in range(0, rows, step):
            stop = min(start + step, rows)
            lines = []
            for i in range(start, stop):
                cells = [levels[k] for k in cats[i]]
                cells += [f"{v:.2f}" for v in nums[i]]
                cells.append(label[i])
                lines.append(",".join(cells))
            fh.write("\n".join(lines) + "\n")
    schema = {
        "label": {"column": "income", "classes": ["<=50K", ">50K"]},
        "features": [
            {"column": c, "type": "categorical", "categories": levels} for c in columns
        ]
        + [{"column": c, "type": "numeric", "lower": 0, "upper": 100} for c in numeric],
    }
    path = os.path.join(directory, "schema.json")
    with open(path, "w") as fh:
        json.dump(schema, fh)
    return data, path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--dense", action="store_true")
    parser.add_argument("--keep", help="write the table here and keep it")
    args = parser.parse_args()
    directory = args.keep or tempfile.mkdtemp(prefix="dpsvm-sparse-")
    os.makedirs(directory, exist_ok=True)
    try:
        data, schema = write_table(directory, args.rows)
        model = os.path.join(directory, "model.json")
        command = [sys.executable, "-c", _CHILD, "dense" if args.dense else "csr"]
        command += ["train", "--data", data, "--schema", schema, "--epsilon", "1"]
        command += ["--out", model, "--quiet"]
        timer = shutil.which("time") and "/usr/bin/time"
        if timer and os.path.exists(timer):
            command = [timer, "-v", *command]
        t0 = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        if done.returncode:
            raise SystemExit(done.stderr[-2000:])
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        print(
            json.dumps(
                {
                    "rows": args.rows,
                    "encoded_columns": N_CATEGORICAL * N_LEVELS + N_NUMERIC,
                    "encoding": "dense" if args.dense else "csr",
                    "wall_s": round(wall, 1),
                    "maxrss_mb": None if rss is None else int(rss.group(1)) // 1024,
                    "load_1min": os.getloadavg()[0],
                }
            )
        )
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
