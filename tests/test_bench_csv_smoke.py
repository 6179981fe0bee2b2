# SPDX-License-Identifier: BSD-3-Clause
"""Smoke tests of the CSV and Adult-schema benchmark scripts (they cannot rot)."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from dpsvm.datasets._paths import resolve_data_dir

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}


def test_csv_read_benchmark_runs(monkeypatch, capsys):
    # The script in-process (its readers still run in child processes).
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])
    readers = "baseline,pandas-c,train-schema"
    argv = ["bench_csv_read.py", "--rows", "500", "--repeat", "1", "--readers", readers]
    monkeypatch.setattr(sys, "argv", argv)
    runpy.run_path(str(BENCH / "bench_csv_read.py"), run_name="__main__")
    out = capsys.readouterr().out
    for reader in readers.split(","):
        assert f"| {reader} |" in out
    # `dpsvm train --schema` ran end to end and was compared with the target.
    for what in ("wall", "CPU"):
        assert f"{what}: train-schema " in out, out


@pytest.mark.adult
@pytest.mark.slow
def test_adult_schema_benchmark_runs():
    data_dir = resolve_data_dir()
    if data_dir is None or not (Path(data_dir) / "adult" / "adult.data.gz").exists():
        pytest.skip("the UCI Adult files are absent")
    res = subprocess.run(
        [sys.executable, str(BENCH / "adult_schema_cli.py"), "--draws", "1",
         "--epsilons", "1", "--no-tune", "--no-diffprivlib"],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if line.startswith("| 1 |"))
    cells = [cell.strip() for cell in row.split("|")[1:-1]]
    assert float(cells[1].split()[0]) > 0.8  # ε = 1, raw CSV + schema (majority: 0.76)
    assert cells[2] == cells[3] == "n/a"  # --no-tune, --no-diffprivlib
    assert float(cells[4]) > 0.84  # the non-private baseline on the same features
