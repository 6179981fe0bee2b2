# SPDX-License-Identifier: BSD-3-Clause
"""The public schema: what is declared public about a tabular data set.

The JSON format (documented in ``docs/schema.md``)::

    {"label": {"column": "income", "classes": ["<=50K", ">50K"]},
     "features": [{"column": "age", "type": "numeric", "lower": 17, "upper": 90},
                  {"column": "workclass", "type": "categorical",
                   "categories": ["Private", "State-gov"]}]}

Optional, for weighted fits: ``"priors"`` in ``label`` (public class proportions
in the order of ``classes``, summing to 1; ``class_weight="balanced"`` uses
them) and a top-level ``"weight": {"column": ..., "upper": ...}`` (the column of
per-row sample weights, not a feature, and its public upper bound).

Every number and name in a schema is public: it must come from public knowledge
(a codebook, a questionnaire, a regulation), never from the private data. Error
messages may therefore quote schema values, and they name the JSON path at fault
(``features[2].lower``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..utils._json import strict_json_loads

# The public names are listed once, in the package's ``__all__``.

#: A declared class or category: a string or a finite number.
Value = str | int | float


class SchemaError(ValueError):
    """A public schema that is malformed; the message names the JSON path at fault."""


def _fail(path: str, message: str) -> SchemaError:
    return SchemaError(f"schema: {path}: {message}")


def canonical_key(value: Any) -> str | None:
    """The key under which a data value is compared with declared values.

    Strings are stripped of surrounding blanks; a string that reads as a finite
    number and every number compare as that number (``1``, ``1.0``, ``"1"`` and
    ``" 1.0 "`` are one value). Booleans and the texts true/false in any case
    are one value each (pandas reads the text ``TRUE`` as a boolean). Missing
    values (``None``, NaN, ``pd.NA``, an empty string) have no key.

    Parameters
    ----------
    value : object
        A value from the data or the schema.

    Returns
    -------
    str or None
        The comparison key, or ``None`` for a missing value.

    Examples
    --------
    >>> canonical_key(" 1.0"), canonical_key(1), canonical_key(" Private ")
    ('1', '1', 'Private')
    >>> canonical_key(float("nan")) is None
    True
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, bool | np.bool_):
        # pandas reads the text TRUE/False as booleans: compare them as text.
        return str(bool(value)).lower()
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        f = float(value)
        if math.isnan(f):
            return None
        if math.isfinite(f) and f.is_integer() and abs(f) < 2.0**63:
            return str(int(f))
        return repr(f)
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = str(value).strip()
    if not text:
        return None
    if text.lower() in ("true", "false"):
        return text.lower()
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return canonical_key(number)


def _value(obj: Any, path: str) -> Value:
    if isinstance(obj, bool) or not isinstance(obj, str | int | float):
        raise _fail(path, f"must be a string or a number, got {obj!r}")
    if isinstance(obj, float) and not math.isfinite(obj):
        raise _fail(path, f"must be finite, got {obj!r}")
    if isinstance(obj, str) and not obj.strip():
        raise _fail(path, "must not be empty")
    return obj


def _values(obj: Any, path: str, *, minimum: int) -> tuple[Value, ...]:
    if not isinstance(obj, list):
        raise _fail(path, f"must be a list, got {type(obj).__name__}")
    if len(obj) < minimum:
        raise _fail(path, f"must hold at least {minimum} value(s), got {len(obj)}")
    values = tuple(_value(v, f"{path}[{i}]") for i, v in enumerate(obj))
    seen: dict[str | None, int] = {}
    for i, v in enumerate(values):
        key = canonical_key(v)
        if key in seen:
            raise _fail(
                f"{path}[{i}]",
                f"{v!r} repeats {path}[{seen[key]}] ({values[seen[key]]!r})",
            )
        seen[key] = i
    return values


def _column(obj: Any, path: str) -> str:
    if not isinstance(obj, str) or not obj:
        raise _fail(path, f"must be a non-empty string, got {obj!r}")
    return obj


