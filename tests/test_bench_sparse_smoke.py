# SPDX-License-Identifier: BSD-3-Clause
"""Smoke tests of the issue-23 benchmark scripts (they cannot rot)."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dpsvm.datasets._paths import resolve_data_dir
from dpsvm.preprocessing import PublicSchema, SchemaTransformer

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}


def test_sparse_benchmark_table_is_wide_one_hot_and_imbalanced(tmp_path):
    module = runpy.run_path(str(BENCH / "bench_sparse_schema.py"))
    data, schema_path = module["write_table"](str(tmp_path), 2000)
    schema = PublicSchema.from_json(schema_path)
    frame = pd.read_csv(data, dtype=str)
    assert schema.n_features_out == 500 and frame.shape == (2000, 61)
    X = SchemaTransformer(schema).fit_transform(frame)
    assert X.format == "csr" and X.nnz <= 2000 * 60
    positives = (frame["income"] == ">50K").mean()
    assert 0.03 < positives < 0.10
    assert json.loads(Path(schema_path).read_text())["label"]["column"] == "income"


@pytest.mark.adult
@pytest.mark.slow
def test_imbalanced_tuning_benchmark_runs():
    data_dir = resolve_data_dir()
    if data_dir is None or not (Path(data_dir) / "adult" / "adult.data.gz").exists():
        pytest.skip("the UCI Adult files are absent")
    res = subprocess.run(
        [sys.executable, str(BENCH / "bench_imbalanced_tuning.py"), "--runs", "1",
         "--runs-full", "0"],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert '"scoring": "weighted-error"' in res.stdout
