# SPDX-License-Identifier: BSD-3-Clause
"""Public example weights: class weights, clipped sample weights, their bound W.

A weighted fit minimises (1/n) Σᵢ ωᵢ ℓ(yᵢ wᵀx̃ᵢ) + (λ/2)‖w‖², with

    ωᵢ = class_weight[yᵢ] · min(max(sample_weightᵢ, 0), max_weight),

divided by n (public under replace-one neighbours), never by Σωᵢ (private). The
calibrations need a *public* bound W ≥ ωᵢ: W = (largest class weight) ×
``max_weight``, computed from the parameters alone (:func:`public_weight_bound`),
and every sensitivity scales by it
(:func:`dpsvm.perturbation.weighted_loss_constants`). A sample weight above the
bound is clipped, never refused, so whether a fit succeeds does not depend on one
row. ``class_weight="balanced"`` uses public class proportions (the priors of a
schema, or ``class_priors``): w_c = 1/(k·p_c), scikit-learn's formula with the
public p_c in place of the private class counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..perturbation import check_max_weight
from ..utils._types import FloatArray

__all__ = [
    "balanced_class_weight",
    "check_class_priors",
    "class_index",
    "public_weight_bound",
    "resolve_class_weight",
    "row_weights",
]


def check_class_priors(classes: Sequence[Any], priors: ArrayLike) -> FloatArray:
    """Public class proportions as an array, refused unless valid.

    Parameters
    ----------
    classes : sequence
        The public label set, in the order the priors follow.
    priors : array-like
        One proportion per class: finite, > 0, summing to 1 (within 1e-6).

    Returns
    -------
    ndarray of shape (n_classes,)
        The proportions.

    Examples
    --------
    >>> check_class_priors(["no", "yes"], [0.9, 0.1]).tolist()
    [0.9, 0.1]
    """
    try:
        p = np.asarray(priors, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            "class priors must be a list of numbers (public class proportions)."
        ) from None
    if p.ndim != 1 or p.size != len(classes):
        raise ValueError(
            f"class priors must list one proportion per class ({len(classes)} "
            f"classes), in the order of classes; got {p.size}."
        )
    if not (np.all(np.isfinite(p)) and np.all(p > 0)):
        raise ValueError("class priors must be finite proportions > 0.")
    if not math.isclose(float(p.sum()), 1.0, abs_tol=1e-6):
        raise ValueError(
            f"class priors must sum to 1; they sum to {float(p.sum()):.6g}."
        )
    return p


def balanced_class_weight(
    classes: Sequence[Any], priors: ArrayLike
) -> dict[Any, float]:
    """Class weights w_c = 1/(k·p_c) from public class proportions.

    scikit-learn's ``"balanced"`` formula n/(k·n_c) with the public proportion
    p_c in place of the private n_c/n, so the largest weight is public.

    Parameters
    ----------
    classes : sequence
        The public label set (k classes).
    priors : array-like of shape (k,)
        Public class proportions in the order of ``classes``.

    Returns
    -------
    dict
        {class: weight}.

    Examples
    --------
    >>> balanced_class_weight([0, 1], [0.8, 0.2])
    {0: 0.625, 1: 2.5}
    """
    p = check_class_priors(classes, priors)
    k = p.size
    return {_plain(c): 1.0 / (k * float(pc)) for c, pc in zip(classes, p, strict=True)}


def _plain(label: Any) -> Any:
    """A numpy scalar label as the Python value (dict keys compare alike)."""
    return label.item() if isinstance(label, np.generic) else label


def resolve_class_weight(
    class_weight: Any, class_priors: ArrayLike | None, classes: ArrayLike | None
) -> dict[Any, float] | None:
    """The class weights as a dict (or ``None``), from public parameters only.

    Parameters
    ----------
    class_weight : dict, "balanced" or None
        The estimator's parameter.
    class_priors : array-like or None
        Public class proportions (for ``"balanced"``).
    classes : array-like or None
        The public label set (for ``"balanced"``: the order of the priors).

    Returns
    -------
    dict or None
        {class: weight}, or ``None`` (every class weighs 1).

    Examples
    --------
    >>> resolve_class_weight("balanced", [0.75, 0.25], ["a", "b"])
    {'a': 0.6666666666666666, 'b': 2.0}
    """
    if class_weight is None:
        if class_priors is not None:
            check_class_priors(_classes_for_priors(classes), class_priors)
        return None
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(
                "class_weight must be a dict, 'balanced' or None; got "
                f"{class_weight!r}."
            )
        if class_priors is None:
            raise ValueError(
                "class_weight='balanced' needs the public class proportions: pass "
                "class_priors=[p1, ...] in the order of classes (or declare "
                "label.priors in the schema). dpsvm never computes the weights "
                "from the private class counts."
            )
        return balanced_class_weight(_classes_for_priors(classes), class_priors)
    if not isinstance(class_weight, Mapping):
        raise ValueError(
            "class_weight must be a dict {class: weight}, 'balanced' or None."
        )
    out: dict[Any, float] = {}
    for key, value in class_weight.items():
        try:
            w = float(value)
        except (TypeError, ValueError):
            w = math.nan
        if not (math.isfinite(w) and w >= 0):
            raise ValueError(
                f"class_weight[{key!r}] must be a finite number >= 0; got {value!r}."
            )
        out[_plain(key)] = w
    if classes is not None:
        known = {_plain(c) for c in np.asarray(classes).tolist()}
        unknown = [k for k in out if k not in known]
        if unknown:
            raise ValueError(
                f"class_weight names {unknown[0]!r}, which is not in the public "
                f"label set classes={sorted(known, key=str)!r}."
            )
    return out


def _classes_for_priors(classes: ArrayLike | None) -> list[Any]:
    if classes is None:
        raise ValueError(
            "class_priors follow the order of the public label set: pass "
            "classes=[...] with them."
        )
    return [_plain(c) for c in np.asarray(classes).tolist()]


def public_weight_bound(
    class_weight: dict[Any, float] | None,
    max_weight: float,
    classes: ArrayLike | None,
) -> float:
    """W = (largest class weight) × ``max_weight``, from public parameters only.

    A class that the dict does not list weighs 1; unless the public ``classes``
    are all listed, 1 counts towards the largest class weight.

    Parameters
    ----------
    class_weight : dict or None
        Resolved class weights (:func:`resolve_class_weight`).
    max_weight : float
        Public bound on the sample weights.
    classes : array-like or None
        The public label set.

    Returns
    -------
    float
        W > 0.

    Examples
    --------
    >>> public_weight_bound({0: 0.5, 1: 3.0}, 2.0, [0, 1])
    6.0
    """
    top = check_max_weight(max_weight)
    if not class_weight:
        return top
    values = list(class_weight.values())
    listed = classes is not None and all(
        _plain(c) in class_weight for c in np.asarray(classes).tolist()
    )
    if not listed:
        values.append(1.0)
    largest = max(values)
    if not largest > 0:
        raise ValueError("class_weight gives every class weight 0; nothing to fit.")
    return largest * top


def class_index(targets: Sequence[np.ndarray]) -> np.ndarray:
    """Index in ``classes_`` of each row's label, from the ±1 one-vs-rest targets.

    Examples
    --------
    >>> class_index([np.array([1, -1, 1])]).tolist()
    [1, 0, 1]
    """
    if len(targets) == 1:
        return (np.asarray(targets[0]) > 0).astype(np.intp)
    return np.argmax(np.stack([np.asarray(t) for t in targets]), axis=0)


def row_weights(
    index: np.ndarray,
    classes: np.ndarray,
    class_weight: dict[Any, float] | None,
    sample_weight: ArrayLike | None,
    max_weight: float,
) -> FloatArray | None:
    """ωᵢ = class_weight[yᵢ]·clip(sample_weightᵢ, 0, max_weight), or ``None``.

    A sample weight that is NaN counts as 0, one above ``max_weight`` (or +inf)
    as ``max_weight``, a negative one as 0: clipped, never refused. ``None`` is
    returned when every ωᵢ is 1 (the unweighted problem).

    Parameters
    ----------
    index : ndarray of shape (n_samples,)
        Index of each row's label in ``classes`` (:func:`class_index`).
    classes : ndarray of shape (n_classes,)
        The label set (``classes_``).
    class_weight : dict or None
        Resolved class weights (a class not listed weighs 1).
    sample_weight : array-like of shape (n_samples,) or None
        Per-row weights (``None``: 1 each, clipped to ``max_weight``).
    max_weight : float
        Public upper bound on the sample weights.

    Returns
    -------
    ndarray of shape (n_samples,) or None
        The row weights.

    Examples
    --------
    >>> row_weights(np.array([0, 1, 1]), np.array([0, 1]), {1: 2.0},
    ...             [0.5, 9.0, -1.0], 1.0).tolist()
    [0.5, 2.0, 0.0]
    """
    n = index.shape[0]
    top = check_max_weight(max_weight)
    if sample_weight is None:
        sw = np.full(n, min(1.0, top))
    else:
        try:
            sw = np.asarray(sample_weight, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("sample_weight must hold numbers.") from None
        if sw.ndim == 0:
            sw = np.full(n, float(sw))
        if sw.shape != (n,):
            raise ValueError(
                f"sample_weight must have one weight per row: shape ({n},), got "
                f"{sw.shape}."
            )
        # Clipped to the public bound, never refused (NaN counts as 0).
        sw = np.clip(np.nan_to_num(sw, nan=0.0, posinf=top, neginf=0.0), 0.0, top)
    if class_weight:
        per_class = np.array(
            [class_weight.get(_plain(c), 1.0) for c in np.asarray(classes).tolist()]
        )
        sw = sw * per_class[index]
    if np.all(sw == 1.0):
        return None
    return sw
