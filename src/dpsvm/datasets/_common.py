# SPDX-License-Identifier: BSD-3-Clause
"""The skeleton shared by the tabular loaders: parse, encode, scale, release.

Every step here is a fixed per-record map built from public constants (category
lists, numeric ranges) or reads one record at a time, so a loader assembled from
them keeps the data-independence argument of its docstring: each released row
has ``||x||_2 <= 1`` without any quantity estimated from other records.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from typing import Any, Generic, TypeAlias, TypeVar

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch

from dpsvm.validation import project_rows_to_ball

LabelsT = TypeVar("LabelsT", NDArray[np.int64], list[str])


@dataclass(frozen=True)
class ParsedRecords(Generic[LabelsT]):
    """Records of one file: numeric block, category codes (-1 = unknown), labels.

    ``unknown`` counts, per categorical column, the values outside the published
    list (encoded as all zeros); ``n_dropped_missing`` the records dropped for a
    missing value.
    """

    numeric: NDArray[np.float64]
    codes: NDArray[np.int64]
    labels: LabelsT
    unknown: dict[str, dict[str, int]]
    n_dropped_missing: int = 0

    def take(self, idx: NDArray[np.intp]) -> ParsedRecords[Any]:
        """The records at positions ``idx`` (unknown counts kept as parsed)."""
        labels = self.labels
        kept = (
            labels[idx]
            if isinstance(labels, np.ndarray)
            else [labels[i] for i in idx.tolist()]
        )
        return dataclasses.replace(
            self, numeric=self.numeric[idx], codes=self.codes[idx], labels=kept
        )


def numeric_columns(
    columns: Sequence[Sequence[str]],
    names: Sequence[str],
    path: os.PathLike[str],
    linenos: Sequence[int],
) -> NDArray[np.float64]:
    """Parse text fields into an ``(n_records, len(columns))`` float block.

    ``columns[j]`` holds column ``names[j]`` of every record; ``linenos`` the
    records' line numbers in ``path``. A field that is not a number raises
    :class:`ValueError` naming the file and the column, never the field or its
    line.
    """
    n = len(linenos)
    numeric = np.empty((n, len(columns)), dtype=np.float64)
    for j, values in enumerate(columns):
        try:
            numeric[:, j] = np.fromiter(map(float, values), np.float64, n)
        except ValueError:
            # Neither the field nor its line is quoted: both come from the
            # (possibly private) file.
            raise ValueError(
                f"{path}: column {names[j]} holds a field that is not a number; "
                "fix that column's values."
            ) from None
    return numeric


def category_codes(
    values: Sequence[str],
    lookup: Mapping[str, int],
    column: str,
    unknown: dict[str, dict[str, int]],
) -> NDArray[np.int64]:
    """Codes of ``values`` in a published category list; -1 for a value not in it.

    Each value outside the list is counted in ``unknown[column]`` (updated in
    place).
    """
    n = len(values)
    codes = np.fromiter(map(lookup.get, values, repeat(-1, n)), np.int64, count=n)
    for i in np.flatnonzero(codes < 0).tolist():
        per_col = unknown.setdefault(column, {})
        per_col[values[i]] = per_col.get(values[i], 0) + 1
    return codes


def scale_to_public_ranges(
    numeric: NDArray[np.float64],
    columns: Sequence[str],
    bounds: Mapping[str, tuple[float, float]],
    log_columns: Collection[str] = (),
) -> tuple[NDArray[np.float64], dict[str, int]]:
    """Clip each column to its public range ``[lo, hi]`` and map it onto [0, 1].

    A value t becomes ``(clip(t) - lo) / (hi - lo)``, or, for a column in
    ``log_columns``, ``log(1 + clip(t) - lo) / log(1 + hi - lo)``: fixed
    per-value maps with public constants. Returns the scaled block and, per
    column, how many values were clipped.
    """
    scaled = np.empty_like(numeric, dtype=np.float64)
    n_clipped: dict[str, int] = {}
    for j, c in enumerate(columns):
        lo, hi = bounds[c]
        col = numeric[:, j]
        n_clipped[c] = int(np.count_nonzero((col < lo) | (col > hi)))
        t = np.clip(col, lo, hi) - lo
        if c in log_columns:
            scaled[:, j] = np.log1p(t) / math.log1p(hi - lo)
        else:
            scaled[:, j] = t / (hi - lo)
    return scaled, n_clipped


def one_hot_design(
    numeric: NDArray[np.float64],
    codes: NDArray[np.int64],
    categories: Iterable[Sequence[str]],
    add_constant: bool,
) -> NDArray[np.float64]:
    """The design matrix: ``numeric``, then one one-hot block per category list.

    Column ``j`` of ``codes`` indexes the ``j``-th list of ``categories``; an
    unknown value (code -1) leaves its block all zeros. With ``add_constant`` a
    last column equal to 1 is appended.
    """
    sizes = [len(c) for c in categories]
    n, n_numeric = numeric.shape
    X = np.zeros((n, n_numeric + sum(sizes) + int(add_constant)), dtype=np.float64)
    X[:, :n_numeric] = numeric
    offset = n_numeric
    rows = np.arange(n)
    for j, size in enumerate(sizes):
        known = codes[:, j] >= 0
        X[rows[known], offset + codes[known, j]] = 1.0
        offset += size
    if add_constant:
        X[:, -1] = 1.0
    return X


def one_hot_feature_names(
    numeric: Iterable[str],
    categories: Mapping[str, Sequence[str]],
    add_constant: bool,
) -> list[str]:
    """Column names of :func:`one_hot_design`: numeric, ``col=value``, constant."""
    names = list(numeric)
    for c, values in categories.items():
        names.extend(f"{c}={v}" for v in values)
    if add_constant:
        names.append("constant")
    return names


@dataclass(frozen=True)
class PublicLayout:
    """The public encoding of a tabular data set, fixed before any record is read.

    Attributes
    ----------
    file_columns : tuple of str
        The fields of a record, in file order.
    numeric : tuple of str
        The numeric columns, in design order.
    bounds : mapping
        Each numeric column's public range ``(lo, hi)``.
    categories : mapping
        Each categorical column's published list of values, in design order.
    """

    file_columns: tuple[str, ...]
    numeric: tuple[str, ...]
    bounds: Mapping[str, tuple[float, float]]
    categories: Mapping[str, tuple[str, ...]]

    @cached_property
    def _lookups(self) -> dict[str, dict[str, int]]:
        return {
            c: {v: i for i, v in enumerate(vs)} for c, vs in self.categories.items()
        }

    def read_fields(
        self,
        fields: Sequence[Sequence[str]],
        path: os.PathLike[str],
        linenos: Sequence[int],
        unknown: dict[str, dict[str, int]],
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """The numeric block and category codes of records given field-major.

        ``fields[i]`` holds field ``file_columns[i]`` of every record (line
        numbers ``linenos`` of ``path``, for errors); values outside a published
        list get code -1 and are counted in ``unknown``.
        """
        at = self.file_columns.index
        numeric = numeric_columns(
            [fields[at(c)] for c in self.numeric], self.numeric, path, linenos
        )
        codes = np.empty((len(linenos), len(self.categories)), dtype=np.int64)
        for j, (c, lookup) in enumerate(self._lookups.items()):
            codes[:, j] = category_codes(fields[at(c)], lookup, c, unknown)
        return numeric, codes

    def design(
        self,
        numeric: NDArray[np.float64],
        codes: NDArray[np.int64],
        add_constant: bool,
    ) -> NDArray[np.float64]:
        """:func:`one_hot_design` over this layout's category lists."""
        return one_hot_design(numeric, codes, self.categories.values(), add_constant)

    def encode(
        self,
        parts: Sequence[ParsedRecords[Any]],
        add_constant: bool,
        log_columns: Collection[str] = (),
    ) -> tuple[list[NDArray[np.float64]], dict[str, int]]:
        """The design matrix of each part, numeric block scaled to the public ranges.

        Applies :func:`scale_to_public_ranges` then :meth:`design` to every part
        (train, test); returns the matrices (rows not yet normalised) and, per
        numeric column, how many values were clipped over all parts.
        """
        designs: list[NDArray[np.float64]] = []
        n_clipped = dict.fromkeys(self.numeric, 0)
        for part in parts:
            numeric, clipped = scale_to_public_ranges(
                part.numeric, self.numeric, self.bounds, log_columns
            )
            designs.append(self.design(numeric, part.codes, add_constant))
            for c, k in clipped.items():
                n_clipped[c] += k
        return designs, n_clipped

    def feature_names(self, add_constant: bool) -> list[str]:
        """Column names of :meth:`design`: numeric, ``col=value``, constant."""
        return one_hot_feature_names(self.numeric, self.categories, add_constant)


