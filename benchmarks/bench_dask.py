# SPDX-License-Identifier: BSD-3-Clause
"""Out-of-core benchmark: ``DPLogisticRegression`` on a lazily generated dask.array.

The rows are never stored: each chunk of ``X`` (float32, entries uniform on
[−√(3/d), √(3/d)), clipped into the unit ball) and its labels (a planted linear
rule, 10% flipped) are generated from the chunk's own seed whenever a pass
reads them, so the data set can be larger than memory. Each size runs in a
fresh subprocess, which reports its fit time, its peak resident memory
(``ru_maxrss``, the whole process: Python, dask, the chunks in flight) and its
resident memory before the fit, the number of passes (``compute`` calls), the
privacy event and the accuracy on 100,000 held-out rows. For the sizes that fit
in memory the same rows are also materialised as a NumPy array and fitted in
memory in another subprocess: the privacy event must be identical and the
coefficients agree to the certified tolerance.

The dask fits use the local threaded scheduler with two threads (one 2-core
machine) and one BLAS thread per task; ``--scheduler distributed`` uses an
in-process ``dask.distributed`` cluster of one worker with two threads instead.

Usage::

    python benchmarks/bench_dask.py                       # 10⁵ … 2·10⁷ rows
    python benchmarks/bench_dask.py --sizes 1e5 1e6 1e8   # choose the sizes
    python benchmarks/bench_dask.py --quick               # smoke test
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from typing import Any

import numpy as np

__all__ = ["child", "make_lazy", "run"]

D = 20
EPSILON = 1.0
LAMBDA = 1e-4
SEED = 0


def _rows(start: int, stop: int, d: int) -> np.ndarray:
    """The rows [start, stop), from the chunk's own seed."""
    rng = np.random.default_rng([SEED, start])
    # Entries uniform on [−a, a), a = √(3/d): E‖x‖² = 1 (uniform draws are ~8×
    # cheaper than normal ones, and generation is most of a pass here).
    X = rng.random((stop - start, d), dtype=np.float32)
    X -= np.float32(0.5)
    X *= np.float32(2.0 * math.sqrt(3.0 / d))
    norms = np.sqrt(np.einsum("ij,ij->i", X, X, dtype=np.float64))
    X *= np.where(norms > 1.0, 0.999999 / norms, 1.0).astype(np.float32)[:, None]
    return X


def _labels(X: np.ndarray, start: int) -> np.ndarray:
    """A planted linear rule on the rows, 10% flipped (seeded by ``start``)."""
    d = X.shape[1]
    w = np.random.default_rng([SEED, 10**12]).standard_normal(d).astype(np.float32)
    y = np.where(X @ w >= 0, 1, -1).astype(np.int8)
    y[np.random.default_rng([SEED, start, 1]).random(X.shape[0]) < 0.1] *= -1
    return y


