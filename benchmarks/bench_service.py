# SPDX-License-Identifier: BSD-3-Clause
"""Throughput, latency and server CPU of the private prediction service.

Starts ``dpsvm serve`` as a subprocess on 127.0.0.1 for every mechanism (fixed
n = 2,000 training rows, d = 8 numeric features, RBF kernel), with the durable
SQLite ledger (WAL, ``synchronous=FULL``: every charge is on disk before its
answer is sent) and the JSON access log on (written to a file), then, for 1,
8 and 32 concurrent clients (threads with keep-alive ``httpx`` connections),
sends inference requests of 1 row ("single") and of ``--batch`` rows
("batched") for ``--seconds`` each. It reports answered private predictions
(rows) per second, the p50/p99 request latency (client side) and the server
process's CPU milliseconds per answer (``/proc/<pid>/stat`` user + system time
before and after). An empty FastAPI endpoint served by uvicorn on the same
machine, driven by the same clients, gives the ceiling. The load average of
the machine is stated at the start and the end.

Every mechanism runs with the same public settings, chosen so that each
interactive mechanism is not vacuous at n = 2,000: ε = 4 (δ = 10⁻⁶ where the
mechanism uses one), ``--max-queries 50000``. A mechanism that ``dpsvm serve``
refuses at these settings (for being vacuous) is reported as refused with the
server's one-line reason. A charged mechanism gets a fresh ledger for each
request size and at most ``max-queries / 3`` rows per scenario, so its budget
never runs out during the run.

Usage::

    python benchmarks/bench_service.py                  # full run (a few minutes)
    python benchmarks/bench_service.py --quick          # smoke run (seconds)
    python benchmarks/bench_service.py --mechanism laplace --json out.json

    # before/after in one run: each server from two source trees, in turn
    python benchmarks/bench_service.py --src before=/tmp/old/src --src after=src

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
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

KEY = "bench-key-" + "0" * 24
N_FEATURES = 8
EPSILON = 4.0
DELTA = 1e-6
MAX_QUERIES = 50_000
#: Every mechanism of ``dpsvm serve``; whether it uses δ.
MECHANISMS = {
    "model": False,
    "pinp": True,
    "sparse-vector": False,
    "laplace": False,
    "subsample-aggregate": True,
}
CEILING = "empty FastAPI endpoint"
#: The training labels' rule: sign(x · _RULE).
_RULE = np.linspace(1.0, -1.0, N_FEATURES)

_EMPTY_APP = textwrap.dedent(
    """
    import sys
    import uvicorn
    from fastapi import FastAPI, Request, Response

    app = FastAPI()

    @app.get("/v2/health/ready")
    def ready():
        return {"ready": True}

    @app.post("/v2/models/dpsvm/infer")
    async def infer(request: Request) -> Response:
        await request.body()
        return Response(b'{"outputs": []}', media_type="application/json")

    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    """
)


def _write_inputs(directory: Path, n_rows: int, seed: int) -> dict[str, str]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_rows, N_FEATURES))
    y = np.where(X @ _RULE > 0, "yes", "no")
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
        "dir": str(directory),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Refused(Exception):
    """``dpsvm serve`` refused its settings (exit status 2)."""


def _serve_command(
    files: dict[str, str], port: int, mechanism: str, ledger: str, sync: str
) -> list[str]:
    return [
        sys.executable,
        "-m",
        "dpsvm.cli",
        "serve",
        "--data",
        files["data"],
        "--schema",
        files["schema"],
        "--epsilon",
        str(EPSILON),
        "--delta",
        str(DELTA) if MECHANISMS[mechanism] else "0",
        "--ledger",
        ledger,
        "--api-key-file",
        files["keys"],
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--mechanism",
        mechanism,
        "--kernel",
        "rbf",
        "--max-queries",
        str(MAX_QUERIES),
        "--ledger-sync",
        sync,
        "--log-level",
        "info",
    ]


def _start(
    cmd: list[str], port: int, log: Path, src: str | None = None
) -> subprocess.Popen:
    import httpx

    env = None
    if src is not None:  # the server imports dpsvm from this source tree
        env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            lines = [ln for ln in log.read_text().splitlines() if ln.strip()]
            reason = lines[-1] if lines else f"exit status {proc.returncode}"
            if proc.returncode == 2:
                raise Refused(reason.removeprefix("dpsvm: error: "))
            raise RuntimeError(f"the server exited: {reason}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v2/health/ready").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start within 180 s")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the name: state is field 3, utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _queries(rows: int, rng: np.random.Generator) -> np.ndarray:
    """Query rows far from the training data's decision boundary.

    Subsample-and-aggregate answers for free only while its teachers agree, and
    its budget covers one disagreement at n = 2,000: queries near the boundary
    would exhaust it at once. Every mechanism gets the same queries.
    """
    out = np.empty((0, N_FEATURES))
    while out.shape[0] < rows:
        X = rng.uniform(-1.0, 1.0, size=(4 * rows + 16, N_FEATURES))
        out = np.vstack([out, X[np.abs(X @ _RULE) >= 2.0]])
    return out[:rows]


def _body(rows: int, rng: np.random.Generator) -> dict[str, Any]:
    data = _queries(rows, rng).round(4).ravel().tolist()
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
    port: int, pid: int, clients: int, rows: int, seconds: float, max_requests: int
) -> dict[str, Any]:
    """``clients`` threads, each looping requests until the time or count runs out."""
    import httpx

    url = f"http://127.0.0.1:{port}/v2/models/dpsvm/infer"
    headers = {"Authorization": f"Bearer {KEY}"}
    latencies: list[float] = []
    errors: dict[int, int] = {}
    lock = threading.Lock()
    start_gate = threading.Barrier(clients + 1)
    per_client = max(1, max_requests // clients)

    def loop(seed: int) -> None:
        rng = np.random.default_rng(seed)
        bodies = [_body(rows, rng) for _ in range(16)]
        mine: list[float] = []
        bad: dict[int, int] = {}
        with httpx.Client(timeout=60) as client:
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
                    bad[r.status_code] = bad.get(r.status_code, 0) + 1
        with lock:
            latencies.extend(mine)
            for code, count in bad.items():
                errors[code] = errors.get(code, 0) + count

    threads = [threading.Thread(target=loop, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    cpu0 = _cpu_seconds(pid)
    start_gate.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    cpu = _cpu_seconds(pid) - cpu0
    lat = np.asarray(latencies) * 1e3
    n = lat.size
    answers = n * rows
    return {
        "clients": clients,
        "rows_per_request": rows,
        "requests": int(n),
        "errors": errors,
        "seconds": wall,
        "requests_per_s": n / wall,
        "answers_per_s": answers / wall,
        "p50_ms": float(np.percentile(lat, 50)) if n else float("nan"),
        "p99_ms": float(np.percentile(lat, 99)) if n else float("nan"),
        "server_cpu_ms_per_answer": 1e3 * cpu / answers if answers else float("nan"),
        "server_cpu_share": cpu / wall,
    }


def _bench(
    name: str,
    files: dict[str, str],
    clients: list[int],
    sizes: list[int],
    seconds: float,
    sync: str,
    src: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Every scenario of one server (a fresh server and ledger per request size).

    ``src``: (label, path) of the source tree the server runs from (its rows
    are named ``name (label)``); ``None``: the current interpreter's.
    """
    charged = name not in (CEILING, "model")
    label = name if src is None or name == CEILING else f"{name} ({src[0]})"
    tag = label.replace(" ", "_").replace("(", "").replace(")", "")
    out = []
    for rows in sizes:
        port = _free_port()
        log = Path(files["dir"]) / f"{tag}-{rows}.log"
        if name == CEILING:
            cmd = [sys.executable, "-c", _EMPTY_APP, str(port)]
        else:
            ledger = str(Path(files["dir"]) / f"{tag}-{rows}.db")
            cmd = _serve_command(files, port, name, ledger, sync)
        proc = _start(cmd, port, log, None if src is None else src[1])
        try:
            # Charged mechanisms: at most a third of the budget's rows per level.
            cap = MAX_QUERIES // (len(clients) + 1) // rows if charged else 10**7
            _run_load(port, proc.pid, 1, rows, min(seconds, 1.0), min(cap, 50))
            for c in clients:
                r = _run_load(port, proc.pid, c, rows, seconds, cap)
                out.append({"server": label, **r})
                print(_row(out[-1]), flush=True)
        finally:
            _stop(proc)
    return out


