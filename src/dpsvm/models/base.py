# SPDX-License-Identifier: BSD-3-Clause
"""Shared machinery of the linear estimators: public bounds, labels, preprocessing."""

from __future__ import annotations

import dataclasses
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple, TypeVar

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, validate_data
from ..accounting.charge import Charge
from ..accounting.events import PrivacyEvent
from ..exceptions import PrivacyLeakWarning
from ..solvers import (
    RowScaledDesign,
    chunked_predict,
    chunked_scores,
    clip_factors,
    is_dask_array,
    prepare_dask_fit,
    project_sparse_rows,
    row_norms,
    scaled_design,
)
from ..utils._types import FloatArray
from ..validation import project_rows_to_ball

__all__ = ["LinearModelBase", "ScorePredictMixin"]


#: ``privacy_event_.details["label_set"]`` of a fit with ``classes=None``.
LABEL_SET_FROM_DATA = (
    "read from the private data (classes=None): which labels occur is released "
    "through classes_ and is not covered by the privacy guarantee"
)


def resolve_label_set(
    classes: ArrayLike | None, y: np.ndarray, *, all_public: bool = False
) -> np.ndarray:
    """The label set of a classifier: the public ``classes``, else read from y.

    ``classes=None`` reads the labels that occur in y and emits a
    :class:`~dpsvm.exceptions.PrivacyLeakWarning` naming ``classes``. Error
    messages name the option to change and never quote a label or a count read
    from y (``all_public``: y is already known to lie in ``classes``).
    """
    if classes is None:
        warnings.warn(
            "The label set was read from the private data (classes=None): which "
            "labels occur is then released through classes_ and is not covered "
            "by the privacy guarantee. Pass the public label set as classes=[...].",
            PrivacyLeakWarning,
            stacklevel=4,
        )
        out = np.unique(y)
        if out.size < 2:
            # "one class" says no more than the error itself (y has < 2 labels).
            raise ValueError(
                "Classifier needs samples of at least 2 classes; y holds one class "
                "and classes=None. Pass the public label set as classes=[...]."
            )
        return out
    out = np.unique(np.asarray(classes))
    if out.ndim != 1 or out.size != len(np.asarray(classes)):
        raise ValueError("classes must be a 1-D list of distinct labels.")
    if out.size < 2:
        raise ValueError(
            "Classifier needs a public label set of 2 or more classes; got "
            f"classes={out.tolist()}."
        )
    if not all_public and np.setdiff1d(np.unique(y), out).size:
        raise ValueError(
            "y contains labels that are not in the public label set "
            f"classes={out.tolist()}: add them to classes or drop those rows."
        )
    return out


def mark_label_set(event: PrivacyEvent, classes: ArrayLike | None) -> PrivacyEvent:
    """``event`` with ``details["label_set"]`` recorded when ``classes=None``."""
    if classes is not None:
        return event
    return dataclasses.replace(
        event, details={**event.details, "label_set": LABEL_SET_FROM_DATA}
    )


#: One private binary release: (targets, ε_k, δ_k) -> (weights, event, diagnostics).
BinaryRelease = Callable[
    [FloatArray, float, float], tuple[FloatArray, PrivacyEvent, dict[str, Any]]
]


def fit_one_vs_rest(
    fit_binary: BinaryRelease,
    targets: Sequence[FloatArray],
    epsilon: float,
    delta: float,
    classes: ArrayLike | None,
) -> tuple[FloatArray, PrivacyEvent, list[dict[str, Any]]]:
    """Run the K binary releases of a classifier and compose their events.

    Each of the K releases gets (ε/K, δ/K); sequential composition (Dwork &
    Roth 2014, Theorem 3.16) gives (ε, δ) in total. The event is marked when
    the label set was read from the data (``classes=None``).

    Returns
    -------
    W : ndarray of shape (K, n_weights)
        The released weights, one row per binary problem.
    event : PrivacyEvent
        The event of the one binary release, or the composed
        ``one-vs-rest(...)`` event with the K releases as children.
    infos : list of dict
        The solver diagnostics of each release (they read the data).
    """
    k = len(targets)
    eps_k, delta_k = epsilon / k, delta / k
    rows, events, infos = [], [], []
    for yk in targets:
        w, event, info = fit_binary(yk, eps_k, delta_k)
        rows.append(w)
        events.append(event)
        infos.append(info)
    if k == 1:
        event = events[0]
    else:
        event = PrivacyEvent(
            mechanism=f"one-vs-rest({events[0].mechanism})",
            epsilon=sum(e.epsilon for e in events),
            # δ ≤ 1 always; a non-private child has δ = 1 (and ε = ∞).
            delta=min(1.0, sum(e.delta for e in events)),
            reference=(
                "sequential composition over classes (Dwork & Roth 2014, Thm 3.16)"
            ),
            details={"n_classes": k},
            children=tuple(events),
        )
    W = np.asarray(np.vstack(rows), dtype=np.float64)
    return W, mark_label_set(event, classes), infos


