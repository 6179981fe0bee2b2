# SPDX-License-Identifier: BSD-3-Clause
"""Smoke tests of benchmarks/bench_kernels.py and benchmarks/nested_balls.py.

Tiny sizes only: the scripts must import, run their building blocks and format
their tables, so that they cannot rot.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> Iterator[ModuleType]:
    alias = f"_dpsvm_{name}_under_test"
    spec = importlib.util.spec_from_file_location(alias, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(alias, None)


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    yield from _load("bench_kernels")


@pytest.fixture(scope="module")
def nested() -> Iterator[ModuleType]:
    yield from _load("nested_balls")


def test_transform_benchmark_rows(bench: ModuleType) -> None:
    rows = bench.transform_benchmark(400, 3, 20, repeats=1)
    assert rows[0]["method"].startswith("scikit-learn RBFSampler")
    assert rows[0]["speedup"] == 1.0
    assert all(r["seconds"] > 0 and r["output_mib"] > 0 for r in rows)
    assert any("cos-sin (float32)" in r["method"] for r in rows)


def test_fit_benchmark_and_markdown(bench: ModuleType) -> None:
    fits = bench.fit_benchmark([600], 10, 200)
    assert len(fits) == 4 and all(0 <= r["test_error"] <= 1 for r in fits)
    text = bench._markdown(
        "machine",
        argparse.Namespace(quick=True, repeats=1),
        {"tiny": bench.transform_benchmark(200, 2, 10, 1)},
        fits,
        10,
    )
    assert "| method | time (s) |" in text and "fit time (s)" in text


def test_nested_balls_data_split_and_table(nested: ModuleType) -> None:
    X, _, Xt, _, Xv, _ = nested.load_data(quick=True)
    assert X.shape == (22_000, 5) and Xt.shape == (2_000, 5) and Xv.shape == (2_000, 5)
    assert np.max(np.linalg.norm(X, axis=1)) <= 0.5 + 1e-12
    assert not np.shares_memory(X, Xt)
    row = {
        "method": "m",
        "paper": "0.1141",
        "mean": 0.1,
        "sd": 0.01,
        "fits": 2,
        "seconds": 1.0,
    }
    text = nested._markdown([row], argparse.Namespace(quick=True), 1.0, 22_000)
    assert "| m | 0.1141 | 0.1000 ± 0.0100 | 2 |" in text
    assert "ε′ = " in text
