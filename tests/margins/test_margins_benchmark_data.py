# SPDX-License-Identifier: BSD-3-Clause
"""The synthetic data and the report helpers of benchmarks/margins_*.py.

The experiments themselves are run by hand (docs/margins.md ("Experiments")); these
tests keep the generators' promises (unit rows, planted margin) and the report
code from rotting.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def data() -> ModuleType:
    return _load("margins_data")


@pytest.fixture(scope="module")
def experiments() -> ModuleType:
    return _load("margins_experiments")


def test_planted_margin_rows_and_margin(data):
    X, y, w = data.make_planted_margin(300, 500, margin=0.2, random_state=1)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert np.min(y * (X @ w)) >= 0.2 - 1e-12  # yᵢ⟨w*, xᵢ⟩ ≥ γ
    assert set(np.unique(y)) == {-1, 1}


def test_sparse_text_rows(data):
    X, y = data.make_sparse_text(200, 1000, random_state=2)
    assert X.shape == (200, 1000) and X.nnz < 200 * 120
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)).A.ravel(), 1.0)
    assert set(np.unique(y)) == {-1, 1}


@pytest.mark.slow
def test_summary_table_and_plot(experiments, tmp_path):
    Row = experiments.Row
    rows = [
        Row("x", "set", "m1", "ε-DP", 1.0, 0, 0.2, 0.1),
        Row("x", "set", "m1", "ε-DP", 1.0, 1, 0.4, 0.1),
        Row("x", "set", "m1", "ε-DP", 2.0, 0, math.nan, 0.1, "failed"),
        Row("x", "set", "ref", "none", math.inf, 0, 0.1, 0.0),
    ]
    summary = experiments.summarise(rows)
    m1 = next(s for s in summary if s["method"] == "m1" and s["epsilon"] == 1.0)
    assert m1["mean"] == pytest.approx(0.3) and m1["runs"] == 2
    table = experiments.markdown(summary)
    assert (
        "0.300 ± 0.141" in table and "– (1 of 1 failed)" in table and "| ref |" in table
    )
    experiments.plot(summary, tmp_path / "p.png", "x")
    assert (tmp_path / "p.png").stat().st_size > 0
