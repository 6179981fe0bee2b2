# SPDX-License-Identifier: BSD-3-Clause
"""Selection scores with a public sensitivity: mistakes, or mistakes weighted
by public class priors.

A private selector scores each candidate on held-out rows and releases a noisy
choice; the noise is calibrated to how much one replaced row can move a score.
Two scores are offered, both **sums over rows of a bounded per-row term**:

* ``"accuracy"`` — the number of mistakes z = Σᵢ 1[ŷᵢ ≠ yᵢ], sensitivity 1
  (Sarwate, Chaudhuri & Monteleoni 2009, Algorithm 3);
* ``"weighted-error"`` — z = Σᵢ w(yᵢ)·1[ŷᵢ ≠ yᵢ] with w(c) = 1/(K·π_c) for
  the K **public** class priors π (declared in the schema or given as
  ``class_priors``). Each row contributes at most max_c w(c), so replacing one
  row moves z by at most Δ = max_c w(c) (the contribution of the old row is
  removed and the new one's added, both in [0, Δ]); as a rate z/n the
  sensitivity is Δ/n. The weights are those of a balanced error under the
  public priors: with π equal to the true class shares, E[z]/n is the balanced
  error rate.

A metric normalised by the *private* class counts (balanced accuracy, F1 on
the held-out rows) has no such bound: one replaced row changes a small class's
count and every term divided by it, so it is not offered.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ._steps import final_step

__all__ = ["SCORINGS", "SelectionScore", "resolve_selection_score"]

#: The selection scores (``scoring=`` of the private selectors).
SCORINGS = ("accuracy", "weighted-error")


class SelectionScore:
    """A selection score: per-class weights of a mistake and its sensitivity.

    Parameters
    ----------
    weights : dict or None
        Weight of a mistake on each class (``None``: every mistake counts 1).

    Attributes
    ----------
    sensitivity : float
        Δ = the largest weight (1 for plain mistakes): the most one replaced
        row can move the score.
    name : str
        ``"-mistakes"`` or ``"-weighted-mistakes"`` (the utility is −z).

    Examples
    --------
    >>> score = SelectionScore({0: 0.5, 1: 5.0})
    >>> score.sensitivity
    5.0
    >>> score.mistakes(np.array([0, 1, 1]), np.array([1, 1, 0]))
    5.5
    """

    def __init__(self, weights: Mapping[Any, float] | None = None) -> None:
        self.weights = None if weights is None else dict(weights)
        self.sensitivity = (
            1.0 if self.weights is None else float(max(self.weights.values()))
        )
        self.name = "-mistakes" if weights is None else "-weighted-mistakes"

    def mistakes(self, y_true: np.ndarray, y_pred: np.ndarray) -> float:
        """z: the (weighted) number of mistakes of ``y_pred`` on ``y_true``.

        A label without a declared prior weighs Δ, the largest weight, so the
        sensitivity holds for every row.
        """
        wrong = np.asarray(y_pred) != np.asarray(y_true)
        if self.weights is None:
            return float(np.count_nonzero(wrong))
        y_true = np.asarray(y_true)
        w = np.full(y_true.shape[0], self.sensitivity)
        for label, weight in self.weights.items():
            w[y_true == label] = weight
        return float(np.sum(w[wrong]))

    def score(self, estimator: Any, X: Any, y: np.ndarray) -> float:
        """z of a fitted estimator (or pipeline) on the rows (X, y)."""
        return self.mistakes(y, np.asarray(estimator.predict(X)))


def _priors_mapping(priors: Any, classes: Sequence[Any] | None) -> dict[Any, float]:
    if isinstance(priors, Mapping):
        mapping = dict(priors)
    else:
        values = list(np.asarray(priors, dtype=np.float64).ravel())
        if classes is None:
            raise ValueError(
                "class_priors given as a list needs the public classes to pair "
                "them with: set the estimator's classes, or give class_priors as "
                "a dict {class: prior}"
            )
        if len(values) != len(classes):
            raise ValueError(
                f"class_priors has {len(values)} values for {len(classes)} public "
                "classes; give one prior per class, in the order of the classes"
            )
        mapping = dict(zip(classes, values, strict=True))
    out: dict[Any, float] = {}
    for label, p in mapping.items():
        value = float(p)
        if not (math.isfinite(value) and 0.0 < value <= 1.0):
            raise ValueError(
                f"class prior of {label!r} must be in (0, 1], got {p!r} (priors are "
                "public class proportions)"
            )
        out[label.item() if isinstance(label, np.generic) else label] = value
    if len(out) < 2:
        raise ValueError("class_priors must give a prior for at least 2 classes")
    if not math.isclose(sum(out.values()), 1.0, abs_tol=1e-6):
        raise ValueError(
            f"class_priors must sum to 1 (public class proportions), got "
            f"{sum(out.values()):.6g}"
        )
    return out


def schema_priors(estimator: Any) -> tuple[Any, Sequence[Any] | None]:
    """The ``label.priors`` of a pipeline's schema, with its classes, if declared."""
    from sklearn.pipeline import Pipeline

    from ..preprocessing import PublicSchema, SchemaTransformer

    if not isinstance(estimator, Pipeline):
        return None, None
    for _, step in estimator.steps[:-1]:
        if isinstance(step, SchemaTransformer) and step.schema is not None:
            schema = step.schema
            if isinstance(schema, Mapping):
                schema = PublicSchema.from_dict(schema)
            elif not isinstance(schema, PublicSchema):
                schema = PublicSchema.from_json(schema)  # a path
            priors = getattr(schema.label, "priors", None)
            if priors is not None:
                return priors, list(schema.classes)
    return None, None


