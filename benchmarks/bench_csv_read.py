# SPDX-License-Identifier: BSD-3-Clause
"""Time and peak memory of reading a large numeric CSV file.

Generates a 10⁶ × 11 numeric CSV (10 features and a ±1 label, about 104 MB;
``--rows`` changes the size) and reads it, each reader in a fresh Python
process so that the peak resident memory (``ru_maxrss``) of one reader is not
mixed with another's:

* ``dpsvm`` — ``dpsvm.cli._data.read_csv`` (what ``dpsvm train --data`` runs);
* ``pandas-c`` — ``pandas.read_csv`` with the C engine, then ``to_numpy()``;
* ``pandas-pyarrow`` — ``pandas.read_csv(engine="pyarrow")``, then ``to_numpy()``;
* ``baseline`` — the same process importing the modules and reading nothing.

The memory column is the reader's peak RSS minus the baseline's. (To measure
the former pure-Python parser, call ``read_csv(path)`` without ``header``.)
Usage::

    python benchmarks/bench_csv_read.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

_CHILD = r"""
import json, resource, sys, time
import numpy as np, pandas as pd
from dpsvm.cli._data import read_csv
path, reader = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if reader == "dpsvm":
    X = read_csv(path, header=False).values
elif reader == "pandas-c":
    X = pd.read_csv(path, header=None).to_numpy(dtype=np.float64)
elif reader == "pandas-pyarrow":
    X = pd.read_csv(path, header=None, engine="pyarrow").to_numpy(dtype=np.float64)
else:
    X = np.zeros((1, 1))
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
print(json.dumps({"seconds": seconds, "peak_mib": rss / 1024, "shape": X.shape}))
"""


def _run(path: str, reader: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, path, reader],
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise SystemExit(f"{reader} failed: {out.stderr.strip()}")
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main() -> None:
    """Generate the file, run each reader, print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--readers", default="baseline,dpsvm,pandas-c,pandas-pyarrow")
    args = parser.parse_args()
    # Synthetic public data (fixed seed): only the file's size matters here.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.rows, 10))
    y = np.where(rng.random(args.rows) < 0.5, -1, 1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "big.csv")
        np.savetxt(
            path, np.column_stack([X, y]), delimiter=",", fmt=["%.6f"] * 10 + ["%d"]
        )
        size = os.path.getsize(path) / 1e6
        print(f"file: {args.rows} x 11, {size:.0f} MB")
        print("| reader | time (s, best of n) | peak RSS above baseline (MiB) |")
        print("|---|---|---|")
        base = min(
            _run(path, "baseline")["peak_mib"] for _ in range(min(2, args.repeat))
        )
        for reader in args.readers.split(","):
            if reader == "baseline":
                continue
            runs = [_run(path, reader) for _ in range(args.repeat)]
            best = min(r["seconds"] for r in runs)
            peak = min(r["peak_mib"] for r in runs) - base
            print(f"| {reader} | {best:.2f} | {peak:.0f} |")


if __name__ == "__main__":
    main()
