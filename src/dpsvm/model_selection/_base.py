# SPDX-License-Identifier: BSD-3-Clause
"""Common prediction methods of the private selectors (delegation only)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

__all__ = ["SelectorBase"]


def _best_has(name: str):  # type: ignore[no-untyped-def]
    def check(self: Any) -> bool:
        if hasattr(self, "best_estimator_"):
            getattr(self.best_estimator_, name)
        else:
            getattr(self.estimator, name)
        return True

    return check


class SelectorBase(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Prediction by the selected estimator (``best_estimator_``)."""

    estimator: Any

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    @property
    def classes_(self) -> np.ndarray:
        """The label set of the selected estimator."""
        check_is_fitted(self, "best_estimator_")
        return np.asarray(self.best_estimator_.classes_)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predict with the selected estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_`` to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels ``best_estimator_.predict(X)``.
        """
        check_is_fitted(self, "best_estimator_")
        return np.asarray(self.best_estimator_.predict(X))

    @available_if(_best_has("decision_function"))
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the selected estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows for ``best_estimator_`` to score.

        Returns
        -------
        ndarray
            The selected estimator's ``decision_function(X)``.
        """
        check_is_fitted(self, "best_estimator_")
        return np.asarray(self.best_estimator_.decision_function(X))

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
        check_is_fitted(self, "best_estimator_")
        return np.asarray(self.best_estimator_.predict_proba(X))

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