def check_one_vs_rest_event(event: PrivacyEvent, k: int) -> tuple[PrivacyEvent, ...]:
    """Refuse a read-back event that is not :func:`fit_one_vs_rest`'s composition.

    For a model file: ``event`` must be the ``one-vs-rest(...)`` event of ``k``
    releases of one mechanism, with ``details["n_classes"] == k``, its ε and δ
    the sequential composition of the children's (Dwork & Roth 2014,
    Theorem 3.16) and one public n across the children. The caller checks each
    child against the estimator's parameters; together a file cannot report
    less than the children it is made of.

    Returns
    -------
    tuple of PrivacyEvent
        The ``k`` children.
    """
    children = event.children
    if (
        len(children) != k
        or event.mechanism != f"one-vs-rest({children[0].mechanism})"
        or event.details.get("n_classes") != k
        or any(c.mechanism != children[0].mechanism for c in children)
    ):
        raise ValueError(f"expected a one-vs-rest event of {k} releases.")
    for what, got, want in (
        ("epsilon", event.epsilon, sum(c.epsilon for c in children)),
        ("delta", event.delta, min(1.0, sum(c.delta for c in children))),
    ):
        if not (got == want or math.isclose(got, want, rel_tol=1e-12)):
            raise ValueError(
                f"the one-vs-rest event's {what} is {got!r}; its {k} releases "
                f"compose to {want!r}."
            )
    if len({c.details.get("n_samples") for c in children}) != 1:
        raise ValueError("the per-class events disagree on n_samples.")
    return children


def release_one_vs_rest(
    estimator: Any,
    fit_binary: BinaryRelease,
    targets: Sequence[FloatArray],
    epsilon: float,
    delta: float,
    ticket: Charge,
) -> list[dict[str, Any]]:
    """:func:`fit_one_vs_rest`, then publish the release and pay for it.

    Spends the composed event on ``ticket`` (the accountant checked before the
    data were read), then sets ``coef_`` / ``intercept_`` (the estimator's
    ``_set_coef``), ``privacy_event_`` and ``solver_info_``: a spend refused
    after the check (a concurrent release used the shared budget) leaves no
    released model on the estimator.

    Returns
    -------
    list of dict
        The solver diagnostics of each binary release (they read the data).
    """
    W, event, infos = fit_one_vs_rest(
        fit_binary, targets, epsilon, delta, estimator.classes
    )
    ticket.spend(event)
    estimator._set_coef(W)
    estimator.privacy_event_ = event
    estimator.solver_info_ = infos
    return infos


# -- model files (dpsvm.io) ----------------------------------------------------
class SavedAttribute(NamedTuple):
    """One entry of an estimator's ``_saved_attributes`` (the ``state`` of its file).

    ``kind`` is ``"labels"`` (a label list, written with a ``label_type`` key
    beside it; at least 2 distinct labels), ``"count"`` (an integer >= 1),
    ``"positive"`` (a finite number > 0), ``"array"`` (finite numbers of
    ``shape``, whose dimensions name a ``"count"`` key read before or
    ``"n_outputs"``: 1 for two labels, else the number of labels) or
    ``"custom"`` (written by ``_state_to_dict`` and read by
    ``_state_from_dict``; ``attribute`` is informative only).
    """

    key: str
    attribute: str
    kind: str
    shape: tuple[str, ...] = ()


#: The estimators that dpsvm.io writes, by their registered (file) name.
MODEL_FILE_REGISTRY: dict[str, type] = {}

_Estimator = TypeVar("_Estimator", bound=type)


def model_file(name: str):  # type: ignore[no-untyped-def]
    """Class decorator: register an estimator for :mod:`dpsvm.io` under ``name``.

    The class declares its state by ``_saved_attributes`` (a tuple of
    :class:`SavedAttribute`), optionally ``_unsaved_params`` and the hooks
    ``_state_to_dict(codec)`` / ``_state_from_dict(state, codec)``; a private
    estimator defines ``_check_saved_event(event)`` (see :mod:`dpsvm.io`).
    Subclasses are not registered: a file names exactly one class.
    """

    def register(cls: _Estimator) -> _Estimator:
        if name in MODEL_FILE_REGISTRY:
            raise ValueError(f"model-file name {name!r} is already registered.")
        cls._model_file_name = name  # type: ignore[attr-defined]
        MODEL_FILE_REGISTRY[name] = cls
        return cls

    return register


