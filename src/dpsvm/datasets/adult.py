# SPDX-License-Identifier: BSD-3-Clause
"""UCI Adult (Census Income) loader with data-independent preprocessing.

The default preprocessing reads no statistic of the data: every constant it uses
(category lists, numeric ranges) is fixed in this module from public
documentation, and the final row scaling reads only the row it scales. It is
therefore a fixed per-record map, which composes with any differentially private
learner without changing its guarantee.

Feature layout (``column_scaling="public"``, 105 columns; 106 with
``add_constant=True``):

* 6 numeric columns, in this order: ``age``, ``fnlwgt``, ``education-num``,
  ``capital-gain``, ``capital-loss``, ``hours-per-week``, each clipped to the
  public range in :data:`ADULT_NUMERIC_BOUNDS` and mapped affinely to [0, 1];
* 99 one-hot columns, one per category in the published lists of the UCI
  ``adult.names`` file (:data:`ADULT_CATEGORIES`): workclass 8, education 16,
  marital-status 7, occupation 14, relationship 6, race 5, sex 2,
  native-country 41;
* optionally a constant column equal to 1 (before the row scaling).

Sarwate, Chaudhuri & Monteleoni (2009, Appendix F) report 105 dimensions after
one-hot encoding without listing them (correction: counting workclass as 7
values gives only 6 + 98 = 104). The published list has 8 workclass values (it
includes both ``Without-pay`` and ``Never-worked``), which gives exactly 6 + 99
= 105 columns. After the rows with missing values are dropped no
``Never-worked`` row remains (all of them have occupation ``?``), so that column
is identically zero in the cleaned data; it is kept so that the layout does not
depend on the data.
"""

from __future__ import annotations

import gzip
import os
import re
import warnings
from itertools import repeat
from pathlib import Path
from typing import Literal, TypeAlias, TypedDict, Unpack, overload

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import Bunch

from dpsvm.datasets._common import (
    ParsedRecords,
    PublicLayout,
    Split,
    normalise_rows,
    split_bunch,
)
from dpsvm.datasets._download import download_file
from dpsvm.datasets._paths import DataFiles, merge_unknown_categories
from dpsvm.exceptions import PrivacyLeakWarning

__all__ = [
    "ADULT_CATEGORIES",
    "ADULT_CHECKSUMS",
    "ADULT_COLUMNS",
    "ADULT_NUMERIC_BOUNDS",
    "ADULT_URLS",
    "load_adult",
]

#: The 15 fields of a record, in file order (from ``adult.names``).
ADULT_COLUMNS: tuple[str, ...] = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)

#: Published category lists, copied (in their published order, spelling included)
#: from the attribute description in the UCI ``adult.names`` file (Becker & Kohavi,
#: 1996; https://archive.ics.uci.edu/dataset/2/adult). They are public metadata,
#: not statistics of the data.
ADULT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "workclass": (
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
    ),
    "education": (
        "Bachelors",
        "Some-college",
        "11th",
        "HS-grad",
        "Prof-school",
        "Assoc-acdm",
        "Assoc-voc",
        "9th",
        "7th-8th",
        "12th",
        "Masters",
        "1st-4th",
        "10th",
        "Doctorate",
        "5th-6th",
        "Preschool",
    ),
    "marital-status": (
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ),
    "occupation": (
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
    ),
    "relationship": (
        "Wife",
        "Own-child",
        "Husband",
        "Not-in-family",
        "Other-relative",
        "Unmarried",
    ),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native-country": (
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
    ),
}