def _bound(obj: Any, path: str) -> float:
    if isinstance(obj, bool) or not isinstance(obj, int | float):
        raise _fail(path, f"must be a number, got {obj!r}")
    value = float(obj)
    if not math.isfinite(value):
        raise _fail(path, f"must be finite, got {obj!r}")
    return value


def _keys(
    obj: Any, path: str, required: Iterable[str], optional: Iterable[str] = ()
) -> Mapping[str, Any]:
    if not isinstance(obj, Mapping):
        raise _fail(path, f"must be a JSON object, got {type(obj).__name__}")
    required = tuple(required)
    for key in required:
        if key not in obj:
            raise _fail(path, f"missing key {key!r}")
    extra = sorted(set(obj) - set(required) - set(optional))
    if extra:
        raise _fail(path, f"unknown key(s) {', '.join(map(repr, extra))}")
    return obj


@dataclass(frozen=True)
class LabelSpec:
    """The label column and its public set of classes.

    Attributes
    ----------
    column : str
        Name of the label column.
    classes : tuple of str or tuple of numbers
        The declared classes, in the declared order (at least 2, distinct, all
        strings or all numbers).
    priors : tuple of float or None
        Public class proportions in the order of ``classes`` (each > 0, summing
        to 1), or ``None``; ``class_weight="balanced"`` uses them.

    Examples
    --------
    >>> LabelSpec("income", ("<=50K", ">50K")).classes
    ('<=50K', '>50K')
    """

    column: str
    classes: tuple[Value, ...]
    priors: tuple[float, ...] | None = None


@dataclass(frozen=True)
class WeightSpec:
    """The column of per-row sample weights and its public upper bound.

    The column is not a feature. Weights are clipped to ``[0, upper]`` (never
    refused), and the noise of a weighted fit scales with ``upper``.

    Attributes
    ----------
    column : str
        Name of the weight column.
    upper : float
        The public upper bound on a weight (finite, > 0).

    Examples
    --------
    >>> WeightSpec("instance_weight", 5000.0).upper
    5000.0
    """

    column: str
    upper: float


@dataclass(frozen=True)
class NumericFeature:
    """A numeric column with its public range.

    Values are clipped to ``[lower, upper]`` and mapped linearly onto
    ``[-1, 1]``; a missing value maps to 0, the middle of the range.

    Attributes
    ----------
    column : str
        Name of the column.
    lower, upper : float
        The public range, finite, ``lower < upper``.

    Examples
    --------
    >>> NumericFeature("age", 17.0, 90.0).upper
    90.0
    """

    column: str
    lower: float
    upper: float


@dataclass(frozen=True)
class CategoricalFeature:
    """A categorical column with its public list of categories.

    One-hot encoded over ``categories`` in the declared order; a value not
    declared, including a missing value, maps to all zeros.

    Attributes
    ----------
    column : str
        Name of the column.
    categories : tuple of str or numbers
        The declared categories (at least 1, distinct).

    Examples
    --------
    >>> CategoricalFeature("sex", ("Female", "Male")).categories
    ('Female', 'Male')
    """

    column: str
    categories: tuple[Value, ...]


Feature = NumericFeature | CategoricalFeature


