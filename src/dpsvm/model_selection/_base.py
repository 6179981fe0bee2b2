# SPDX-License-Identifier: BSD-3-Clause
"""The base of the private selectors: one ``fit``, prediction by delegation.

Every selector follows the same order (STYLE.md, "Privacy parameters and
budget"), written once in :meth:`SelectorBase.fit`: validate the public grid,
clone the candidates, check the budget through :func:`dpsvm.accounting.charge`
before any data are read, run the selector's own procedure
(``_select``), then record its one event and spend it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._compat import _fit_context
from ..accounting.charge import Charge
from ..accounting.events import PrivacyEvent
from ..utils._random import check_random_state
from ..validation import check_epsilon, n_rows
from ._common import (
    candidate_delta,
    charge_candidates,
    check_param_grid,
    holdout_split,
    prepare_candidates,
    validated_rows,
)
from ._scoring import SelectionScore, resolve_selection_score

__all__ = ["SelectorBase"]


@dataclass(frozen=True)
class SelectionStart:
    """What every selector has once the budget is checked, before selecting.

    Attributes
    ----------
    epsilon : float
        The validated end-to-end ε.
    candidate_epsilon : float
        ε of each candidate fit.
    delta : float
        The end-to-end δ that was checked.
    candidates : list of dict
        The expanded public grid.
    rng : numpy.random.Generator
        The selector's generator (split, candidate noise, selection).
    estimators : list of estimators
        Unfitted candidate clones with ``epsilon`` set (one per candidate).
    ticket : Charge
        The checked budget; spent once by :meth:`SelectorBase.fit`.
    X : ndarray, sparse matrix or data frame
        The validated rows (a pipeline's as given).
    y : ndarray
        Their labels.
    score : SelectionScore
        The selection score and its public sensitivity.
    """

    epsilon: float
    candidate_epsilon: float
    delta: float
    candidates: list[dict[str, Any]]
    rng: np.random.Generator
    estimators: list[Any]
    ticket: Charge
    X: Any
    y: np.ndarray
    score: SelectionScore


def _best_has(name: str):  # type: ignore[no-untyped-def]
    def check(self: Any) -> bool:
        if hasattr(self, "best_estimator_"):
            getattr(self.best_estimator_, name)
        else:
            getattr(self.estimator, name)
        return True

    return check


class SelectorBase(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """One ``fit`` for the private selectors; prediction by ``best_estimator_``.

    A subclass implements ``_select(start)`` (its own procedure on the
    validated data, returning the selected index, the released model and the
    one event) and, if its candidates get another ε than the end-to-end one,
    ``_selection_budget()``.
    """

    estimator: Any
    param_grid: Any
    epsilon: float
    scoring: str
    class_priors: Any
    accountant: Any
    random_state: int | None
    split_random_state: int | None

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Select privately among the public candidates; release one model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            All rows; cut data-independently into the parts the selector
            needs (see the class description).
        y : array-like of shape (n_samples,)
            Labels of X.

        Returns
        -------
        self
            The fitted selector.

        Raises
        ------
        TypeError, ValueError
            For a data-derived grid, an estimator without ``epsilon`` or bad
            parameters.
        BudgetExceededError
            If the accountant cannot afford (ε, δ); nothing is read or spent.
        """
        candidate_epsilon, delta = self._selection_budget(lambda: n_rows(X))
        start = self._begin_selection(
            X, y, candidate_epsilon=candidate_epsilon, delta=delta
        )
        best, estimator, event = self._select(start)
        # Charged before the selection is stored on self; if the spend fails (a
        # concurrent spend used the shared budget), the charge puts back what
        # _select already set (owner=self), so no model is left behind.
        start.ticket.spend(event)
        self.best_index_ = int(best)
        self.best_params_ = dict(start.candidates[best])
        self.best_estimator_ = estimator
        self.privacy_event_ = event
        return self

    def _selection_budget(
        self, n_samples: int | Callable[[], int]
    ) -> tuple[float | None, float | None]:
        """(ε of each candidate, end-to-end δ); ``None``: the defaults.

        ``n_samples`` is the public row count (for ``delta="auto"``). The
        defaults are the end-to-end ε for every candidate and, for δ, the
        largest ``delta`` of the candidates (see :meth:`_begin_selection`).
        """
        return None, None

    def _select(self, start: SelectionStart) -> tuple[int, Any, PrivacyEvent]:
        """Run the selector's procedure: (selected index, model, one event)."""
        raise NotImplementedError

    def _holdout_split(
        self, fraction_name: str, n: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """(held-out, rest) rows by the public fraction parameter ``fraction_name``.

        :func:`holdout_split` with that parameter's value and the selector's
        ``split_random_state`` (data-independent: the sizes depend on n only).
        """
        return holdout_split(
            n, getattr(self, fraction_name), fraction_name, self.split_random_state, rng
        )

    def _begin_selection(
        self,
        X: ArrayLike,
        y: ArrayLike,
        *,
        candidate_epsilon: float | None = None,
        delta: float | None = None,
    ) -> SelectionStart:
        """Validate, clone the candidates and check the budget; then read the data.

        Parameters
        ----------
        X, y
            The rows and labels given to ``fit``.
        candidate_epsilon : float or None
            ε of each candidate fit (``None``: the end-to-end ε).
        delta : float or None
            The end-to-end δ to check; ``None``: the largest ``delta`` of the
            candidates. When given, every candidate must be pure (δ = 0).

        Returns
        -------
        SelectionStart
            The validated inputs and the checked budget.
        """
        epsilon = check_epsilon(self.epsilon)
        candidates = check_param_grid(self.param_grid)
        rng = check_random_state(self.random_state)
        if candidate_epsilon is None:
            candidate_epsilon = epsilon
        estimators = prepare_candidates(self.estimator, candidates, candidate_epsilon)
        score = resolve_selection_score(self.scoring, self.class_priors, self.estimator)
        if delta is None:
            delta = max(candidate_delta(e) for e in estimators)
        elif any(candidate_delta(e) > 0 for e in estimators):
            raise ValueError(
                f"{type(self).__name__} composes pure-DP candidates only (delta = 0)."
            )
        ticket = charge_candidates(
            self.accountant, epsilon, delta, estimators, owner=self
        )
        Xd, yv = validated_rows(self, X, y)
        return SelectionStart(
            epsilon,
            candidate_epsilon,
            delta,
            candidates,
            rng,
            estimators,
            ticket,
            Xd,
            yv,
            score,
        )

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    @property
    def classes_(self) -> np.ndarray:
        """The label set of the selected estimator."""
        check_is_fitted(self, "best_estimator_")
        return np.asarray(self.best_estimator_.classes_)

    def _delegate(self, method: str, X: ArrayLike) -> np.ndarray:
        """``best_estimator_.<method>(X)`` as an array (post-processing)."""
        check_is_fitted(self, "best_estimator_")
        return np.asarray(getattr(self.best_estimator_, method)(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predict with the selected estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels ``best_estimator_.predict(X)``.
        """
        return self._delegate("predict", X)

    @available_if(_best_has("decision_function"))
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the selected estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_``.

        Returns
        -------
        ndarray
            The selected estimator's ``decision_function(X)``.
        """
        return self._delegate("decision_function", X)

    @available_if(_best_has("predict_proba"))
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the selected estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The selected estimator's ``predict_proba(X)``.
        """
        return self._delegate("predict_proba", X)

    def score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Accuracy of the selected estimator on (X, y).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_``.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), optional
            Weights.

        Returns
        -------
        float
            ``best_estimator_.score(X, y)``.
        """
        check_is_fitted(self, "best_estimator_")
        return float(self.best_estimator_.score(X, y, sample_weight=sample_weight))
