# SPDX-License-Identifier: BSD-3-Clause
"""Reading the data options of the ``dpsvm`` subcommands.

A CSV file encoded by a public schema (given, or carried by the model), a
CSV or LibSVM file, or a named data set; the rows matched to a model's
columns. Heavy libraries (pandas, SciPy, scikit-learn) are imported inside
the functions.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ..utils._cli import UsageError
from ._data import (
    DataError,
    labels_to_numbers,
    load_dataset,
    read_csv,
    read_frame,
    read_libsvm,
    resolve_label_column,
)

_LIBSVM_SUFFIXES = (".libsvm", ".svm", ".svmlight")


def _data_format(args: argparse.Namespace) -> str:
    if args.format is not None:
        return str(args.format)
    return "libsvm" if Path(args.data).suffix.lower() in _LIBSVM_SUFFIXES else "csv"


def _check_schema_options(args: argparse.Namespace, what: str) -> None:
    """Options that a public schema (given, or carried by the model) replaces."""
    if args.data is None:
        raise UsageError(f"{what} needs --data, a CSV file with a header row")
    if _data_format(args) != "csv":
        raise UsageError(f"{what} applies to CSV files only (not --format libsvm)")
    for option, value in (
        ("--label-column", args.label_column),
        ("--classes", getattr(args, "classes", None)),
    ):
        if value is not None:
            raise UsageError(
                f"{option} does not apply with {what}: the schema names the label "
                "column and its classes"
            )
    if args.header is False and args.names is None:
        raise UsageError(
            f"--no-header does not apply with {what}: columns are matched by the "
            "names in the header row (or given by --names A,B,...)"
        )


def _read_schema_frame(args: argparse.Namespace, schema: Any) -> tuple[Any, str]:
    """The --data CSV as a data frame for a schema: text kept as text.

    A file of numbers only is read as numbers (:func:`read_frame`'s fast path;
    a category or label compares as the same value either way). Otherwise only
    the schema's numeric columns are parsed as numbers; every other column
    (categories, the label) is read as text, so that no category is turned into
    a boolean, a date or a number by type inference.
    """
    from ..preprocessing import NumericFeature

    numeric = [f.column for f in schema.features if isinstance(f, NumericFeature)]
    frame, names, where = read_frame(
        args.data,
        # `dpsvm serve --data` reads its CSV here too, without these options.
        numeric_columns=numeric,
        delimiter=getattr(args, "delimiter", ","),
        column_names=getattr(args, "names", None),
    )
    assert names is not None
    declared = {schema.label.column, *schema.columns}
    if not declared.intersection(names):
        # Most likely a file without a header row: its first row (a private
        # record) was read as the header. Say so without quoting it.
        raise DataError(
            f"{where}: the first row names none of the schema's columns "
            f"({', '.join(map(repr, sorted(declared)[:5]))}"
            f"{', ...' if len(declared) > 5 else ''}); "
            + (
                "it reads as one column: if the file is separated by another "
                "character than ',', say which with --delimiter; otherwise the "
                if len(names) == 1
                else "the "
            )
            + "file needs a header row naming its columns: add one if it has "
            "none, or name them with --names"
        )
    return frame, where


def _schema_labels(schema: Any, frame: Any, where: str) -> np.ndarray:
    column = schema.label.column
    if column not in frame.columns:
        hint = (
            "; the header reads as one column: if the file is separated by "
            "another character than ',', say which with --delimiter"
            if len(frame.columns) == 1
            else ""
        )
        raise DataError(
            f"{where}: no label column {column!r} (named by the schema's "
            f"label.column){hint}"
        )
    values = frame[column]
    if values.dtype.kind == "f":
        # A file of numbers (read_frame's fast path; no missing value): map
        # each distinct label once, not every row through Python objects.
        import pandas as pd

        codes, uniques = pd.factorize(values.to_numpy())
        mapped: np.ndarray = schema.encode_labels(uniques)[codes]
        return mapped
    labels: np.ndarray = schema.encode_labels(values)
    return labels


def _schema_encoder(schema: Any, estimator: Any = None) -> Any:
    """The schema's encoder: CSR rows ("auto") for a model that takes them
    (``None``: a linear model, which does)."""
    from sklearn.utils import get_tags

    from ..preprocessing import SchemaTransformer

    sparse = estimator is None or get_tags(estimator).input_tags.sparse
    return SchemaTransformer(schema, sparse_output="auto" if sparse else False)


def _schema_rows(schema: Any, frame: Any, model: Any = None) -> Any:
    """The rows encoded by the schema, as a frame named like the model's inputs.

    CSR rows (one-hot dominated schemas, a model that takes CSR) become a
    sparse data frame, so that they stay sparse into the model.
    """
    return _frame(
        _schema_encoder(schema, model).fit_transform(frame),
        list(schema.feature_names_out),
    )


def _check_data_options(args: argparse.Namespace) -> None:
    n_features = getattr(args, "n_features", None)
    if args.dataset is not None or _data_format(args) == "libsvm":
        for option, given in (
            ("--delimiter", args.delimiter != ","),
            ("--names", args.names is not None),
        ):
            if given:
                raise UsageError(f"{option} applies to --data CSV files only")
    if args.names is not None and args.header:
        raise UsageError(
            "--names names the columns of a file without a header row: leave out "
            "--header (or leave out --names to use the file's header)"
        )
    if args.dataset is not None:
        if args.format is not None or args.label_column is not None:
            raise UsageError("--format and --label-column apply to --data files only")
        if args.header is not None:
            raise UsageError("--header and --no-header apply to --data CSV files only")
        if n_features is not None:
            raise UsageError("--n-features applies to --format libsvm files only")
        if args.dataset != "adult" and args.data_dir is not None:
            raise UsageError("--data-dir applies to --dataset adult only")
    else:
        if args.data_dir is not None:
            raise UsageError("--data-dir applies to --dataset adult only")
        libsvm = _data_format(args) == "libsvm"
        if libsvm and args.label_column is not None:
            raise UsageError(
                "--label-column applies to CSV files (LibSVM labels come first)"
            )
        if libsvm and args.header is not None:
            raise UsageError("--header and --no-header apply to CSV files only")
        if not libsvm and n_features is not None:
            raise UsageError(
                "--n-features applies to --format libsvm files only (a CSV file's "
                "width is its number of columns)"
            )
        if libsvm and args.command == "train" and n_features is None:
            raise UsageError(
                "--format libsvm needs --n-features N, the public number of "
                "features: it is never read from the private file"
            )


def _read(
    args: argparse.Namespace, *, part: str, labels: bool, n_features: int | None = None
) -> tuple[np.ndarray, np.ndarray | None, list[str] | None]:
    """Read the rows (and labels, when ``labels``) named by the data options.

    Returns the rows, the labels (or ``None``) and the feature names (the CSV
    header without the label column; ``None`` for files without a header, LibSVM
    files and named data sets).
    """
    if args.dataset is not None:
        X, y = load_dataset(
            args.dataset,
            part=part,
            data_dir=args.data_dir,
            feature_set=args.feature_set,
        )
        return np.asarray(X, dtype=np.float64), np.asarray(y), None
    if _data_format(args) == "libsvm":
        width = n_features if n_features is not None else args.n_features
        option = "--n-features" if n_features is None else "the model's n_features_in_"
        X, y = read_libsvm(args.data, width, width_option=option)
        return X, (y if labels else None), None
    table = read_csv(
        args.data,
        header=False if args.names is not None else args.header,
        delimiter=args.delimiter,
        column_names=args.names,
    )
    if not labels:
        return table.values, None, table.header
    j = resolve_label_column(args.label_column, table)
    y = labels_to_numbers(np.asarray(table.values[:, j], dtype=np.float64))
    # The last column (the default): the features are a view, without a copy
    # (Fortran order: each column contiguous, as read_csv returns them).
    features: np.ndarray = (
        table.values[:, :j]
        if j == table.values.shape[1] - 1
        else np.delete(table.values, j, axis=1)
    )
    names = None if table.header is None else table.header[:j] + table.header[j + 1 :]
    return features, y, names


def _match_columns(
    model: Any, X: np.ndarray, names: list[str] | None, where: str
) -> Any:
    """The rows in the model's column order, matched by name when it has names."""
    expected = getattr(model, "feature_names_in_", None)
    if expected is None:
        if X.shape[1] != model.n_features_in_:
            raise DataError(
                f"{where}: {X.shape[1]} feature columns, but the model was trained "
                f"on {model.n_features_in_}"
            )
        return X
    expected = [str(n) for n in expected]
    if names is None:
        raise DataError(
            f"{where}: the model was trained on named columns "
            f"({', '.join(map(repr, expected[:5]))}{', ...' * (len(expected) > 5)}); "
            "give a CSV file with a header row naming them (not --no-header or "
            "LibSVM)"
        )
    missing = [n for n in expected if n not in names]
    # The file's own header cells are named by position, never quoted: in a file
    # without a header row they are a private record (the model's names are
    # public: the model file carries them).
    extra = sum(n not in expected for n in names)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing column(s) {', '.join(map(repr, missing))}")
        if extra:
            shown = ", ".join(map(repr, expected[:8])) + ", ..." * (len(expected) > 8)
            parts.append(
                f"{extra} column(s) the model was not trained on (its columns are "
                f"{shown}; name the label column with --label-column, or remove "
                "the others)"
            )
        raise DataError(f"{where}: {'; '.join(parts)}")
    import pandas as pd

    order = [names.index(n) for n in expected]
    return pd.DataFrame(X[:, order], columns=expected, copy=False)


def _issparse(X: Any) -> bool:
    """``scipy.sparse.issparse`` (imported here: the CLI's imports stay lazy)."""
    import scipy.sparse

    return bool(scipy.sparse.issparse(X))


def _frame(X: Any, names: list[str] | None) -> Any:
    """A data frame when the columns are named (the estimator records the names,
    which the model file keeps so that predict and evaluate match by name).

    CSR rows become a sparse data frame (scikit-learn's validation turns it
    back into CSR, checking the names)."""
    if names is None:
        return X
    import pandas as pd

    if _issparse(X):
        return pd.DataFrame.sparse.from_spmatrix(X, columns=names)
    return pd.DataFrame(X, columns=names, copy=False)
