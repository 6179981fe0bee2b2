# SPDX-License-Identifier: BSD-3-Clause
"""The figures of `dpsvm evaluate` and `dpsvm sweep`: metrics that tell the truth.

Accuracy alone hides a model that never predicts the rare class: on a 94/6
split, always answering the majority class scores 0.94. So both commands give,
beside the accuracy, the **majority-class rate** of the evaluation rows (the
accuracy of always answering their most frequent class), the **balanced
accuracy** (mean recall over the classes), the **F1 of each class**, the **ROC
AUC** where the model has scores (``decision_function`` or ``predict_proba``)
and the **confusion matrix**, all computed with :mod:`sklearn.metrics`; an
accuracy at or below the majority-class rate gets a plain warning.

Every figure here is computed exactly from the evaluation rows, which the
person running the command holds: they are evaluation figures for that person,
NOT differentially private releases (the model file and the privacy report never
contain them).

Classes are listed in their *declared* order (a schema's ``label.classes``, or
the model's ``classes`` parameter), not in the sorted order of ``classes_``;
for a binary model the second declared class is the positive one of the ROC AUC.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "METRICS",
    "Evaluation",
    "declared_classes",
    "evaluate_model",
    "evaluation_json",
    "evaluation_text",
    "majority_warning",
    "metrics_option",
    "reorder_columns",
]

#: The names ``evaluate --metrics`` accepts, in the order they are printed.
METRICS = (
    "accuracy",
    "majority-rate",
    "balanced-accuracy",
    "f1",
    "roc-auc",
    "confusion-matrix",
)


def metrics_option(text: str) -> tuple[str, ...]:
    """The ``--metrics`` value: comma-separated names of :data:`METRICS`, or ``all``.

    Parameters
    ----------
    text : str
        The option's text, e.g. ``"accuracy,f1"`` (``_`` reads as ``-``).

    Returns
    -------
    tuple of str
        The chosen metrics, in :data:`METRICS` order.

    Examples
    --------
    >>> metrics_option("f1, balanced_accuracy")
    ('balanced-accuracy', 'f1')
    >>> metrics_option("all") == METRICS
    True
    """
    chosen: set[str] = set()
    for part in text.split(","):
        name = part.strip().lower().replace("_", "-")
        if name == "all":
            chosen.update(METRICS)
        elif name in METRICS:
            chosen.add(name)
        else:
            raise argparse.ArgumentTypeError(
                f"unknown metric {part.strip()!r}; choose from "
                f"{', '.join(METRICS)} or all (comma-separated)"
            )
    return tuple(m for m in METRICS if m in chosen)


def _py(value: Any) -> Any:
    """A plain Python scalar (so that 1 == 1.0 and labels hash alike)."""
    return value.item() if isinstance(value, np.generic) else value


def declared_classes(model: Any) -> list[Any]:
    """The model's classes in their declared order.

    The schema's ``label.classes`` for a model trained with ``--schema``; else
    the model's ``classes`` parameter when it names the same labels as
    ``classes_``; else ``classes_`` (sorted).

    Parameters
    ----------
    model : estimator
        A fitted model.

    Returns
    -------
    list
        The classes, as Python scalars.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> declared_classes(SimpleNamespace(classes=[2, 1], classes_=np.array([1, 2])))
    [2, 1]
    """
    fitted = [_py(c) for c in np.asarray(model.classes_).tolist()]
    schema = getattr(model, "public_schema_", None)
    candidates = [] if schema is None else [list(schema.classes)]
    given = getattr(model, "classes", None)
    if given is not None:
        candidates.append([_py(c) for c in np.asarray(given).tolist()])
    for order in candidates:
        if len(order) == len(fitted) and set(order) == set(fitted):
            return [_py(c) for c in order]
    return fitted


def reorder_columns(
    values: np.ndarray, fitted: Sequence[Any], declared: Sequence[Any]
) -> np.ndarray:
    """The columns of ``values`` (in ``fitted`` order) put in ``declared`` order.

    Parameters
    ----------
    values : ndarray of shape (n, K)
        One column per class of ``fitted`` (e.g. ``predict_proba``).
    fitted : sequence
        The classes of the columns (the model's ``classes_``).
    declared : sequence
        The same classes in the wanted order.

    Returns
    -------
    ndarray of shape (n, K)
        The columns reordered.

    Examples
    --------
    >>> reorder_columns(np.array([[0.2, 0.8]]), [1, 2], [2, 1]).tolist()
    [[0.8, 0.2]]
    """
    position = {_py(c): j for j, c in enumerate(fitted)}
    return np.asarray(values)[:, [position[_py(c)] for c in declared]]


def _scores(model: Any, rows: Any, declared: Sequence[Any]) -> np.ndarray | None:
    """One score column per declared class (larger: more likely), or ``None``."""
    fitted = [_py(c) for c in np.asarray(model.classes_).tolist()]
    if hasattr(model, "decision_function"):
        scores = np.asarray(model.decision_function(rows), dtype=np.float64)
        if scores.ndim == 1:  # binary: the score of classes_[1]
            scores = np.column_stack([-scores, scores])
    elif hasattr(model, "predict_proba"):
        scores = np.asarray(model.predict_proba(rows), dtype=np.float64)
    else:
        return None
    if scores.ndim != 2 or scores.shape[1] != len(fitted):
        return None
    if set(fitted) != {_py(c) for c in declared}:
        return None  # a model that never saw some class: no score for it
    return reorder_columns(scores, fitted, declared)


@dataclass(frozen=True)
class Evaluation:
    """The figures of one model on one set of labelled rows.

    Attributes
    ----------
    n : int
        Number of rows.
    classes : list
        The classes, in declared order (the order of ``f1`` and of the rows and
        columns of ``confusion``).
    accuracy : float
        Share of rows predicted right.
    majority_rate : float
        Share of the most frequent class among these rows: the accuracy of
        always answering it.
    balanced_accuracy : float
        Mean recall over the classes present in these rows.
    f1 : list of float
        F1 of each class (0 where a class is neither present nor predicted).
    roc_auc : float or None
        Area under the ROC curve (binary: of the second declared class; more
        classes: macro average of one-vs-rest AUCs over the classes present),
        ``None`` without scores or when it is undefined.
    roc_auc_note : str
        What ``roc_auc`` is, or why there is none.
    confusion : ndarray of shape (K, K)
        Counts; rows are the true classes, columns the predicted ones.

    Notes
    -----
    Privacy: every field is computed exactly from the labelled rows evaluated
    on (exact counts included); none is differentially private. They are
    evaluation figures for the person who holds those rows, never written into
    a model file or a privacy report.
    """

    n: int
    classes: list[Any]
    accuracy: float
    majority_rate: float
    balanced_accuracy: float
    f1: list[float]
    roc_auc: float | None
    roc_auc_note: str
    confusion: np.ndarray


def _roc_auc(
    codes: np.ndarray, scores: np.ndarray | None, classes: Sequence[Any]
) -> tuple[float | None, str]:
    from sklearn.metrics import roc_auc_score

    if scores is None:
        return None, "none: the model gives no scores"
    k = len(classes)
    if k == 2:
        if np.unique(codes).size < 2:
            return None, "undefined: the rows hold one class only"
        value = float(roc_auc_score(codes == 1, scores[:, 1]))
        return value, f"scores of {classes[1]!r}, the second declared class"
    values = [
        float(roc_auc_score(codes == j, scores[:, j]))
        for j in range(k)
        if 0 < np.count_nonzero(codes == j) < codes.size
    ]
    if not values:
        return None, "undefined: the rows hold one class only"
    return float(np.mean(values)), "macro average of the one-vs-rest AUCs"


def evaluate_predictions(
    truth: ArrayLike,
    predicted: ArrayLike,
    classes: Sequence[Any],
    scores: np.ndarray | None = None,
) -> Evaluation:
    """The figures of predictions against the true labels (sklearn.metrics).

    Parameters
    ----------
    truth, predicted : sequence
        True and predicted labels; each must be one of ``classes`` (labels are
        compared as Python values: ``1 == 1.0``).
    classes : sequence
        The classes in declared order.
    scores : ndarray of shape (n, K), optional
        One score column per class of ``classes`` (for the ROC AUC).

    Returns
    -------
    Evaluation
        The figures.

    Examples
    --------
    >>> ev = evaluate_predictions([0, 0, 0, 1], [0, 0, 0, 0], [0, 1])
    >>> ev.accuracy, ev.majority_rate, ev.balanced_accuracy, ev.f1
    (0.75, 0.75, 0.5, [0.8571428571428571, 0.0])
    """
    from sklearn.metrics import (
        accuracy_score,
        balanced_accuracy_score,
        confusion_matrix,
        f1_score,
    )

    index = {_py(c): j for j, c in enumerate(classes)}
    codes = np.array([index[_py(v)] for v in np.asarray(truth).tolist()], dtype=int)
    guess = np.array([index[_py(v)] for v in np.asarray(predicted).tolist()], dtype=int)
    labels = list(range(len(classes)))
    with warnings.catch_warnings():
        # "y_pred contains classes not in y_true": balanced accuracy averages
        # the recall over the classes present, which is what it should do here.
        warnings.simplefilter("ignore")
        balanced = float(balanced_accuracy_score(codes, guess))
    counts = np.bincount(codes, minlength=len(classes))
    auc, note = _roc_auc(codes, scores, classes)
    return Evaluation(
        n=int(codes.size),
        classes=list(classes),
        accuracy=float(accuracy_score(codes, guess)),
        majority_rate=float(counts.max() / codes.size),
        balanced_accuracy=balanced,
        f1=[
            float(v)
            for v in f1_score(
                codes, guess, labels=labels, average=None, zero_division=0.0
            )
        ],
        roc_auc=auc,
        roc_auc_note=note,
        confusion=confusion_matrix(codes, guess, labels=labels),
    )


def evaluate_model(
    model: Any, rows: Any, truth: ArrayLike, classes: Sequence[Any] | None = None
) -> Evaluation:
    """:func:`evaluate_predictions` of a fitted model on labelled rows.

    Parameters
    ----------
    model : estimator
        A fitted classifier (``predict``; ``decision_function`` or
        ``predict_proba`` give the ROC AUC).
    rows : array-like
        The rows, as the model reads them.
    truth : sequence
        The true labels, each among the model's classes.
    classes : sequence, optional
        The classes in the order to report them (default:
        :func:`declared_classes`); a superset of the model's ``classes_``.

    Returns
    -------
    Evaluation
        The figures.
    """
    declared = declared_classes(model) if classes is None else list(classes)
    predicted = np.asarray(model.predict(rows), dtype=object)
    return evaluate_predictions(
        truth, predicted, declared, _scores(model, rows, declared)
    )


def majority_warning(
    accuracy: float, majority_rate: float, where: str = ""
) -> str | None:
    """The warning for an accuracy at or below the majority-class rate, or ``None``.

    Parameters
    ----------
    accuracy, majority_rate : float
        The model's accuracy and the majority-class rate of the same rows.
    where : str, default=""
        A prefix naming the result (e.g. ``"at ε = 0.1 "``).

    Returns
    -------
    str or None
        The warning text.

    Examples
    --------
    >>> majority_warning(0.9, 0.8) is None
    True
    >>> "most frequent class" in majority_warning(0.935, 0.938)
    True
    """
    if accuracy > majority_rate + 1e-9:  # a mean of the same counts: no rounding
        return None
    return (
        f"{where}the accuracy {accuracy:.4f} is not above the majority-class rate "
        f"{majority_rate:.4f}: always answering the most frequent class does as "
        "well, so the model has learnt nothing accuracy can show; look at the "
        "balanced accuracy and the F1 of each class"
    )


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.6f}"


def confusion_text(
    matrix: np.ndarray, classes: Sequence[Any], *, indent: str = "  ", fmt: str = "d"
) -> list[str]:
    """The confusion matrix as aligned text lines (rows true, columns predicted).

    Examples
    --------
    >>> print("\\n".join(confusion_text(np.array([[3, 1], [0, 2]]), ["no", "yes"])))
      true \\ predicted   no  yes
      no                  3    1
      yes                 0    2
    """
    names = [str(c) for c in classes]
    cells = [[format(v, fmt) for v in row] for row in np.asarray(matrix).tolist()]
    corner = "true \\ predicted"
    left = max(len(corner), *(len(n) for n in names))
    width = max(*(len(n) for n in names), *(len(c) for row in cells for c in row))
    lines = [f"{indent}{corner:<{left}}" + "".join(f"  {n:>{width}}" for n in names)]
    for name, row in zip(names, cells, strict=True):
        lines.append(
            f"{indent}{name:<{left}}" + "".join(f"  {c:>{width}}" for c in row)
        )
    return lines


def evaluation_text(ev: Evaluation, which: Sequence[str] = METRICS) -> str:
    """The figures of ``which`` as the lines ``dpsvm evaluate`` prints.

    The first line is ``accuracy: A (n = N)`` when the accuracy is chosen.

    Parameters
    ----------
    ev : Evaluation
        The figures.
    which : sequence of str, default=METRICS
        The metrics to print (names of :data:`METRICS`).

    Returns
    -------
    str
        Text, one figure a line.
    """
    lines = []
    if "accuracy" in which:
        lines.append(f"accuracy: {ev.accuracy:.6f} (n = {ev.n})")
    if "majority-rate" in which:
        lines.append(
            f"majority-class rate: {ev.majority_rate:.6f} (accuracy of always "
            "answering the most frequent class of these rows)"
        )
    if "balanced-accuracy" in which:
        lines.append(f"balanced accuracy: {ev.balanced_accuracy:.6f}")
    if "f1" in which:
        lines += [
            f"F1 of {c!r}: {v:.6f}" for c, v in zip(ev.classes, ev.f1, strict=True)
        ]
    if "roc-auc" in which:
        lines.append(f"ROC AUC: {_fmt(ev.roc_auc)} ({ev.roc_auc_note})")
    if "confusion-matrix" in which:
        lines.append("confusion matrix (rows: true class, columns: predicted class):")
        lines += confusion_text(ev.confusion, ev.classes)
    return "".join(f"{line}\n" for line in lines)


def evaluation_json(
    ev: Evaluation, which: Sequence[str] = METRICS, warnings_: Sequence[str] = ()
) -> str:
    """The figures of ``which`` as one JSON object (``evaluate --json``).

    Keys: ``n``, ``classes`` (declared order), the chosen metrics
    (``accuracy``, ``majority_rate``, ``balanced_accuracy``, ``f1`` -- a list in
    the order of ``classes`` --, ``roc_auc`` with ``roc_auc_note``,
    ``confusion_matrix`` -- rows true, columns predicted), ``warnings`` and
    ``differentially_private: false``.

    Parameters
    ----------
    ev : Evaluation
        The figures.
    which : sequence of str, default=METRICS
        The metrics to write.
    warnings_ : sequence of str, default=()
        Warnings to carry (e.g. :func:`majority_warning`).

    Returns
    -------
    str
        The JSON text, one line and a newline.
    """
    doc: dict[str, Any] = {"n": ev.n, "classes": ev.classes}
    if "accuracy" in which:
        doc["accuracy"] = ev.accuracy
    if "majority-rate" in which:
        doc["majority_rate"] = ev.majority_rate
    if "balanced-accuracy" in which:
        doc["balanced_accuracy"] = ev.balanced_accuracy
    if "f1" in which:
        doc["f1"] = ev.f1
    if "roc-auc" in which:
        doc["roc_auc"] = ev.roc_auc
        doc["roc_auc_note"] = ev.roc_auc_note
    if "confusion-matrix" in which:
        doc["confusion_matrix"] = np.asarray(ev.confusion).tolist()
    doc["warnings"] = list(warnings_)
    doc["differentially_private"] = False
    return json.dumps(doc, allow_nan=False) + "\n"


# ------------------------------------------------------------------- sweep
def _mean_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    kept = [v for v in values if v is not None]
    if not kept:
        return None, None
    return float(np.mean(kept)), float(np.std(kept))


def sweep_rows(
    results: dict[float, list[Evaluation]], baseline: Sequence[Evaluation]
) -> list[dict[str, Any]]:
    """One row per ε of the sweep's table: private figures (mean and sd over the
    seeds) beside the non-private baseline's and the majority-class rate.

    The columns are, in order: ``epsilon``, ``seeds``, ``accuracy_mean``,
    ``accuracy_sd``, ``nonprivate_accuracy`` (the former table), then
    ``majority_rate``, ``balanced_accuracy_mean``, ``balanced_accuracy_sd``,
    ``nonprivate_balanced_accuracy``, ``roc_auc_mean``, ``roc_auc_sd``,
    ``nonprivate_roc_auc``, and for each class C (declared order)
    ``f1_mean[C]``, ``f1_sd[C]``, ``nonprivate_f1[C]``, and for each pair of
    true class T and predicted class P ``confusion_mean[T][P]`` (mean count
    over the seeds' held-out rows).

    Parameters
    ----------
    results : dict
        ε -> the private models' :class:`Evaluation` of each seed.
    baseline : sequence of Evaluation
        The non-private baseline's, one per seed (same held-out rows).

    Returns
    -------
    list of dict
        The rows (``None``: no value, written as an empty cell).
    """
    classes = baseline[0].classes
    base_auc, _ = _mean_sd([b.roc_auc for b in baseline])
    rows = []
    for eps, evs in results.items():
        row: dict[str, Any] = {
            "epsilon": eps,
            "seeds": len(evs),
            "accuracy_mean": float(np.mean([e.accuracy for e in evs])),
            "accuracy_sd": float(np.std([e.accuracy for e in evs])),
            "nonprivate_accuracy": float(np.mean([b.accuracy for b in baseline])),
            "majority_rate": float(np.mean([b.majority_rate for b in baseline])),
        }
        mean, sd = _mean_sd([e.balanced_accuracy for e in evs])
        row["balanced_accuracy_mean"], row["balanced_accuracy_sd"] = mean, sd
        row["nonprivate_balanced_accuracy"] = float(
            np.mean([b.balanced_accuracy for b in baseline])
        )
        row["roc_auc_mean"], row["roc_auc_sd"] = _mean_sd([e.roc_auc for e in evs])
        row["nonprivate_roc_auc"] = base_auc
        for j, c in enumerate(classes):
            mean, sd = _mean_sd([e.f1[j] for e in evs])
            row[f"f1_mean[{c}]"], row[f"f1_sd[{c}]"] = mean, sd
            row[f"nonprivate_f1[{c}]"] = float(np.mean([b.f1[j] for b in baseline]))
        matrix = np.mean([e.confusion for e in evs], axis=0)
        for i, t in enumerate(classes):
            for j, p in enumerate(classes):
                row[f"confusion_mean[{t}][{p}]"] = float(matrix[i, j])
        rows.append(row)
    return rows


def _pm(mean: float | None, sd: float | None) -> str:
    if mean is None or sd is None:
        return "n/a"
    return f"{mean:.3f} ± {sd:.3f}"


def sweep_text(rows: Sequence[dict[str, Any]], classes: Sequence[Any]) -> str:
    """The sweep's figures as a readable table, with the majority-class rate and
    the non-private baseline as rows of their own, and each ε's mean confusion
    matrix.

    Parameters
    ----------
    rows : sequence of dict
        :func:`sweep_rows`.
    classes : sequence
        The classes, in declared order.

    Returns
    -------
    str
        Text.
    """
    heads = ["ε", "accuracy", "balanced acc.", "ROC AUC"] + [f"F1 {c}" for c in classes]
    table = []
    for r in rows:
        table.append(
            [
                f"{r['epsilon']:g}",
                _pm(r["accuracy_mean"], r["accuracy_sd"]),
                _pm(r["balanced_accuracy_mean"], r["balanced_accuracy_sd"]),
                _pm(r["roc_auc_mean"], r["roc_auc_sd"]),
                *(_pm(r[f"f1_mean[{c}]"], r[f"f1_sd[{c}]"]) for c in classes),
            ]
        )
    first = rows[0]
    auc = first["nonprivate_roc_auc"]
    table.append(
        [
            "non-private",
            f"{first['nonprivate_accuracy']:.3f}",
            f"{first['nonprivate_balanced_accuracy']:.3f}",
            "n/a" if auc is None else f"{auc:.3f}",
            *(f"{first[f'nonprivate_f1[{c}]']:.3f}" for c in classes),
        ]
    )
    table.append(
        ["majority class", f"{first['majority_rate']:.3f}", f"{1 / len(classes):.3f}"]
        + ["0.500"]
        + ["" for _ in classes]
    )
    widths = [max(len(str(x[i])) for x in [heads, *table]) for i in range(len(heads))]
    lines = ["  ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True))]
    lines += [
        "  ".join(f"{v:>{w}}" for v, w in zip(t, widths, strict=True)) for t in table
    ]
    lines.append(
        f"(mean ± sd over {first['seeds']} seeds on held-out rows; majority class: "
        "always answering the most frequent class of the held-out rows)"
    )
    for r in rows:
        matrix = np.array(
            [[r[f"confusion_mean[{t}][{p}]"] for p in classes] for t in classes]
        )
        lines.append(
            f"confusion matrix at ε = {r['epsilon']:g} (mean counts over the seeds; "
            "rows: true class, columns: predicted class):"
        )
        lines += confusion_text(matrix, classes, fmt=".1f")
    return "".join(f"{line}\n" for line in lines)
