# SPDX-License-Identifier: BSD-3-Clause
"""What the service serves: a stateful private predictor behind a small protocol.

The service needs only this from a mechanism (:class:`InteractivePredictor`):
``answer(X)`` returning an object with ``labels`` (it mutates the mechanism's
state and spend), the (server-secret) state as ``state_dict()`` / ``load_state_dict()``
(no generator state), the totals and the spend so far, the number of answers
and ``budget_exhausted``. :class:`dpsvm.prediction.PrivateInteractivePredictor`
has exactly this interface; :class:`ReleasedModel` below adapts an already
released model to it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "Answers",
    "InputSpec",
    "InteractivePredictor",
    "ReleasedModel",
    "ServedModel",
]


class _AnswersLike(Protocol):
    @property
    def labels(self) -> Any: ...


@runtime_checkable
class InteractivePredictor(Protocol):
    """The interface the service needs from a stateful private predictor."""

    @property
    def total_epsilon(self) -> float: ...

    @property
    def total_delta(self) -> float: ...

    @property
    def spent_epsilon(self) -> float: ...

    @property
    def spent_delta(self) -> float: ...

    @property
    def n_answers(self) -> int: ...

    @property
    def budget_exhausted(self) -> bool: ...

    def answer(self, X: Any) -> _AnswersLike: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Answers:
    """Labels of one answered batch.

    Attributes
    ----------
    labels : ndarray
        One label per query row.
    exhausted : bool
        Whether the budget is spent after this batch.
    """

    labels: np.ndarray
    exhausted: bool


class ReleasedModel:
    """An already released DP model: its answers are free post-processing.

    Parameters
    ----------
    model : estimator
        A fitted model loaded with :func:`dpsvm.io.load_model`.
    """

    def __init__(self, model: Any) -> None:
        from ._fastpath import compile_released_predict

        self._model = model
        event = getattr(model, "privacy_event_", None)
        self._eps = math.inf if event is None else float(event.epsilon)
        self._delta = 1.0 if event is None else float(event.delta)
        self._n = 0
        # The prediction on rows the service has validated, without the
        # library's checks (checked bit for bit against it at compile time).
        self._fast = compile_released_predict(model, self._library_labels)
        self._width = getattr(model, "n_features_in_", None)

    @property
    def fast_path(self) -> bool:
        """Whether validated rows skip the library's input checks.

        ``True`` for the released random-feature and linear models
        (:mod:`dpsvm.serving._fastpath`); the labels are the library's
        ``predict``, bit for bit, either way.
        """
        return self._fast is not None

    @property
    def total_epsilon(self) -> float:
        """ε of the model's release (spent once, at training)."""
        return self._eps

    @property
    def total_delta(self) -> float:
        """δ of the model's release."""
        return self._delta

    spent_epsilon = total_epsilon
    spent_delta = total_delta

    @property
    def n_answers(self) -> int:
        """Rows answered."""
        return self._n

    @property
    def budget_exhausted(self) -> bool:
        """Never: answers are post-processing."""
        return False

    @property
    def classes(self) -> np.ndarray:
        """The label set."""
        return np.asarray(self._model.classes_)

    def answer(self, X: Any) -> Answers:
        """The model's predictions (no budget spent).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Query rows.

        Returns
        -------
        Answers
            The labels.
        """
        labels = self.labels(X)
        self.count_answers(int(labels.shape[0]))
        return Answers(labels, False)

    def labels(self, X: Any) -> np.ndarray:
        """The model's predictions, without counting them.

        Reads only the released model, so the service calls it outside its
        answering lock, concurrently; :meth:`count_answers` then counts the
        rows inside the lock.

        Parameters
        ----------
        X : array-like of shape (k, d)
            Query rows.

        Returns
        -------
        ndarray of shape (k,)
            The labels.
        """
        fast = self._fast
        if (
            fast is not None
            and isinstance(X, np.ndarray)
            and X.dtype == np.float64
            and X.ndim == 2
            and X.shape[0] > 0
            and X.shape[1] == self._width
            and X.flags.c_contiguous
            and np.isfinite(X).all()
        ):
            return fast(X)
        return self._library_labels(X)

    def _library_labels(self, X: Any) -> np.ndarray:
        """The model's ``predict`` with every check of the library."""
        names = getattr(self._model, "feature_names_in_", None)
        if names is not None:  # fitted on named columns: predict on the same
            import pandas as pd

            X = pd.DataFrame(np.asarray(X, dtype=np.float64), columns=names)
        return np.asarray(self._model.predict(X))

    def count_answers(self, rows: int) -> None:
        """Count ``rows`` answered rows (labels from :meth:`labels`).

        Parameters
        ----------
        rows : int
            Rows answered.
        """
        self._n += rows

    def state_dict(self) -> dict[str, Any]:
        """The number of answers.

        Returns
        -------
        dict
            ``{"n_answers": n}``.
        """
        return {"n_answers": self._n}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore the number of answers.

        Parameters
        ----------
        state : dict
            From :meth:`state_dict`.
        """
        self._n = int(state["n_answers"])


@dataclass(frozen=True)
class InputSpec:
    """How a request's input tensor becomes the predictor's feature rows.

    Attributes
    ----------
    columns : list of str
        The raw input columns, in order (the input tensor is ``[B, len(columns)]``).
    categorical : list of bool
        Which columns take strings (a ``BYTES`` tensor).
    transform : callable or None
        Maps a ``[B, len(columns)]`` array of raw columns (in this order) to
        feature rows; ``None``: the input already is the feature rows.
    """

    columns: list[str]
    categorical: list[bool] = field(default_factory=list)
    transform: Any = None

    @property
    def width(self) -> int:
        """Number of input columns."""
        return len(self.columns)

    @property
    def has_categorical(self) -> bool:
        """Whether any column takes strings."""
        return any(self.categorical)

    def features(self, raw: np.ndarray) -> np.ndarray:
        """Feature rows for a raw ``[B, width]`` array.

        Parameters
        ----------
        raw : ndarray
            Floats, or objects (strings and floats) when some column is
            categorical.

        Returns
        -------
        ndarray of shape (B, n_features)
            The rows the predictor takes.
        """
        if self.transform is None:
            return np.asarray(raw, dtype=np.float64)
        # Columns in the schema's order: the transform reads them by position.
        rows = self.transform(raw)
        if hasattr(rows, "toarray"):  # a CSR encoding (one-hot columns dominate)
            rows = rows.toarray()
        return np.asarray(rows, dtype=np.float64)


@dataclass
class ServedModel:
    """One model as the service exposes it.

    Attributes
    ----------
    name : str
        The model name in the URLs.
    predictor : InteractivePredictor
        The stateful mechanism (holds the non-private model; never exposed).
    inputs : InputSpec
        The input columns.
    classes : sequence
        The public label set.
    mechanism : str
        The answering mechanism's name.
    free : bool
        Answers are post-processing of a released model (no spend).
    fingerprint : str
        Digest of the model, data and settings that the ledger is bound to
        (never sent to clients).
    details : dict
        Public parameters shown by the metadata endpoint.
    """

    name: str
    predictor: InteractivePredictor
    inputs: InputSpec
    classes: Sequence[Any]
    mechanism: str
    free: bool
    fingerprint: str
    details: dict[str, Any] = field(default_factory=dict)
