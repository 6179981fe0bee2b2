# SPDX-License-Identifier: BSD-3-Clause
"""The data sets of the Sarwate et al. (2009) reproduction and their folds.

UCI Adult (the paper's preprocessing, and the compact public features), the
KDD Cup 99 subset when its files are present, and the synthetic nested balls;
each with its evaluated cross-validation folds (data-independent splits).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.model_selection import KFold

from ._config import ReproductionConfig

__all__ = ["Dataset", "ReproductionError", "load_datasets"]

FloatArray = NDArray[np.float64]


class ReproductionError(ValueError):
    """A reproduction that cannot run (missing data, missing matplotlib, ...).

    A :class:`ValueError`, so that the ``dpsvm`` command reports it as one line
    ``dpsvm: error: <message>`` with exit status 1.

    Examples
    --------
    >>> str(ReproductionError("UCI Adult files not found"))
    'UCI Adult files not found'
    """


@contextmanager
def _recorded_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning of a loading step or job (reported in the results)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@dataclass
class Dataset:
    """A data set with its evaluated cross-validation folds.

    Attributes
    ----------
    name : str
        ``"adult"``, ``"adult-compact"``, ``"kdd"`` or ``"nested-balls"``.
    X : ndarray of shape (n_samples, n_features)
        Rows (norm ≤ 1 for the linear data sets).
    y : ndarray of shape (n_samples,)
        Labels in {−1, +1}.
    splits : list of (ndarray, ndarray)
        (train, test) row positions of each evaluated fold.
    description : str
        Preprocessing, for the report.
    info : dict
        Public facts for the JSON (sizes, label rate).
    """

    name: str
    X: FloatArray
    y: NDArray[np.int64]
    splits: list[tuple[NDArray[np.intp], NDArray[np.intp]]]
    description: str
    info: dict[str, Any] = field(default_factory=dict)


def _cv_splits(
    n: int, config: ReproductionConfig, key: int
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """The evaluated folds of a shuffled K-fold split (data-independent)."""
    kf = KFold(n_splits=config.n_splits, shuffle=True, random_state=config.seed + key)
    out = []
    for i, (tr, te) in enumerate(kf.split(np.zeros((n, 1)))):
        if i >= config.folds:
            break
        out.append((tr.astype(np.intp), te.astype(np.intp)))
    return out


def _subsample(n: int, size: int, seed: Sequence[int]) -> NDArray[np.intp]:
    rng = np.random.default_rng(np.random.SeedSequence(list(seed)))
    return np.sort(rng.permutation(n)[:size]).astype(np.intp)


def _load_adult(
    data_dir: Path | None, config: ReproductionConfig, compact: bool
) -> tuple[Dataset, list[str]]:
    from ..datasets import load_adult

    with _recorded_warnings() as caught:
        try:
            bunch = load_adult(
                data_dir,
                column_scaling="public" if compact else "data-max",
                feature_set="compact" if compact else "full",
            )
        except FileNotFoundError as exc:
            where = f"--data-dir {data_dir}" if data_dir is not None else "the data"
            raise ReproductionError(
                f"UCI Adult files (adult.data and adult.test, plain or .gz, "
                f"directly or in an 'adult/' subfolder) not found in {where}; the "
                "reproduction needs them. " + str(exc).splitlines()[0]
            ) from None
    X = np.vstack([bunch.X_train, bunch.X_test])
    y = np.concatenate([bunch.y_train, bunch.y_test]).astype(np.int64)
    n_all = y.size
    if config.adult_rows is not None and config.adult_rows < n_all:
        keep = _subsample(n_all, config.adult_rows, (config.seed, 11))
        X, y = X[keep], y[keep]
    name = "adult-compact" if compact else "adult"
    if compact:
        description = (
            f"UCI Adult, train + test ({y.size} rows after dropping rows with '?'), "
            f"compact public features ({X.shape[1]} columns: no fnlwgt, no "
            "education one-hots, one native-country indicator, log-scaled capital "
            "columns, public numeric ranges), each row divided by its norm: a "
            "per-record map, so the private methods are private end to end"
        )
    else:
        description = (
            f"UCI Adult, train + test ({y.size} rows after dropping rows with '?'), "
            f"the paper's preprocessing: {X.shape[1]} columns (6 numeric + 99 "
            "one-hot), every column divided by its maximum over the data "
            "(column_scaling='data-max', as in the paper: it reads every record, "
            "so it is outside any DP guarantee), each row divided by "
            "its L2 norm (‖x‖ = 1; the paper says 'at most 1')"
        )
    notes = sorted({str(w.message).split(";")[0] for w in caught})
    ds = Dataset(
        name=name,
        X=np.ascontiguousarray(X, dtype=np.float64),
        y=y,
        splits=_cv_splits(y.size, config, 1 if compact else 0),
        description=description,
        info={
            "n_samples": int(y.size),
            "n_features": int(X.shape[1]),
            "positive_rate": float(np.mean(y == 1)),
            "files": dict(bunch.files),
        },
    )
    return ds, [f"{name}: {m}" for m in notes]


def _load_kdd(data_dir: Path | None, config: ReproductionConfig) -> Dataset | None:
    """KDD Cup 99 random subset, or None when the files are absent."""
    from ..datasets import load_kddcup99

    try:
        bunch: Any = load_kddcup99(
            data_dir, subset=config.kdd_subset, random_state=config.seed
        )
    except FileNotFoundError:
        return None
    X = np.ascontiguousarray(bunch.X_train, dtype=np.float64)
    y = np.asarray(bunch.y_train, dtype=np.int64)
    return Dataset(
        name="kdd",
        X=X,
        y=y,
        splits=_cv_splits(y.size, config, 2),
        description=(
            f"KDD Cup 99, 10% file, random subset of {y.size} rows (paper: "
            f"60,000), {X.shape[1]} columns (38 numeric scaled by public ranges + "
            "one-hot protocol/service/flag), rows divided by their norm; +1 = "
            "normal connection (the paper's positive class; with no intercept, "
            "flipping the labels changes no error rate). The paper divided columns "
            "by their data maxima; the loader uses public ranges instead"
        ),
        info={
            "n_samples": int(y.size),
            "n_features": int(X.shape[1]),
            "positive_rate": float(np.mean(y == 1)),
            "files": dict(bunch.files),
        },
    )


def _make_nested_balls(config: ReproductionConfig) -> Dataset:
    from ..datasets import make_nested_balls

    X, y = make_nested_balls(config.nb_samples, random_state=config.seed)
    n = y.size
    n_test = max(1, n // 10)
    # One 9/10 : 1/10 split (the paper averages over projections × draws).
    perm = np.random.default_rng(np.random.SeedSequence([config.seed, 21]))
    order = perm.permutation(n).astype(np.intp)
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    return Dataset(
        name="nested-balls",
        X=X,
        y=np.asarray(y, dtype=np.int64),
        splits=[(train, test)],
        description=(
            f"'nested balls' in R^5 (dpsvm.datasets.make_nested_balls), {n} points "
            f"(paper: 240,000), {train.size} train / {test.size} test; Bayes "
            "error 0.05"
        ),
        info={"n_samples": int(n), "n_features": int(X.shape[1])},
    )


def load_datasets(
    data_dir: str | os.PathLike[str] | None, config: ReproductionConfig
) -> tuple[dict[str, Dataset], list[str]]:
    """Load every data set of the run.

    Parameters
    ----------
    data_dir : str or path-like or None
        Directory with the UCI Adult files (and, optionally, the KDD Cup 99
        files); ``None`` uses the loaders' default search.
    config : ReproductionConfig
        The run settings.

    Returns
    -------
    datasets : dict of str to Dataset
        ``"adult"``, optionally ``"adult-compact"`` and ``"kdd"``, and
        ``"nested-balls"``.
    notes : list of str
        Warnings and skipped parts, for the report.

    Raises
    ------
    ReproductionError
        If ``data_dir`` is not a directory or the Adult files are missing.

    Examples
    --------
    >>> from dpsvm.reproduce import make_config
    >>> load_datasets("/nope", make_config("tiny"))
    Traceback (most recent call last):
    ...
    dpsvm.reproduce._data.ReproductionError: --data-dir /nope: no such directory
    """
    path = None
    if data_dir is not None:
        path = Path(data_dir)
        if not path.is_dir():
            raise ReproductionError(f"--data-dir {data_dir}: no such directory")
    notes: list[str] = []
    datasets: dict[str, Dataset] = {}
    datasets["adult"], n1 = _load_adult(path, config, compact=False)
    notes += n1
    if config.compact:
        datasets["adult-compact"], n2 = _load_adult(path, config, compact=True)
        notes += n2
    kdd = _load_kdd(path, config)
    if kdd is None:
        notes.append(
            "KDD files not found (kddcup.data_10_percent and corrected, plain or "
            ".gz, in the data directory or a 'kddcup99/' subfolder): the KDD "
            "columns of Figure 2(a), Figure 3(b) and Figures 1(b), (d), (e) and "
            "4(b) are skipped"
        )
    else:
        datasets["kdd"] = kdd
    datasets["nested-balls"] = _make_nested_balls(config)
    return datasets, notes