#: Public ranges ``(low, high)`` of the numeric attributes. Each value is clipped
#: to its range and mapped to ``(x - low) / (high - low)`` in [0, 1]. None was
#: computed from the data; the justification of each is:
#:
#: * ``age`` [17, 90]: the Adult extraction kept persons with age > 16
#:   (``adult.names``: "((AAGE>16) && ...)"), and the Current Population Survey
#:   top-codes age at 90.
#: * ``fnlwgt`` [0, 1.5e6]: a CPS final sample weight (the number of people a
#:   record stands for) is non-negative and has no published top-code; 1.5e6 is
#:   a round a-priori cap (about 1/100 of the 1994 US adult population), so values
#:   above it would be clipped. Caveat: the cleaned files' maximum (1,490,400) is
#:   just below it, and the cap was not chosen blind to the file; callers needing
#:   a strictly blind bound can drop the column (fnlwgt is a survey weight, not a
#:   personal attribute).
#: * ``education-num`` [1, 16]: the ordinal code of the 16 published education
#:   levels (Preschool = 1, ..., Doctorate = 16).
#: * ``capital-gain`` [0, 99999]: the CPS top-code for capital gains is $99,999.
#: * ``capital-loss`` [0, 5000]: the CPS publishes no top-code for losses; 5,000 is
#:   a round a-priori cap above the $3,000 annual limit on deductible net capital
#:   losses in US tax law (26 U.S.C. 1211(b)); larger values are clipped.
#: * ``hours-per-week`` [1, 99]: the CPS top-codes usual weekly hours at 99 and the
#:   extraction kept persons with hours > 0 (``adult.names``: "(HRSWK>0)").
ADULT_NUMERIC_BOUNDS: dict[str, tuple[float, float]] = {
    "age": (17.0, 90.0),
    "fnlwgt": (0.0, 1.5e6),
    "education-num": (1.0, 16.0),
    "capital-gain": (0.0, 99999.0),
    "capital-loss": (0.0, 5000.0),
    "hours-per-week": (1.0, 99.0),
}

#: Official UCI download locations.
ADULT_URLS: dict[str, str] = {
    "adult.data": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data"
    ),
    "adult.test": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test"
    ),
}

#: Checksums of the uncompressed official files (from the project's
#: ``shared/datasets/adult/SOURCES.md``; the MD5 values are the ones used by many
#: public loaders).
ADULT_CHECKSUMS: dict[str, dict[str, str]] = {
    "adult.data": {
        "md5": "5d7c39d7b8804f071cdd1f2a7c460872",
        "sha256": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    },
    "adult.test": {
        "md5": "35238206dfdf7f1fe215bbb874adecdc",
        "sha256": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    },
}

_NUMERIC = tuple(ADULT_NUMERIC_BOUNDS)
_LAYOUT = PublicLayout(ADULT_COLUMNS, _NUMERIC, ADULT_NUMERIC_BOUNDS, ADULT_CATEGORIES)
_FILES = ("adult.data", "adult.test")


def _read_text(path: Path) -> str:
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
            return f.read()
    return path.read_text(encoding="utf-8")


# Whitespace around separators. It is removed from the whole text at once (the
# official files use ", ", handled by str.replace), which keeps parsing 48k rows
# well under a second.
_SEP = re.compile(r"[ \t]*,[ \t]*")


def _parse(path: Path) -> ParsedRecords[NDArray[np.int64]]:
    n_cols = len(ADULT_COLUMNS)
    text = _read_text(path).replace(", ", ",")
    if " ," in text or ", " in text or "\t" in text:
        text = _SEP.sub(",", text)  # unusual spacing: the slower general path
    linenos: list[int] = []
    records: list[str] = []
    n_missing = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        # Skip blank lines (the files end with one) and the
        # "|1x3 Cross validator" first line of adult.test.
        if not line or line.startswith("|"):
            continue
        if line.count(",") != n_cols - 1:
            # Neither the line nor its number is quoted (a record of the file).
            raise ValueError(
                f"{path}: a line has {line.count(',') + 1} comma-separated fields; "
                f"expected {n_cols}."
            )
        # With the separators' whitespace removed, a field equal to "?" is
        # exactly an occurrence of ",?," in ",<line>,".
        if ",?," in f",{line},":
            n_missing += 1
            continue
        linenos.append(lineno)
        records.append(line)
    n = len(records)
    flat = ",".join(records).split(",") if n else []
    columns = [flat[j::n_cols] for j in range(n_cols)]

    label_codes = {">50K": 1, ">50K.": 1, "<=50K": -1, "<=50K.": -1}
    labels = np.fromiter(
        map(label_codes.get, columns[-1], repeat(0, n)), dtype=np.int64, count=n
    )
    if np.any(labels == 0):
        raise ValueError(
            f"{path}: the income column holds a label other than '>50K' and "
            "'<=50K' (optionally with a trailing period); fix those labels."
        )

    unknown: dict[str, dict[str, int]] = {}
    numeric, codes = _LAYOUT.read_fields(columns, path, linenos, unknown)
    return ParsedRecords(numeric, codes, labels, unknown, n_missing)


