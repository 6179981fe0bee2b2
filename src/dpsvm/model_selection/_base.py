# SPDX-License-Identifier: BSD-3-Clause
"""The base of the private selectors: one ``fit``, prediction by delegation.

Every selector follows the same order (STYLE.md, "Privacy parameters and
budget"), written once in :meth:`SelectorBase.fit`: validate the public grid,
clone the candidates, check the budget through :func:`dpsvm.accounting.charge`
before any data are read, run the selector's own procedure
(``_select``), then record its one event and spend it. The numpydoc entries
the selectors share are :data:`DOC_FRAGMENTS` (``%(name)s`` lines, see
:func:`dpsvm.utils._docs.fill_doc`).
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
from ..utils._docs import fill_doc
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

#: numpydoc entries shared by the selectors' docstrings (``%(name)s`` lines).
DOC_FRAGMENTS = {
    "estimator": """estimator : estimator object or Pipeline
    A differentially private classifier with an ``epsilon`` parameter (and
    ``accountant`` / ``random_state`` parameters, which the selector sets),
    e.g. :class:`~dpsvm.models.DPLinearSVC`. It must record a
    ``privacy_event_`` when fitted. Its own ``accountant`` must be None.
    Or a :class:`~sklearn.pipeline.Pipeline` ending in such an estimator
    whose earlier steps are public (a
    :class:`~dpsvm.preprocessing.SchemaTransformer`, a step wrapped in
    :class:`~dpsvm.preprocessing.PublicStep`, or ``"passthrough"``); a step
    that would be fitted on the private rows (``StandardScaler``, ``PCA``,
    an imputer) is refused. The final step's parameters are the privacy
    parameters, and grid keys use the ``step__param`` form
    (``dplinearsvc__regularization``).""",
    "budget_and_randomness": """\
scoring : {"accuracy", "weighted-error"}, default="accuracy"
    How a candidate is scored on held-out rows: ``"accuracy"`` counts
    mistakes (sensitivity 1); ``"weighted-error"`` weighs a mistake on class
    c by w(c) = 1/(K·π_c) for the K public class priors π, whose sensitivity
    is max_c w(c) (max-weight/n as a rate). The noise of the selection is
    calibrated to that sensitivity (McSherry & Talwar 2007, Thm 6, for the
    exponential mechanism; Dwork & Roth 2014, Thm 3.6, for Laplace scores).
    Use it on imbalanced problems, where mistake counts favour a constant
    classifier. Metrics normalised by the private class counts (balanced
    accuracy) have no public sensitivity and are not offered.
class_priors : dict, array-like or None, default=None
    Public class proportions for ``scoring="weighted-error"``, summing to 1:
    ``{class: prior}``, or one prior per class in the order of the
    estimator's ``classes``. ``None``: the ``label.priors`` of the pipeline's
    schema when declared. They must come from public knowledge (a census,
    a published rate), never from the private rows.
accountant : BudgetAccountant or None, default=None
    Checked for (ε, δ) before the data are read and charged once, with one
    :class:`~dpsvm.accounting.PrivacyEvent`, after a successful fit; a
    failed fit spends nothing.
random_state : None or int, default=None
    Drives the split, the candidates' noise and the selection. ``None``
    uses a ChaCha20 CSPRNG keyed by the OS. An int makes everything
    reproducible — **for tests and documentation only, never for a real
    release**. A generator object is refused at ``fit`` (here and on the
    tuned estimator: kept as a parameter, it would replay the noise).
split_random_state : None or int, default=None
    Seed of the data split alone (it reads no record, so a seed is fine
    here, e.g. for a reproducible, publishable split while the noise comes
    from the CSPRNG). ``None``: drawn from ``random_state``'s generator. A
    generator object is refused at ``fit``, as for every public seed.""",
    "event_and_features": """privacy_event_ : PrivacyEvent
    One event for the whole procedure (ε, δ end to end); its children are
    the component releases (candidate fits, noisy scores, the selection).
n_features_in_ : int
    Number of features seen in ``fit``.""",
    "rows_for_best_estimator": """Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Rows for ``best_estimator_``.

Returns
-------""",
    "example_data": """>>> from dpsvm.datasets import make_nested_balls
>>> from dpsvm.models import DPLinearSVC
>>> X, y = make_nested_balls(4000, random_state=0)
>>> grid = {"regularization": [1e-2, 1e-1]}""",
}

#: Class decorator expanding the ``%(name)s`` lines of :data:`DOC_FRAGMENTS`.
selector_doc = fill_doc(DOC_FRAGMENTS)


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

    @selector_doc
    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predict with the selected estimator.

        %(rows_for_best_estimator)s
        ndarray of shape (n_samples,)
            The labels ``best_estimator_.predict(X)``.
        """
        return self._delegate("predict", X)

    @available_if(_best_has("decision_function"))
    @selector_doc
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Scores of the selected estimator.

        %(rows_for_best_estimator)s
        ndarray
            The selected estimator's ``decision_function(X)``.
        """
        return self._delegate("decision_function", X)

    @available_if(_best_has("predict_proba"))
    @selector_doc
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the selected estimator.

        %(rows_for_best_estimator)s
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
