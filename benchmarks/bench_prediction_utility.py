# SPDX-License-Identifier: BSD-3-Clause
"""Accuracy of ``dpsvm serve``'s private prediction mechanisms through HTTP.

Each mechanism has one benchmark function, registered in :data:`BENCHMARKS`
(name -> function); a function starts real ``dpsvm serve`` processes (a fresh
SQLite ledger each), sends the queries over HTTP exactly as a client would and
returns result rows (one per data set / setting). Add a mechanism by adding a
function and a row.

``model`` (release once, answer forever):

* a 20,000 × 5 linearly separable synthetic CSV (features uniform in
  [-1, 1]⁵, label = sign of a fixed random direction; public schema ranges
  [-1, 1]), ``dpsvm serve`` with its defaults (``--mechanism model --kernel
  rbf``), ε = 1, δ = 1e-6: 200 fresh single-row queries;
* UCI Adult, raw CSV + ``examples/adult_schema.json`` (the header added and the
  test file's trailing dots dropped, as in README), ε = 1, δ = 1e-6,
  ``--mechanism model`` with ``--kernel linear`` and ``--kernel rbf`` (the
  serve defaults otherwise): all 16,281 test rows in requests of 1,024 rows,
  then the server is stopped and restarted on the same ledger, the rows are
  asked again, and the ledger is read: how many charges, what ε, and whether
  the restart answered identically and spent nothing.

Usage::

    python benchmarks/bench_prediction_utility.py [--data-dir DIR] \\
        [--mechanisms model] [--out-json results.json]

The Adult files are read from ``--data-dir``, else ``$DPSVM_DATA``, else
``../shared/datasets`` (``adult/adult.data.gz``, ``adult/adult.test.gz``).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.datasets.adult import ADULT_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
ADULT_SCHEMA = ROOT / "examples" / "adult_schema.json"
KEY = "bench-key-" + "k" * 24
EPSILON, DELTA = 1.0, 1e-6


# ------------------------------------------------------------------ helpers
@dataclass
class Context:
    """What every benchmark function gets: a scratch directory and the data."""

    tmp: Path
    data_dir: Path | None
    keys: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(ctx: Context, data: Path, schema: Path, ledger: Path, *extra: str):
    """A ``dpsvm serve`` process; yields (base URL, seconds to ready)."""
    port = _free_port()
    cmd = [
        sys.executable, "-m", "dpsvm.cli", "serve", "--data", str(data),
        "--schema", str(schema), "--epsilon", repr(EPSILON), "--delta", repr(DELTA),
        "--ledger", str(ledger), "--api-key-file", str(ctx.keys),
        "--port", str(port), *extra,
    ]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}/v2/models/dpsvm"
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode() if proc.stdout else ""
                raise RuntimeError(f"dpsvm serve exited: {out}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ready", timeout=0.5).status_code == 200:
                    break
            time.sleep(0.1)
        yield url, time.perf_counter() - start
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout:
            proc.stdout.close()


def infer(client: httpx.Client, url: str, rows: list[list[Any]]) -> list[Any]:
    """Labels of raw rows (one request; strings go as a BYTES tensor)."""
    body = {
        "inputs": [
            {
                "name": "input",
                "shape": [len(rows), len(rows[0])],
                "datatype": "BYTES",
                "data": [v for r in rows for v in r],
            }
        ]
    }
    r = client.post(f"{url}/infer", json=body)
    r.raise_for_status()
    return list(r.json()["outputs"][0]["data"])


def ledger_summary(path: Path) -> dict[str, Any]:
    """Charges as the ledger holds them (read-only)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        eps, delta, answers = con.execute(
            "SELECT epsilon_spent, delta_spent, answers FROM dpsvm_ledger_state"
        ).fetchone()
        releases = con.execute("SELECT COUNT(*) FROM dpsvm_ledger_release").fetchone()
    finally:
        con.close()
    return {
        "epsilon_spent": eps,
        "delta_spent": delta,
        "ledger_answers": answers,
        "releases": releases[0],
    }


