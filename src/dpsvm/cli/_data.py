# SPDX-License-Identifier: BSD-3-Clause
"""Reading the command line's data files (CSV, LibSVM) and named data sets.

Every problem with a file is reported as a :class:`DataError` whose message is one
line naming the file and, for CSV, the column by its position. Messages never
quote a value read from the file, nor the line it is on: both come from the
private data. Nor do they quote a cell of the first row: in a file without a
header row (read without ``--no-header``) that row is a private record.

CSV files are parsed by pyarrow's multi-threaded C++ reader. A file of
numbers only (what the solvers take) is parsed with every column typed as a
double, and the columns are copied once into the Fortran-ordered array the
solvers use in place (:func:`read_csv`, and :func:`read_frame` for a public
schema); any other file is parsed again as text, whose checks word every
refusal. ``benchmarks/bench_csv_read.py`` compares it with
``pandas.read_csv`` (docs/benchmarks.md). gzip input is
recognised by its magic bytes, and ``-`` reads standard input.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import math
import os
import re
import sys
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DATASETS",
    "DataError",
    "Table",
    "labels_to_numbers",
    "load_dataset",
    "read_csv",
    "read_frame",
    "read_libsvm",
    "read_table",
    "resolve_label_column",
]

FloatArray = NDArray[np.float64]

#: Names accepted by ``--dataset``.
DATASETS = ("breast-cancer", "adult", "nested-balls")
#: Rows of the generated nested-balls data (training and test parts).
NESTED_BALLS_ROWS = 20000

# A decimal number: digits with an optional fraction and exponent. No NaN,
# infinities, hexadecimal, underscores or thousands separators.
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
# The spellings of NaN and the infinities (refused as non-finite values).
_NON_FINITE = re.compile(r"(?i)^[+-]?(?:nan|inf|infinity)$")
# A header cell naming pandas' default index column when a frame is written with
# to_csv() (empty) or written again after read_csv() ("Unnamed: 0").
_INDEX_NAMES = re.compile(r"(?:|Unnamed: ?\d+)")
_GZIP_MAGIC = b"\x1f\x8b"


class DataError(ValueError):
    """A data file or data set that cannot be used; the message is one line."""


@dataclass
class Table:
    """A numeric CSV file: all columns, and the header if there was one."""

    values: NDArray[np.floating[Any]]
    header: list[str] | None
    path: str


@dataclass
class _Layout:
    """What the first row says about a CSV file, before its rows are parsed."""

    path: str | os.PathLike[str]
    where: str  # the file's name for messages
    names: list[str] | None  # the header (checked), or --names
    header: bool  # whether the first row is a header, to be skipped
    ncols: int  # the number of cells in the first row
    delimiter: str
    data: Any  # standard input's bytes (a pyarrow buffer, gzip undone), or None


def _open_source(path: str | os.PathLike[str]) -> tuple[Any, str]:
    """A pyarrow input for ``path`` (``-``: standard input), gzip undone."""
    import pyarrow as pa

    name = os.fspath(path)
    if name == "-":
        raw = sys.stdin.buffer.read()
        if raw[:2] == _GZIP_MAGIC:
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError, zlib.error):
                raise DataError("standard input: not a valid gzip stream") from None
        return pa.BufferReader(raw), "standard input"
    if os.path.isdir(name):
        raise IsADirectoryError(21, "Is a directory", name)
    with open(name, "rb") as f:
        magic = f.read(2)
    if magic == _GZIP_MAGIC:
        return pa.CompressedInputStream(pa.OSFile(name), "gzip"), name
    # A memory map: pyarrow parses it in parallel without a copy in Python.
    return pa.memory_map(name), name


def _first_row(source: Any, where: str, delimiter: str = ",") -> list[str] | None:
    """The cells of the first non-blank line (``None`` for an empty file)."""
    head = b""
    while True:
        chunk = source.read(1 << 16)
        head += chunk
        if not chunk or b"\n" in head.lstrip(b"\r\n \t"):
            break
    with contextlib.suppress(Exception):
        source.close()
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut by the chunk
            raise DataError(f"{where}: not UTF-8 text") from None
        text = head[: exc.start].decode("utf-8-sig")
    for line in text.splitlines():
        if line.strip():
            return next(csv.reader([line], delimiter=delimiter))
    return None


def _is_number(cell: str) -> bool:
    try:
        return math.isfinite(float(cell.strip()))
    except ValueError:
        return False


def read_table(
    path: str | os.PathLike[str],
    *,
    header: bool | None = None,
    numeric_columns: Collection[str] | None = None,
    delimiter: str = ",",
    column_names: Sequence[str] | None = None,
) -> tuple[Any, list[str] | None, str]:
    """Read a CSV file into a pyarrow table (the parser of :func:`read_csv`).

    Parameters
    ----------
    path : str or path-like
        The file, gzip-compressed or not; ``"-"`` reads standard input.
    header : bool or None, default=None
        ``True``: the first row is a header; ``False``: there is none; ``None``:
        the first row is a header when no cell of it is a number; a first row
        with a number is refused as ambiguous (pass ``header`` explicitly): read
        as a header, a record would become column names.
    numeric_columns : collection of str, optional
        With a header: read every column not named here as text (no inference of
        booleans, dates or numbers), as a public schema's categories need.
    delimiter : str, default=","
        The one-character field separator (``--delimiter``), e.g. ``";"`` or
        ``"\\t"``.
    column_names : sequence of str, optional
        The column names of a file without a header row (``--names``): the
        first row is data, and the file must have exactly this many columns.
        Refused with ``header=True``.

    Returns
    -------
    table : pyarrow.Table
        The columns (types inferred by pyarrow).
    names : list of str or None
        The header, or ``None`` without one.
    where : str
        The file's name for messages.

    Raises
    ------
    DataError
        For an empty file, an ambiguous first row, a column without a name
        (pandas' index column), a repeated column name, rows of different
        lengths, a text that is not UTF-8 or a file that is not CSV.
    OSError
        If the file cannot be read.
    """
    layout = _read_layout(
        path, header=header, delimiter=delimiter, column_names=column_names
    )
    return _arrow_table(layout, numeric_columns), layout.names, layout.where


def _read_layout(
    path: str | os.PathLike[str],
    *,
    header: bool | None,
    delimiter: str,
    column_names: Sequence[str] | None,
) -> _Layout:
    """Read the first row: the header (checked) or the number of columns."""
    import pyarrow as pa

    source, where = _open_source(path)
    data = None
    if isinstance(source, pa.BufferReader):
        data = source.read()
        source = pa.BufferReader(data)
    first = _first_row(source, where, delimiter)  # and closes it
    if first is None:
        raise DataError(f"{where}: empty file")
    if column_names is not None:
        # The public names of a header-less file: its first row is data.
        if header:
            raise ValueError("column_names is for a file without a header row")
        if len(column_names) != len(first):
            raise DataError(
                f"{where}: --names gives {len(column_names)} column names but the "
                f"file has {len(first)} columns (separated by {delimiter!r}; see "
                "--delimiter)"
            )
        header = False
    if header is None:
        numbers = [_is_number(c) for c in first]
        if first and all(numbers):
            raise DataError(
                f"{where}: the first row is all numbers, so it may be data or a "
                "header; pass --no-header if the file has no header row, or "
                "--header if it has one"
            )
        if any(numbers):
            # Most likely a record (read as a header, its cells would become
            # column names in messages and in the model file).
            raise DataError(
                f"{where}: the first row mixes numbers and text, so it may be data "
                "or a header; pass --no-header if the file has no header row, or "
                "--header if it has one"
            )
        header = True
    names: list[str] | None = None
    if header:
        names = [c.strip() for c in first]
        for j, n in enumerate(names):
            if _INDEX_NAMES.fullmatch(n):
                what = (
                    "the first column has no name: it is most likely the row index "
                    "that pandas writes by default, which must not be trained on"
                    if j == 0
                    else f"column {j + 1} has no name"
                )
                raise DataError(
                    f"{where}: {what}; write the file with to_csv(index=False) or "
                    "remove that column"
                )
        first_of: dict[str, int] = {}
        for j, n in enumerate(names):
            if n in first_of:
                # Positions only: a file without a header row has data in its
                # first row, and these "names" would be a private record.
                raise DataError(
                    f"{where}: columns {first_of[n] + 1} and {j + 1} of the first "
                    "row have the same name; every column needs its own name. If "
                    "the file has no header row, add one naming the columns (or "
                    "pass --no-header, with --names to name the columns)"
                )
            first_of[n] = j
    if column_names is not None:
        names = list(column_names)  # checked by the --names option
    return _Layout(
        path=path,
        where=where,
        names=names,
        header=bool(header),
        ncols=len(first),
        delimiter=delimiter,
        data=data,
    )


def _arrow_table(
    layout: _Layout,
    numeric_columns: Collection[str] | None,
    *,
    text: bool = False,
    numbers: bool = False,
) -> Any:
    """Parse the rows with pyarrow: types inferred, or all text, or all numbers.

    ``numbers``: every column parsed as float64, and ``None`` when a cell is
    not a number (the parse stops at it; the text parse words why).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    where, names, header = layout.where, layout.names, layout.header
    delimiter = layout.delimiter
    source = (
        pa.BufferReader(layout.data)
        if layout.data is not None
        else _open_source(layout.path)[0]
    )
    ncols = layout.ncols
    text_types: dict[str, Any] = {}
    if text or numbers:
        kind = pa.float64() if numbers else pa.string()
        text_types = {f"c{j}": kind for j in range(ncols)}
    elif numeric_columns is not None and names is not None:
        text_types = {
            f"c{j}": pa.string()
            for j, n in enumerate(names)
            if n not in set(numeric_columns)
        }
    try:
        table = pacsv.read_csv(
            source,
            read_options=pacsv.ReadOptions(
                column_names=[f"c{j}" for j in range(ncols)],
                skip_rows=1 if header else 0,
            ),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types=text_types,
                null_values=[""],
                strings_can_be_null=False,
                true_values=[],  # "TRUE" is text (or an error), not a boolean
                false_values=[],
            ),
        )
    except pa.ArrowInvalid as exc:
        if numbers and "conversion error" in str(exc):
            return None  # a cell that is not a number
        # pyarrow's message quotes the offending row: never repeat it.
        found = re.search(r"Expected (\d+) columns, got (\d+)", str(exc))
        if found:
            raise DataError(
                f"{where}: a row has {found.group(2)} columns; expected "
                f"{found.group(1)} (the number in the first row)"
            ) from None
        if "UTF8" in str(exc) or "UTF-8" in str(exc):
            raise DataError(f"{where}: not UTF-8 text") from None
        raise DataError(f"{where}: not a valid CSV file") from None
    finally:
        with contextlib.suppress(Exception):
            source.close()
    for field in table.schema:
        if pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type):
            raise DataError(f"{where}: not UTF-8 text")
    return table