def _chunk(start: int, stop: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and labels of the chunk [start, stop)."""
    X = _rows(start, stop, d)
    return X, _labels(X, start)


def make_lazy(n: int, d: int, chunk: int) -> tuple[Any, Any]:
    """(X, y) as dask arrays whose chunks are generated on demand."""
    import dask.array as da

    rows = [chunk] * (n // chunk) + ([n % chunk] if n % chunk else [])

    def gen_x(block_info: Any = None) -> np.ndarray:
        (start, stop), _ = block_info[None]["array-location"]
        return _rows(start, stop, d)

    def gen_y(Xb: np.ndarray, block_info: Any = None) -> np.ndarray:
        (start, _), _ = block_info[0]["array-location"]
        return _labels(Xb, start)

    X = da.map_blocks(gen_x, chunks=(tuple(rows), (d,)), dtype=np.float32)
    # Labels from the rows of the same chunk (the same task's output: a pass
    # generates each chunk once).
    y = X.map_blocks(gen_y, drop_axis=1, dtype=np.int8)
    return X, y


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(n: int, chunk: int, mode: str) -> dict[str, Any]:
    """One fit in this process (``mode``: threads, distributed or memory)."""
    import dask
    from threadpoolctl import threadpool_limits

    from dpsvm.models import DPLogisticRegression

    X, y = make_lazy(n, D, chunk)
    Xt, yt = _chunk(10**13, 10**13 + 100_000, D)  # held-out rows
    est = DPLogisticRegression(
        epsilon=EPSILON,
        regularization=LAMBDA,
        data_norm=1.0,
        classes=[-1, 1],
        random_state=SEED,
    )
    computes = [0]
    client = cluster = None
    if mode == "distributed":
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        )
        client = Client(cluster)
    else:
        from dask.threaded import get as threaded_get

        def counting_get(dsk: Any, keys: Any, **kw: Any) -> Any:
            computes[0] += 1
            return threaded_get(dsk, keys, num_workers=2, **kw)

        dask.config.set(scheduler=counting_get)
    with threadpool_limits(1):
        if mode == "memory":
            Xm = X.compute()
            ym = y.compute()
            computes[0] = 0
            rss0 = _rss_mb()
            t = time.perf_counter()
            est.fit(Xm, ym)
        else:
            rss0 = _rss_mb()
            t = time.perf_counter()
            est.fit(X, y)
        elapsed = time.perf_counter() - t
    peak = _rss_mb()
    if client is not None:
        client.close()
        cluster.close()  # type: ignore[union-attr]
    ev = est.privacy_event_
    acc = float(np.mean(est.predict(Xt) == yt))
    return {
        "n": n,
        "mode": mode,
        "time_s": elapsed,
        "rows_per_s": n / elapsed,
        "rss_before_mb": rss0,
        "rss_peak_mb": peak,
        "passes": computes[0],
        "n_iter": int(est.n_iter_[0]),
        "accuracy": acc,
        "coef": est.coef_.ravel().tolist(),
        "event": [ev.mechanism, ev.epsilon, ev.delta, ev.sensitivity],
        "details": {k: repr(v) for k, v in ev.details.items()},
    }


def _spawn(n: int, chunk: int, mode: str) -> dict[str, Any]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(n), str(chunk), mode],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(
    sizes: list[int], *, memory_max: int, chunk: int, scheduler: str
) -> list[dict[str, Any]]:
    """Fit each size out of core (and in memory up to ``memory_max`` rows)."""
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; d = {D}, ε = {EPSILON}, Λ = {LAMBDA}, "
        f"chunks of {chunk:,} rows, float32 rows generated lazily"
    )
    print(
        "| n | fit | time (s) | rows/s | RSS before → peak (MB) | passes | "
        "Newton steps | accuracy | max abs Δcoef vs memory | same event |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for n in sizes:
        res = _spawn(n, chunk, scheduler)
        ref = _spawn(n, chunk, "memory") if n <= memory_max else None
        for r in [res] if ref is None else [ref, res]:
            same = "—"
            delta = "—"
            if ref is not None and r is res:
                same = (
                    "yes"
                    if (r["event"], r["details"])
                    == (
                        ref["event"],
                        ref["details"],
                    )
                    else "NO"
                )
                delta = f"{np.max(np.abs(np.subtract(r['coef'], ref['coef']))):.1e}"
                r["same_event"] = same == "yes"
                r["max_coef_diff"] = float(delta)
            print(
                f"| {n:,} | {r['mode']} | {r['time_s']:.2f} | {r['rows_per_s']:,.0f} | "
                f"{r['rss_before_mb']:,.0f} → {r['rss_peak_mb']:,.0f} | "
                f"{r['passes']} | {r['n_iter']} | {r['accuracy']:.4f} | {delta} | "
                f"{same} |",
                flush=True,
            )
            rows.append(r)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=float)
    p.add_argument("--memory-max", type=float, default=2e7)
    p.add_argument("--chunk", type=int, default=250_000)
    p.add_argument("--scheduler", choices=["threads", "distributed"], default="threads")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--child", nargs=3)
    a = p.parse_args()
    if a.child:
        print(json.dumps(child(int(a.child[0]), int(a.child[1]), a.child[2])))
        return
    if a.quick:
        sizes, chunk = [20_000], 5_000
    else:
        sizes = [int(s) for s in (a.sizes or [1e5, 1e6, 1e7, 2e7])]
        chunk = a.chunk
    run(sizes, memory_max=int(a.memory_max), chunk=chunk, scheduler=a.scheduler)


if __name__ == "__main__":
    main()
