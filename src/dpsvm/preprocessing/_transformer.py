# SPDX-License-Identifier: BSD-3-Clause
"""Encoding tabular data by a public schema, as a scikit-learn transformer."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._compat import check_array
from ._schema import (
    CategoricalFeature,
    NumericFeature,
    PublicSchema,
    canonical_key,
)

__all__ = ["SchemaTransformer", "sparse_by_default"]


def _as_schema(schema: Any) -> PublicSchema:
    if isinstance(schema, PublicSchema):
        return schema
    if isinstance(schema, Mapping):
        return PublicSchema.from_dict(schema)
    if isinstance(schema, str | os.PathLike):
        return PublicSchema.from_json(schema)
    raise TypeError(
        "schema must be a PublicSchema, a schema dict, or a path to a schema JSON "
        f"file; got {type(schema).__name__}"
    )


def _named_columns(X: Any) -> list[str] | None:
    """The column names of ``X`` when it has them (data frame, dict, record array)."""
    if sp.issparse(X):
        return None  # refused by check_array with its sparse-input message
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    if isinstance(X, Mapping):
        return [str(c) for c in X]
    names = getattr(getattr(X, "dtype", None), "names", None)
    if names:
        return list(names)
    return None


class SchemaTransformer(TransformerMixin, BaseEstimator):
    """Encode a table by a public schema: clip and scale numbers, one-hot categories.

    Nothing is learned from the data: :meth:`fit` only checks that the declared
    columns are present. Columns are matched **by name** in a pandas data frame,
    a dict of columns or a NumPy record array; columns not in the schema are
    ignored. A plain 2-D array is read by position and must have exactly one
    column per schema feature, in the schema's order.

    * Numeric feature with range [lower, upper]: clipped to the range, then mapped
      linearly onto [-1, 1] (lower → -1, upper → 1). A missing value (NaN,
      ``None``, empty string) maps to 0, the middle of the range. Text that is not
      a number is refused.
    * Categorical feature: one-hot over the declared categories, in declared
      order. A value that is not declared, and a missing value, map to all zeros.
      Values are compared by :func:`~dpsvm.preprocessing.canonical_key` (blanks
      stripped; ``1``, ``1.0`` and ``"1"`` are one value).

    Parameters
    ----------
    schema : PublicSchema, dict or str
        The public schema, or its JSON object, or a path to its JSON file.
    unit_norm : bool, default=False
        Divide every encoded row by ``schema.row_norm_bound`` so that encoded
        rows lie in the unit ball: the default ``data_norm=1`` of the private
        estimators then holds without projection. Otherwise the rows have norm
        at most ``row_norm_bound_`` (pass it as ``data_norm``).
    sparse_output : {"auto"} or bool, default="auto"
        Return a SciPy CSR matrix (``True``) or a dense array (``False``), as
        scikit-learn's ``OneHotEncoder(sparse_output=...)``. ``"auto"``: CSR
        when one-hot columns dominate the encoded width, a rule on the schema
        alone (see :func:`sparse_by_default`): an encoded row has at most one
        non-zero per schema feature, so CSR is chosen when that is at most a
        quarter of the encoded columns. ``"auto"`` gives a dense array when the
        transformer's output is set to a data frame (``set_output``); ``True``
        with data-frame output is refused, as by ``OneHotEncoder``.

    Attributes
    ----------
    schema_ : PublicSchema
        The validated schema.
    row_norm_bound_ : float
        Public bound on the L2 norm of an encoded row: √(number of schema
        features), or 1 with ``unit_norm``.
    sparse_output_ : bool
        Whether :meth:`transform` returns CSR (``sparse_output`` resolved on
        the schema alone; with ``"auto"``, data-frame output is dense).
    n_features_in_ : int
        Number of input columns seen by :meth:`fit`.
    feature_names_in_ : ndarray of str
        Input column names, when :meth:`fit` saw a data frame with string names.

    See Also
    --------
    PublicSchema : The schema and its JSON format.

    Notes
    -----
    **Privacy.** The encoding is a fixed public function of each row: it reads
    no bound, category or statistic from the data, so it adds no privacy cost,
    and the encoded rows obey the public norm bound ``row_norm_bound_`` (each
    numeric feature lies in [-1, 1], each categorical group is one-hot or zero).
    Scaling to [-1, 1] rather than [0, 1] centres each feature on the middle of
    its public range: a missing value then contributes nothing to ⟨w, x⟩, and a
    model without an intercept (the kernel models are bias-free) is not forced
    through a corner of the data. Both ranges give the same norm bound.

    The choice of CSR or dense output reads the schema only (its widths), never
    the data, and the values are the same either way.

    Examples
    --------
    >>> import pandas as pd
    >>> schema = PublicSchema.from_dict({
    ...     "label": {"column": "y", "classes": ["no", "yes"]},
    ...     "features": [
    ...         {"column": "age", "type": "numeric", "lower": 20, "upper": 60},
    ...         {"column": "sex", "type": "categorical", "categories": ["F", "M"]}]})
    >>> df = pd.DataFrame({"sex": ["M", "F", "?"], "age": [20, 40, 99]})
    >>> SchemaTransformer(schema).fit_transform(df).tolist()
    [[-1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """

    feature_names_in_: np.ndarray
    schema_: PublicSchema
    row_norm_bound_: float
    sparse_output_: bool
    n_features_in_: int

    def __init__(
        self,
        schema: Any = None,
        *,
        unit_norm: bool = False,
        sparse_output: bool | str = "auto",
    ) -> None:
        self.schema = schema
        self.unit_norm = unit_norm
        self.sparse_output = sparse_output

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags

    def fit(self, X: Any, y: Any = None) -> SchemaTransformer:
        """Check the schema and that ``X`` has the declared columns.

        No bound or category is read from ``X``.

        Parameters
        ----------
        X : DataFrame, dict of columns, record array or 2-D array
            Training data (see the class description for how columns are matched).
        y : None
            Ignored.

        Returns
        -------
        SchemaTransformer
            This transformer.

        Raises
        ------
        SchemaError
            If the schema is malformed.
        ValueError
            If a declared column is missing (the message names the columns).
        """
        if not isinstance(self.unit_norm, bool | np.bool_):
            raise TypeError(f"unit_norm must be a bool, got {self.unit_norm!r}")
        if not (
            isinstance(self.sparse_output, bool | np.bool_)
            or (isinstance(self.sparse_output, str) and self.sparse_output == "auto")
        ):
            raise ValueError(
                'sparse_output must be "auto", True or False, got '
                f"{self.sparse_output!r}"
            )
        schema = _as_schema(self.schema)
        names = _named_columns(X)
        if names is None:
            self.n_features_in_ = self._positional(X, schema).shape[1]
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            self._check_columns(names, schema)
            self.n_features_in_ = len(names)
            if isinstance(X, pd.DataFrame) and all(
                isinstance(c, str) for c in X.columns
            ):
                self.feature_names_in_ = np.asarray(X.columns, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        self.schema_ = schema
        self.row_norm_bound_ = 1.0 if self.unit_norm else schema.row_norm_bound
        if isinstance(self.sparse_output, str):  # "auto": the schema alone
            self.sparse_output_ = sparse_by_default(schema)
        else:
            self.sparse_output_ = bool(self.sparse_output)
        return self

    @staticmethod
    def _positional(X: Any, schema: PublicSchema) -> np.ndarray:
        # A table without column names: one column per schema feature, in the
        # schema's order. check_array refuses sparse, complex, 1-D and empty input.
        arr: np.ndarray = check_array(
            X, dtype=None, ensure_all_finite="allow-nan", ensure_min_samples=1
        )
        if arr.shape[1] != len(schema.features):
            raise ValueError(
                f"X has {arr.shape[1]} columns but the schema declares "
                f"{len(schema.features)} features; pass a DataFrame with the "
                f"schema's columns {list(schema.columns)!r}, or one column per "
                "schema feature in the schema's order"
            )
        return arr

    @staticmethod
    def _check_columns(names: list[str], schema: PublicSchema) -> None:
        missing = [c for c in schema.columns if c not in names]
        if missing:
            raise ValueError(
                f"the data has no column(s) {missing!r} declared in the schema; "
                "rename the data's columns or fix the schema's features"
            )

    def _column(self, X: Any, j: int, name: str, positional: bool) -> np.ndarray:
        if positional:
            return np.asarray(X[:, j])
        col = X[name]
        if isinstance(col, pd.DataFrame):
            raise ValueError(f"the data has several columns named {name!r}")
        return np.asarray(col)

    def transform(self, X: Any) -> Any:
        """Encode ``X``: numeric features in [-1, 1], categories one-hot.

        Parameters
        ----------
        X : DataFrame, dict of columns, record array or 2-D array
            The data (columns matched as in :meth:`fit`).

        Returns
        -------
        ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features_out)
            The encoded rows: CSR when ``sparse_output_`` (a data frame after
            ``set_output(transform="pandas")``).

        Raises
        ------
        ValueError
            If a declared column is missing, or a numeric column holds text that
            is not a number (the message names the column, not the value).
        """
        check_is_fitted(self, "schema_")
        schema = self.schema_
        names = _named_columns(X)
        positional = names is None
        if positional:
            X = self._positional(X, schema)
        else:
            assert names is not None
            self._check_columns(names, schema)
        # Per feature, its first encoded column and either the numeric values
        # (float64) or the index of each row's category (int32, -1: none).
        encoded: list[tuple[int, np.ndarray]] = []
        n_rows: int | None = None
        offset = 0
        for j, feature in enumerate(schema.features):
            col = self._column(X, j, feature.column, positional)
            if col.ndim != 1:
                col = col.ravel()
            if n_rows is None:
                n_rows = col.shape[0]
            elif col.shape[0] != n_rows:
                raise ValueError("the data's columns have different lengths")
            if isinstance(feature, NumericFeature):
                encoded.append((offset, _encode_numeric(col, feature)))
                offset += 1
            else:
                encoded.append((offset, _category_codes(col, feature)))
                offset += len(feature.categories)
        n = n_rows or 0
        divisor = math.sqrt(len(schema.features)) if self.unit_norm else 1.0
        frame = isinstance(self.sparse_output, str) and _frame_output(self)
        if self.sparse_output_ and not frame:
            return _assemble_csr(encoded, n, offset, divisor)
        out = np.zeros((n, offset))
        rows = np.arange(n)
        for start, values in encoded:
            if values.dtype == np.float64:
                out[:, start] = values
            else:
                keep = values >= 0
                out[rows[keep], values[keep] + start] = 1.0
        if self.unit_norm:
            out /= divisor
        return out

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the encoded features: ``column`` or ``column_category``.

        Parameters
        ----------
        input_features : array-like of str, optional
            Ignored (the names come from the schema).

        Returns
        -------
        ndarray of str
            One name per encoded feature.
        """
        check_is_fitted(self, "schema_")
        return np.asarray(self.schema_.feature_names_out, dtype=object)


def _encode_numeric(col: np.ndarray, feature: NumericFeature) -> np.ndarray:
    if col.dtype.kind in "biuf":
        values = col.astype(np.float64)
    else:
        series = pd.Series(col, dtype=object)
        blank = series.map(lambda v: isinstance(v, str) and not v.strip())
        series = series.mask(blank.astype(bool), None)
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
        if np.any(np.isnan(values) & series.notna().to_numpy()):
            raise ValueError(
                f"column {feature.column!r} is declared numeric but holds text "
                "that is not a number; fix the data or declare the column "
                "categorical in the schema"
            )
    lo, hi = feature.lower, feature.upper
    # Clip to the public range, then map [lower, upper] linearly onto [-1, 1].
    scaled = 2.0 * (np.clip(values, lo, hi) - lo) / (hi - lo) - 1.0
    return np.where(np.isnan(scaled), 0.0, scaled)


def _category_codes(col: np.ndarray, feature: CategoricalFeature) -> np.ndarray:
    """Index of each value among the declared categories; -1: not declared."""
    lookup = {canonical_key(c): i for i, c in enumerate(feature.categories)}
    codes, uniques = pd.factorize(col)
    index = np.array(
        [lookup.get(canonical_key(u), -1) for u in uniques] + [-1], dtype=np.int32
    )
    # factorize marks a missing value with code -1: index[-1] is the added -1.
    return np.asarray(index[codes], dtype=np.int32)


def _assemble_csr(
    encoded: list[tuple[int, np.ndarray]], n_rows: int, n_cols: int, divisor: float
) -> sp.csr_matrix:
    """CSR rows from each feature's first column and values or category codes.

    Two passes: count each row's non-zeros, then write every feature's entries
    straight into the final arrays (no dense or intermediate copy). A row's
    entries are written in the schema's feature order, so its column indices
    are sorted (canonical CSR); zeros are not stored.
    """

    def kept(values: np.ndarray) -> np.ndarray:
        return values != 0.0 if values.dtype == np.float64 else values >= 0

    counts = np.zeros(n_rows, dtype=np.int64)
    for _, values in encoded:
        counts += kept(values)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    nnz = int(indptr[-1])
    index_dtype = np.int32 if max(nnz, n_cols) < 2**31 else np.int64
    data = np.empty(nnz)
    indices = np.empty(nnz, dtype=index_dtype)
    position = indptr[:-1].copy()  # next free slot of each row
    for start, values in encoded:
        keep = kept(values)
        where = position[keep]
        if values.dtype == np.float64:
            data[where] = values[keep]
            indices[where] = start
        else:
            data[where] = 1.0
            indices[where] = values[keep] + start
        position[keep] += 1
    if divisor != 1.0:
        data /= divisor  # the dense path's division, value for value
    return sp.csr_matrix(
        (data, indices, indptr.astype(index_dtype, copy=False)),
        shape=(n_rows, n_cols),
    )


#: "auto" output is CSR when an encoded row's non-zeros (at most one per schema
#: feature) are at most this share of the encoded columns.
SPARSE_DENSITY_LIMIT = 0.25


def sparse_by_default(schema: PublicSchema) -> bool:
    """Whether ``sparse_output="auto"`` gives CSR for this schema.

    An encoded row has at most one non-zero per schema feature (one per
    numeric column, at most one per one-hot group), so its density is at most
    ``len(schema.features) / schema.n_features_out``. CSR (12 bytes per stored
    entry against 8 per dense entry) is chosen when that bound is at most
    :data:`SPARSE_DENSITY_LIMIT`, i.e. when one-hot columns dominate. The rule
    reads the schema alone, never the data.

    Parameters
    ----------
    schema : PublicSchema
        The public schema.

    Returns
    -------
    bool
        ``True`` for CSR output.

    Examples
    --------
    >>> schema = PublicSchema.from_dict({
    ...     "label": {"column": "y", "classes": [0, 1]},
    ...     "features": [{"column": "c", "type": "categorical",
    ...                   "categories": list("abcdefgh")}]})
    >>> sparse_by_default(schema)  # 1 non-zero in 8 columns
    True
    """
    width = schema.n_features_out
    return width > 0 and len(schema.features) <= SPARSE_DENSITY_LIMIT * width


def _frame_output(transformer: Any) -> bool:
    """Whether ``set_output`` (or the global config) asks for a data frame."""
    try:
        from sklearn.utils._set_output import _get_output_config
    except ImportError:  # pragma: no cover - older or newer scikit-learn
        return False
    return _get_output_config("transform", transformer)["dense"] != "default"
