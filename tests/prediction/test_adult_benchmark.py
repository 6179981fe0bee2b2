# SPDX-License-Identifier: BSD-3-Clause
"""Smoke test of benchmarks/prediction_adult.py (skipped without the Adult files)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.adult, pytest.mark.slow]

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "prediction_adult.py"


def test_tiny_run_writes_table_and_plot(tmp_path, capsys):
    name = "_dpsvm_prediction_adult_under_test"
    spec = importlib.util.spec_from_file_location(name, BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        args = ["--seeds", "1", "--epsilons", "1", "--n-train", "300"]
        status = module.main([*args, "--n-public", "100", "--out", str(tmp_path)])
    except FileNotFoundError as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"UCI Adult files not found: {exc}")
    finally:
        sys.modules.pop(name, None)
    assert status == 0
    table = (tmp_path / "prediction_adult.md").read_text()
    assert "TDDL (cubic kernel)" in table and "ε = 1.0" in table
    assert (tmp_path / "prediction_adult.png").stat().st_size > 1000
    res = json.loads((tmp_path / "prediction_adult.json").read_text())
    acc = res["kernel SVM w* (non-private)"]["inf"][0]
    assert 0.7 < acc <= 1.0
    assert table.splitlines()[-1] in capsys.readouterr().out
