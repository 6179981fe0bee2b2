# SPDX-License-Identifier: BSD-3-Clause
"""The Wisconsin diagnostic breast-cancer data, scaled with public bounds.

This is the library's embedded demo data set: it ships with scikit-learn, so it
needs no download.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.datasets import load_breast_cancer as _sk_load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch

from dpsvm.datasets._common import normalise_rows, split_bunch

__all__ = ["BREAST_CANCER_UPPER_BOUNDS", "load_breast_cancer"]

#: Public upper bounds of the 30 features, in scikit-learn's column order (mean,
#: standard error, worst; each over radius, texture, perimeter, area, smoothness,
#: compactness, concavity, concave points, symmetry, fractal dimension).
#: Source: the "Summary Statistics" table of the data set's published description
#: (scikit-learn's ``load_breast_cancer().DESCR``, a copy of the UCI description),
#: which is public metadata. Each printed maximum was rounded UP to the next value
#: with two significant digits that is strictly larger than the printed one, so
#: the bound also covers the unrounded maximum (the table prints 3-4 significant
#: digits, e.g. 0.163 for 0.1634). All printed minima are >= 0, so the lower bound
#: of every feature is 0.
BREAST_CANCER_UPPER_BOUNDS: tuple[float, ...] = (
    # mean: radius 28.11, texture 39.28, perimeter 188.5, area 2501.0,
    # smoothness 0.163, compactness 0.345, concavity 0.427, concave points 0.201,
    # symmetry 0.304, fractal dimension 0.097
    29.0, 40.0, 190.0, 2600.0, 0.17, 0.35, 0.43, 0.21, 0.31, 0.098,
    # standard error: 2.873, 4.885, 21.98, 542.2, 0.031, 0.135, 0.396, 0.053,
    # 0.079, 0.03
    2.9, 4.9, 22.0, 550.0, 0.032, 0.14, 0.40, 0.054, 0.080, 0.031,
    # worst: 36.04, 49.54, 251.2, 4254.0, 0.223, 1.058, 1.252, 0.291, 0.664, 0.208
    37.0, 50.0, 260.0, 4300.0, 0.23, 1.1, 1.3, 0.30, 0.67, 0.21,
)  # fmt: skip


def _preprocess(X: NDArray[np.float64], add_constant: bool) -> NDArray[np.float64]:
    # Per-record map with public constants only: clip each feature to
    # [0, public bound], divide by the bound, optionally append a constant 1,
    # then divide the row by its own L2 norm.
    bounds = np.asarray(BREAST_CANCER_UPPER_BOUNDS)
    Z = np.clip(X, 0.0, bounds) / bounds
    if add_constant:
        Z = np.hstack([Z, np.ones((Z.shape[0], 1))])
    return normalise_rows(Z)


def load_breast_cancer(
    *,
    add_constant: bool = False,
    test_size: float = 0.25,
    random_state: int = 0,
) -> Bunch:
    """Load the breast-cancer demo data, scaled into the unit ball.

    Parameters
    ----------
    add_constant : bool, default=False
        Append a column equal to 1 (after the per-feature scaling, before the row
        scaling, so it counts inside the norm bound), for an intercept.
    test_size : float, default=0.25
        Fraction of rows in the test set.
    random_state : int, default=0
        Seed of the stratified split (not privacy randomness).

    Returns
    -------
    sklearn.utils.Bunch
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (labels in {-1, +1}:
        +1 = benign, scikit-learn target 1; -1 = malignant), ``feature_names``,
        ``n_dropped_missing`` (always 0), ``n_unknown_categories`` (always 0),
        ``n_clipped`` (feature values outside the public bounds, expected 0),
        ``positive_rate`` (fraction benign over all 569 rows) and
        ``description``.

    Notes
    -----
    **Privacy.** Every feature is clipped to ``[0, b_j]`` and divided by
    ``b_j``, with ``b_j`` the public bound of
    :data:`BREAST_CANCER_UPPER_BOUNDS`, then each row is divided by its own L2
    norm. This map reads one record and public constants only, so rows satisfy
    ``||x||_2 <= 1`` without any data-dependent bound. The split is stratified on
    the labels with a fixed seed; it decides which records are used for training
    and is not itself a release.

    References
    ----------
    .. [1] W. N. Street, W. H. Wolberg and O. L. Mangasarian, "Nuclear feature
       extraction for breast tumor diagnosis", IS&T/SPIE 1993.

    Examples
    --------
    >>> data = load_breast_cancer()
    >>> data.X_train.shape, data.X_test.shape
    ((426, 30), (143, 30))
    >>> sorted(set(data.y_train.tolist()))
    [-1, 1]
    """
    raw = _sk_load_breast_cancer()
    X_raw = np.asarray(raw.data, dtype=np.float64)
    bounds = np.asarray(BREAST_CANCER_UPPER_BOUNDS)
    n_clipped = int(np.count_nonzero((X_raw < 0) | (X_raw > bounds)))
    X = _preprocess(X_raw, add_constant)
    names = [str(n) for n in raw.feature_names] + (["constant"] if add_constant else [])
    # scikit-learn's target: 0 = malignant, 1 = benign.
    y = np.where(np.asarray(raw.target) == 1, 1, -1).astype(np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=random_state, stratify=y
    )
    split = (X_train, y_train, X_test, y_test)
    return split_bunch(
        split,
        names,
        n_dropped_missing=0,
        n_unknown_categories=0,
        n_clipped=n_clipped,
        description=(
            "Breast Cancer Wisconsin (Diagnostic), 569 rows (scikit-learn bundle). "
            "Labels: +1 = benign, -1 = malignant. Each of the 30 features clipped "
            "to [0, public bound from the published summary table] and divided by "
            "it"
            + (", plus a constant 1" if add_constant else "")
            + "; each row then divided by its own L2 norm. Stratified split, "
            f"test_size={test_size}, random_state={random_state}."
        ),
    )
