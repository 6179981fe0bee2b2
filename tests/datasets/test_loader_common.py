# SPDX-License-Identifier: BSD-3-Clause
"""The skeleton shared by the tabular loaders (dpsvm.datasets._common, _paths)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpsvm.datasets._common import (
    ParsedRecords,
    PublicLayout,
    category_codes,
    normalise_rows,
    numeric_columns,
    one_hot_design,
    one_hot_feature_names,
    scale_to_public_ranges,
    split_bunch,
)
from dpsvm.datasets._paths import DataFiles


def test_numeric_columns_names_the_column_never_the_field_or_line() -> None:
    # Regression (issue 20, item 3): the message quoted the field and its line.
    columns = [["1", "2", "3"], ["4", "Zq7PRIVATE", "6"]]
    with pytest.raises(ValueError, match=r"f\.csv: column b holds a field") as exc:
        numeric_columns(columns, ("a", "b"), Path("f.csv"), [10, 12, 13])
    assert "Zq7PRIVATE" not in str(exc.value) and "12" not in str(exc.value)
    out = numeric_columns([["1", "2.5"]], ("a",), Path("f.csv"), [1, 2])
    np.testing.assert_array_equal(out, [[1.0], [2.5]])


def test_category_codes_count_unknown_values() -> None:
    unknown: dict[str, dict[str, int]] = {}
    codes = category_codes(["b", "z", "a", "z"], {"a": 0, "b": 1}, "col", unknown)
    np.testing.assert_array_equal(codes, [1, -1, 0, -1])
    assert unknown == {"col": {"z": 2}}


def test_scaling_one_hot_and_names_line_up() -> None:
    numeric = np.array([[5.0, 1e4], [-1.0, 0.0]])
    bounds = {"p": (0.0, 10.0), "q": (0.0, 99.0)}
    scaled, clipped = scale_to_public_ranges(numeric, ("p", "q"), bounds, {"q"})
    np.testing.assert_allclose(scaled, [[0.5, 1.0], [0.0, 0.0]])
    assert clipped == {"p": 1, "q": 1}
    cats = {"c": ("u", "v")}
    X = one_hot_design(scaled, np.array([[1], [-1]]), cats.values(), True)
    names = one_hot_feature_names(("p", "q"), cats, True)
    assert names == ["p", "q", "c=u", "c=v", "constant"]
    np.testing.assert_array_equal(X, [[0.5, 1.0, 0, 1, 1], [0, 0, 0, 0, 1]])
    rows = normalise_rows(X)
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0)


def test_take_and_split_bunch() -> None:
    rec = ParsedRecords(np.eye(3), np.zeros((3, 1), np.int64), ["a", "b", "c"], {})
    sub = rec.take(np.array([2, 0]))
    assert sub.labels == ["c", "a"] and sub.numeric[0, 2] == 1.0
    y_tr, y_te = np.array([1, -1, 1]), np.array([-1])
    b = split_bunch((np.eye(3), y_tr, np.eye(1), y_te), ["f"], extra=7)
    assert b.positive_rate == 0.5 and b.extra == 7
    assert b.feature_names.dtype == object


def test_missing_message_names_folder_and_remedies(tmp_path: Path) -> None:
    def never(name: str, target: Path) -> Path:
        raise AssertionError("no download was asked for")

    files = DataFiles("Demo", ("a.csv", "b.csv"), "demo", "load_demo", "note", never)
    with pytest.raises(FileNotFoundError) as info:
        files.resolve(tmp_path, download=False)
    msg = str(info.value)
    assert "Demo file(s) not found: a.csv, b.csv." in msg
    assert str(tmp_path / "demo" / "b.csv.gz") in msg
    assert "in a 'demo/' subfolder" in msg and "load_demo(download=True)" in msg


def test_resolve_downloads_only_the_missing_files(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("x")
    fetched: list[tuple[str, Path]] = []

    def fetch(name: str, target: Path) -> Path:
        fetched.append((name, target))
        return target / name

    files = DataFiles("Demo", ("a.csv", "b.csv"), "demo", "load_demo", "n", fetch)
    paths = files.resolve(tmp_path, download=True)
    assert paths == {"a.csv": tmp_path / "a.csv", "b.csv": tmp_path / "demo" / "b.csv"}
    assert fetched == [("b.csv", tmp_path / "demo")]


def test_public_layout_reads_encodes_and_names() -> None:
    layout = PublicLayout(
        ("c", "n", "label"), ("n",), {"n": (0.0, 4.0)}, {"c": ("u", "v")}
    )
    unknown: dict[str, dict[str, int]] = {}
    fields = [("v", "w"), ("2", "9"), ("+", "-")]
    numeric, codes = layout.read_fields(fields, Path("f"), [1, 2], unknown)
    np.testing.assert_array_equal(numeric, [[2.0], [9.0]])
    np.testing.assert_array_equal(codes, [[1], [-1]])
    assert unknown == {"c": {"w": 1}}
    parts = [ParsedRecords(numeric, codes, ["+", "-"], unknown)] * 2
    (X, _), clipped = layout.encode(parts, add_constant=False)
    np.testing.assert_array_equal(X, [[0.5, 0.0, 1.0], [1.0, 0.0, 0.0]])
    assert clipped == {"n": 2}  # 9 > 4 once in each part
    assert layout.feature_names(False) == ["n", "c=u", "c=v"]
