# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of ``benchmarks/bench_dask.py``, so that the script cannot rot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dask.array")

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dask.py"


def test_tiny_run_matches_the_in_memory_fit() -> None:
    name = "_dpsvm_bench_dask_under_test"
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        X, y = module.make_lazy(2_500, 6, 1_000)
        assert X.chunks[0] == (1_000, 1_000, 500)
        Xa = X.compute(scheduler="sync")
        # Chunks are regenerated identically from their own seeds.
        np.testing.assert_array_equal(Xa, X.compute(scheduler="sync"))
        assert np.all(np.linalg.norm(Xa.astype(np.float64), axis=1) <= 1.0)
        assert set(np.unique(y.compute(scheduler="sync"))) == {-1, 1}
        rows = module.run([5_000], memory_max=5_000, chunk=1_000, scheduler="threads")
    finally:
        sys.modules.pop(name, None)
    memory, chunked = rows
    assert (memory["mode"], chunked["mode"]) == ("memory", "threads")
    assert chunked["same_event"] and chunked["max_coef_diff"] < 1e-6
    assert chunked["passes"] >= 3 and memory["accuracy"] == chunked["accuracy"]