def resolve_selection_score(
    scoring: str, class_priors: Any, estimator: Any
) -> SelectionScore:
    """The selection score of a selector, from public inputs only.

    Parameters
    ----------
    scoring : {"accuracy", "weighted-error"}
        The selector's ``scoring``.
    class_priors : dict, sequence or None
        The selector's ``class_priors``: public class proportions as
        ``{class: prior}`` or in the order of the estimator's ``classes``.
        ``None``: the ``label.priors`` of the pipeline's ``SchemaTransformer``
        schema, when declared.
    estimator : estimator or Pipeline
        The selector's estimator (its ``classes`` pair a list of priors).

    Returns
    -------
    SelectionScore
        Weights w(c) = 1/(K·π_c) for ``"weighted-error"``; none for
        ``"accuracy"``.

    Raises
    ------
    ValueError
        For an unknown score, ``"weighted-error"`` without public priors, or
        priors that are not proportions summing to 1.

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> s = resolve_selection_score(
    ...     "weighted-error", [0.9, 0.1], DPLinearSVC(classes=[0, 1]))
    >>> {k: round(v, 4) for k, v in s.weights.items()}, round(s.sensitivity, 4)
    ({0: 0.5556, 1: 5.0}, 5.0)
    """
    if scoring not in SCORINGS:
        raise ValueError(
            f"scoring must be one of {', '.join(map(repr, SCORINGS))}, got {scoring!r}"
        )
    if scoring == "accuracy":
        if class_priors is not None:
            raise ValueError(
                "class_priors is used by scoring='weighted-error' only; leave it out "
                "or set scoring='weighted-error'"
            )
        return SelectionScore(None)
    classes = final_step(estimator).get_params(deep=False).get("classes")
    if class_priors is None:
        class_priors, schema_classes = schema_priors(estimator)
        classes = schema_classes if schema_classes is not None else classes
    if class_priors is None:
        raise ValueError(
            "scoring='weighted-error' needs public class priors: pass "
            "class_priors={class: proportion, ...} (from public knowledge, never "
            "counted on the private rows) or declare label.priors in the schema"
        )
    priors = _priors_mapping(class_priors, None if classes is None else list(classes))
    k = len(priors)
    # w(c) = 1/(K·π_c): a balanced error under the public priors; Δ = max w(c).
    return SelectionScore({c: 1.0 / (k * p) for c, p in priors.items()})
