# SPDX-License-Identifier: BSD-3-Clause
"""Throughput of the JL projections of dpsvm.margins (dense and sparse input).

Usage: ``python benchmarks/bench_margins_jl.py [--quick]``. Prints one line per
(projection, input kind): seconds to project n rows of width d to k, and the
worst relative error of ‖Φx‖² over the rows (a sanity check, not a test).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from dpsvm.margins.projections import FastJL, RademacherJL


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    args = parser.parse_args(argv)
    n, d, k = (200, 2048, 128) if args.quick else (2000, 20_000, 500)
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(n, d))
    sparse = sp.random(n, d, density=0.005, random_state=1, format="csr")
    print(f"n={n} d={d} k={k}")
    print(f"{'projection':<14}{'input':<8}{'seconds':>10}{'max |ratio-1|':>16}")
    for cls in (RademacherJL, FastJL):
        for kind, X in (("dense", dense), ("sparse", sparse)):
            proj = cls(k, random_state=0).fit(X[:1])
            start = time.perf_counter()
            Z = proj.transform(X)
            elapsed = time.perf_counter() - start
            sq = (
                np.asarray(X.multiply(X).sum(axis=1)).ravel()
                if sp.issparse(X)
                else (np.einsum("ij,ij->i", X, X))
            )
            keep = sq > 0
            ratio = np.einsum("ij,ij->i", Z, Z)[keep] / sq[keep]
            print(
                f"{cls.__name__:<14}{kind:<8}{elapsed:>10.3f}"
                f"{np.max(np.abs(ratio - 1.0)):>16.3f}"
            )


if __name__ == "__main__":
    main()
