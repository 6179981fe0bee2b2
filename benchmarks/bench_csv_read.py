# SPDX-License-Identifier: BSD-3-Clause
"""Time and peak memory of reading a large numeric CSV file, and of ``dpsvm train``.

Generates a numeric CSV of 10⁶ rows (``--rows``): 10 feature columns ``x0`` …
``x9`` and a ±1 label column ``y`` under a header row (about 98 MB), in a
temporary directory that is removed afterwards, and a public schema declaring
the ten features numeric in [-5, 5] and the label's classes -1 and 1. Each
measurement runs in a fresh Python process, so that one's start-up and peak
resident memory (``ru_maxrss`` from ``os.wait4``) are not mixed with another's:

* ``baseline`` — a process importing numpy and pandas and reading nothing;
* ``pandas-c`` — ``pandas.read_csv`` (C engine), then ``to_numpy()``;
* ``pandas-pyarrow`` — ``pandas.read_csv(engine="pyarrow")``, then ``to_numpy()``;
* ``dpsvm`` — ``dpsvm.cli._data.read_csv`` (what ``dpsvm train --data`` runs);
* ``dpsvm-float32`` — the same into float32;
* ``help`` — ``dpsvm --help`` (start-up: building the parser);
* ``train`` — ``dpsvm train --data FILE --classes -1,1`` end to end;
* ``train-schema`` — ``dpsvm train --data FILE --schema SCHEMA`` end to end.

For the readers the time is that of the read alone (measured inside the
process, imports excluded); for ``help`` and the two ``train`` runs it is the
whole process (start-up, read, fit, model file written). The CPU column is the
process's user + system time, which depends less than the wall time on what
else runs on a shared machine. The memory column is the process's peak RSS.
The file is written by a child process too: a child's peak RSS includes that of
the process it was started from (Linux keeps the high-water mark across
``exec``), so this process stays small. The verdicts compare each ``train``
time with issue 25's target, 3 × the ``pandas-c`` read time + 1.5 s: in wall
time, and in CPU time (the read's CPU time is that of the ``pandas-c`` process
less the ``baseline`` one's), which a loaded machine distorts less. The
machine's load average is printed before and after. Usage::

    python benchmarks/bench_csv_read.py [--rows 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_READER = r"""
import json, sys, time
import numpy as np, pandas as pd
from dpsvm.cli._data import read_csv
path, reader = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
if reader == "dpsvm":
    X = read_csv(path, header=True).values
elif reader == "dpsvm-float32":
    X = read_csv(path, header=True, dtype=np.float32).values
elif reader == "pandas-c":
    X = pd.read_csv(path).to_numpy(dtype=np.float64)
elif reader == "pandas-pyarrow":
    X = pd.read_csv(path, engine="pyarrow").to_numpy(dtype=np.float64)
else:
    X = np.zeros((1, 1))
print(json.dumps({"seconds": time.perf_counter() - t0, "shape": X.shape}))
"""

READERS = ("baseline", "pandas-c", "pandas-pyarrow", "dpsvm", "dpsvm-float32")
COMMANDS = ("help", "train", "train-schema")


def _measure(argv: list[str]) -> dict[str, float]:
    """Run ``argv``; its wall and CPU seconds, peak RSS (MiB) and its output."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    # wait4 gives this child's own resource usage (CPU time, peak RSS).
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:4])} ... failed: {stderr.strip()}")
    result = {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,  # KiB on Linux
    }
    if stdout.startswith("{"):
        result["seconds"] = json.loads(stdout)["seconds"]
    return result


def _argv(name: str, path: str, schema: str, model: str) -> list[str]:
    dpsvm = [sys.executable, "-m", "dpsvm.cli"]
    if name == "help":
        return [*dpsvm, "--help"]
    if name == "train":
        return [*dpsvm, "train", "--data", path, "--classes", "-1,1", "--out", model]
    if name == "train-schema":
        return [*dpsvm, "train", "--data", path, "--schema", schema, "--out", model]
    return [sys.executable, "-c", _READER, path, name]


def write_files(tmp: str, rows: int) -> tuple[str, str]:
    """The CSV file and its public schema (synthetic data, fixed seed)."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.standard_normal((rows, 10))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(rows) > 0, 1, -1)
    path = os.path.join(tmp, "big.csv")
    names = [f"x{j}" for j in range(10)]
    np.savetxt(
        path,
        np.column_stack([X, y]),
        delimiter=",",
        fmt=["%.6f"] * 10 + ["%d"],
        header=",".join([*names, "y"]),
        comments="",
    )
    schema = os.path.join(tmp, "schema.json")
    with open(schema, "w", encoding="utf-8") as f:
        json.dump(
            {
                "label": {"column": "y", "classes": [-1, 1]},
                "features": [
                    {"column": n, "type": "numeric", "lower": -5, "upper": 5}
                    for n in names
                ],
            },
            f,
        )
    return path, schema


def _verdicts(what: str, pandas_read: float, seconds: dict[str, float]) -> None:
    """Print each train run against 3 x the pandas read + 1.5 s."""
    target = 3 * pandas_read + 1.5
    print(
        f"{what}: target for train = 3 x {pandas_read:.2f} s (pandas-c) + 1.5 s", end=""
    )
    print(f" = {target:.2f} s")
    for name in ("train", "train-schema"):
        if name in seconds:
            verdict = "within" if seconds[name] <= target else "OVER"
            print(f"{what}: {name} {seconds[name]:.2f} s, {verdict} the target")


def main(argv: list[str] | None = None) -> None:
    """Generate the files, run each measurement, print a Markdown table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-to", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument(
        "--readers",
        default=",".join(READERS + COMMANDS),
        help=f"comma-separated, of {', '.join(READERS + COMMANDS)}",
    )
    args = parser.parse_args(argv)
    if args.write_to is not None:  # the child that writes the files
        write_files(args.write_to, args.rows)
        return
    chosen = args.readers.split(",")
    unknown = sorted(set(chosen) - set(READERS + COMMANDS))
    if unknown:
        parser.error(f"unknown --readers {', '.join(unknown)}")
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, __file__, "--write-to", tmp, "--rows", str(args.rows)],
            check=True,
        )
        path, schema = os.path.join(tmp, "big.csv"), os.path.join(tmp, "schema.json")
        model = os.path.join(tmp, "model.json")
        size = os.path.getsize(path) / 1e6
        print(
            f"file: {args.rows} rows x 11 columns (10 features, label), {size:.0f} MB"
        )
        print()
        print("| run | time (s, best of n) | CPU user+sys (s) | peak RSS (MiB) |")
        print("|---|---:|---:|---:|")
        best: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for name in chosen:
            runs = [
                _measure(_argv(name, path, schema, model)) for _ in range(args.repeat)
            ]
            key = "seconds" if name in READERS else "wall"
            fastest = min(runs, key=lambda r: r[key])
            best[name] = fastest[key]
            cpu[name] = min(r["cpu"] for r in runs)
            print(
                f"| {name} | {fastest[key]:.2f} | {cpu[name]:.2f} | "
                f"{min(r['peak_mib'] for r in runs):.0f} |"
            )
    if "pandas-c" in best:
        print()
        _verdicts("wall", best["pandas-c"], best)
        if "baseline" in cpu:
            # The read's CPU time: the reader's process less one that imports
            # the same modules and reads nothing.
            _verdicts("CPU", cpu["pandas-c"] - cpu["baseline"], cpu)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