def normalise_rows(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Divide each row by its own L2 norm (a zero row stays zero).

    Per-record map: it reads no other row, so it is data-independent in the DP
    sense (a fixed function applied to each record). The projection afterwards
    only removes rounding excess of a few ulps above 1. ``X`` is modified in
    place.
    """
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    nz = norms > 0
    X[nz] /= norms[nz, None]
    return np.asarray(project_rows_to_ball(X, 1.0), dtype=np.float64)


#: ``(X_train, y_train, X_test, y_test)``, as the loaders return with ``return_X_y``.
Split: TypeAlias = tuple[
    NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]


def split_bunch(split: Split, feature_names: Sequence[str], **fields: Any) -> Bunch:
    """The loaders' Bunch: the split, the feature names, ``positive_rate``, ``fields``.

    ``positive_rate`` is the fraction of +1 labels over train and test (a
    descriptive statistic of the data; it must not feed a private computation).
    """
    X_train, y_train, X_test, y_test = split
    n_total = y_train.size + y_test.size
    n_pos = int(np.count_nonzero(y_train == 1) + np.count_nonzero(y_test == 1))
    return Bunch(
        X_train=X_train,
        y_train=y_train,
        X_test=X_test,
        y_test=y_test,
        feature_names=np.asarray(feature_names, dtype=object),
        positive_rate=n_pos / n_total if n_total else float("nan"),
        **fields,
    )