class ScorePredictMixin:
    """``predict`` from ``decision_function`` and ``classes_``.

    Binary models score the second class positive; one-vs-rest models take the
    class with the highest score. Prediction post-processes the released model,
    so it costs no privacy.

    Examples
    --------
    >>> import numpy as np
    >>> from dpsvm.models.base import ScorePredictMixin
    >>> class Fixed(ScorePredictMixin):
    ...     classes_ = np.array(["no", "yes"])
    ...     def decision_function(self, X):
    ...         return np.asarray(X, dtype=float)[:, 0]
    >>> Fixed().predict([[-1.0], [2.0]]).tolist()
    ['no', 'yes']
    """

    classes_: np.ndarray

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self.decision_function(X)  # type: ignore[attr-defined]
        if is_dask_array(scores):  # lazily, chunk by chunk
            return chunked_predict(self.classes_, scores)  # type: ignore[no-any-return]
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class LinearModelBase(ScorePredictMixin, ClassifierMixin, BaseEstimator):
    """Bias-free linear classifier on rows projected onto a public ball.

    Subclasses implement ``_fit_binary(Xt, y, ...)`` on the *internal* problem:
    rows x̃ = [proj(x), s]/R with ‖x̃‖ ≤ 1 and regularisation λ = Λ/R², where R is
    ``data_norm`` and s = ``intercept_scaling``·R when ``fit_intercept``.

    Examples
    --------
    The concrete members of the family share this base:

    >>> from dpsvm.models import DPLinearSVC, DPLogisticRegression
    >>> from dpsvm.models.base import LinearModelBase
    >>> issubclass(DPLinearSVC, LinearModelBase)
    True
    >>> issubclass(DPLogisticRegression, LinearModelBase)
    True
    """

    _parameter_constraints: dict[str, list[Any]] = {
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "data_norm": [Interval(Real, 0, None, closed="neither"), None],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, 1, closed="neither")],
        "classes": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    # -- public bounds ---------------------------------------------------------
    def _labels_all_public(self, y: np.ndarray) -> bool:
        """Whether every label is in the public ``classes`` (a cheap check).

        A fast path only: ``False`` means "not shown", and the caller then runs
        the full checks, which word the error.
        """
        if self.classes is None:
            return False
        classes = np.asarray(self.classes)
        numeric = "iufb"
        if classes.ndim != 1 or not 2 <= classes.size <= 16:
            return False
        if not (
            (y.dtype.kind in numeric and classes.dtype.kind in numeric)
            or (y.dtype.kind in "US" and classes.dtype.kind in "US")
        ):
            return False
        known = y == classes[0]
        for c in classes[1:]:
            known |= y == c
        return bool(np.all(known))

    def _resolve_classes(self, y: np.ndarray, all_public: bool = False) -> np.ndarray:
        return resolve_label_set(self.classes, y, all_public=all_public)

    def _resolve_data_norm(self, norms: FloatArray) -> float:
        if self.data_norm is not None:
            return float(self.data_norm)
        norm = float(np.max(norms)) if norms.size else 1.0
        # The message names the option, never the value (it is data-derived).
        warnings.warn(
            "data_norm=None: the row-norm bound was computed from the private data "
            "(stored in data_norm_); the privacy guarantee does not hold. Set "
            "data_norm to a public bound on ‖x‖₂.",
            PrivacyLeakWarning,
            stacklevel=3,
        )
        return norm if norm > 0 else 1.0

    def _resolve_regularization(self, n: int, R: float, n_problems: int) -> float:
        """Λ of this fit: the ``regularization`` parameter (a number here)."""
        return float(self.regularization)

    # -- preprocessing ---------------------------------------------------------
    def _radius(self, R: float) -> float:
        """Radius of the x part: R, or √(R² − s²) beside the constant feature s."""
        if not self.fit_intercept:
            return R
        s = self.intercept_scaling * R
        return math.sqrt(R * R - s * s)

    def _design(self, X: Any, R: float, norms: FloatArray | None) -> RowScaledDesign:
        """Internal rows x̃ = [proj(x), s]/R as a per-row scale of ``X`` (no copy).

        ``norms`` are the rows' computed norms, or ``None`` when some overflow
        (then, and only then, a projected copy is made).
        """
        const = self.intercept_scaling if self.fit_intercept else None  # s/R
        return scaled_design(X, norms, self._radius(R), R, const)

    def _prepare_fit(
        self, X: Any, y: ArrayLike
    ) -> tuple[RowScaledDesign, list[FloatArray], float]:
        if is_dask_array(X):  # out of core: passes over the chunks (_dask.py)
            return prepare_dask_fit(self, X, y)  # type: ignore[return-value]
        # float32/float64, any order, or CSR: used in place. One pass computes
        # the row norms, which also reveal any NaN/inf entry (its row norm is
        # not finite); scikit-learn's own check then runs only to word the error.
        X, y = validate_data(
            self,
            X,
            y,
            dtype=[np.float64, np.float32],
            accept_sparse="csr",
            ensure_all_finite=False,
        )
        computed = row_norms(X)
        norms: FloatArray | None = computed
        if not np.all(np.isfinite(computed)):
            assert_all_finite(X.data if scipy.sparse.issparse(X) else X, input_name="X")
            norms = None  # finite entries whose squares overflow
        y = np.asarray(y)
        # Labels all in the public set are valid class labels by construction;
        # otherwise scikit-learn's checks run (and word any error).
        all_public = self._labels_all_public(y)
        if not all_public:
            check_classification_targets(y)
        self.classes_ = self._resolve_classes(y, all_public)
        R = self._resolve_data_norm(computed)
        self.data_norm_ = R
        # ±1 targets as int8 (an eighth of the memory of float64); every
        # product with them is taken in float64, with the same values.
        targets = one_vs_rest_targets(y, self.classes_, np.int8)
        # λ first: a data-derived R (data_norm=None) outside the float range is
        # refused with its own message before any row is projected onto it.
        lam = self._internal_lambda(X.shape[0], R, len(targets))
        return self._design(X, R, norms), targets, lam

    def _internal_lambda(self, n: int, R: float, n_problems: int) -> float:
        """λ = Λ/R² of the internal problem, refused outside the float range.

        ``n_problems`` is the number of binary (one-vs-rest) releases, which
        share ε under the ``"auto"`` rule.
        """
        r2 = R * R
        # The resolved Λ (a number, or the public rule of regularization="auto");
        # the parameter itself is never overwritten.
        self.regularization_ = self._resolve_regularization(n, R, n_problems)
        # x̃ = x/R ⇒ λ = Λ/R² (module docstring)
        lam = self.regularization_ / r2 if r2 > 0 else math.inf
        if not (sys.float_info.min <= lam < math.inf and n * lam < math.inf):
            # Quote the parameters only: with data_norm=None, λ is data-derived.
            raise ValueError(
                f"regularization / data_norm² (regularization={self.regularization!r}, "
                f"data_norm={self.data_norm!r}) is outside the floating-point range "
                "the calibrations need; rescale the features so that data_norm is "
                "closer to 1."
            )
        return lam

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()
        # CSR rows are used in place (clipping as a per-row scale, sparse
        # products), in fit and in prediction.
        tags.input_tags.sparse = True
        return tags

    def _set_coef(self, W: FloatArray) -> None:
        """Store internal unit-ball weights W (one row per binary problem)."""
        R = self.data_norm_
        n_feat = self.n_features_in_
        self.coef_ = W[:, :n_feat] / R
        if self.fit_intercept:
            self.intercept_ = W[:, n_feat] * self.intercept_scaling
        else:
            self.intercept_ = np.zeros(W.shape[0])

    # -- prediction ------------------------------------------------------------
    def decision_function(self, X: Any) -> FloatArray:
        """Signed scores ⟨coef_, proj(x)⟩ + intercept_.

        Rows are projected onto the same public ball as in ``fit``, so a row's
        score depends on that row alone.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Scores; one column per class for more than two classes.
        """
        check_is_fitted(self)
        if is_dask_array(X):  # a lazy dask array of scores, chunk by chunk
            return chunked_scores(self, X)  # type: ignore[no-any-return]
        X = validate_data(
            self, X, dtype=[np.float64, np.float32], accept_sparse="csr", reset=False
        )
        radius = self._radius(self.data_norm_)
        norms = row_norms(X)
        if np.all(np.isfinite(norms)):
            D = RowScaledDesign(X, clip_factors(norms, radius))
        elif scipy.sparse.issparse(X):  # ‖x‖² overflowed: a projected copy
            D = RowScaledDesign(project_sparse_rows(X, radius))
        else:  # ‖x‖² overflowed for finite entries: project a copy
            D = RowScaledDesign(project_rows_to_ball(X, radius))
        scores = np.column_stack([D.matvec(c) for c in self.coef_]) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _predict_proba_from_scores(self, scores: FloatArray) -> FloatArray:
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        p = expit(scores)
        return p / p.sum(axis=1, keepdims=True)

    # -- model file (dpsvm.io): the released state ------------------------------
    _saved_attributes: ClassVar[tuple[SavedAttribute, ...]] = (
        SavedAttribute("classes", "classes_", "labels"),
        SavedAttribute("coef", "coef_", "array", ("n_outputs", "n_features_in")),
        SavedAttribute("intercept", "intercept_", "array", ("n_outputs",)),
        SavedAttribute("data_norm", "data_norm_", "positive"),
        SavedAttribute("n_features_in", "n_features_in_", "count"),
    )

    def _state_from_dict(self, state: dict[str, Any], codec: Any) -> None:
        if not self.fit_intercept and np.any(self.intercept_ != 0):
            raise ValueError(
                "intercept must be zero when params.fit_intercept is false."
            )


