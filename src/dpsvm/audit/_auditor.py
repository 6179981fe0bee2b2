# SPDX-License-Identifier: BSD-3-Clause
"""The empirical privacy auditor: many runs on two neighbours, one lower bound on ε.

:class:`Auditor` runs a mechanism ``n_runs`` times on each of two neighbouring
datasets D and D′ (replace-one: same size, one record replaced), reduces every
release to a scalar statistic T and turns the two samples of T into a lower
bound on ε with the construction of Jagielski, Ullman & Oprea (NeurIPS 2020) and
Nasr et al. (IEEE S&P 2021), implemented in :mod:`dpsvm.audit._bounds`: a
threshold test "T ≥ t ⇒ D" is chosen on one half of the runs, its error rates
are measured on the other half, and Clopper–Pearson upper limits of both rates
give ε ≥ ln((1 − δ − FNR)/FPR) with the requested confidence.

The bound is *statistical evidence*, not a proof: a correct (ε, δ)-DP mechanism
gives a bound ≤ ε except with probability at most 1 − confidence, and a flawed
one is only caught when the chosen pair and statistic expose the flaw.

The mechanism is given as a *factory*, either

* ``factory(seed) -> estimator``: an unfitted scikit-learn-style estimator whose
  noise is seeded by ``seed``; it is fitted on (X, y) and its released model is
  the fitted estimator (its ``coef_``/``intercept_`` form the released vector); or
* ``factory(X, y, seed) -> release``: a mechanism that returns the released
  vector (or a fitted model, for statistics that call ``decision_function``);
  :class:`SeededRelease` is the base class of the library's own mechanisms.
"""

from __future__ import annotations

import inspect
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, TextIO

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._random import check_random_state
from ..validation import check_delta, check_epsilon
from ._bounds import AuditBound, epsilon_lower_bound_split

# The public names are exported by dpsvm.audit (its __all__).

FloatArray = NDArray[np.float64]
FactoryKind = Literal["auto", "estimator", "mechanism"]


# --------------------------------------------------------------------- pairs
@dataclass(frozen=True, eq=False)
class NeighbouringPair:
    """Two replace-one neighbouring datasets D = (X, y) and D′ = (X′, y′).

    The two datasets have the same number of rows and differ in at most one row
    (features, label or both): the neighbouring relation of every dpsvm
    guarantee.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Rows of D.
    y : array-like of shape (n_samples,)
        Labels of D.
    X_prime : array-like of shape (n_samples, n_features)
        Rows of D′.
    y_prime : array-like of shape (n_samples,)
        Labels of D′.
    name : str, default="pair"
        Short name (shown in audit results).
    description : str, default=""
        What the pair is and why it is (close to) a worst case.

    Attributes
    ----------
    index : int
        The differing row (the last row when the datasets are identical).

    Raises
    ------
    ValueError
        If the shapes differ, a value is not finite, or more than one row
        differs.

    Examples
    --------
    >>> X = np.ones((3, 1))
    >>> pair = NeighbouringPair(X, [1, 1, 1], X, [1, 1, -1], name="flip")
    >>> pair.index, pair.differing_point.tolist(), pair.n_samples
    (2, [1.0], 3)
    """

    X: FloatArray
    y: NDArray[Any]
    X_prime: FloatArray
    y_prime: NDArray[Any]
    name: str = "pair"
    description: str = ""
    index: int = field(init=False)

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64)
        Xp = np.asarray(self.X_prime, dtype=np.float64)
        y = np.asarray(self.y)
        yp = np.asarray(self.y_prime)
        if X.ndim != 2 or X.shape != Xp.shape:
            raise ValueError(
                "X and X_prime must be 2-D arrays of the same shape, got "
                f"{X.shape} and {Xp.shape}."
            )
        if y.shape != (X.shape[0],) or yp.shape != y.shape:
            raise ValueError(
                f"y and y_prime must have shape ({X.shape[0]},), got {y.shape} and "
                f"{yp.shape}."
            )
        if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Xp))):
            raise ValueError("X and X_prime must be finite.")
        diff = np.flatnonzero(np.any(X != Xp, axis=1) | (y != yp))
        if diff.size > 1:
            raise ValueError(
                "Replace-one neighbours differ in at most one row; these differ in "
                f"rows {diff.tolist()[:10]}."
            )
        for attr, value in (("X", X), ("X_prime", Xp), ("y", y), ("y_prime", yp)):
            value.setflags(write=False)
            object.__setattr__(self, attr, value)
        object.__setattr__(self, "index", int(diff[0]) if diff.size else X.shape[0] - 1)

    @property
    def n_samples(self) -> int:
        """Number of rows of each dataset.

        Examples
        --------
        >>> X = np.ones((2, 1))
        >>> NeighbouringPair(X, [1, 1], X, [1, -1]).n_samples
        2
        """
        return int(self.X.shape[0])

    @property
    def differing_point(self) -> FloatArray:
        """The differing row's features in D (where the decision value is read).

        Examples
        --------
        >>> X, Xp = np.zeros((2, 2)), np.array([[0.0, 0.0], [0.0, 1.0]])
        >>> NeighbouringPair(X, [1, 1], Xp, [1, 1]).differing_point.tolist()
        [0.0, 0.0]
        """
        return np.array(self.X[self.index], dtype=np.float64)


