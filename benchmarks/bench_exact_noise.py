# SPDX-License-Identifier: BSD-3-Clause
"""Cost of exact noise: fit times before/after, in one run (issue 26).

Times, for each source tree given (``--tree NAME=PATH/src``, e.g. a checkout
of the commit before the exact samplers and the current one), in fresh
subprocesses so that both trees see the same machine load:

* noisy projected gradient descent (``dpsvm.margins.erm.noisy_projected_gd``)
  on 5000 rows projected to 500 dimensions, 200 steps (its per-step Gaussian
  noise became exact discrete Gaussian noise);
* the default linear fits, ``DPLinearSVC()`` and ``DPLogisticRegression()``
  on 20 000 × 50 synthetic rows (whose noise was already exact or does not
  change);
* ``AnalyticGaussian.randomise`` of a 10⁵-vector (the exact release itself).

Usage::

    python benchmarks/bench_exact_noise.py --tree before=/tmp/base/src \\
        --tree after=src [--rounds 5]

Prints one Markdown table of median CPU seconds (``time.process_time``, one
BLAS thread) per tree, over rounds that alternate the trees so that both see
the same load, the ratio after/before, and the 1-minute load average at the
start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_WORKER = r"""
import json, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from dpsvm.margins.erm import noisy_projected_gd
from dpsvm.margins.losses import RhoHingeLoss
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.mechanisms import AnalyticGaussian

rng = np.random.default_rng(0)
Z = rng.normal(size=(5000, 500))
Z /= np.linalg.norm(Z, axis=1, keepdims=True)
yz = np.where(Z[:, 0] + 0.1 * rng.normal(size=5000) > 0, 1, -1)
X = rng.normal(size=(20000, 50))
X /= np.linalg.norm(X, axis=1, keepdims=True)
y = np.where(X @ rng.normal(size=50) > 0, 1, -1)
v = rng.normal(size=100000)

def gd():
    noisy_projected_gd(Z, yz, loss=RhoHingeLoss(0.5), radius=2.0, data_norm=1.0,
                       epsilon=1.0, delta=1e-5, n_steps=200, random_state=1)

def svc():
    DPLinearSVC(epsilon=1.0, random_state=1).fit(X, y)

def logreg():
    DPLogisticRegression(epsilon=1.0, random_state=1).fit(X, y)

def gauss():
    AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0).randomise(v, 1)

g = np.random.default_rng(2)
grad = rng.normal(size=500) * 1e-3

def noise_float():  # the per-step noise of noisy-gd before: 200 x 500 normals
    for _ in range(200):
        grad + g.normal(0.0, 0.01, size=500)

try:
    from dpsvm.mechanisms import discrete_gaussian_calibration
except ImportError:  # the tree before the exact samplers
    noise_exact = None
else:
    cal = discrete_gaussian_calibration(30.0, 4e-4, 500)

    def noise_exact():  # ... and after: 200 x 500 discrete Gaussians + grid
        z = cal.sample((200, 500), g)
        for i in range(200):
            cal.release(grad, z[i])

jobs = [("noisy-gd 500x200", gd), ("DPLinearSVC", svc),
        ("DPLogisticRegression", logreg), ("Gaussian release 1e5", gauss),
        ("GD noise only, float", noise_float)]
if noise_exact is not None:
    jobs.append(("GD noise only, exact", noise_exact))
out = {}
for name, fn in jobs:
    fn()  # warm-up (imports, caches)
    times = []
    for _ in range(REPEAT):
        t = time.process_time(); fn(); times.append(time.process_time() - t)
    out[name] = sorted(times)[len(times) // 2]
print(json.dumps(out))
"""


def _run_tree(path: str, repeat: int) -> dict[str, float]:
    # One BLAS thread, CPU time of the process: on a shared, loaded machine
    # wall-clock times mostly measure the other tenants.
    env = dict(
        os.environ,
        PYTHONPATH=os.path.abspath(path),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    code = _WORKER.replace("REPEAT", str(repeat))
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    if proc.returncode:
        raise SystemExit(proc.stderr)
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark for every tree and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    load0 = os.getloadavg()[0]
    trees = [spec.split("=", 1) for spec in args.tree]
    runs: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    # Rounds alternate the trees (before, after, before, after, ...) so that
    # both see the same machine load; the table shows medians over rounds.
    for _ in range(args.rounds):
        for name, path in trees:
            runs[name].append(_run_tree(path, 1))
    load1 = os.getloadavg()[0]
    results = {
        name: {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        for name, rs in runs.items()
    }
    names = list(results)
    print(f"load average (1 min): {load0:.2f} at start, {load1:.2f} at end; ")
    print(f"medians over {args.rounds} alternating rounds\n")
    header = "| fit | " + " | ".join(f"{n} (CPU s)" for n in names)
    if len(names) == 2:
        header += f" | {names[1]}/{names[0]}"
    print(header + " |")
    print("|---" * (len(names) + 1 + (len(names) == 2)) + "|")
    keys = list(dict.fromkeys(k for n in names for k in results[n]))
    nan = float("nan")
    for key in keys:
        vals = [results[n].get(key, nan) for n in names]
        row = f"| {key} | " + " | ".join(f"{v:.3f}" for v in vals)
        if len(names) == 2:
            row += f" | {vals[1] / vals[0]:.2f}"
        print(row + " |")


if __name__ == "__main__":
    main()
