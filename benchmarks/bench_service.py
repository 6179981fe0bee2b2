# SPDX-License-Identifier: BSD-3-Clause
"""Throughput and latency of the private prediction service (``dpsvm serve``).

Starts ``dpsvm serve`` as a subprocess on 127.0.0.1 with the SQLite ledger
(WAL, ``synchronous=FULL``: every answer is on disk before it is sent), then,
for 1, 8 and 64 concurrent clients (threads with keep-alive HTTP connections),
sends inference requests of 1 row ("single") and of ``--batch`` rows
("batched") for ``--seconds`` each, and reports answered private predictions
(rows) per second and the p50/p99 request latency.

Usage::

    python benchmarks/bench_service.py                 # full run (~1 min)
    python benchmarks/bench_service.py --quick         # smoke run (seconds)
    python benchmarks/bench_service.py --mechanism pinp --json out.json

The clients run on the same machine as the server, so on a small machine they
compete with it for the CPU: the figures are a lower bound on what the server
does with remote clients.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

KEY = "bench-key-" + "0" * 24
N_FEATURES = 8


def _write_inputs(directory: Path, n_rows: int, seed: int) -> dict[str, str]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_rows, N_FEATURES))
    y = np.where(X @ np.linspace(1, -1, N_FEATURES) > 0, "yes", "no")
    header = ",".join([f"f{j}" for j in range(N_FEATURES)] + ["label"])
    lines = [header] + [
        ",".join(f"{v:.4f}" for v in row) + f",{lab}"
        for row, lab in zip(X, y, strict=True)
    ]
    (directory / "train.csv").write_text("\n".join(lines) + "\n")
    schema = {
        "label": {"column": "label", "classes": ["no", "yes"]},
        "features": [
            {"column": f"f{j}", "type": "numeric", "lower": -1, "upper": 1}
            for j in range(N_FEATURES)
        ],
    }
    (directory / "schema.json").write_text(json.dumps(schema))
    (directory / "keys.txt").write_text(KEY + "\n")
    return {
        "data": str(directory / "train.csv"),
        "schema": str(directory / "schema.json"),
        "keys": str(directory / "keys.txt"),
        "ledger": str(directory / "ledger.db"),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(
    files: dict[str, str], port: int, mechanism: str, sync: str
) -> subprocess.Popen:
    import httpx

    cmd = [
        sys.executable,
        "-m",
        "dpsvm.cli",
        "serve",
        "--data",
        files["data"],
        "--schema",
        files["schema"],
        "--epsilon",
        "1",
        "--delta",
        "1e-6" if mechanism == "pinp" else "0",
        "--ledger",
        files["ledger"],
        "--api-key-file",
        files["keys"],
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--mechanism",
        mechanism,
        "--max-queries",
        str(10**9),
        "--ledger-sync",
        sync,
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"dpsvm serve exited: {proc.stderr.read()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v2/health/ready").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("dpsvm serve did not start within 120 s")


def _body(rows: int, rng: np.random.Generator) -> dict[str, Any]:
    data = rng.uniform(-1, 1, size=rows * N_FEATURES).round(4).tolist()
    return {
        "inputs": [
            {
                "name": "input",
                "shape": [rows, N_FEATURES],
                "datatype": "FP64",
                "data": data,
            }
        ]
    }


def _run_load(
    port: int, clients: int, rows: int, seconds: float, max_requests: int
) -> dict[str, Any]:
    """``clients`` threads, each looping requests until the time or count runs out."""
    import httpx

    url = f"http://127.0.0.1:{port}/v2/models/dpsvm/infer"
    headers = {"Authorization": f"Bearer {KEY}"}
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    start_gate = threading.Barrier(clients + 1)
    per_client = max(1, max_requests // clients)

    def loop(seed: int) -> None:
        rng = np.random.default_rng(seed)
        bodies = [_body(rows, rng) for _ in range(16)]
        mine: list[float] = []
        bad = 0
        with httpx.Client(timeout=30) as client:
            start_gate.wait()
            end = time.monotonic() + seconds
            for i in range(per_client):
                if time.monotonic() >= end:
                    break
                t0 = time.perf_counter()
                r = client.post(url, json=bodies[i % 16], headers=headers)
                dt = time.perf_counter() - t0
                if r.status_code == 200:
                    mine.append(dt)
                else:
                    bad += 1
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=loop, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    start_gate.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    lat = np.asarray(latencies) * 1e3
    n = lat.size
    return {
        "clients": clients,
        "rows_per_request": rows,
        "requests": int(n),
        "errors": errors[0],
        "seconds": wall,
        "requests_per_s": n / wall,
        "answers_per_s": n * rows / wall,
        "p50_ms": float(np.percentile(lat, 50)) if n else float("nan"),
        "p99_ms": float(np.percentile(lat, 99)) if n else float("nan"),
    }


def _table(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [
        f"dpsvm serve, mechanism {meta['mechanism']}, SQLite ledger (WAL, "
        f"synchronous={meta['ledger_sync'].upper()}), {meta['train_rows']} "
        f"training rows × {N_FEATURES} features, {meta['cpus']} CPUs, "
        f"Python {meta['python']}",
        "",
        "| clients | rows/request | requests/s | answers/s | p50 ms | p99 ms | "
        "errors |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['clients']} | {r['rows_per_request']} | "
            f"{r['requests_per_s']:,.0f} | {r['answers_per_s']:,.0f} | "
            f"{r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['errors']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a markdown table.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments.

    Returns
    -------
    int
        0.
    """
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny smoke run")
    p.add_argument("--seconds", type=float, default=8.0, help="per scenario")
    p.add_argument("--batch", type=int, default=64, help="rows of a batched request")
    p.add_argument("--clients", default="1,8,64", help="concurrency levels")
    p.add_argument("--train-rows", type=int, default=2000)
    p.add_argument(
        "--mechanism", choices=("laplace", "pinp", "sparse-vector"), default="laplace"
    )
    p.add_argument(
        "--ledger-sync", choices=("full", "normal"), default="full", help="SQLite"
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = p.parse_args(argv)
    seconds = 0.5 if args.quick else args.seconds
    train_rows = 200 if args.quick else args.train_rows
    clients = [int(c) for c in args.clients.split(",")]
    if args.quick:
        clients = [1, 4]
    max_requests = 200 if args.quick else 1_000_000
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        files = _write_inputs(Path(tmp), train_rows, seed=0)
        port = _free_port()
        proc = _start(files, port, args.mechanism, args.ledger_sync)
        try:
            _run_load(port, 1, 1, min(seconds, 1.0), 50)  # warm-up
            for rows in (1, args.batch):
                for c in clients:
                    results.append(_run_load(port, c, rows, seconds, max_requests))
        finally:
            proc.kill()
            proc.wait()
            if proc.stderr:
                proc.stderr.close()
    meta = {
        "mechanism": args.mechanism,
        "ledger_sync": args.ledger_sync,
        "train_rows": train_rows,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    print(_table(results, meta))
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "results": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