# ---------------------------------------------------------------- statistics
def released_vector(released: Any) -> FloatArray:
    """Flatten a released model to one float vector.

    Parameters
    ----------
    released : estimator or array-like
        A fitted estimator (its ``coef_`` followed by its ``intercept_``, when
        present) or the vector a mechanism returned.

    Returns
    -------
    ndarray of shape (n_params,)
        The released parameters.

    Raises
    ------
    TypeError
        If an estimator has no ``coef_`` (give the auditor an explicit
        statistic instead).

    Examples
    --------
    >>> released_vector([[1, 2]]).tolist()
    [1.0, 2.0]
    """
    if hasattr(released, "fit"):
        if not hasattr(released, "coef_"):
            raise TypeError(
                f"{type(released).__name__} has no coef_; pass a statistic that "
                "reads its released model."
            )
        parts = [np.ravel(released.coef_)]
        if hasattr(released, "intercept_"):
            parts.append(np.ravel(released.intercept_))
        return np.concatenate(parts).astype(np.float64)
    return np.asarray(released, dtype=np.float64).ravel()


class SeededRelease:
    """Base of the auditable mechanisms ``mechanism(X, y, seed) -> release``.

    Subclasses implement ``_release(X, y, seed)`` on a float array ``X``; the
    seed is the only source of their randomness.

    Examples
    --------
    >>> class Mean(SeededRelease):
    ...     def _release(self, X, y, seed):
    ...         return X.mean(axis=0)
    >>> Mean()([[1.0], [3.0]], [1, -1], 0).tolist()
    [2.0]
    """

    def _release(self, X: FloatArray, y: NDArray[Any], seed: int | None) -> Any:
        raise NotImplementedError

    def __call__(self, X: ArrayLike, y: ArrayLike, seed: int | None) -> Any:
        """Release from (X, y) with the noise seeded by ``seed``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows.
        y : array-like of shape (n_samples,)
            Labels in {−1, +1}.
        seed : int or None
            Noise seed.

        Returns
        -------
        ndarray or estimator
            The released vector, or the released (fitted) model.
        """
        return self._release(np.asarray(X, dtype=np.float64), np.asarray(y), seed)


