# SPDX-License-Identifier: BSD-3-Clause
"""Tuning on public data: no privacy cost, one private fit.

Sarwate, Chaudhuri & Monteleoni (2009), §5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from ..utils._random import check_random_state
from ._common import check_param_grid

__all__ = ["PublicTuningResult", "tune_on_public_data"]


@dataclass(frozen=True)
class PublicTuningResult:
    """Outcome of :func:`tune_on_public_data`.

    Attributes
    ----------
    estimator : estimator
        An **unfitted** clone of the input estimator with ``best_params`` set
        and its own ``accountant`` kept: fitting it on the private data is the
        one private release.
    best_params : dict
        The chosen parameters.
    best_score : float
        Their mean cross-validated score on the public data.
    cv_results : dict
        ``GridSearchCV.cv_results_`` on the public data (public).
    """

    estimator: Any
    best_params: dict[str, Any]
    best_score: float
    cv_results: dict[str, Any] = field(repr=False)


def tune_on_public_data(
    estimator: Any,
    param_grid: Any,
    X_public: ArrayLike,
    y_public: ArrayLike,
    *,
    cv: Any = 5,
    scoring: Any = None,
    random_state: int | None = None,
) -> PublicTuningResult:
    """Choose parameters by cross-validation on public data (no privacy cost).

    Sarwate, Chaudhuri & Monteleoni (2009, §5) suggest tuning Λ on a public
    sample from the same distribution and then training once on the private
    data. The candidate fits here read only ``X_public``/``y_public``: they run
    with ``accountant=None`` and charge nothing. The estimator's ``epsilon`` is
    kept, so each candidate is judged in the noise regime of the later private
    fit (use a public sample of about the private size for that to carry over).

    Parameters
    ----------
    estimator : estimator object
        Any classifier; for a dpsvm estimator its ``accountant`` (if any) is
        left on the returned estimator and is charged only by its private fit.
    param_grid : dict or list of dict
        Public candidates as explicit values.
    X_public : array-like of shape (n_public, n_features)
        Public rows (not part of the private dataset).
    y_public : array-like of shape (n_public,)
        Their labels.
    cv : int or cross-validation generator, default=5
        As in :class:`~sklearn.model_selection.GridSearchCV`.
    scoring : str, callable or None, default=None
        As in ``GridSearchCV`` (``None``: the estimator's ``score``).
    random_state : None or int, default=None
        Noise of the candidate fits on public data (it protects nothing, so a
        seed is fine here); set as the candidates' ``random_state`` when the
        estimator has one. A generator object is refused, as for every public
        seed.

    Returns
    -------
    PublicTuningResult
        The configured unfitted estimator, the best parameters and the public
        cross-validation record.

    Raises
    ------
    TypeError, ValueError
        For a data-derived or invalid grid.

    Notes
    -----
    **Privacy.** Nothing here reads private data, so no budget is spent. The
    guarantee of the later private fit is unchanged provided ``X_public`` is
    genuinely public (disjoint from, and not chosen by looking at, the private
    records). Tuning on the private data with ``GridSearchCV`` is *not*
    private: the selected parameters depend on every record.

    Examples
    --------
    >>> from dpsvm.accounting import BudgetAccountant
    >>> from dpsvm.datasets import make_nested_balls
    >>> from dpsvm.models import DPLinearSVC
    >>> X_pub, y_pub = make_nested_balls(1500, random_state=1)
    >>> X_priv, y_priv = make_nested_balls(1500, random_state=2)
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> res = tune_on_public_data(
    ...     DPLinearSVC(epsilon=1.0, classes=[-1, 1], accountant=acc),
    ...     {"regularization": [1e-2, 1e-1]},
    ...     X_pub, y_pub, cv=3, random_state=0,
    ... )
    >>> len(acc)  # tuning on public data spent nothing
    0
    >>> _ = res.estimator.set_params(random_state=0).fit(X_priv, y_priv)
    >>> acc.total()
    (1.0, 0.0)
    """
    candidates = check_param_grid(param_grid)  # also refuses data-derived grids
    params = estimator.get_params(deep=False)
    base = clone(estimator)
    fixed: dict[str, Any] = {}
    if "accountant" in params:
        fixed["accountant"] = None  # public fits are not charged
    if "random_state" in params:
        # The candidates' own random_state: None or an int (check_random_state
        # refuses a generator object here, before any fit).
        check_random_state(random_state, secure=False)
        fixed["random_state"] = random_state
    base.set_params(**fixed)
    search = GridSearchCV(
        base,
        [{k: [v] for k, v in c.items()} for c in candidates],
        cv=cv,
        scoring=scoring,
        refit=False,
    )
    search.fit(X_public, y_public)
    best = dict(candidates[int(search.best_index_)])
    final = clone(estimator).set_params(**best)
    return PublicTuningResult(
        estimator=final,
        best_params=best,
        best_score=float(search.best_score_),
        cv_results=dict(search.cv_results_),
    )
