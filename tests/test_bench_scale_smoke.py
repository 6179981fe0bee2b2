# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of ``benchmarks/bench_scale.py``, so that the script cannot rot."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import scipy.sparse

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_scale.py"


def test_tiny_run_reports_every_method() -> None:
    name = "_dpsvm_bench_scale_under_test"
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        X, _ = module.make_tall(1_000, 8, np.float32)
        assert X.dtype == np.float32 and np.all(np.linalg.norm(X, axis=1) <= 1.0)
        S, _ = module.make_wide(40, 300, density=0.05)
        assert scipy.sparse.issparse(S)
        rows = module.run(
            [1_000],
            ["float32"],
            [1e-2],
            1,
            (30, 200),
            linearsvc=("sparse",),
            tall_intercepts=(None, True),
        )
    finally:
        sys.modules.pop(name, None)
    body = [r for r in rows[2:] if r.startswith("| ")]
    # Tall: 2 intercept settings (mixed, like for like) × 3 methods. Wide: 2
    # intercept settings × (3 methods on dense rows, 4 on sparse rows with
    # LinearSVC), 1 Λ. Each row with a ratio column.
    assert len(body) == 2 * 3 + 2 * (3 + 4) and all("×" in r for r in body)
    assert sum(r.startswith("| 1,000 × 100 float32, intercept |") for r in body) == 3
    assert sum("÷ LinearSVC" in r for r in body) == 2