class Statistic:
    """A scalar summary T of one release; subclasses implement ``__call__``.

    Parameters
    ----------
    name : str
        The name shown in results.

    Examples
    --------
    >>> Coordinate(0)([3.0, 4.0])
    3.0
    """

    #: Whether the statistic is fitted on the selection half of the runs (the
    #: auditor then collects released vectors and calls :meth:`fit`).
    needs_fit: bool = False

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, released: Any) -> float:
        """Return T(released).

        Parameters
        ----------
        released : estimator or array-like
            The fitted estimator or the released vector.

        Returns
        -------
        float
            The statistic.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _decision(released: Any, x: FloatArray) -> float:
    if hasattr(released, "decision_function"):
        score = np.ravel(released.decision_function(x.reshape(1, -1)))
        if score.size != 1:
            raise ValueError("DecisionValue needs a binary classifier.")
        return float(score[0])
    v = released_vector(released)
    d = x.size
    if v.size == d:
        return float(v @ x)
    if v.size == d + 1:  # (w, b): f(x) = wᵀx + b
        return float(v[:d] @ x + v[d])
    raise ValueError(
        f"A released vector of length {v.size} is not a linear function of "
        f"{d} features (expected {d} or {d + 1} entries)."
    )


class DecisionValue(Statistic):
    """The released model's decision value f(x) at one point.

    For an estimator, ``decision_function(x)``; for a released vector, wᵀx
    (length d) or wᵀx + b (length d + 1).

    Parameters
    ----------
    x : array-like of shape (n_features,)
        The point (by default the pair's differing point).
    name : str, optional
        Name shown in results.

    Examples
    --------
    >>> DecisionValue([1.0, 2.0])([3.0, 4.0, 0.5])   # 3 + 8 + 0.5
    11.5
    """

    def __init__(self, x: ArrayLike, name: str | None = None) -> None:
        self.x = np.asarray(x, dtype=np.float64).ravel()
        super().__init__(name or "decision value at the differing point")

    def __call__(self, released: Any) -> float:
        return _decision(released, self.x)


class FunctionDifference(Statistic):
    """f(x₁) − f(x₂): a difference of the released function at two points.

    Exact whenever the noise is a constant offset of the function (Nie & Wang's
    scalar offset, their eq. (2); docs/nie_wang.md), whatever its scale.

    Parameters
    ----------
    x1, x2 : array-like of shape (n_features,)
        The two points.
    name : str, optional
        Name shown in results.

    Examples
    --------
    >>> FunctionDifference([1.0], [0.0])([2.0, 5.0])   # (2·1 + 5) − (2·0 + 5)
    2.0
    """

    def __init__(self, x1: ArrayLike, x2: ArrayLike, name: str | None = None) -> None:
        self.x1 = np.asarray(x1, dtype=np.float64).ravel()
        self.x2 = np.asarray(x2, dtype=np.float64).ravel()
        super().__init__(name or "f(differing point) - f(0)")

    def __call__(self, released: Any) -> float:
        return _decision(released, self.x1) - _decision(released, self.x2)


class Coordinate(Statistic):
    """One coordinate of the released vector.

    Parameters
    ----------
    i : int
        The coordinate.
    name : str, optional
        Name shown in results.

    Examples
    --------
    >>> Coordinate(-1)([1.0, 2.0, 7.0])
    7.0
    """

    def __init__(self, i: int, name: str | None = None) -> None:
        self.i = int(i)
        super().__init__(name or f"coordinate {i}")

    def __call__(self, released: Any) -> float:
        return float(released_vector(released)[self.i])


class Projection(Statistic):
    """Projection on the direction between the mean releases on D and D′.

    The direction u = mean(V_D) − mean(V_D′) is estimated on the selection half
    of the runs only (:meth:`fit`), and T = ⟨v, u⟩/‖u‖; the threshold is then
    chosen on the same half and the rates are measured on the other, so the
    bound stays valid (the evaluation runs are independent of u and t).

    Parameters
    ----------
    name : str, default="projection on the mean difference"
        Name shown in results.

    Examples
    --------
    >>> proj = Projection().fit([[1.0, 0.0], [1.0, 0.2]], [[0.0, 0.0], [0.0, 0.0]])
    >>> round(proj([2.0, 0.0]), 4)
    1.9901
    """

    needs_fit = True

    def __init__(self, name: str = "projection on the mean difference") -> None:
        super().__init__(name)
        self.direction_: FloatArray | None = None

    def fit(self, select_d: ArrayLike, select_d_prime: ArrayLike) -> Projection:
        """Estimate the direction from the selection runs.

        Parameters
        ----------
        select_d : array-like of shape (n_select, n_params)
            Released vectors of the selection runs on D.
        select_d_prime : array-like of shape (n_select, n_params)
            Released vectors of the selection runs on D′.

        Returns
        -------
        Projection
            ``self``, with ``direction_`` set (a unit vector; the first axis when
            the two means coincide).
        """
        a = np.atleast_2d(np.asarray(select_d, dtype=np.float64))
        b = np.atleast_2d(np.asarray(select_d_prime, dtype=np.float64))
        u = a.mean(axis=0) - b.mean(axis=0)
        norm = float(np.linalg.norm(u))
        if not math.isfinite(norm) or norm == 0.0:
            u = np.zeros(a.shape[1])
            u[0] = 1.0
            norm = 1.0
        self.direction_ = u / norm
        return self

    def __call__(self, released: Any) -> float:
        if self.direction_ is None:
            raise RuntimeError("Projection.fit must be called first.")
        return float(released_vector(released) @ self.direction_)


_STATISTIC_NAMES = ("auto", "decision", "projection", "function-difference")


def _resolve_statistic(
    statistic: Statistic | str | Callable[[Any], float] | None,
    kind: str,
    pair: NeighbouringPair,
) -> Statistic:
    if statistic is None or statistic == "auto":
        statistic = "decision" if kind == "estimator" else "projection"
    if isinstance(statistic, Statistic):
        return statistic
    if isinstance(statistic, str):
        if statistic == "decision":
            return DecisionValue(pair.differing_point)
        if statistic == "projection":
            return Projection()
        if statistic == "function-difference":
            x = pair.differing_point
            return FunctionDifference(x, np.zeros_like(x))
        raise ValueError(
            f"Unknown statistic {statistic!r}; expected one of {_STATISTIC_NAMES}, "
            "a Statistic or a callable."
        )
    if callable(statistic):
        return _CallableStatistic(statistic)
    raise TypeError(
        f"statistic must be a str, Statistic or callable, got {statistic!r}."
    )


class _CallableStatistic(Statistic):
    def __init__(self, fn: Callable[[Any], float]) -> None:
        super().__init__(getattr(fn, "__name__", "statistic"))
        self.fn = fn

    def __call__(self, released: Any) -> float:
        return float(self.fn(released))


# -------------------------------------------------------------------- result
@dataclass(frozen=True)
class AuditResult:
    """Frozen result of one audit.

    Attributes
    ----------
    mechanism : str
        Name of the audited mechanism.
    epsilon : float
        The claimed ε.
    delta : float
        The claimed δ.
    epsilon_lower : float
        Lower bound on the true ε, valid with probability ``confidence``.
    epsilon_point : float
        The same bound from the raw error rates (no confidence correction).
    confidence : float
        Confidence of ``epsilon_lower``.
    n_runs : int
        Runs per dataset (half select the test, half evaluate it).
    n_eval : int
        Evaluation runs per dataset.
    statistic : str
        The statistic T.
    threshold : float
        The threshold t of the test.
    direction : int
        +1 for "T ≥ t ⇒ D", −1 for "T ≤ t ⇒ D".
    fpr : float
        False-positive rate on the evaluation half.
    fnr : float
        False-negative rate on the evaluation half.
    wall_time : float
        Seconds spent (runs and bound).
    pair : str
        Name of the neighbouring pair.
    """

    mechanism: str
    epsilon: float
    delta: float
    epsilon_lower: float
    epsilon_point: float
    confidence: float
    n_runs: int
    n_eval: int
    statistic: str
    threshold: float
    direction: int
    fpr: float
    fnr: float
    wall_time: float
    pair: str

    @property
    def violated(self) -> bool:
        """Whether the lower bound exceeds the claimed ε (the claim is refuted).

        Examples
        --------
        >>> _example_result(epsilon_lower=1.3).violated
        True
        """
        return self.epsilon_lower > self.epsilon

    def to_dict(self) -> dict[str, Any]:
        """Return the fields as a plain dict (JSON-serialisable).

        Returns
        -------
        dict
            Field name to value.

        Examples
        --------
        >>> _example_result().to_dict()["epsilon"]
        1.0
        """
        return asdict(self)

    def summary(self) -> str:
        """One line: mechanism, claimed (ε, δ), bound, runs, time and verdict.

        Returns
        -------
        str
            The line.

        Examples
        --------
        >>> print(_example_result().summary())  # doctest: +NORMALIZE_WHITESPACE
        m: claimed eps=1 delta=0, lower bound 0.5 (point 0.6, 95% confidence),
        1000 runs per dataset, 2.0 s -> consistent with the claim
        """
        verdict = "CLAIM REFUTED" if self.violated else "consistent with the claim"
        return (
            f"{self.mechanism}: claimed eps={self.epsilon:g} delta={self.delta:g}, "
            f"lower bound {self.epsilon_lower:.3g} (point {self.epsilon_point:.3g}, "
            f"{_percent(self.confidence)} confidence), {self.n_runs} runs per "
            f"dataset, {self.wall_time:.1f} s -> {verdict}"
        )


def _percent(p: float) -> str:
    return f"{100 * p:.10g}%"


def _example_result(**kw: Any) -> AuditResult:
    # Fields in declaration order: mechanism, ε, δ, ε_lower, ε_point, confidence,
    # n_runs, n_eval, statistic, threshold, direction, FPR, FNR, wall time, pair.
    base = AuditResult(
        "m", 1.0, 0.0, 0.5, 0.6, 0.95, 1000, 500, "s", 0.0, 1, 0.1, 0.1, 2.0, "p"
    )
    return replace(base, **kw)


# ------------------------------------------------------------------- running
def _factory_kind(factory: Callable[..., Any]) -> str:
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # pragma: no cover - builtins without signature
        raise TypeError(
            "Cannot inspect the factory's signature; pass kind='estimator' or "
            "kind='mechanism'."
        ) from None
    params = [
        p
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.default is p.empty
    ]
    if len(params) == 1:
        return "estimator"
    if len(params) == 3:
        return "mechanism"
    raise TypeError(
        "The factory must take (seed) and return an unfitted estimator, or take "
        f"(X, y, seed) and return the released vector; {factory!r} takes "
        f"{len(params)} required positional arguments. Pass kind= to override."
    )


def _release(
    factory: Callable[..., Any], kind: str, X: FloatArray, y: NDArray[Any], seed: int
) -> Any:
    if kind == "estimator":
        return factory(seed).fit(X, y)
    return factory(X, y, seed)


def _run_chunk(
    factory: Callable[..., Any],
    kind: str,
    X: FloatArray,
    y: NDArray[Any],
    seeds: Sequence[int] | NDArray[np.int64],
    statistic: Statistic,
) -> FloatArray:
    """Run one chunk of seeds: released vectors (fitted statistic) or T values."""
    out = []
    for s in seeds:
        released = _release(factory, kind, X, y, int(s))
        out.append(
            released_vector(released) if statistic.needs_fit else statistic(released)
        )
    return np.asarray(out, dtype=np.float64)


class _Progress:
    """A one-line progress report on a stream (stderr), rewritten in place."""

    def __init__(self, label: str, total: int, stream: TextIO | None) -> None:
        self.label, self.total, self.stream = label, total, stream
        self.done = 0
        self._last = 0.0
        self._start = time.perf_counter()

    def update(self, k: int) -> None:
        self.done += k
        now = time.perf_counter()
        if self.stream is not None and (
            now - self._last > 0.2 or self.done == self.total
        ):
            self._last = now
            self.stream.write(
                f"\r[audit {self.label}] {self.done}/{self.total} runs "
                f"({now - self._start:.1f} s)"
            )
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")
            self.stream.flush()


class Auditor:
    """Empirical lower bound on the ε of a mechanism from two neighbours.

    Runs the mechanism ``n_runs`` times on each dataset of ``pair`` (each run
    with its own seed; the seeds of D and D′ are disjoint), reduces each release
    to the statistic T and returns the Clopper–Pearson lower bound of
    :func:`~dpsvm.audit.epsilon_lower_bound_split` (threshold chosen on the first
    half of the runs of each dataset, rates measured on the second half).

    Parameters
    ----------
    factory : callable
        ``factory(seed) -> unfitted estimator`` or
        ``factory(X, y, seed) -> released vector`` (see ``kind``). It must be
        picklable by cloudpickle when ``n_jobs != 1`` (lambdas are).
    pair : NeighbouringPair
        The neighbouring datasets, ideally a worst case for the mechanism (see
        :mod:`dpsvm.audit.registry`).
    epsilon : float
        The claimed ε.
    delta : float, default=0.0
        The claimed δ (enters the bound ln((1 − δ − FNR)/FPR)).
    statistic : {"auto", "decision", "projection", "function-difference"}, \
Statistic or callable, default="auto"
        T. ``"auto"``: the decision value at the differing point for
        estimators, the projection on the mean difference (estimated on the
        selection half) for mechanisms. A callable gets the fitted estimator or
        the released vector and returns a float.
    n_runs : int, default=1000
        Runs per dataset (≥ 8); half choose the test, half evaluate it.
    confidence : float, default=0.95
        Confidence of the lower bound.
    n_jobs : int or None, default=1
        Parallel workers (joblib; ``None`` or 1 runs in this process, −1 uses
        every core).
    random_state : int or None, default=0
        Seed of the run seeds (audits are reproducible by default). ``None``
        draws fresh ones.
    progress : bool or text stream, default=False
        Write a one-line progress report to standard error (``True``) or to the
        given stream; nothing at all when false.
    kind : {"auto", "estimator", "mechanism"}, default="auto"
        What ``factory`` returns; ``"auto"`` reads it from the number of
        required arguments (1: estimator, 3: mechanism).
    name : str or None, default=None
        Mechanism name for the result (default: the factory's name).
    n_thresholds : int, default=200
        Candidate thresholds of the test.

    Notes
    -----
    The result is a lower bound that holds with probability ``confidence``
    *over the audit's own randomness*; it certifies a violation when it exceeds
    the claim, and says nothing about pairs or statistics that were not tried.
    A bound ≤ ε is evidence, not a proof, of privacy.

    References
    ----------
    .. [1] M. Jagielski, J. Ullman, A. Oprea, "Auditing differentially private
       machine learning: how private is private SGD?", NeurIPS 2020.
    .. [2] M. Nasr, S. Song, A. Thakurta, N. Papernot, N. Carlini, "Adversary
       instantiation: lower bounds for differentially private machine
       learning", IEEE S&P 2021.

    Examples
    --------
    A count released with Laplace noise of scale 1 (ε = 1 for sensitivity 1):

    >>> def release(X, y, seed):
    ...     return [np.random.default_rng(seed).laplace(np.sum(y), 1.0)]
    >>> pair = NeighbouringPair(np.zeros((3, 1)), [0, 0, 0], np.zeros((3, 1)),
    ...                         [0, 0, 1], name="count")
    >>> res = Auditor(release, pair, epsilon=1.0, n_runs=4000).run()
    >>> 0.4 < res.epsilon_lower <= 1.0, res.violated
    (True, False)
    """

    def __init__(
        self,
        factory: Callable[..., Any],
        pair: NeighbouringPair,
        *,
        epsilon: float,
        delta: float = 0.0,
        statistic: Statistic | str | Callable[[Any], float] | None = "auto",
        n_runs: int = 1000,
        confidence: float = 0.95,
        n_jobs: int | None = 1,
        random_state: int | None = 0,
        progress: bool | TextIO = False,
        kind: FactoryKind = "auto",
        name: str | None = None,
        n_thresholds: int = 200,
    ) -> None:
        self.factory = factory
        self.pair = pair
        self.epsilon = epsilon
        self.delta = delta
        self.statistic = statistic
        self.n_runs = n_runs
        self.confidence = confidence
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress
        self.kind = kind
        self.name = name
        self.n_thresholds = n_thresholds

    # -- helpers ---------------------------------------------------------------
    def _check(self) -> tuple[str, int]:
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        if not isinstance(self.pair, NeighbouringPair):
            raise TypeError(
                f"pair must be a NeighbouringPair, got {type(self.pair).__name__}."
            )
        if isinstance(self.n_runs, bool) or not isinstance(
            self.n_runs, int | np.integer
        ):
            raise TypeError(f"n_runs must be an int, got {self.n_runs!r}.")
        if self.n_runs < 8:
            raise ValueError(f"n_runs must be at least 8, got {self.n_runs}.")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}.")
        if self.kind not in ("auto", "estimator", "mechanism"):
            raise ValueError(
                f"kind must be 'auto', 'estimator' or 'mechanism', got {self.kind!r}."
            )
        kind = _factory_kind(self.factory) if self.kind == "auto" else self.kind
        n_jobs = 1 if self.n_jobs is None else int(self.n_jobs)
        if n_jobs == 0:
            raise ValueError("n_jobs must be a non-zero int or None.")
        return kind, n_jobs

    def seeds(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The run seeds on D and on D′: 2·n_runs distinct integers.

        Returns
        -------
        seeds_d, seeds_d_prime : ndarray of int64
            ``n_runs`` seeds each; no seed is used twice.

        Examples
        --------
        >>> pair = NeighbouringPair(np.ones((2, 1)), [1, 1], np.ones((2, 1)), [1, -1])
        >>> a, b = Auditor(print, pair, epsilon=1.0, n_runs=10).seeds()
        >>> len(set(a.tolist()) | set(b.tolist()))
        20
        """
        n = int(self.n_runs)
        # None or an int only (a generator object is refused, as everywhere).
        rng = check_random_state(self.random_state, secure=False)
        all_seeds = rng.choice(2**31 - 1, size=2 * n, replace=False).astype(np.int64)
        return all_seeds[:n], all_seeds[n:]

    def _collect(
        self, kind: str, n_jobs: int, statistic: Statistic, label: str
    ) -> tuple[FloatArray, FloatArray]:
        seeds_d, seeds_dp = self.seeds()
        pair = self.pair
        workers = (os.cpu_count() or 1) if n_jobs < 0 else n_jobs
        n = len(seeds_d)
        # Chunks: enough for a smooth progress line and load balance, few enough
        # that dispatch costs nothing next to a fit.
        size = max(1, min(100, math.ceil(n / (4 * workers))))
        tasks: list[tuple[int, FloatArray, NDArray[Any], NDArray[np.int64]]] = []
        for which, (X, y, seeds) in enumerate(
            ((pair.X, pair.y, seeds_d), (pair.X_prime, pair.y_prime, seeds_dp))
        ):
            for start in range(0, n, size):
                tasks.append((which, X, y, seeds[start : start + size]))
        stream: TextIO | None
        if self.progress is True:
            stream = sys.stderr
        elif self.progress is False or self.progress is None:
            stream = None
        else:
            stream = self.progress
        bar = _Progress(label, 2 * n, stream)
        results: Iterator[FloatArray]
        if workers == 1:
            results = (
                _run_chunk(self.factory, kind, X, y, s, statistic)
                for _, X, y, s in tasks
            )
        else:
            from joblib import Parallel, delayed

            results = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_run_chunk)(self.factory, kind, X, y, s, statistic)
                for _, X, y, s in tasks
            )
        parts: tuple[list[FloatArray], list[FloatArray]] = ([], [])
        try:
            for (which, _, _, s), res in zip(tasks, results, strict=True):
                parts[which].append(res)
                bar.update(len(s))
        finally:
            bar.close()
        return np.concatenate(parts[0]), np.concatenate(parts[1])

    # -- public ----------------------------------------------------------------
    def run(self) -> AuditResult:
        """Run the audit.

        Returns
        -------
        AuditResult
            The claimed (ε, δ), the lower bound and the test behind it.

        Raises
        ------
        ValueError
            For an invalid parameter, or when a release is not finite.
        TypeError
            If the factory's kind cannot be determined or a release cannot be
            reduced to a vector.
        """
        kind, n_jobs = self._check()
        statistic = _resolve_statistic(self.statistic, kind, self.pair)
        label = str(
            self.name or getattr(self.factory, "__name__", type(self.factory).__name__)
        )
        start = time.perf_counter()
        vals_d, vals_dp = self._collect(kind, n_jobs, statistic, label)
        h = int(self.n_runs) // 2  # runs are i.i.d.: first half selects
        if statistic.needs_fit:
            if vals_d.ndim != 2 or vals_d.shape != vals_dp.shape:
                raise ValueError(
                    "Releases on D and D′ must be vectors of one common length."
                )
            if not (np.all(np.isfinite(vals_d)) and np.all(np.isfinite(vals_dp))):
                raise ValueError("The released vectors are not finite on every run.")
            assert isinstance(statistic, Projection)
            statistic.fit(vals_d[:h], vals_dp[:h])
            assert statistic.direction_ is not None
            t_d, t_dp = vals_d @ statistic.direction_, vals_dp @ statistic.direction_
        else:
            t_d, t_dp = vals_d.ravel(), vals_dp.ravel()
        if not (np.all(np.isfinite(t_d)) and np.all(np.isfinite(t_dp))):
            raise ValueError("The statistic is not finite on every run.")
        bound: AuditBound = epsilon_lower_bound_split(
            t_d[:h],
            t_dp[:h],
            t_d[h:],
            t_dp[h:],
            delta=float(self.delta),
            confidence=float(self.confidence),
            n_thresholds=int(self.n_thresholds),
        )
        return AuditResult(
            mechanism=label,
            epsilon=float(self.epsilon),
            delta=float(self.delta),
            epsilon_lower=float(bound.epsilon_lower),
            epsilon_point=float(bound.epsilon_point),
            confidence=float(self.confidence),
            n_runs=int(self.n_runs),
            n_eval=bound.n_eval,
            statistic=statistic.name,
            threshold=bound.threshold,
            direction=bound.direction,
            fpr=bound.fpr,
            fnr=bound.fnr,
            wall_time=time.perf_counter() - start,
            pair=self.pair.name,
        )