# -- shared pieces for estimators outside LinearModelBase ----------------------
# (random-feature and kernel models; the Nie–Wang and model-selection
# estimators can use them too).


def reference_label_set(
    classes: ArrayLike | None, y: np.ndarray, *, all_public: bool = False
) -> np.ndarray:
    """Label set of a non-private reference model: ``classes``, else read from y.

    As :func:`resolve_label_set`, but ``classes=None`` does not warn: nothing
    about a non-private model is covered by a guarantee.
    """
    if classes is None:
        out = np.unique(y)
        if out.size < 2:
            raise ValueError(
                "Classifier needs samples of at least 2 classes; got 1 class."
            )
        return out
    return resolve_label_set(classes, y, all_public=all_public)


def one_vs_rest_targets(
    y: np.ndarray, classes: np.ndarray, dtype: type = np.float64
) -> list[np.ndarray]:
    """±1 targets: one problem (``classes[1]`` positive) for two classes, else one
    per class (one-vs-rest)."""
    one, minus_one = dtype(1.0), dtype(-1.0)
    if classes.size == 2:
        return [np.where(y == classes[1], one, minus_one)]
    return [np.where(y == c, one, minus_one) for c in classes]


class PublicParameterFitMixin:
    """``fit(X, y)`` written once: check the public parameters, then ``_fit``.

    Subclasses implement ``_fit(X, y)`` (usually wrapped in ``_fit_context``)
    and may override :meth:`_check_public_parameters` to refuse data-dependent
    values (e.g. a string kernel width) before parameter validation runs.
    """

    def _check_public_parameters(self) -> None:
        """Refuse parameter values that would read the data (hook; none here)."""

    def _fit(self, X: Any, y: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X: ArrayLike, y: ArrayLike) -> Any:
        """Fit the estimator.

        Private estimators check their accountant before the data are read and
        charge it only after the model is computed (a failed fit spends
        nothing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Labels.

        Returns
        -------
        self
            The fitted estimator.
        """
        self._check_public_parameters()
        return self._fit(X, y)


class ScoreColumnsMixin(ScorePredictMixin):
    """``decision_function`` from ``_scores`` (one column per binary problem).

    ``_scores`` comes from the estimator's base class; it is only declared here,
    so that it does not shadow that implementation in the method order.
    """

    _scores: Callable[[ArrayLike], FloatArray]

    def decision_function(self, X: ArrayLike) -> FloatArray:
        """Signed scores of the released model (post-processing, no privacy cost).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Scores; one column per class for more than two classes.
        """
        scores = self._scores(X)
        return scores.ravel() if scores.shape[1] == 1 else scores


class NoisyFitTagsMixin:
    """scikit-learn tags of a private estimator (list it first among the bases).

    Private fits on the few hundred rows of scikit-learn's contract tests are
    dominated by noise at the default ε: ``poor_score`` lifts the contract's
    accuracy bar (accuracy is checked on real data in tests/models instead),
    and ``non_deterministic``: the noise is random unless ``random_state`` is
    fixed.
    """

    def __sklearn_tags__(self):  # type: ignore[no-untyped-def]
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        for kind in (tags.classifier_tags, tags.regressor_tags):
            if kind is not None:
                kind.poor_score = True
        tags.non_deterministic = True
        return tags