def _client() -> httpx.Client:
    return httpx.Client(timeout=120, headers={"Authorization": f"Bearer {KEY}"})


# ------------------------------------------------------------------- data
def separable_csv(ctx: Context, n: int = 20_000, d: int = 5, seed: int = 0):
    """Training CSV, its public schema and 200 fresh test rows with labels."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = rng.uniform(-1, 1, size=(n + 200, d))
    y = np.where(X @ w > 0, "pos", "neg")
    names = [f"x{j}" for j in range(d)]
    train = ctx.tmp / "separable.csv"
    with open(train, "w") as f:
        f.write(",".join([*names, "label"]) + "\n")
        for row, label in zip(X[:n], y[:n], strict=True):
            f.write(",".join(f"{v:.6f}" for v in row) + f",{label}\n")
    schema = ctx.tmp / "separable_schema.json"
    schema.write_text(
        json.dumps(
            {
                "label": {"column": "label", "classes": ["neg", "pos"]},
                "features": [
                    {"column": c, "type": "numeric", "lower": -1, "upper": 1}
                    for c in names
                ],
            }
        )
    )
    return train, schema, X[n:].round(6).tolist(), y[n:].tolist()


def adult_csv(ctx: Context) -> tuple[Path, Path, list[list[Any]], list[str]]:
    """Adult's raw files as CSV with a header; the test rows and labels."""
    assert ctx.data_dir is not None
    paths = {}
    for part, name in (("train", "adult.data.gz"), ("test", "adult.test.gz")):
        dest = ctx.tmp / f"adult_{part}.csv"
        with gzip.open(ctx.data_dir / "adult" / name, "rt") as f, open(dest, "w") as o:
            o.write(",".join(ADULT_COLUMNS) + "\n")
            for line in f:
                if line.strip() and not line.startswith("|"):
                    o.write(re.sub(r"\.\s*$", "", line.rstrip()) + "\n")
        paths[part] = dest
    rows, labels = [], []
    with open(paths["test"]) as f:
        next(f)
        for line in f:
            cells = [c.strip() for c in line.rstrip("\n").split(",")]
            labels.append(cells[-1])
            rows.append([_cell(c) for c in cells[:-1]])
    return paths["train"], ADULT_SCHEMA, rows, labels


def _cell(text: str) -> Any:
    try:
        return float(text)
    except ValueError:
        return text


# ------------------------------------------------------- mechanism: model
def bench_model(ctx: Context) -> list[dict[str, Any]]:
    """``--mechanism model``: one release, unlimited free answers."""
    results = []
    # 1. dpsvm serve with its defaults on the separable CSV, single-row queries.
    train, schema, rows, labels = separable_csv(ctx)
    ledger = ctx.tmp / "separable.db"
    with serving(ctx, train, schema, ledger) as (url, ready_s), _client() as c:
        t0 = time.perf_counter()
        answers = [infer(c, url, [row])[0] for row in rows]
        per_query = (time.perf_counter() - t0) / len(rows)
    results.append(
        {
            "data": "separable 20000x5",
            "mechanism": "model (serve defaults: rbf)",
            "answers": len(rows),
            "accuracy": float(np.mean(np.array(answers) == np.array(labels))),
            "answers_possible": "unlimited",
            "start_s": round(ready_s, 1),
            "ms_per_single_row_query": round(1000 * per_query, 2),
            **ledger_summary(ledger),
        }
    )
    if ctx.data_dir is None:
        print("Adult files not found: skipping the Adult rows", file=sys.stderr)
        return results
    # 2. Adult, raw CSV + schema, every test row, then a restart.
    train, schema, rows, labels = adult_csv(ctx)
    for kernel in ("linear", "rbf"):
        ledger = ctx.tmp / f"adult_{kernel}.db"
        extra = ("--mechanism", "model", "--kernel", kernel)
        runs = []
        for _start in range(2):  # first start (trains), restart (loads)
            with serving(ctx, train, schema, ledger, *extra) as (url, ready_s):
                with _client() as c:
                    answers = []
                    for i in range(0, len(rows), 1024):
                        answers += infer(c, url, rows[i : i + 1024])
            runs.append((answers, ready_s, ledger_summary(ledger)))
        (first, ready_s, after_first), (again, _, after_restart) = runs
        results.append(
            {
                "data": "Adult (raw CSV + schema)",
                "mechanism": f"model --kernel {kernel}",
                "answers": len(first),
                "accuracy": float(np.mean(np.array(first) == np.array(labels))),
                "answers_possible": "unlimited",
                "start_s": round(ready_s, 1),
                "restart_identical": first == again,
                "restart_spent": after_restart["epsilon_spent"]
                - after_first["epsilon_spent"],
                **after_restart,
            }
        )
    return results