def _row(r: dict[str, Any]) -> str:
    errors = ", ".join(f"{k}: {v}" for k, v in sorted(r["errors"].items())) or "0"
    return (
        f"| {r['server']} | {r['clients']} | {r['rows_per_request']} | "
        f"{r['answers_per_s']:,.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
        f"{r['server_cpu_ms_per_answer']:.3f} | {100 * r['server_cpu_share']:.0f}% "
        f"| {errors} |"
    )


def _header(meta: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"dpsvm serve, n = {meta['train_rows']} training rows × {N_FEATURES} "
            f"features, rbf, ε = {EPSILON:g} (δ = {DELTA:g} where used), "
            f"--max-queries {MAX_QUERIES}, SQLite ledger synchronous="
            f"{meta['ledger_sync'].upper()}, access "
            f"log on; {meta['cpus']} CPUs, Python {meta['python']}; load average "
            f"at start {meta['load_start']}",
            "",
            "| server | clients | rows/request | answers/s | p50 ms | p99 ms | "
            "server CPU ms/answer | server CPU | errors |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print markdown tables.

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
    p.add_argument("--seconds", type=float, default=4.0, help="per scenario")
    p.add_argument("--batch", type=int, default=64, help="rows of a batched request")
    p.add_argument("--clients", default="1,8,32", help="concurrency levels")
    p.add_argument("--train-rows", type=int, default=2000)
    p.add_argument(
        "--mechanism",
        action="append",
        choices=tuple(MECHANISMS),
        help="only these mechanisms (repeatable; default every one)",
    )
    p.add_argument("--no-ceiling", action="store_true", help="skip the empty app")
    p.add_argument(
        "--ledger-sync",
        choices=("full", "normal"),
        default="full",
        help="SQLite synchronous mode of the ledger (default full: durable)",
    )
    p.add_argument(
        "--src",
        action="append",
        metavar="LABEL=PATH",
        help="run every server from this source tree (its PYTHONPATH), once per "
        "--src, one after the other for each mechanism (before/after in one "
        "run); default: the dpsvm this interpreter imports",
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = p.parse_args(argv)
    trees: list[tuple[str, str] | None] = [None]
    if args.src:
        trees = []
        for spec in args.src:
            label, sep, path = spec.partition("=")
            if not sep or not label or not Path(path, "dpsvm").is_dir():
                p.error(f"--src {spec!r}: give LABEL=PATH, PATH holding dpsvm/")
            trees.append((label, path))
    seconds = 0.5 if args.quick else args.seconds
    clients = [1, 4] if args.quick else [int(c) for c in args.clients.split(",")]
    sizes = [1, args.batch]
    servers = ([] if args.no_ceiling else [CEILING]) + (
        args.mechanism or list(MECHANISMS)
    )
    meta: dict[str, Any] = {
        "train_rows": args.train_rows,
        "ledger_sync": args.ledger_sync,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_start": [round(v, 2) for v in os.getloadavg()],
        "sources": {t[0]: os.path.abspath(t[1]) for t in trees if t is not None},
    }
    print(_header(meta), flush=True)
    results: list[dict[str, Any]] = []
    refused: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = _write_inputs(Path(tmp), args.train_rows, seed=0)
        for name in servers:
            for src in [None] if name == CEILING else trees:
                label = name if src is None else f"{name} ({src[0]})"
                try:
                    results += _bench(
                        name, files, clients, sizes, seconds, args.ledger_sync, src
                    )
                except Refused as exc:
                    refused[label] = str(exc)
                    print(f"| {label} | refused: {exc} |||||||", flush=True)
    meta["load_end"] = [round(v, 2) for v in os.getloadavg()]
    print(f"\nload average at end {meta['load_end']}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"meta": meta, "results": results, "refused": refused})
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