#: Columns dropped by ``feature_set="compact"`` (name prefixes).
_COMPACT_DROP = ("fnlwgt", "education=", "native-country=")
#: Numeric columns log-scaled by ``feature_set="compact"``.
_COMPACT_LOG = ("capital-gain", "capital-loss")


def _compact(
    X: NDArray[np.float64], names: list[str]
) -> tuple[NDArray[np.float64], list[str]]:
    """The a-priori compact layout of ``feature_set="compact"`` (per-record map)."""
    X = X.copy()
    for c in _COMPACT_LOG:
        j = names.index(c)
        lo, hi = ADULT_NUMERIC_BOUNDS[c]
        # X[:, j] = (t − lo)/(hi − lo) after the public-range scaling; map to log
        # scale.
        X[:, j] = np.log1p(X[:, j] * (hi - lo)) / np.log1p(hi - lo)
    us = names.index("native-country=United-States")
    keep = [i for i, n in enumerate(names) if not n.startswith(_COMPACT_DROP)]
    out = np.hstack([X[:, keep], X[:, [us]]])
    return out, [names[i] for i in keep] + ["native-country=United-States"]


def _fetch(name: str, target: Path) -> Path:
    """Download one official file into ``target``, verifying both checksums."""
    return download_file(
        ADULT_URLS[name],
        target / name,
        md5=ADULT_CHECKSUMS[name]["md5"],
        sha256=ADULT_CHECKSUMS[name]["sha256"],
    )


_DATA_FILES = DataFiles(
    title="UCI Adult",
    names=_FILES,
    subfolder="adult",
    loader="load_adult",
    download_note="downloads from the UCI repository and verifies checksums",
    fetch=_fetch,
)


class _AdultOptions(TypedDict, total=False):
    # The keyword options of load_adult other than return_X_y, for its overloads.
    download: bool
    add_constant: bool
    column_scaling: Literal["public", "data-max"]
    feature_set: Literal["full", "compact"]


_DataDir: TypeAlias = str | os.PathLike[str] | None


@overload
def load_adult(
    data_dir: _DataDir = ...,
    *,
    return_X_y: Literal[False] = ...,
    **options: Unpack[_AdultOptions],
) -> Bunch: ...


@overload
def load_adult(
    data_dir: _DataDir = ...,
    *,
    return_X_y: Literal[True],
    **options: Unpack[_AdultOptions],
) -> Split: ...


@overload
def load_adult(
    data_dir: _DataDir = ..., *, return_X_y: bool, **options: Unpack[_AdultOptions]
) -> Bunch | Split: ...


