# SPDX-License-Identifier: BSD-3-Clause
"""Drafting a schema from data: a convenience that reads the private data."""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import PrivacyLeakWarning
from ._schema import (
    CategoricalFeature,
    LabelSpec,
    NumericFeature,
    PublicSchema,
    canonical_key,
)

__all__ = ["draft_schema"]

#: A column with more distinct values than this is drafted as numeric when it
#: can be, and refused otherwise (a free-text or identifier column).
_MAX_CATEGORIES = 100


def draft_schema(
    data: pd.DataFrame | str | os.PathLike[str], *, label: str
) -> PublicSchema:
    """Draft a schema **from the private data** (to be reviewed and replaced).

    Numeric columns get their observed minimum and maximum as range, other
    columns their observed values as categories, the label column its observed
    values as classes. Every one of these values is read from the data, so a
    model trained with the draft as it is has **no** privacy guarantee for the
    bounds, categories or classes: they can reveal single records (the oldest
    person's age, a rare category). Use the draft only to see the format, then
    replace every value with public knowledge (a codebook, the survey's answer
    options, legal ranges) before training.

    Parameters
    ----------
    data : DataFrame or path
        The data, or a CSV file (with a header row) to read it from.
    label : str
        Name of the label column.

    Returns
    -------
    PublicSchema
        The draft.

    Warns
    -----
    PrivacyLeakWarning
        Always: the draft reads the private data.

    Raises
    ------
    ValueError
        If ``label`` is not a column, a non-numeric column has more than 100
        distinct values, or two encoded features would have the same name. The
        messages name columns, never a value read from the data.

    Examples
    --------
    >>> import warnings, pandas as pd
    >>> df = pd.DataFrame({"age": [20, 35], "y": ["no", "yes"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     draft = draft_schema(df, label="y")
    >>> draft.to_dict()["features"]
    [{'column': 'age', 'type': 'numeric', 'lower': 20.0, 'upper': 35.0}]
    """
    warnings.warn(
        "draft_schema reads the private data: its ranges, categories and classes "
        "are NOT public and the privacy guarantee does not cover them. Review the "
        "draft and replace every value with public knowledge before training.",
        PrivacyLeakWarning,
        stacklevel=2,
    )
    frame = data if isinstance(data, pd.DataFrame) else pd.read_csv(data)
    frame = frame.rename(columns=str)
    if label not in frame.columns:
        raise ValueError(f"label={label!r} is not a column of the data")
    classes = _distinct(frame[label])
    features: list[NumericFeature | CategoricalFeature] = []
    for name in frame.columns:
        if name == label:
            continue
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            values = col.to_numpy(dtype=np.float64)
            values = values[np.isfinite(values)]
            lo = float(values.min()) if values.size else 0.0
            hi = float(values.max()) if values.size else 1.0
            features.append(NumericFeature(name, lo, hi if hi > lo else lo + 1.0))
            continue
        categories = _distinct(col)
        if len(categories) > _MAX_CATEGORIES:
            raise ValueError(
                f"column {name!r} is not numeric and has too many distinct values "
                "for a categorical feature; leave it out of the schema"
            )
        if categories:
            features.append(CategoricalFeature(name, tuple(categories)))
    _check_encoded_names(features)
    return PublicSchema(LabelSpec(label, tuple(classes)), tuple(features))


def _check_encoded_names(features: list[NumericFeature | CategoricalFeature]) -> None:
    """Refuse two encoded names alike, naming the columns, never a category.

    The schema's own check would quote the clashing name, ``column_category``,
    whose category was read from the private data.
    """
    owner: dict[str, str] = {}
    for f in features:
        if isinstance(f, NumericFeature):
            names = [f.column]
        else:
            names = [f"{f.column}_{c}" for c in f.categories]
        for n in names:
            if n in owner:
                columns = sorted({owner[n], f.column})
                which = (
                    f"column {columns[0]!r}"
                    if len(columns) == 1
                    else f"columns {columns[0]!r} and {columns[1]!r}"
                )
                raise ValueError(
                    f"{which} would give two encoded features the same name "
                    "(column_category); rename a column, or leave one out of the data"
                )
            owner[n] = f.column


def _distinct(col: pd.Series) -> list[Any]:
    seen: dict[str, Any] = {}
    for value in col.dropna().unique().tolist():
        key = canonical_key(value)
        if key is None or key in seen:
            continue
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        elif not isinstance(value, int | float | str):
            value = key
        seen[key] = value.strip() if isinstance(value, str) else value
    values = list(seen.values())
    if any(isinstance(v, str) for v in values):
        values = [str(v) for v in values]
    return sorted(values)
