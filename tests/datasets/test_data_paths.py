# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the data-directory resolution order."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpsvm.datasets import _paths, resolve_data_dir


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No env var, a working directory with no ../shared, no repo fallback."""
    monkeypatch.delenv("DPSVM_DATA", raising=False)
    work = tmp_path / "checkout"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(_paths, "_repo_shared_dir", lambda: tmp_path / "no" / "such")
    return tmp_path


def test_argument_wins_even_if_missing(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPSVM_DATA", str(isolated))
    assert resolve_data_dir(isolated / "nope") == isolated / "nope"


def test_argument_expands_user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_data_dir("~/d") == tmp_path / "d"


def test_env_var_before_fallbacks(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (isolated / "shared" / "datasets").mkdir(parents=True)
    monkeypatch.setenv("DPSVM_DATA", str(isolated / "env"))
    assert resolve_data_dir() == isolated / "env"


def test_empty_env_var_is_ignored(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DPSVM_DATA", "")
    assert resolve_data_dir() is None


def test_cwd_relative_shared(isolated: Path) -> None:
    shared = isolated / "shared" / "datasets"
    shared.mkdir(parents=True)
    # cwd is isolated/checkout, so ../shared/datasets is isolated/shared/datasets.
    assert resolve_data_dir() == shared.resolve()


def test_repo_relative_shared(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_shared = isolated / "elsewhere" / "shared" / "datasets"
    repo_shared.mkdir(parents=True)
    monkeypatch.setattr(_paths, "_repo_shared_dir", lambda: repo_shared)
    assert resolve_data_dir() == repo_shared


def test_nothing_found(isolated: Path) -> None:
    assert resolve_data_dir() is None


def test_repo_shared_dir_is_next_to_checkout() -> None:
    # src/dpsvm/datasets/_paths.py -> repository root is parents[3].
    root = Path(_paths.__file__).resolve().parents[3]
    assert (root / "src" / "dpsvm" / "datasets" / "_paths.py").is_file()
    assert _paths._repo_shared_dir() == root.parent / "shared" / "datasets"


def test_candidates_listing(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPSVM_DATA", "/x/y")
    notes = [note for _, note in _paths.data_dir_candidates()]
    assert notes[0] == "$DPSVM_DATA"
    assert len(notes) == 3
