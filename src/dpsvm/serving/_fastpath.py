# SPDX-License-Identifier: BSD-3-Clause
"""The lean serving path: rows validated once, then numpy only.

By the time a request's rows reach the model, the service's own parser
(:func:`dpsvm.serving._inputs.parse_inputs`) has checked their shape, datatype
and that every value is a finite number. The library's ``transform`` and
``predict`` then validate the same rows again (scikit-learn's ``check_array``,
``validate_data``, ``check_is_fitted``; for a model fitted on named columns a
pandas data frame is built first): about half of the server's CPU for a
single-row answer. This module compiles, once at start,

* :func:`compile_schema_transform`: a fitted
  :class:`~dpsvm.preprocessing.SchemaTransformer` into numpy operations on a
  raw ``[B, width]`` array (clip and scale of the numeric columns in one
  vectorised pass, a dictionary lookup per categorical cell), dense output;
* :func:`compile_released_predict`: a released random-feature model
  (``DPKernelSVC``: ``fourier_features``, the projection, ``@ coef_.T``) or a
  linear model (``DPLinearSVC``, ``DPLogisticRegression``: the per-row clip
  factors and ``coef_``/``intercept_``) into its prediction without
  re-validation: the same library functions, in the same order, on the same
  arrays, as the estimator's own ``predict`` after its checks.

Each compiled function is checked at compile time against the library's path
on public probe rows (nothing is read from any data): labels equal and scores
and encoded rows equal **bit for bit**, or it is not used (``None``: the
service keeps the library's path). Anything the fast path does not expect (a
non-float, non-finite or wrongly shaped array) also goes to the library's path,
which raises its usual error.

Privacy: serving a released model's prediction is post-processing (Dwork &
Roth 2014, Proposition 2.1) and the answers are the library's, bit for bit, so
nothing changes; the probe rows are fixed and public.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "CompiledPredict",
    "CompiledSchemaTransform",
    "compile_released_predict",
    "compile_schema_transform",
]

#: Seed of the public probe rows of the compile-time self-check.
_PROBE_SEED = 20261128


def _bitwise_equal(a: Any, b: Any) -> bool:
    """Same shape, dtype and bits (NaN and -0.0 included)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(
            np.array_equal(
                np.ascontiguousarray(a).view(np.uint8),
                np.ascontiguousarray(b).view(np.uint8),
            )
        )
    return bool(np.array_equal(a, b))


# ------------------------------------------------------------ schema transform
class CompiledSchemaTransform:
    """A fitted :class:`~dpsvm.preprocessing.SchemaTransformer` as numpy operations.

    Parameters
    ----------
    transformer : SchemaTransformer
        Fitted; its public schema is all that is read.

    Notes
    -----
    Numeric columns: ``2·(clip(x, lower, upper) − lower)/(upper − lower) − 1``
    for all of them at once (the transformer's formula, element for element);
    categorical columns: the index of the value's canonical key among the
    declared categories, one-hot; then the division by √(number of features)
    when ``unit_norm``. The output is dense (the transformer's CSR output holds
    the same values).
    """

    def __init__(self, transformer: Any) -> None:
        from ..preprocessing import NumericFeature, canonical_key

        schema = transformer.schema_
        self._key = canonical_key
        num_in, num_out, lo, hi, span = [], [], [], [], []
        self._categorical: list[tuple[int, int, dict[str | None, int]]] = []
        offset = 0
        for j, feature in enumerate(schema.features):
            if isinstance(feature, NumericFeature):
                num_in.append(j)
                num_out.append(offset)
                # Python's own arithmetic on the declared bounds, as the
                # transformer computes (hi - lo) before numpy sees it.
                lo.append(float(feature.lower))
                hi.append(float(feature.upper))
                span.append(float(feature.upper - feature.lower))
                offset += 1
            else:
                lookup = {canonical_key(c): i for i, c in enumerate(feature.categories)}
                self._categorical.append((j, offset, lookup))
                offset += len(feature.categories)
        self._num_in = np.asarray(num_in, dtype=np.intp)
        self._num_out = np.asarray(num_out, dtype=np.intp)
        self._all_numeric = not self._categorical
        self._lo = np.asarray(lo)
        self._hi = np.asarray(hi)
        self._span = np.asarray(span)
        self.n_features_out = offset
        self.width = len(schema.features)
        self._divisor = (
            math.sqrt(len(schema.features)) if transformer.unit_norm else None
        )

    def __call__(self, raw: np.ndarray) -> np.ndarray:
        """Encoded rows of a raw ``[B, width]`` array (floats, or objects).

        Parameters
        ----------
        raw : ndarray of shape (B, width)
            As :func:`~dpsvm.serving._inputs.parse_inputs` returns it: finite
            floats, or objects (strings in the categorical columns, finite
            floats in the numeric ones).

        Returns
        -------
        ndarray of shape (B, n_features_out)
            float64, C-contiguous.
        """
        n = raw.shape[0]
        out = np.zeros((n, self.n_features_out))
        if self._num_in.size:
            if self._all_numeric and raw.dtype == np.float64:
                values = raw
            else:
                values = np.asarray(raw[:, self._num_in], dtype=np.float64)
            scaled = (
                2.0 * (np.clip(values, self._lo, self._hi) - self._lo) / self._span
                - 1.0
            )
            out[:, self._num_out] = np.where(np.isnan(scaled), 0.0, scaled)
        key = self._key
        for j, start, lookup in self._categorical:
            for i in range(n):
                code = lookup.get(key(raw[i, j]), -1)
                if code >= 0:
                    out[i, start + code] = 1.0
        if self._divisor is not None:
            out /= self._divisor
        return out


