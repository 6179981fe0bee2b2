# SPDX-License-Identifier: BSD-3-Clause
"""Reading the command line's data files (CSV, LibSVM) and named data sets.

Every problem with a file is reported as a :class:`DataError` whose message is one
line naming the file and, where it has one, the line and column.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DATASETS",
    "DataError",
    "Table",
    "labels_to_numbers",
    "load_dataset",
    "read_csv",
    "read_libsvm",
    "resolve_label_column",
]

FloatArray = NDArray[np.float64]

#: Names accepted by ``--dataset``.
DATASETS = ("breast-cancer", "adult", "nested-balls")
#: Rows of the generated nested-balls data (training and test parts).
NESTED_BALLS_ROWS = 20000

# A decimal number: digits with an optional fraction and exponent. No NaN,
# infinities, hexadecimal, underscores or thousands separators.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NON_FINITE = {"nan", "inf", "infinity"}


class DataError(ValueError):
    """A data file or data set that cannot be used; the message is one line."""


@dataclass
class Table:
    """A numeric CSV file: all columns, and the header if there was one."""

    values: FloatArray
    header: list[str] | None
    path: str


def _show(cell: str) -> str:
    # repr() keeps the message on one line whatever the cell holds.
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


def _is_number_token(cell: str) -> bool:
    c = cell.strip()
    return bool(_NUMBER.fullmatch(c)) or c.lower().lstrip("+-") in _NON_FINITE


def _parse_cell(cell: str, where: str) -> float:
    c = cell.strip()
    if not c:
        raise DataError(f"{where}: empty value")
    if c.lower().lstrip("+-") in _NON_FINITE:
        raise DataError(f"{where}: non-finite value {_show(c)}")
    if not _NUMBER.fullmatch(c):
        raise DataError(f"{where}: non-numeric value {_show(c)}")
    value = float(c)
    if not math.isfinite(value):
        raise DataError(f"{where}: value {_show(c)} overflows a double")
    return value


def _read_text(path: str | os.PathLike[str]) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def read_csv(path: str | os.PathLike[str]) -> Table:
    """Read a numeric CSV file with an optional header row.

    Parameters
    ----------
    path : str or path-like
        The file: separator ``,``, every value a finite decimal number. The first
        row is a header when none of its cells is a number.

    Returns
    -------
    Table
        The values (n_rows, n_columns) and the header (or ``None``).

    Raises
    ------
    DataError
        For an empty file, a header without rows, a row with another number of
        columns, an empty, non-numeric or non-finite value (the message names
        the line and column) or a text that is not UTF-8.
    OSError
        If the file cannot be read.
    """
    name = os.fspath(path)
    text = _read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header: list[str] | None = None
    rows: list[list[float]] = []
    ncols = -1
    end = 0
    try:
        for row in reader:
            # A quoted field may span lines: name the line where the row starts
            # (blank lines come through as empty rows, so this count is exact).
            line, end = end + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            if ncols < 0:
                ncols = len(row)
                if not any(_is_number_token(c) for c in row):
                    header = [c.strip() for c in row]
                    continue
            elif len(row) != ncols:
                raise DataError(
                    f"{name}, line {line}: expected {ncols} columns, found {len(row)}"
                )
            rows.append(
                [
                    _parse_cell(c, f"{name}, line {line}, column {j}")
                    for j, c in enumerate(row, start=1)
                ]
            )
    except csv.Error as exc:
        raise DataError(f"{name}, line {end + 1}: {exc}") from None
    if ncols < 0:
        raise DataError(f"{name}: empty file")
    if not rows:
        raise DataError(f"{name}: no data rows (only a header)")
    return Table(np.array(rows, dtype=np.float64), header, name)


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
    path: str | os.PathLike[str], n_features: int | None = None
) -> tuple[FloatArray, np.ndarray]:
    """Read a LibSVM / SVMlight file as dense arrays (1-based feature indices).

    Parameters
    ----------
    path : str or path-like
        The file.
    n_features : int, optional
        The number of features (a model's ``n_features_in_``); by default the
        largest index in the file.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        The rows.
    y : ndarray of shape (n_rows,)
        The labels (``int64`` when all are whole numbers).

    Raises
    ------
    DataError
        For a malformed file, index 0, an index above ``n_features``, a
        non-finite value or a file without rows.
    OSError
        If the file cannot be read.
    """
    from sklearn.datasets import load_svmlight_file

    name = os.fspath(path)
    if os.path.isdir(name):
        raise IsADirectoryError(21, "Is a directory", name)
    try:
        # zero_based=False: the LIBSVM convention (indices from 1). "auto" would
        # guess from the data and could shift columns between two files.
        X, y = load_svmlight_file(
            name, n_features=n_features, zero_based=False, dtype=np.float64
        )
    except ValueError as exc:
        raise DataError(f"{name}: {' '.join(str(exc).split())}") from None
    if X.shape[0] == 0:
        raise DataError(f"{name}: empty file (no data rows)")
    if X.shape[1] == 0:
        raise DataError(f"{name}: no features")
    dense = np.asarray(X.toarray(), dtype=np.float64)
    bad = ~np.isfinite(dense).all(axis=1) | ~np.isfinite(y)
    if np.any(bad):
        row = int(np.flatnonzero(bad)[0]) + 1
        raise DataError(f"{name}: data row {row}: non-finite value")
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
