# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of ``benchmarks/bench_linear.py``, so that the script cannot rot.

Runs ``main(["--quick", "--no-diffprivlib", "--datasets", "synthetic", ...])`` on
tiny synthetic data (2,000 × 20) and checks the report and the JSON results.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_linear.py"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    name = "_dpsvm_bench_linear_under_test"
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(name, None)


def test_quick_run_without_diffprivlib(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json = tmp_path / "results.json"
    out_md = tmp_path / "report.md"
    status = bench.main(
        [
            "--quick",
            "--no-diffprivlib",
            "--datasets",
            "synthetic",
            "--epsilons",
            "0.5,2",
            "--json",
            str(out_json),
            "--output",
            str(out_md),
        ]
    )
    assert status == 0
    result = json.loads(out_json.read_text(encoding="utf-8"))
    report = out_md.read_text(encoding="utf-8")
    assert report in capsys.readouterr().out

    (ds,) = result["datasets"]
    assert (ds["n_train"], ds["n_features"]) == (2000, 20)
    # scikit-learn's C for the same problem: C = 1/(nΛ) = 1/(2000 · 1e-4) = 5.
    assert ds["C_sklearn"] == pytest.approx(5.0)
    rows = {r["method"]: r for r in ds["rows"]}
    # 2 non-private rows, 3 dpsvm models at the benchmark's Λ and at Λ = 1/n,
    # 2 diffprivlib rows (unavailable here).
    assert len(rows) == len(ds["rows"]) == 10

    nonprivate = [r for r in rows.values() if not r["private"]]
    assert len(nonprivate) == 2
    for r in nonprivate:
        # The planted rule has Bayes accuracy 0.9 (10% flipped labels); a
        # non-private linear fit on 2,000 rows in d = 20 gets well above chance.
        assert r["accuracy"]["inf"][0] > 0.8
    baseline = rows["sklearn LogisticRegression(lbfgs)"]
    assert baseline["ratio_to_sklearn_lr"] == pytest.approx(1.0)

    dpsvm_rows = [r for name, r in rows.items() if name.startswith("dpsvm")]
    assert len(dpsvm_rows) == 6
    for r in dpsvm_rows:
        assert sorted(r["accuracy"]) == ["0.5", "2"]
        accs = [a for v in r["accuracy"].values() for a in v]
        assert len(accs) == 2 and all(0.0 <= a <= 1.0 for a in accs)
        assert r["median_seconds"] > 0
        assert math.isfinite(r["ratio_to_sklearn_lr"])

    dpl_rows = [r for name, r in rows.items() if name.startswith("diffprivlib")]
    assert len(dpl_rows) == 2
    assert all(not r["available"] and "not available" in r["note"] for r in dpl_rows)
    assert "| method | ε = 0.5 | ε = 2 |" in report
    assert "not available" in report


def test_planted_linear_data(bench: ModuleType) -> None:
    X, y, X_test, y_test = bench.make_planted_linear(500, 300, 7, flip=0.0, seed=3)
    assert X.shape == (500, 7) and X_test.shape == (300, 7)
    assert np.all(np.linalg.norm(np.vstack([X, X_test]), axis=1) <= 1.0)
    assert set(np.unique(y)) <= {-1, 1}
    # Same seed, same data.
    X2, y2, _, _ = bench.make_planted_linear(500, 300, 7, flip=0.0, seed=3)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    # With flip=0 every label is sign(⟨w*, x⟩); w* is the generator's first draw
    # (normalising it does not change a sign).
    w_star = np.random.default_rng(3).standard_normal(7)
    np.testing.assert_array_equal(y, np.where(X @ w_star >= 0, 1, -1))
    np.testing.assert_array_equal(y_test, np.where(X_test @ w_star >= 0, 1, -1))