def _schema_probes(transformer: Any) -> list[np.ndarray]:
    """Public raw rows exercising every branch: out of range, each category."""
    from ..preprocessing import NumericFeature

    features = transformer.schema_.features
    rng = np.random.default_rng(_PROBE_SEED)
    n = 24
    columns: list[list[Any]] = []
    categorical = False
    for feature in features:
        if isinstance(feature, NumericFeature):
            lo, hi = float(feature.lower), float(feature.upper)
            width = hi - lo
            points = [lo, hi, lo - width, hi + width, lo - 1e300, hi + 1e300, 0.0]
            points += list(rng.uniform(lo, hi, n - len(points)))
            columns.append(points)
        else:
            categorical = True
            values = [str(c) for c in feature.categories]
            values += [f" {values[0]} ", "", "an undeclared value", "0", "1.0"]
            columns.append([values[i % len(values)] for i in range(n)])
    if categorical:
        raw = np.empty((n, len(features)), dtype=object)
        for j, col in enumerate(columns):
            for i, v in enumerate(col):
                raw[i, j] = float(v) if isinstance(v, float | np.floating) else v
    else:
        raw = np.asarray(columns, dtype=np.float64).T.copy()
    return [raw, raw[:1].copy(), raw[5:6].copy()]


def _dense(x: Any) -> np.ndarray:
    import scipy.sparse as sp

    if sp.issparse(x):
        return np.asarray(x.toarray(), dtype=np.float64)
    return np.asarray(x, dtype=np.float64)


def compile_schema_transform(transform: Any) -> CompiledSchemaTransform | None:
    """The compiled form of a fitted ``SchemaTransformer.transform``, if exact.

    Parameters
    ----------
    transform : callable
        An input spec's transform: the bound ``transform`` method of a fitted
        :class:`~dpsvm.preprocessing.SchemaTransformer` is compiled; anything
        else gets ``None``.

    Returns
    -------
    CompiledSchemaTransform or None
        ``f(raw) -> rows``, equal bit for bit to ``transform(raw)`` (made
        dense) on the probe rows; ``None`` when ``transform`` is not a schema
        transformer's or the check fails.
    """
    from ..preprocessing import SchemaTransformer

    owner = getattr(transform, "__self__", None)
    if not (
        isinstance(owner, SchemaTransformer)
        and getattr(transform, "__func__", None) is SchemaTransformer.transform
        and hasattr(owner, "schema_")
    ):
        return None
    try:
        compiled = CompiledSchemaTransform(owner)
        for raw in _schema_probes(owner):
            if not _bitwise_equal(compiled(raw), _dense(transform(raw))):
                return None
    except Exception:  # an unexpected schema: the library's path
        return None
    return compiled


# -------------------------------------------------------------- released model
def _defined_by(model: Any, name: str, owner: str) -> bool:
    """Whether ``type(model).name`` is the one of the library class ``owner``.

    By class name, so that moving a class to another module (a split of
    ``dpsvm.models``) keeps its fast path; a subclass overriding the method
    is not compiled.
    """
    for cls in type(model).__mro__:
        if name in cls.__dict__:
            return cls.__name__ == owner and cls.__module__.startswith("dpsvm.")
    return False


