# SPDX-License-Identifier: BSD-3-Clause
"""The noise draws of one grid cell, released together (linear and kernel).

A cell of the Λ × ε grids of Sarwate, Chaudhuri & Monteleoni (2009) is one
(fold or projection, Λ, method, ε) with ``draws`` noise draws. The estimator
(:class:`~dpsvm.DPLinearSVC`, :class:`~dpsvm.DPLogisticRegression`, or the
linear step of :class:`~dpsvm.models.kernel.DPKernelSVC`) prepares its
internal rows and calibrates its mechanism exactly as in ``fit``
(``_prepare_fit``, ``_perturbation``); the draws are then released by
:func:`._batch.release_batch`, which runs the mechanism's own ``perturb`` for
each draw with one batched solve. With the same generator, each released
vector is the one ``fit`` releases, to the solver tolerance
(``tests/reproduce/test_batch.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._batch import release_batch

__all__ = ["kernel_features", "objective_errors"]

FloatArray = NDArray[np.float64]


def objective_errors(
    make: Any,
    epsilons: Sequence[float],
    X_train: Any,
    y_train: NDArray[Any],
    X_test: FloatArray,
    y_test: NDArray[Any],
    generators: Sequence[np.random.Generator],
    draws: int,
) -> tuple[FloatArray, int]:
    """(ε × draw) test errors of an objective-perturbation estimator, and refusals.

    Parameters
    ----------
    make : callable
        ``make(eps)`` returns the unfitted estimator at ε (no random_state).
    epsilons : sequence of float
        The ε values.
    X_train, y_train : arrays
        Training rows and labels in {−1, +1}.
    X_test, y_test : arrays
        Test rows (on the scale the released coefficients apply to) and labels.
    generators : sequence of numpy.random.Generator
        One per ε; it serves that ε's draws in turn, as a loop of ``fit`` calls
        would.
    draws : int
        Noise draws per ε.

    Returns
    -------
    errors : ndarray of shape (len(epsilons), draws)
        NaN where a fit was refused.
    failures : int
        Refused fits (nothing released).
    """
    errs = np.full((len(epsilons), draws), np.nan)
    failures = 0
    for e_idx, eps in enumerate(epsilons):
        est = make(eps)
        loss = est._get_loss()
        Xt, targets, lam = est._prepare_fit(X_train, y_train)
        (yk,) = targets  # two classes: one binary release
        n, d = Xt.shape
        plan = est._perturbation(est.mechanism, n, d, lam, loss, float(eps))
        released = release_batch(
            plan,
            Xt.toarray(),
            yk,
            loss,
            [generators[e_idx]] * draws,
            max_iter=est.max_iter,
        )
        R = float(est.data_norm_)
        for r, w in enumerate(released):
            if w is None:
                failures += 1
                continue
            coef = w[: X_test.shape[1]] / R
            errs[e_idx, r] = float(
                np.mean(np.where(X_test @ coef > 0, 1, -1) != y_test)
            )
    return errs, failures


def kernel_features(
    estimator: Any, X_train: FloatArray, y_train: NDArray[Any], X_test: FloatArray
) -> tuple[Any, FloatArray, FloatArray]:
    """The linear step of ``DPKernelSVC.fit`` and its training and test features.

    Follows :meth:`dpsvm.models.kernel.DPKernelSVC._fit` up to the fit of its
    inner linear estimator: the public feature map from
    ``feature_random_state``, the features, the resolved Λ and the inner
    estimator (unprojected for ``norm_handling="paper"``).

    Parameters
    ----------
    estimator : DPKernelSVC
        Unfitted, with an objective mechanism.
    X_train, y_train, X_test : arrays
        Rows and labels.

    Returns
    -------
    make : callable
        ``make(eps)``: the inner linear estimator at ε.
    Z_train : ndarray
        Training features (unprojected: the inner estimator projects them).
    Z_test : ndarray
        Test features as ``transform_features`` returns them.
    """
    from ..losses import get_loss
    from ..models.kernel import (
        _LINEAR_MECHANISM,
        _InnerDPLinearSVC,
        _UnprojectedDPLinearSVC,
    )
    from ..validation import project_rows_to_ball, resolve_delta

    est = estimator
    loss_name = est._resolved_loss()
    loss = get_loss(loss_name, huber_h=est.huber_h)
    rff, R = est._feature_setup(X_train.shape[1])
    est._store_features(rff, R)
    paper = est.projection_radius_ is None
    Z_train = rff.transform(X_train)
    Z_test = rff.transform(X_test)
    if not paper:
        Z_test = project_rows_to_ball(Z_test, est.projection_radius_)
    lam = est._resolve_regularization(
        X_train.shape[0], R, y_train, loss, est._weight_bound()
    )
    inner_cls = _UnprojectedDPLinearSVC if paper else _InnerDPLinearSVC
    delta = resolve_delta(est.delta, lambda: X_train.shape[0], uses_delta=False)

    def make(eps: float) -> Any:
        return inner_cls(
            epsilon=eps,
            delta=delta,
            mechanism=_LINEAR_MECHANISM[est.mechanism],
            loss=loss_name,
            huber_h=est.huber_h,
            regularization=lam,
            data_norm=R,
            fit_intercept=False,
            classes=est.classes,
            class_weight=est.class_weight,
            class_priors=est.class_priors,
            max_weight=est.max_weight,
            accountant=None,
            tol=est.tol,
            max_iter=est.max_iter,
        )

    return (
        make,
        np.asarray(Z_train, dtype=np.float64),
        np.asarray(Z_test, dtype=np.float64),
    )
