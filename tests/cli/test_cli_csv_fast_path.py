# SPDX-License-Identifier: BSD-3-Clause
"""The CSV reader's fast path (every column parsed as a number) and its text path.

A file of numbers only is parsed with every column typed as a double and
copied once into the array the solvers use; any other file is parsed again as
text, whose checks word the refusals. The fast path must accept a subset of
what the text path accepts, with identical values, so that neither a value nor
a message depends on which path read the file.
"""

from __future__ import annotations

import gzip
import io
import re
import sys

import numpy as np
import pytest

from dpsvm.cli import _data
from dpsvm.cli._data import DataError, read_csv, read_frame
from dpsvm.preprocessing import PublicSchema, SchemaTransformer


def _no_fast_path(layout):
    return None


def _write(tmp_path, text: str, name: str = "d.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def _both(monkeypatch, read, *args, **kwargs):
    """(result, result with the fast path turned off) of the same read."""
    fast = read(*args, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(_data, "_numbers_table", _no_fast_path)
        slow = read(*args, **kwargs)
    return fast, slow


NUMERIC = {
    "header": ("a,b,y\n1.5,-2,1\n.5,3e2,-1\n+4,5.,1\n", {"header": True}),
    "no-header": ("1.5,-2,1\n.5,3e2,-1\n", {"header": False}),
    "semicolon": ("a;b;y\n1.5;-2;1\n0.25;3;-1\n", {"header": True, "delimiter": ";"}),
    "tab": ("1.5\t-2\t1\n0.25\t3\t-1\n", {"header": False, "delimiter": "\t"}),
    "blanks-quotes": ('a,b,y\n 1.5 ,"2",1\n"-0.5",\t3 ,-1\n', {"header": True}),
    "crlf": ("a,b,y\r\n1,2,1\r\n3,4,-1\r\n", {"header": True}),
    "bom": ("\ufeff1,2,1\n3,4,-1\n", {"header": False}),
    "names": ("1,2,1\n3,4,-1\n", {"column_names": ["a", "b", "y"]}),
    "big-int": ("a,y\n9007199254740993,1\n-7,1\n", {"header": True}),
    "digits": (
        "a,y\n0.1000000000000000055511151231257827,1\n"
        "1.7976931348623157e308,1\n2.2250738585072014e-308,1\n4.9e-324,1\n",
        {"header": True},
    ),
}


@pytest.mark.parametrize("case", sorted(NUMERIC))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fast_path_reads_what_the_text_path_reads(tmp_path, monkeypatch, case, dtype):
    text, kwargs = NUMERIC[case]
    if dtype is np.float32 and case == "digits":
        pytest.skip("1.8e308 is too large for float32 (refused by both paths)")
    path = _write(tmp_path, text)
    layout = _data._read_layout(
        path,
        header=kwargs.get("header"),
        delimiter=kwargs.get("delimiter", ","),
        column_names=kwargs.get("column_names"),
    )
    assert _data._numbers_table(layout) is not None  # the fast path read it
    fast, slow = _both(monkeypatch, read_csv, path, dtype=dtype, **kwargs)
    assert fast.values.dtype == slow.values.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(fast.values, slow.values, strict=True)
    assert fast.header == slow.header
    assert fast.values.flags.f_contiguous and fast.values.flags.writeable


def test_fast_path_reads_random_decimals_exactly(tmp_path, monkeypatch):
    # Correctly rounded, as float(text), either way: 17 significant digits.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((500, 3)) * 10.0 ** rng.integers(-300, 300, (500, 3))
    lines = [",".join(f"{v:.17g}" for v in row) for row in x]
    path = _write(tmp_path, "\n".join(["a,b,c", *lines]) + "\n")
    fast, slow = _both(monkeypatch, read_csv, path, header=True)
    expected = np.array([[float(c) for c in line.split(",")] for line in lines])
    np.testing.assert_array_equal(fast.values, expected)
    np.testing.assert_array_equal(slow.values, expected)


def test_fast_path_reads_gzip_and_standard_input(tmp_path, monkeypatch):
    text = "a,b,y\n1.5,-2,1\n0.25,3,-1\n"
    path = tmp_path / "d.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    plain = read_csv(_write(tmp_path, text), header=True).values
    np.testing.assert_array_equal(read_csv(path, header=True).values, plain)
    stdin = io.TextIOWrapper(io.BytesIO(gzip.compress(text.encode())))
    monkeypatch.setattr(sys, "stdin", stdin)
    np.testing.assert_array_equal(read_csv("-", header=True).values, plain)


REFUSED = {
    "hexadecimal": "a,y\n0x1A,1\n",
    "nan": "a,y\nnan,1\n",
    "infinite": "a,y\ninf,1\n",
    "overflow": "a,y\n1e999,1\n",
    "boolean": "a,y\nTrue,1\n",
    "empty": "a,y\n,1\n",
    "short-row": "a,y\n1,1\n2\n",
    "long-row": "a,y\n1,1\n2,1,3\n",
    "blank-line": "a,y\n1,1\n   \n2,1\n",
    "text": "a,y\nsecret-value,1\n",
    "thousands": "a;y\n1,5;1\n",
    "header-only": "a,y\n",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_every_refusal_is_worded_the_same_either_way(tmp_path, monkeypatch, case):
    text = REFUSED[case]
    delimiter = ";" if case == "thousands" else ","
    path = _write(tmp_path, text)
    # The same refusal, in the same words, with or without the fast path, and
    # the value is not quoted.
    with pytest.raises(DataError) as fast:
        read_csv(path, header=True, delimiter=delimiter)
    with monkeypatch.context() as m:
        m.setattr(_data, "_numbers_table", _no_fast_path)
        with pytest.raises(DataError) as slow:
            read_csv(path, header=True, delimiter=delimiter)
    assert str(fast.value) == str(slow.value)
    assert "secret" not in str(fast.value) and "0x1A" not in str(fast.value)


def test_float32_overflow_is_refused_by_name(tmp_path):
    path = _write(tmp_path, "a,y\n1e39,1\n")
    with pytest.raises(DataError, match="column 1 holds a value too large for float32"):
        read_csv(path, header=True, dtype=np.float32)


def test_label_in_last_column_is_a_view(tmp_path, monkeypatch):
    # `dpsvm train`'s default label column: the features are not copied.
    from dpsvm.cli import _main, _reading

    path = _write(tmp_path, "a,b,y\n1,2,1\n3,4,-1\n5,6,1\n")
    seen = {}
    real = _reading.read_csv

    def spy(*args, **kwargs):
        seen["table"] = real(*args, **kwargs)
        return seen["table"]

    monkeypatch.setattr(_reading, "read_csv", spy)
    args = _main.build_parser().parse_args(["train", "--data", str(path), "--out", "m"])
    X, y, names = _reading._read(args, part="train", labels=True)
    assert np.shares_memory(X, seen["table"].values)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [5, 6]])
    assert y.tolist() == [1, -1, 1] and names == ["a", "b"]


SCHEMA = {
    "label": {"column": "y", "classes": [-1, 1]},
    "features": [
        {"column": "a", "type": "numeric", "lower": -2, "upper": 2},
        {"column": "c", "type": "categorical", "categories": [1, "2.5", 3]},
    ],
}


def test_schema_frame_encodes_the_same_either_way(tmp_path, monkeypatch):
    # Numbers-only file: categories and labels read as numbers by the fast path
    # and as text otherwise compare as the same values (canonical_key).
    text = "a,c,extra,y\n1.5,01,7,1\n-3,2.50,8,-1.0\n0.25,3,9,+1\n9,4,1,-1\n"
    path = _write(tmp_path, text)
    schema = PublicSchema.from_dict(SCHEMA)
    (fast, names, where), (slow, *_) = _both(
        monkeypatch, read_frame, path, numeric_columns=["a"]
    )
    assert names == ["a", "c", "extra", "y"] and where == str(path)
    assert fast["a"].dtype == np.float64 and fast["c"].dtype == np.float64
    assert slow["c"].dtype != np.float64  # text without the fast path
    encoder = SchemaTransformer(schema)
    np.testing.assert_array_equal(
        encoder.fit_transform(fast), encoder.fit_transform(slow), strict=True
    )
    assert schema.encode_labels(fast["y"]).tolist() == [1, -1, 1, -1]
    assert schema.encode_labels(slow["y"]).tolist() == [1, -1, 1, -1]


def test_schema_frame_with_text_or_blanks_is_read_as_before(tmp_path, monkeypatch):
    schema = PublicSchema.from_dict(SCHEMA)
    path = _write(tmp_path, "a,c,y\n,1,1\n1,x,-1\n")  # a missing number, a text
    (fast, *_), (slow, *_) = _both(monkeypatch, read_frame, path, numeric_columns=["a"])
    encoder = SchemaTransformer(schema)
    np.testing.assert_array_equal(
        encoder.fit_transform(fast), [[0, 1, 0, 0], [0.5, 0, 0, 0]]
    )
    np.testing.assert_array_equal(
        encoder.fit_transform(fast), encoder.fit_transform(slow)
    )


@pytest.mark.parametrize(
    ("cells", "message"),
    [
        ("0x1A\n0x2B", "holds a value that is not a decimal number"),  # not 26, 43
        ("nan\n-Infinity", "holds a non-finite value (NaN or infinite)"),
        ("nan\nabc", "holds a value that is not a decimal number"),
        ("1e999\n1", "holds a non-finite value (NaN or infinite)"),
        ("1\n ", "holds a value that is not a decimal number"),
    ],
)
def test_text_path_keeps_the_decimal_grammar(tmp_path, cells, message):
    # Regression: pyarrow's type inference read a column of hexadecimal
    # integers as numbers; every column is now checked against the grammar.
    rows = "\n".join(f"{c},1" for c in cells.split("\n"))
    path = _write(tmp_path, f"a,y\n{rows}\n")
    with pytest.raises(DataError, match=re.escape(f"column 1 {message}")):
        read_csv(path, header=True)


def test_schema_labels_of_a_numbers_file(tmp_path, monkeypatch):
    # The labels of a numbers-only file are mapped per distinct value: the same
    # classes as row by row, and the same refusal (no value quoted).
    from dpsvm.cli._reading import _schema_labels

    schema = PublicSchema.from_dict(SCHEMA)
    path = _write(tmp_path, "a,c,y\n1,1,1\n2,1,-1.0\n3,1,1\n")
    frame, _, where = read_frame(path, numeric_columns=["a"])
    assert frame["y"].dtype == np.float64
    labels = _schema_labels(schema, frame, where)
    np.testing.assert_array_equal(labels, schema.encode_labels(frame["y"]))
    assert labels.tolist() == [1, -1, 1]
    bad = _write(tmp_path, "a,c,y\n1,1,1\n2,1,7.5\n", "bad.csv")
    frame, _, where = read_frame(bad, numeric_columns=["a"])
    with pytest.raises(ValueError, match="not among the declared classes") as info:
        _schema_labels(schema, frame, where)
    assert "7.5" not in str(info.value)