def _random_feature_scores(model: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    """``transform_features(X) @ coef_.T`` after the checks (DPKernelSVC)."""
    from ..kernels.random_features import fourier_features
    from ..validation import project_rows_to_ball

    base = "_RandomFeatureClassifierBase"
    if not (
        _defined_by(model, "_scores", base)
        and _defined_by(model, "transform_features", base)
        and _defined_by(model, "decision_function", "ScoreColumnsMixin")
    ):
        return None
    frequencies = model.frequencies_
    phases = model.phases_
    scale = model.feature_scale_
    radius = model.projection_radius_
    coef_t = model.coef_.T

    def scores(X: np.ndarray) -> np.ndarray:
        Z = fourier_features(X, frequencies, phases, scale=scale)
        if radius is not None:
            Z = project_rows_to_ball(Z, radius)
        s = np.asarray(Z, dtype=np.float64) @ coef_t
        return s.ravel() if s.shape[1] == 1 else s

    return scores


def _linear_scores(model: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    """``LinearModelBase.decision_function`` after its checks (dense rows)."""
    from ..solvers import RowScaledDesign, clip_factors, row_norms
    from ..validation import project_rows_to_ball

    if not _defined_by(model, "decision_function", "LinearModelBase"):
        return None
    radius = model._radius(model.data_norm_)
    coef = model.coef_
    intercept = model.intercept_

    def scores(X: np.ndarray) -> np.ndarray:
        norms = row_norms(X)
        if np.all(np.isfinite(norms)):
            D = RowScaledDesign(X, clip_factors(norms, radius))
        else:  # ‖x‖² overflowed for finite entries: project a copy
            D = RowScaledDesign(project_rows_to_ball(X, radius))
        s = np.column_stack([D.matvec(c) for c in coef]) + intercept
        return s.ravel() if s.shape[1] == 1 else s

    return scores


def _model_probes(d: int) -> list[np.ndarray]:
    """Public rows of every scale (inside and far outside any ball), B = 1..64."""
    rng = np.random.default_rng(_PROBE_SEED)
    rows = rng.standard_normal((64, d))
    rows *= np.logspace(-3, 3, 64)[:, None]
    rows[0] = 0.0
    rows[1] = 1e300  # ‖x‖² overflows although every entry is finite
    return [rows[i : i + 1].copy() for i in range(8)] + [rows[:17].copy(), rows]


def compile_released_predict(
    model: Any, reference: Callable[[np.ndarray], np.ndarray]
) -> CompiledPredict | None:
    """A released model's ``predict`` on already validated rows, if exact.

    Parameters
    ----------
    model : estimator
        A fitted released model (as :func:`dpsvm.io.load_model` returns it).
    reference : callable
        The library's path: rows ``(B, n_features_in_)`` -> labels (the
        service's :meth:`ReleasedModel.labels` without the fast path).

    Returns
    -------
    CompiledPredict or None
        ``f(X) -> labels`` for float64, finite ``X`` of ``n_features_in_``
        columns; ``None`` for other model types or when its labels or scores
        differ from the library's on the probe rows (in either memory order).
    """
    if not _defined_by(model, "predict", "ScorePredictMixin"):
        return None
    try:
        scores = _random_feature_scores(model) or _linear_scores(model)
        if scores is None:
            return None
        classes = np.asarray(model.classes_)
        d = int(model.n_features_in_)
    except Exception:  # not a model of the expected form
        return None

    names = getattr(model, "feature_names_in_", None)
    # The library's own rows come from its validation: a model fitted on named
    # columns gets them from a data frame (Fortran order), and a matrix-vector
    # product may round differently in another memory order. The layout that
    # reproduces the library bit for bit on every probe is kept.
    for layout in (np.ascontiguousarray, np.asfortranarray):
        predict = CompiledPredict(scores, classes, layout)
        if _agrees(predict, model, reference, names, d):
            return predict
    return None


class CompiledPredict:
    """``ScorePredictMixin.predict`` on scores computed without the checks.

    Parameters
    ----------
    scores : callable
        The model's ``decision_function`` after its checks.
    classes : ndarray
        ``classes_``.
    layout : callable
        ``np.ascontiguousarray`` or ``np.asfortranarray``: the memory order
        of the rows the library computes on.
    """

    def __init__(
        self,
        scores: Callable[[np.ndarray], np.ndarray],
        classes: np.ndarray,
        layout: Callable[[np.ndarray], np.ndarray],
    ) -> None:
        self._scores = scores
        self._classes = classes
        self._layout = layout

    def scores(self, X: np.ndarray) -> np.ndarray:
        """The model's ``decision_function(X)``, bit for bit."""
        return self._scores(self._layout(X))

    def __call__(self, X: np.ndarray) -> np.ndarray:
        """The model's ``predict(X)``."""
        s = self.scores(X)
        if s.ndim == 1:
            return np.asarray(self._classes[(s > 0).astype(int)])
        return np.asarray(self._classes[np.argmax(s, axis=1)])


def _agrees(
    predict: CompiledPredict,
    model: Any,
    reference: Callable[[np.ndarray], np.ndarray],
    names: Any,
    d: int,
) -> bool:
    """Scores bit for bit and labels equal to the library's on the probes."""
    try:
        for X in _model_probes(d):
            frame: Any = X
            if names is not None:
                import pandas as pd

                frame = pd.DataFrame(X, columns=names)
            if not _bitwise_equal(predict.scores(X), model.decision_function(frame)):
                return False
            if not np.array_equal(predict(X), reference(X)):
                return False
    except Exception:  # the library refused a probe the fast path took
        return False
    return True