def load_adult(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    download: bool = False,
    add_constant: bool = False,
    column_scaling: Literal["public", "data-max"] = "public",
    feature_set: Literal["full", "compact"] = "full",
    return_X_y: bool = False,
) -> Bunch | Split:
    """Load UCI Adult with its official train/test split, rows in the unit ball.

    Parameters
    ----------
    data_dir : str or path-like, optional
        Directory holding ``adult.data`` and ``adult.test`` (plain or ``.gz``,
        directly or in an ``adult/`` subfolder). When omitted, the directory is
        resolved by :func:`dpsvm.datasets.resolve_data_dir` (``$DPSVM_DATA``, then
        ``shared/datasets`` folders), and ``~/.cache/dpsvm`` is searched too.
    download : bool, default=False
        If the files are missing, download them from the UCI repository into
        ``data_dir/adult`` (or ``$DPSVM_DATA/adult``, else
        ``~/.cache/dpsvm/adult``), verifying MD5 and SHA-256 checksums.
    add_constant : bool, default=False
        Append a column equal to 1 (before the row scaling, so it counts inside
        the norm bound), for an intercept.
    column_scaling : {"public", "data-max"}, default="public"
        ``"public"`` clips each numeric column to the documented range in
        :data:`ADULT_NUMERIC_BOUNDS` and maps it to [0, 1]. ``"data-max"``
        reproduces the preprocessing of Chaudhuri, Monteleoni & Sarwate (2011),
        Sec. 6 (divide every column by its maximum over train and test
        together); it reads the data and so is not covered by any privacy
        guarantee. It emits :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    feature_set : {"full", "compact"}, default="full"
        ``"full"``: the paper's layout, 105 columns (6 numeric + 99 one-hot).
        ``"compact"``: 48 columns chosen a priori to cut the noise of private
        learners, whose noise norm grows with the dimension: drop ``fnlwgt`` (a
        census sampling weight, not an attribute of the person), drop the
        ``education`` one-hot block (it is a relabelling of ``education-num``),
        replace the 41 ``native-country`` columns by one indicator
        ``native-country=United-States``, and map ``capital-gain`` and
        ``capital-loss`` by t ↦ log(1 + t)/log(1 + hi) on their public ranges.
        Every step is a fixed per-record map. Needs ``column_scaling="public"``.
    return_X_y : bool, default=False
        Return ``(X_train, y_train, X_test, y_test)`` instead of a Bunch.

    Returns
    -------
    sklearn.utils.Bunch or tuple
        A Bunch with ``X_train`` (30,162 x 105 on the official files),
        ``y_train`` (ints in {-1, +1}; +1 means income > $50K), ``X_test``
        (15,060 x 105), ``y_test``, ``feature_names``, ``n_dropped_missing``
        (rows with a ``?`` field, train + test), ``n_unknown_categories`` (field
        values outside the published lists, encoded as all zeros),
        ``unknown_categories`` (attribute -> value -> count), ``n_clipped``
        (numeric column -> values clipped to the public range; empty for
        ``"data-max"``), ``positive_rate`` (fraction of +1 labels over train and
        test), ``files`` and ``description``.

    Raises
    ------
    FileNotFoundError
        If the files are absent and ``download`` is false; the message lists the
        places searched and how to fix it.
    ValueError
        For a bad ``column_scaling`` or a malformed file.
    dpsvm.datasets._download.ChecksumMismatchError
        If a download does not match the published checksums.

    Warns
    -----
    PrivacyLeakWarning
        With ``column_scaling="data-max"``.

    Notes
    -----
    Parsing strips whitespace around every field, skips blank lines and the
    ``|1x3 Cross validator`` first line of ``adult.test``, drops every record
    with a missing value (``?``), and accepts labels with or without the
    trailing period used in ``adult.test``.

    **Privacy.** With ``column_scaling="public"`` the whole preprocessing is a
    fixed map applied to each record separately (public category lists, public
    numeric ranges, division of each row by its own L2 norm), so every row has
    ``||x||_2 <= 1`` without any quantity being estimated from other records;
    under replace-one neighbouring a DP learner trained on the output keeps its
    guarantee with data norm bound 1. Dropping records with missing values is
    likewise a per-record filter. The descriptive fields of the Bunch
    (``positive_rate``, counts) are statistics of the data and must not be fed
    back into a private computation. ``"data-max"`` breaks this: the column
    maxima are functions of the whole data set.

    References
    ----------
    .. [1] B. Becker and R. Kohavi, "Adult", UCI Machine Learning Repository,
       1996. https://doi.org/10.24432/C5XW20
    .. [2] K. Chaudhuri, C. Monteleoni and A. D. Sarwate, "Differentially
       private empirical risk minimization", JMLR 12, 2011, Sec. 6.

    Examples
    --------
    >>> from dpsvm.datasets import load_adult
    >>> data = load_adult()  # doctest: +SKIP
    >>> data.X_train.shape, data.X_test.shape  # doctest: +SKIP
    ((30162, 105), (15060, 105))
    """
    if column_scaling not in ("public", "data-max"):
        raise ValueError(
            f"column_scaling must be 'public' or 'data-max', got {column_scaling!r}."
        )
    if feature_set not in ("full", "compact"):
        raise ValueError(
            f"feature_set must be 'full' or 'compact', got {feature_set!r}."
        )
    if feature_set == "compact" and column_scaling != "public":
        raise ValueError("feature_set='compact' needs column_scaling='public'.")
    paths = _DATA_FILES.resolve(data_dir, download)
    train, test = _parse(paths["adult.data"]), _parse(paths["adult.test"])
    y_train, y_test = train.labels, test.labels

    n_clipped: dict[str, int] = {}
    if column_scaling == "public":
        (X_train, X_test), n_clipped = _LAYOUT.encode([train, test], add_constant)
    else:
        warnings.warn(
            "column_scaling='data-max' divides each column by its maximum over the "
            "data (Chaudhuri et al. 2011, Sec. 6); the scaling depends on every "
            "record, so no privacy guarantee covers models trained on it. Use it "
            "only to reproduce the paper; set column_scaling='public' for private "
            "learning.",
            PrivacyLeakWarning,
            stacklevel=2,
        )
        X_train = _LAYOUT.design(train.numeric, train.codes, add_constant)
        X_test = _LAYOUT.design(test.numeric, test.codes, add_constant)
        col_max = np.maximum(
            X_train.max(axis=0, initial=0.0), X_test.max(axis=0, initial=0.0)
        )
        # Columns that never occur (e.g. workclass=Never-worked) stay zero.
        scale = np.where(col_max > 0, col_max, 1.0)
        X_train /= scale
        X_test /= scale
    names = _LAYOUT.feature_names(add_constant)
    if feature_set == "compact":
        X_train, compact_names = _compact(X_train, names)
        X_test, _ = _compact(X_test, names)
        names = compact_names
    # Row-major, as scikit-learn's loaders return: solvers read rows in chunks.
    X_train = np.ascontiguousarray(normalise_rows(X_train))
    X_test = np.ascontiguousarray(normalise_rows(X_test))
    split = (X_train, y_train, X_test, y_test)
    if return_X_y:
        return split

    unknown = merge_unknown_categories([train.unknown, test.unknown])
    n_unknown = sum(sum(v.values()) for v in unknown.values())
    d = X_train.shape[1]
    description = (
        "UCI Adult (Census Income; Becker & Kohavi 1996), official split: "
        f"adult.data -> {y_train.size} training rows, adult.test -> {y_test.size} "
        f"test rows, after dropping {train.n_dropped_missing + test.n_dropped_missing}"
        " rows with missing values. Labels: +1 = income >50K, -1 = <=50K. "
        f"{d} features: 6 numeric ("
        + (
            "clipped to public ranges and mapped to [0, 1]"
            if column_scaling == "public"
            else "divided by the data maximum (data-max: NOT private)"
        )
        + ") + 99 one-hot columns from the published category lists"
        + (
            " (compact set: fnlwgt, the education one-hots and the country "
            "one-hots replaced as documented; log-scaled capital columns)"
            if feature_set == "compact"
            else ""
        )
        + (" + a constant 1" if add_constant else "")
        + "; each row then divided by its own L2 norm (||x|| = 1)."
    )
    return split_bunch(
        split,
        names,
        feature_set=feature_set,
        n_dropped_missing=train.n_dropped_missing + test.n_dropped_missing,
        n_unknown_categories=n_unknown,
        unknown_categories=unknown,
        n_clipped=n_clipped,
        column_scaling=column_scaling,
        files={name: str(p) for name, p in paths.items()},
        description=description,
    )