def _numbers_table(layout: _Layout) -> Any | None:
    """Every column parsed as float64 by pyarrow; ``None`` if a cell is not a number.

    The fast path of :func:`read_csv` and :func:`read_frame`: pyarrow's
    multi-threaded parser converts each cell straight to a double (correctly
    rounded, as ``float(text)``; blanks around a number allowed; no
    hexadecimal, booleans or thousands separators), and the columns are then
    copied once into the array the solvers use. A file that is not all numbers
    is parsed again as text, whose checks word the refusal.
    """
    return _arrow_table(layout, None, numbers=True)


def _release_parser_memory() -> None:
    """Hand the freed table's memory back to the system (pyarrow's allocator
    keeps it otherwise, and it would count in the peak of the fit that follows)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _fill(out: NDArray[np.floating[Any]], j: int, column: Any) -> None:
    """Copy a float64 column into ``out[:, j]``, chunk by chunk (one copy)."""
    start = 0
    with np.errstate(over="ignore"):  # too large for float32: inf, refused later
        for chunk in column.chunks:
            stop = start + len(chunk)
            out[start:stop, j] = chunk.to_numpy(zero_copy_only=False)
            start = stop


def _as_array(table: Any, dtype: Any) -> NDArray[np.floating[Any]] | None:
    """A table of float64 columns without nulls as one Fortran-ordered array,
    or ``None`` when a value is not finite (in ``dtype``)."""
    out = np.empty((table.num_rows, table.num_columns), dtype=dtype, order="F")
    for j, column in enumerate(table.columns):
        if column.null_count:
            return None
        _fill(out, j, column)
        if not np.isfinite(out[:, j]).all():
            return None
    return out


def _column_name(j: int) -> str:
    # By position only: the "header" of a file without one is a private row.
    return f"column {j + 1}"


def read_csv(
    path: str | os.PathLike[str],
    *,
    header: bool | None = None,
    dtype: type[np.floating[Any]] | np.dtype[Any] = np.float64,
    delimiter: str = ",",
    column_names: Sequence[str] | None = None,
) -> Table:
    """Read a numeric CSV file into one array (pyarrow's parallel C++ parser).

    Parameters
    ----------
    path : str or path-like
        The file: separator ``,``, every value a finite decimal number; gzip
        input is recognised by its magic bytes; ``"-"`` reads standard input.
    header : bool or None, default=None
        Whether the first row is a header (see :func:`read_table`; by default a
        first row of numbers only is refused as ambiguous).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        The type of the values (float32 halves the memory).
    delimiter : str, default=","
        The field separator (see :func:`read_table`).
    column_names : sequence of str, optional
        The column names of a file without a header row (see :func:`read_table`).

    Returns
    -------
    Table
        The values (n_rows, n_columns), a Fortran-ordered array (each column
        contiguous, as the solvers use it), and the header (or ``None``).

    Raises
    ------
    DataError
        For an empty file, a header without rows, a row with another number of
        columns, an empty, non-numeric or non-finite value (the message names
        the column by position, never the value or the header cell), or a text
        that is not UTF-8.
    OSError
        If the file cannot be read.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    layout = _read_layout(
        path, header=header, delimiter=delimiter, column_names=column_names
    )
    names, where = layout.names, layout.where
    table = _numbers_table(layout)
    if table is None:
        # Every cell as text, checked against the decimal grammar, to word the
        # refusal (pyarrow's own inference would read "0x1A" as the integer 26).
        table = _arrow_table(layout, None, text=True)
    if table.num_rows == 0:
        raise DataError(f"{where}: no data rows (only a header)")
    out = np.empty((table.num_rows, table.num_columns), dtype=dtype, order="F")
    for j, column in enumerate(table.columns):
        what = f"{where}: {_column_name(j)}"
        if column.null_count or (
            pa.types.is_string(column.type) and pc.any(pc.equal(column, "")).as_py()
        ):
            raise DataError(f"{what} has an empty value")
        if pa.types.is_string(column.type):
            # Accept plain decimals only (blanks around them allowed), not
            # hexadecimal, NaN, booleans or thousands separators.
            column = pc.utf8_trim_whitespace(column)
            decimal = pc.match_substring_regex(column, _NUMBER.pattern)
            if not pc.all(decimal).as_py():
                non_finite = pc.match_substring_regex(column, _NON_FINITE.pattern)
                if pc.all(pc.or_(decimal, non_finite)).as_py():
                    raise DataError(
                        f"{what} holds a non-finite value (NaN or infinite)"
                    )
                raise DataError(f"{what} holds a value that is not a decimal number")
            column = pc.cast(column, pa.float64())
        _fill(out, j, column)
        if not np.isfinite(out[:, j]).all():
            if not pc.all(pc.is_finite(column)).as_py():
                raise DataError(f"{what} holds a non-finite value (NaN or infinite)")
            raise DataError(f"{what} holds a value too large for {np.dtype(dtype)}")
    del table, column
    _release_parser_memory()
    return Table(out, names, where)


def read_frame(
    path: str | os.PathLike[str],
    *,
    numeric_columns: Collection[str],
    delimiter: str = ",",
    column_names: Sequence[str] | None = None,
) -> tuple[Any, list[str], str]:
    """Read a CSV file with named columns as a data frame, for a public schema.

    A file of finite numbers only is read by the fast path of :func:`read_csv`
    (one float64 array, each column contiguous, which the frame wraps without a
    copy); any other by :func:`read_table`, the columns not in
    ``numeric_columns`` as text. The two give the same encoding: a
    schema compares categories and labels by
    :func:`~dpsvm.preprocessing.canonical_key`, under which the text ``"1"`` and
    the number 1.0 are one value.

    Parameters
    ----------
    path : str or path-like
        The file (see :func:`read_table`).
    numeric_columns : collection of str
        The schema's numeric columns.
    delimiter : str, default=","
        The field separator.
    column_names : sequence of str, optional
        The column names of a file without a header row (``--names``);
        otherwise the first row is the header.

    Returns
    -------
    frame : pandas.DataFrame
        The rows, columns named by the header.
    names : list of str
        The column names.
    where : str
        The file's name for messages.

    Raises
    ------
    DataError
        As :func:`read_table`, and for a file without data rows.
    OSError
        If the file cannot be read.
    """
    import pandas as pd

    layout = _read_layout(
        path,
        header=column_names is None,
        delimiter=delimiter,
        column_names=column_names,
    )
    names, where = layout.names, layout.where
    assert names is not None
    numbers = _numbers_table(layout)
    if numbers is not None and numbers.num_rows:
        values = _as_array(numbers, np.float64)
        del numbers
        _release_parser_memory()
        if values is not None:
            return pd.DataFrame(values, columns=names, copy=False), names, where
    table = _arrow_table(layout, numeric_columns)
    if table.num_rows == 0:
        raise DataError(f"{where}: no data rows (only a header)")
    frame = table.to_pandas()
    frame.columns = names
    return frame, names, where


def resolve_label_column(spec: str | None, table: Table) -> int:
    """Index of the label column named by ``--label-column`` (default: last).

    Parameters
    ----------
    spec : str or None
        A 0-based column index (negative counts from the end) or a header name.
    table : Table
        The file.

    Returns
    -------
    int
        A non-negative column index.

    Raises
    ------
    DataError
        If the index is out of range, the name is not in the header (or there is
        no header), or the file has no other column.
    """
    ncols = table.values.shape[1]
    if ncols < 2:
        raise DataError(
            f"{table.path}: one column only; need feature columns and a label column"
        )
    if spec is None:
        return ncols - 1
    try:
        index = int(spec)
    except ValueError:
        if table.header is None:
            raise DataError(
                f"--label-column {spec!r}: {table.path} has no header row; give a "
                "0-based column index"
            ) from None
        matches = [j for j, h in enumerate(table.header) if h == spec]
        if len(matches) != 1:
            what = "is not a column" if not matches else "names several columns"
            raise DataError(f"--label-column {spec!r} {what} of {table.path}") from None
        return matches[0]
    if not -ncols <= index < ncols:
        raise DataError(
            f"--label-column {index} is out of range for {ncols} columns "
            f"(0-based; -1 is the last)"
        )
    return index % ncols


def labels_to_numbers(y: NDArray[np.float64]) -> np.ndarray:
    """Integer labels when every label is a whole number, else floats.

    Parameters
    ----------
    y : ndarray
        Labels read as floats.

    Returns
    -------
    ndarray
        ``int64`` when all values are integral (and exactly representable),
        else ``y`` unchanged.

    Examples
    --------
    >>> labels_to_numbers(np.array([1.0, -1.0])).tolist()
    [1, -1]
    >>> labels_to_numbers(np.array([0.5, 1.0])).tolist()
    [0.5, 1.0]
    """
    if y.size and np.all(np.abs(y) <= 2.0**53) and np.all(y == np.round(y)):
        return y.astype(np.int64)
    return y


def read_libsvm(
    path: str | os.PathLike[str], n_features: int, *, width_option: str = "--n-features"
) -> tuple[FloatArray, np.ndarray]:
    """Read a LibSVM / SVMlight file as dense arrays (1-based feature indices).

    Parameters
    ----------
    path : str or path-like
        The file (gzip input is recognised by its magic bytes).
    n_features : int
        The public number of features (``--n-features``, or a model's
        ``n_features_in_``). It is never taken from the file: the largest index
        in a private file is a property of one record.
    width_option : str, default="--n-features"
        What to name in the message when an index exceeds ``n_features``.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        The rows.
    y : ndarray of shape (n_rows,)
        The labels (``int64`` when all are whole numbers).

    Raises
    ------
    DataError
        For a malformed file, index 0, an index above ``n_features`` (the
        message gives ``n_features``, never the index found), a non-finite value
        or a file without rows. No message quotes a label, index or value read
        from the file.
    OSError
        If the file cannot be read.
    """
    from sklearn.datasets import load_svmlight_file

    name = os.fspath(path)
    if name == "-":
        raw = sys.stdin.buffer.read()
        name = "standard input"
    else:
        if os.path.isdir(name):
            raise IsADirectoryError(21, "Is a directory", name)
        with open(name, "rb") as f:
            raw = f.read()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            raise DataError(f"{name}: not a valid gzip stream") from None
    try:
        # zero_based=False: the LIBSVM convention (indices from 1). "auto" would
        # guess from the data and could shift columns between two files.
        X, y = load_svmlight_file(
            io.BytesIO(raw), n_features=n_features, zero_based=False, dtype=np.float64
        )
    except ValueError as exc:
        text = " ".join(str(exc).split())
        if "n_features was set to" in text:
            # scikit-learn's message quotes the largest index in the file.
            raise DataError(
                f"{name}: a feature index is larger than {width_option} "
                f"{n_features}; indices run from 1 to the public number of features"
            ) from None
        if "should be sorted and unique" in text:
            raise DataError(
                f"{name}: the feature indices of a line are not increasing; write "
                "each line's index:value pairs in increasing index order, each "
                "index once"
            ) from None
        if "Invalid index" in text:
            raise DataError(
                f"{name}: a feature index is 0 or negative (no index 0 in "
                f"LibSVM); indices run from 1 to {width_option} {n_features}"
            ) from None
        # Any other message of the parser quotes the field it could not read
        # (a label or value of a private record): never repeat it.
        raise DataError(
            f"{name}: not a valid LibSVM file; each line must be a numeric label "
            "followed by index:value pairs (indices from 1, decimal values)"
        ) from None
    if X.shape[0] == 0:
        raise DataError(f"{name}: empty file (no data rows)")
    dense = np.asarray(X.toarray(), dtype=np.float64)
    bad = ~np.isfinite(dense).all(axis=1) | ~np.isfinite(y)
    if np.any(bad):
        raise DataError(f"{name}: a row holds a non-finite value")
    return dense, labels_to_numbers(np.asarray(y, dtype=np.float64))


def load_dataset(
    name: str,
    *,
    part: str,
    data_dir: str | None = None,
    feature_set: str = "full",
) -> tuple[FloatArray, np.ndarray]:
    """Load a named data set's training or test part (rows in the unit ball).

    Parameters
    ----------
    name : {"breast-cancer", "adult", "nested-balls"}
        The data set.
    part : {"train", "test"}
        Which part.
    data_dir : str, optional
        Directory of the Adult files.
    feature_set : {"full", "compact"}, default="full"
        Adult's feature layout.

    Returns
    -------
    X : ndarray
        The rows.
    y : ndarray
        Labels in {-1, +1}.

    Raises
    ------
    DataError
        For an unknown name.
    FileNotFoundError
        If the Adult files are absent.
    """
    from ..datasets import load_adult, load_breast_cancer, make_nested_balls

    if name == "breast-cancer":
        bunch = load_breast_cancer()
    elif name == "adult":
        bunch = load_adult(
            data_dir, feature_set="compact" if feature_set == "compact" else "full"
        )
    elif name == "nested-balls":
        # Fixed data seeds: these points are not private, only a benchmark.
        seed = 0 if part == "train" else 1
        return make_nested_balls(NESTED_BALLS_ROWS, random_state=seed)
    else:
        raise DataError(f"unknown data set {name!r}; expected one of {DATASETS}")
    if part == "train":
        return bunch.X_train, bunch.y_train
    return bunch.X_test, bunch.y_test
