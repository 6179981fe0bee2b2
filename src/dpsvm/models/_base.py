# SPDX-License-Identifier: BSD-3-Clause
"""Shared machinery of the linear estimators: public bounds, labels, preprocessing."""

from __future__ import annotations

import math
import sys
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, validate_data
from ..exceptions import PrivacyLeakWarning
from ..validation import project_rows_to_ball

__all__ = ["LinearModelBase", "ScorePredictMixin"]

FloatArray = NDArray[np.float64]


def _row_norms(X: FloatArray) -> FloatArray:
    """Computed Euclidean row norms, exactly as :func:`project_rows_to_ball` does."""
    norms = np.einsum("ij,ij->i", X, X)
    np.sqrt(norms, out=norms)
    return norms


class ScorePredictMixin:
    """``predict`` from ``decision_function`` and ``classes_``.

    Binary models score the second class positive; one-vs-rest models take the
    class with the highest score. Prediction post-processes the released model,
    so it costs no privacy.
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
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class LinearModelBase(ScorePredictMixin, ClassifierMixin, BaseEstimator):
    """Bias-free linear classifier on rows projected onto a public ball.

    Subclasses implement ``_fit_binary(Xt, y, ...)`` on the *internal* problem:
    rows x̃ = [proj(x), s]/R with ‖x̃‖ ≤ 1 and regularisation λ = Λ/R², where R is
    ``data_norm`` and s = ``intercept_scaling``·R when ``fit_intercept``.
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
        present = None if all_public else np.unique(y)
        if self.classes is None:
            warnings.warn(
                "The label set was read from the private data (classes=None): which "
                "labels occur is then released through classes_ and is not covered "
                "by the privacy guarantee. Pass the public label set as classes=[...].",
                PrivacyLeakWarning,
                stacklevel=3,
            )
            assert present is not None
            classes = present
        else:
            classes = np.unique(np.asarray(self.classes))
            if classes.ndim != 1 or classes.size != len(np.asarray(self.classes)):
                raise ValueError("classes must be a 1-D list of distinct labels.")
            unknown = np.empty(0) if present is None else np.setdiff1d(present, classes)
            if unknown.size:
                raise ValueError(
                    f"y contains labels {unknown.tolist()[:5]} that are not in the "
                    f"public label set classes={classes.tolist()}."
                )
        if classes.size < 2:
            raise ValueError(
                "Classifier needs samples of at least 2 classes in the data (or a "
                f"public label set of 2 or more classes); got {classes.size} class."
            )
        return classes

    def _resolve_data_norm(self, X: FloatArray) -> float:
        if self.data_norm is not None:
            return float(self.data_norm)
        norm = float(np.max(np.linalg.norm(X, axis=1))) if X.size else 1.0
        warnings.warn(
            "data_norm=None: the row-norm bound was computed from the private data "
            f"({norm:.6g}); the privacy guarantee does not hold. Set data_norm to a "
            "public bound on ‖x‖₂.",
            PrivacyLeakWarning,
            stacklevel=3,
        )
        return norm if norm > 0 else 1.0

    # -- preprocessing ---------------------------------------------------------
    def _augment(
        self, X: FloatArray, R: float, norms: FloatArray | None = None
    ) -> FloatArray:
        """Rows [proj(x), s] with norm ≤ R (not yet divided by R).

        Returns ``X`` itself (never modified downstream) when R = 1 and every row
        is already in the ball, to spare a copy of large inputs; otherwise a new
        array. ``norms`` are the rows' computed norms, if already known.
        """
        if not self.fit_intercept:
            if R == 1.0:
                # The same test as project_rows_to_ball (a row is moved iff its
                # computed norm exceeds the radius), so rows it would leave
                # unchanged never force a copy.
                if norms is None:
                    norms = _row_norms(X)
                if np.all(norms <= 1.0):
                    return X
            return np.asarray(project_rows_to_ball(X, R), dtype=np.float64)
        s = self.intercept_scaling * R
        Xp = project_rows_to_ball(X, math.sqrt(R * R - s * s))
        return np.hstack([Xp, np.full((X.shape[0], 1), s)])

    def _prepare_fit(
        self, X: ArrayLike, y: ArrayLike
    ) -> tuple[FloatArray, list[FloatArray], float]:
        # One pass computes the row norms, which also reveal any NaN/inf entry
        # (its row norm is not finite); scikit-learn's own check then runs only
        # to word the error.
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=False)
        X = np.asarray(X, dtype=np.float64)
        row_norms = _row_norms(X)
        norms: FloatArray | None = row_norms
        if not np.all(np.isfinite(row_norms)):
            assert_all_finite(X, input_name="X")
            norms = None  # finite entries whose squares overflow
        y = np.asarray(y)
        # Labels all in the public set are valid class labels by construction;
        # otherwise scikit-learn's checks run (and word any error).
        all_public = self._labels_all_public(y)
        if not all_public:
            check_classification_targets(y)
        self.classes_ = self._resolve_classes(y, all_public)
        R = self._resolve_data_norm(X)
        self.data_norm_ = R
        Xt = self._augment(X, R, norms)
        if R != 1.0:
            Xt /= R  # a new array whenever R ≠ 1: the caller's X is never modified
        y = np.asarray(y)
        if self.classes_.size == 2:
            targets = [np.where(y == self.classes_[1], 1.0, -1.0)]
        else:
            targets = [np.where(y == c, 1.0, -1.0) for c in self.classes_]
        n = X.shape[0]
        r2 = R * R
        # x̃ = x/R ⇒ λ = Λ/R² (module docstring)
        lam = self.regularization / r2 if r2 > 0 else math.inf
        if not (sys.float_info.min <= lam < math.inf and n * lam < math.inf):
            raise ValueError(
                f"regularization / data_norm² = {lam:g} is outside the floating-point "
                "range the calibrations need; rescale the features so that "
                "data_norm is closer to 1."
            )
        return Xt, targets, lam

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
    def decision_function(self, X: ArrayLike) -> FloatArray:
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
        X = validate_data(self, X, dtype=np.float64, reset=False)
        R = self.data_norm_
        radius = R
        if self.fit_intercept:
            s = self.intercept_scaling * R
            radius = math.sqrt(R * R - s * s)
        scores = project_rows_to_ball(X, radius) @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def _predict_proba_from_scores(self, scores: FloatArray) -> FloatArray:
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        p = expit(scores)
        return p / p.sum(axis=1, keepdims=True)