def bench_interactive(ctx: Context) -> list[dict[str, Any]]:
    """PINP, sparse vector, per-query Laplace, subsample-and-aggregate (in process).

    Their answers are data-dependent and charged, so they are measured through
    the predictors (``bench_prediction_interactive.py``) on Adult's compact
    features; a mechanism refused as vacuous says so.
    """
    import importlib.util

    from dpsvm.datasets import load_adult

    path = Path(__file__).with_name("bench_prediction_interactive.py")
    spec = importlib.util.spec_from_file_location("bench_prediction_interactive", path)
    assert spec is not None and spec.loader is not None
    interactive = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(interactive)
    Xtr, ytr, Xte, yte = load_adult(
        ctx.data_dir, feature_set="compact", return_X_y=True
    )
    out = []
    for r in interactive.interactive_rows(
        Xtr, ytr, Xte, yte, n_train=4000, n_queries=1000, runs=5
    ):
        refused = "refused" in r
        out.append(
            {
                "data": "Adult (compact)",
                "mechanism": r["mechanism"]
                + (" (refused: vacuous)" if refused else ""),
                "answers": 0 if refused else r["given"],
                "accuracy": float("nan") if refused else r["accuracy"],
                "answers_possible": 0 if refused else r["stated"],
                "epsilon_spent": 0.0 if refused else r["epsilon_spent"],
            }
        )
    return out


#: Mechanism -> its benchmark function (each returns result rows).
BENCHMARKS: dict[str, Callable[[Context], list[dict[str, Any]]]] = {
    "model": bench_model,
    "interactive": bench_interactive,
}


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| data | mechanism | answers | accuracy | answers possible | ledger: "
        "releases, ε spent | restart identical, ε spent |",
        "|---|---|---:|---:|---|---|---|",
    ]
    for r in rows:
        restart = (
            f"{r['restart_identical']}, {r['restart_spent']:g}"
            if "restart_identical" in r
            else "—"
        )
        lines.append(
            f"| {r['data']} | {r['mechanism']} | {r['answers']} | "
            f"{r['accuracy']:.4f} | {r['answers_possible']} | "
            f"{r.get('releases', '—')}, {r['epsilon_spent']:g} | {restart} |"
        )
    return "\n".join(lines)


@contextlib.contextmanager
def _context(data_dir: str | None) -> Iterator[Context]:
    found = resolve_data_dir(data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        keys = Path(tmp) / "keys.txt"
        keys.write_text(KEY + "\n")
        yield Context(Path(tmp), None if found is None else Path(found), keys)


def main() -> None:
    """Run the chosen mechanisms' benchmarks and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("DPSVM_DATA"))
    parser.add_argument("--mechanisms", default=",".join(BENCHMARKS))
    parser.add_argument("--out-json", help="write the result rows here")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with _context(args.data_dir) as ctx:
        for name in args.mechanisms.split(","):
            rows += BENCHMARKS[name](ctx)
    print(f"ε = {EPSILON:g}, δ = {DELTA:g}\n")
    print(_table(rows))
    if args.out_json:
        Path(args.out_json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