@dataclass(frozen=True)
class PublicSchema:
    """A public schema: the label column, its classes, and every feature's bounds.

    Build it with :meth:`from_json` or :meth:`from_dict`; the constructor takes
    already-validated parts. Every value in a schema must be public knowledge
    fixed before the data are seen: the privacy guarantee of a model trained on
    :class:`~dpsvm.preprocessing.SchemaTransformer` output depends on it.

    Attributes
    ----------
    label : LabelSpec
        The label column and its declared classes.
    features : tuple of NumericFeature and CategoricalFeature
        The feature columns, in output order.
    weight : WeightSpec or None
        The optional sample-weight column (not a feature) and its public bound.

    See Also
    --------
    SchemaTransformer : Encode data frames by a schema.
    draft_schema : Draft a schema from data (reads the private data).

    Notes
    -----
    **Privacy.** The schema is the public side of the guarantee: the label set
    (``label.classes``), the feature ranges and categories, and therefore the
    row-norm bound :attr:`row_norm_bound` of the encoded rows and their width
    :attr:`n_features_out`. None of them is read from the data.

    Examples
    --------
    >>> schema = PublicSchema.from_json(
    ...     '{"label": {"column": "y", "classes": ["no", "yes"]},'
    ...     ' "features": [{"column": "age", "type": "numeric",'
    ...     ' "lower": 17, "upper": 90},'
    ...     ' {"column": "sex", "type": "categorical",'
    ...     ' "categories": ["F", "M"]}]}'
    ... )
    >>> schema.feature_names_out
    ('age', 'sex_F', 'sex_M')
    >>> round(schema.row_norm_bound, 4)  # sqrt(1 numeric + 1 group)
    1.4142
    """

    label: LabelSpec
    features: tuple[Feature, ...]
    weight: WeightSpec | None = None

    def __post_init__(self) -> None:
        # Re-validate through the dict form so that a schema built by hand
        # obeys the same rules as one read from a file.
        PublicSchema._parse(self.to_dict())

    # ------------------------------------------------------------ reading
    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PublicSchema:
        """Build a schema from its JSON object, validating every field.

        Parameters
        ----------
        obj : mapping
            The parsed JSON object (keys ``label`` and ``features``).

        Returns
        -------
        PublicSchema
            The validated schema.

        Raises
        ------
        SchemaError
            For a missing or unknown key, an unknown feature ``type``, a
            non-finite bound, ``lower >= upper``, an empty list, or a duplicate
            column, category or class; the message names the JSON path.

        Examples
        --------
        >>> PublicSchema.from_dict({"label": {"column": "y", "classes": [0, 1]},
        ...     "features": [{"column": "x", "type": "numeric",
        ...                   "lower": 0, "upper": 1}]}).label.classes
        (0, 1)
        """
        label, features, weight = cls._parse(obj)
        return cls(label, features, weight)

    @staticmethod
    def _parse(
        obj: Any,
    ) -> tuple[LabelSpec, tuple[Feature, ...], WeightSpec | None]:
        top = _keys(obj, "(top level)", ("label", "features"), ("weight",))
        lab = _keys(top["label"], "label", ("column", "classes"), ("priors",))
        classes = _values(lab["classes"], "label.classes", minimum=2)
        label = LabelSpec(
            _column(lab["column"], "label.column"),
            classes,
            _priors(lab["priors"], len(classes)) if "priors" in lab else None,
        )
        kinds = {isinstance(c, str) for c in label.classes}
        if len(kinds) != 1:
            raise _fail("label.classes", "must be all strings or all numbers")
        weight = None
        if "weight" in top:
            wt = _keys(top["weight"], "weight", ("column", "upper"))
            upper = _bound(wt["upper"], "weight.upper")
            if not upper > 0:
                raise _fail("weight.upper", f"must be > 0, got {wt['upper']!r}")
            weight = WeightSpec(_column(wt["column"], "weight.column"), upper)
        raw = top["features"]
        if not isinstance(raw, list):
            raise _fail("features", f"must be a list, got {type(raw).__name__}")
        if not raw:
            raise _fail("features", "must declare at least one feature")
        features: list[Feature] = []
        columns = {label.column: "label.column"}
        for i, item in enumerate(raw):
            path = f"features[{i}]"
            if not isinstance(item, Mapping):
                raise _fail(path, f"must be a JSON object, got {type(item).__name__}")
            kind = item.get("type")
            if kind == "numeric":
                f = _keys(item, path, ("column", "type", "lower", "upper"))
                lower = _bound(f["lower"], f"{path}.lower")
                upper = _bound(f["upper"], f"{path}.upper")
                if not lower < upper:
                    raise _fail(
                        f"{path}.lower",
                        f"must be below upper (lower={f['lower']!r}, "
                        f"upper={f['upper']!r})",
                    )
                feature: Feature = NumericFeature(
                    _column(f["column"], f"{path}.column"), lower, upper
                )
            elif kind == "categorical":
                f = _keys(item, path, ("column", "type", "categories"))
                feature = CategoricalFeature(
                    _column(f["column"], f"{path}.column"),
                    _values(f["categories"], f"{path}.categories", minimum=1),
                )
            elif "type" not in item:
                raise _fail(path, "missing key 'type'")
            else:
                raise _fail(
                    f"{path}.type",
                    f"unknown type {kind!r}; expected 'numeric' or 'categorical'",
                )
            if feature.column in columns:
                raise _fail(
                    f"{path}.column",
                    f"column {feature.column!r} is already declared by "
                    f"{columns[feature.column]}",
                )
            columns[feature.column] = f"{path}.column"
            features.append(feature)
        if weight is not None and weight.column in columns:
            raise _fail(
                "weight.column",
                f"column {weight.column!r} is already declared by "
                f"{columns[weight.column]}; the weight column is not a feature",
            )
        names = _names_out(features)
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise _fail(
                "features",
                f"two encoded features would both be named {dup!r}; rename a "
                "column or a category",
            )
        return label, tuple(features), weight

    @classmethod
    def from_json(cls, source: str | os.PathLike[str]) -> PublicSchema:
        """Read a schema from a JSON file, or from JSON text.

        Parameters
        ----------
        source : str or path-like
            A path to a JSON file, or the JSON text itself (a string whose
            first non-blank character is ``{``).

        Returns
        -------
        PublicSchema
            The validated schema.

        Raises
        ------
        SchemaError
            If the text is not JSON or the schema is malformed.
        OSError
            If the file cannot be read.

        Examples
        --------
        >>> PublicSchema.from_json(
        ...     '{"label": {"column": "y", "classes": [-1, 1]},'
        ...     ' "features": [{"column": "x", "type": "numeric",'
        ...     ' "lower": -5, "upper": 5}]}').columns
        ('x',)
        """
        if isinstance(source, str) and source.lstrip().startswith("{"):
            text, where = source, "schema"
        else:
            with open(source, "rb") as f:
                raw = f.read()
            where = os.fspath(source)
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise SchemaError(f"{where}: not UTF-8 text") from None

        try:
            obj = strict_json_loads(
                text,
                constant_error=lambda token: SchemaError(
                    f"{where}: {token} is not allowed in a schema"
                ),
                duplicate_key_error=lambda key: SchemaError(
                    f"{where}: duplicate key {key!r}"
                ),
            )
        except json.JSONDecodeError as exc:
            raise SchemaError(
                f"{where}: not valid JSON (line {exc.lineno}, column {exc.colno}: "
                f"{exc.msg})"
            ) from None
        return cls.from_dict(obj)

    # ------------------------------------------------------------ writing
    def to_dict(self) -> dict[str, Any]:
        """The schema as its JSON object (the inverse of :meth:`from_dict`).

        Returns
        -------
        dict
            ``{"label": {...}, "features": [...]}``.

        Examples
        --------
        >>> s = PublicSchema(LabelSpec("y", (0, 1)),
        ...                  (NumericFeature("x", 0.0, 2.0),))
        >>> s.to_dict()["features"]
        [{'column': 'x', 'type': 'numeric', 'lower': 0.0, 'upper': 2.0}]
        """
        features: list[dict[str, Any]] = []
        for f in self.features:
            if isinstance(f, NumericFeature):
                features.append(
                    {
                        "column": f.column,
                        "type": "numeric",
                        "lower": f.lower,
                        "upper": f.upper,
                    }
                )
            else:
                features.append(
                    {
                        "column": f.column,
                        "type": "categorical",
                        "categories": list(f.categories),
                    }
                )
        label: dict[str, Any] = {
            "column": self.label.column,
            "classes": list(self.label.classes),
        }
        if self.label.priors is not None:
            label["priors"] = list(self.label.priors)
        out: dict[str, Any] = {"label": label, "features": features}
        if self.weight is not None:
            out["weight"] = {"column": self.weight.column, "upper": self.weight.upper}
        return out

    def to_json(self) -> str:
        """The schema as JSON text (readable by :meth:`from_json`).

        Returns
        -------
        str
            Indented JSON, ending with a newline.

        Examples
        --------
        >>> s = PublicSchema(LabelSpec("y", (0, 1)),
        ...                  (NumericFeature("x", 0.0, 2.0),))
        >>> PublicSchema.from_json(s.to_json()) == s
        True
        """
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    # ------------------------------------------------------------ derived
    @property
    def columns(self) -> tuple[str, ...]:
        """The feature columns the schema reads, in declared order."""
        return tuple(f.column for f in self.features)

    @property
    def classes(self) -> tuple[Value, ...]:
        """The declared classes (pass them as an estimator's ``classes``)."""
        return self.label.classes

    @property
    def feature_names_out(self) -> tuple[str, ...]:
        """Names of the encoded features: ``column`` or ``column_category``."""
        return tuple(_names_out(self.features))

    @property
    def n_features_out(self) -> int:
        """Width of the encoded rows (public: it depends on the schema only)."""
        return len(_names_out(self.features))

    @property
    def row_norm_bound(self) -> float:
        """Public bound on the L2 norm of an encoded row.

        Each numeric feature lies in [-1, 1] and each categorical group is a
        one-hot vector or zeros, so ‖x‖₂ ≤ √(#numeric + #categorical).
        """
        return math.sqrt(len(self.features))

    def encode_labels(self, y: Any) -> np.ndarray:
        """Map label values to the declared classes; refuse any other value.

        Values are compared by :func:`canonical_key`: ``" >50K"`` matches the
        class ``">50K"``, and ``1.0`` or ``"1"`` match the class ``1``.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            The label column (strings or numbers).

        Returns
        -------
        ndarray of shape (n_samples,)
            The declared class of each row (``str`` classes as a string
            array, numbers as ``int64`` or ``float64``).

        Raises
        ------
        ValueError
            If a value (or a missing value) is not a declared class. The message
            names the column and the declared classes, never the offending value
            or how many rows hold one (both come from the private data).

        Examples
        --------
        >>> s = PublicSchema.from_dict({"label": {"column": "y",
        ...     "classes": ["no", "yes"]}, "features": [{"column": "x",
        ...     "type": "numeric", "lower": 0, "upper": 1}]})
        >>> s.encode_labels(["yes", " no"]).tolist()
        ['yes', 'no']
        """
        classes = np.array(self.label.classes)
        lookup = {canonical_key(c): i for i, c in enumerate(self.label.classes)}
        codes, uniques = pd.factorize(np.asarray(y, dtype=object).ravel())
        index = np.array(
            [lookup.get(canonical_key(u), -1) for u in uniques], dtype=np.intp
        )
        mapped = index[codes] if codes.size else codes
        if codes.size and (np.any(codes < 0) or np.any(mapped < 0)):
            raise ValueError(
                f"label column {self.label.column!r} holds values that are not "
                f"among the declared classes {list(self.label.classes)!r} (missing "
                "values included); fix the data or the schema's label.classes"
            )
        return classes[mapped]


def _priors(obj: Any, n_classes: int) -> tuple[float, ...]:
    """``label.priors``: one public proportion > 0 per class, summing to 1."""
    path = "label.priors"
    if not isinstance(obj, list):
        raise _fail(path, f"must be a list of numbers, got {type(obj).__name__}")
    if len(obj) != n_classes:
        raise _fail(
            path,
            f"must give one proportion per class in the order of label.classes "
            f"({n_classes}), got {len(obj)}",
        )
    values = tuple(_bound(p, f"{path}[{i}]") for i, p in enumerate(obj))
    for i, p in enumerate(values):
        if not p > 0:
            raise _fail(f"{path}[{i}]", f"must be > 0, got {obj[i]!r}")
    if not math.isclose(math.fsum(values), 1.0, abs_tol=1e-6):
        raise _fail(path, f"must sum to 1, got {math.fsum(values):.6g}")
    return values


def _names_out(features: Iterable[Feature]) -> list[str]:
    names: list[str] = []
    for f in features:
        if isinstance(f, NumericFeature):
            names.append(f.column)
        else:
            names.extend(f"{f.column}_{c}" for c in f.categories)
    return names
