# SPDX-License-Identifier: BSD-3-Clause
"""What to audit: worst-case neighbouring pairs and one entry per mechanism.

**Pairs.** An audit can only find the leakage of the neighbouring pair it runs,
so the pairs here are built to *attain* the sensitivity each calibration is
computed for (replace-one neighbours throughout):

* :func:`flipped_label_pair` — n rows at the norm bound, x = R (1-D), all
  labelled +1; D′ flips the last label. For the hinge with Λ = 1 and n = 10 the
  minimisers are 1 and 0.8, i.e. exactly 2/(nΛ) apart: the L2 sensitivity of
  output perturbation (Chaudhuri, Monteleoni & Sarwate 2011, Cor. 8) is
  attained, and so is the gradient bound 2 of objective perturbation.
* :func:`canary_pair` — a d-dimensional dataset whose background rows lie in
  the first d − 1 coordinates plus a *canary* at the norm bound along the last
  axis, labelled +1 in D and −1 in D′. The canary is alone on its axis, so the
  weights differ by exactly 2R/(nΛ) along it.
* :func:`lemma17_pair` — Rubinstein et al.'s Lemma 17 databases (their lower
  bound on optimal DP for the linear hinge SVM), via
  :func:`dpsvm.bounds.rubinstein.lemma17_databases`; the minimisers differ by
  2ε_L17, half the worst case at the largest admissible ε_L17.
* :func:`balanced_pair` — labels 3 : 7 against 4 : 6 on x = 1, for the
  exponential mechanism over the two sign classifiers (each utility moves by
  exactly Δu = 1, in opposite directions).
* :func:`tdil_pair` — the symmetric 1-D dataset on which Jain & Thakurta's printed
  TDIL leaks (see :class:`dpsvm.audit.flawed.JainThakurtaTDILPrinted`).

**Entries.** :data:`REGISTRY` maps a name to an :class:`AuditEntry`: how to
build the mechanism for a claimed (ε, δ), which pair and statistic to use,
whether the mechanism is a deliberately flawed one (expected to be *caught*),
and how many runs the full and the fast audit use. Add a mechanism with
:func:`register`; :func:`run_audit` runs an entry by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TextIO

import numpy as np
from numpy.typing import NDArray

from ..accounting.accountant import BudgetAccountant
from ..bounds.rubinstein import lemma17_databases
from ..mechanisms import (
    AnalyticGaussian,
    ExponentialMechanism,
    GammaNormVector,
    LaplaceVector,
)
from ..models.linear import (
    DPLinearSVC,
    DPLogisticRegression,
    NonPrivateLinearClassifier,
)
from ..validation import project_rows_to_ball
from ._auditor import (
    Auditor,
    AuditResult,
    NeighbouringPair,
    SeededRelease,
    Statistic,
)
from .flawed import (
    JainThakurtaTDILPrinted,
    LiteralBetaObjectivePerturbation,
    NieWangScalarOffset,
)

__all__ = [
    "REGISTRY",
    "AuditEntry",
    "EstimatorFactory",
    "ExponentialSelection",
    "LabelledSumRelease",
    "LazyEstimatorFactory",
    "SubsampleAggregateRelease",
    "balanced_pair",
    "canary_pair",
    "flipped_label_pair",
    "get_entry",
    "lemma17_pair",
    "list_entries",
    "register",
    "run_audit",
    "tdil_pair",
]

FloatArray = NDArray[np.float64]


# --------------------------------------------------------------------- pairs
def _relabel_last(
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    label: float,
    *,
    name: str,
    description: str,
) -> NeighbouringPair:
    """The pair (X, y) and (X, y with the last label set to ``label``)."""
    y2 = y.copy()
    y2[-1] = label
    return NeighbouringPair(X, y, X.copy(), y2, name=name, description=description)


def flipped_label_pair(n: int = 10, *, norm: float = 1.0) -> NeighbouringPair:
    """n rows x = ``norm`` (1-D), labels +1; D′ flips the last label.

    Parameters
    ----------
    n : int, default=10
        Number of rows (≥ 2).
    norm : float, default=1.0
        The row value, i.e. the norm bound R.

    Returns
    -------
    NeighbouringPair
        The pair (differing row: the last).

    Examples
    --------
    >>> pair = flipped_label_pair(4)
    >>> pair.y.tolist(), pair.y_prime.tolist(), pair.index
    ([1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, -1.0], 3)
    """
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}.")
    X = np.full((n, 1), float(norm))
    y = np.ones(n)
    return _relabel_last(
        X,
        y,
        -1.0,
        name=f"flipped-label n={n}",
        description=(
            f"{n} rows x = {norm:g} labelled +1; D' flips the last label. Hinge, "
            "Lambda = 1, n = 10: minimisers 1 and 0.8, i.e. 2/(n Lambda) apart."
        ),
    )


def canary_pair(
    n: int = 50, d: int = 5, *, norm: float = 1.0, random_state: int = 0
) -> NeighbouringPair:
    """A d-dimensional dataset plus a canary at the norm bound with a flipped label.

    The n − 1 background rows are uniform in the ball of radius ``norm`` of the
    first d − 1 coordinates (last coordinate 0), labelled by the sign of their
    first coordinate; the canary is ``norm``·e_d, labelled +1 in D and −1 in D′.

    Parameters
    ----------
    n : int, default=50
        Number of rows (≥ 2).
    d : int, default=5
        Dimension (≥ 2).
    norm : float, default=1.0
        The norm bound R (the canary's norm).
    random_state : int, default=0
        Seed of the (public, data-independent) background rows.

    Returns
    -------
    NeighbouringPair
        The pair (differing row: the last).

    Examples
    --------
    >>> pair = canary_pair(20, 3)
    >>> pair.differing_point.tolist(), pair.y[-1], pair.y_prime[-1]
    ([0.0, 0.0, 1.0], np.float64(1.0), np.float64(-1.0))
    """
    if n < 2 or d < 2:
        raise ValueError(f"Need n >= 2 and d >= 2, got n={n}, d={d}.")
    rng = np.random.default_rng(random_state)
    g = rng.standard_normal((n - 1, d - 1))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    r = norm * rng.uniform(size=(n - 1, 1)) ** (1.0 / (d - 1))
    X = np.zeros((n, d))
    X[: n - 1, : d - 1] = g * r
    X[n - 1, d - 1] = norm
    y = np.where(X[:, 0] >= 0, 1.0, -1.0)
    y[-1] = 1.0
    return _relabel_last(
        X,
        y,
        -1.0,
        name=f"canary n={n} d={d}",
        description=(
            f"{n - 1} background rows in the first {d - 1} coordinates and a canary "
            f"{norm:g}*e_{d} whose label flips."
        ),
    )


def lemma17_pair(n: int = 10, C: float = 1.0, eps: float = 0.05) -> NeighbouringPair:
    """Rubinstein et al.'s Lemma 17 databases (D = D₁, D′ = D₂).

    Parameters
    ----------
    n : int, default=10
        Number of rows.
    C : float, default=1.0
        Rubinstein et al.'s regularisation weight C = 1/Λ.
    eps : float, default=0.05
        Half the gap of the two hinge minimisers, < √(C/(2n(2n − 1))). With the
        defaults M = 2nε/C = 1 (rows at the unit norm bound).

    Returns
    -------
    NeighbouringPair
        The pair (differing row: the last).

    Examples
    --------
    >>> pair = lemma17_pair()
    >>> float(np.max(np.abs(pair.X))), pair.y[-1], pair.y_prime[-1]
    (1.0, np.float64(-1.0), np.float64(1.0))
    """
    (X1, y1), (X2, y2) = lemma17_databases(n, C, eps)
    return NeighbouringPair(
        X1,
        y1.astype(np.float64),
        X2,
        y2.astype(np.float64),
        name=f"lemma17 n={n}",
        description=(
            f"Rubinstein et al. Lemma 17 databases (C = {C:g}, eps = {eps:g}): "
            f"hinge minimisers {2 * eps:g} apart."
        ),
    )


def balanced_pair(n: int = 10, n_positive: int = 3) -> NeighbouringPair:
    """x = 1 with ``n_positive`` labels +1; D′ turns the last −1 into +1.

    Parameters
    ----------
    n : int, default=10
        Number of rows.
    n_positive : int, default=3
        Positives in D (0 ≤ n_positive < n).

    Returns
    -------
    NeighbouringPair
        The pair (differing row: the last).

    Examples
    --------
    >>> pair = balanced_pair(4, 1)
    >>> pair.y.tolist(), pair.y_prime.tolist()
    ([1.0, -1.0, -1.0, -1.0], [1.0, -1.0, -1.0, 1.0])
    """
    if not 0 <= n_positive < n:
        raise ValueError(f"Need 0 <= n_positive < n, got {n_positive} and {n}.")
    X = np.ones((n, 1))
    y = -np.ones(n)
    y[:n_positive] = 1.0
    return _relabel_last(
        X,
        y,
        1.0,
        name=f"balanced {n_positive}:{n - n_positive}",
        description=(
            f"x = 1, {n_positive} positives of {n}; D' relabels one negative, moving "
            "the error count of each sign classifier by 1 in opposite directions."
        ),
    )


def tdil_pair(n: int = 1301) -> NeighbouringPair:
    """(n − 1)/2 rows at x = +1 (y = +1), (n − 1)/2 at x = −1 (y = −1), one at 0.

    The last row (x = 0) is labelled +1 in D and −1 in D′, which tilts the
    intercept weight of φ(x) = (x, 1)/√2 by ±1/(√2nλ) and breaks the tie between
    the two ends of the domain in TDIL's exponential mechanism.

    Parameters
    ----------
    n : int, default=1301
        Number of rows (odd; with ε = 1, δ = 1e-5 the printed B is 1).

    Returns
    -------
    NeighbouringPair
        The pair (differing row: the last).

    Examples
    --------
    >>> pair = tdil_pair(5)
    >>> pair.X.ravel().tolist(), pair.y.tolist(), pair.y_prime[-1]
    ([1.0, 1.0, -1.0, -1.0, 0.0], [1.0, 1.0, -1.0, -1.0, 1.0], np.float64(-1.0))
    """
    if n < 3 or n % 2 == 0:
        raise ValueError(f"n must be odd and at least 3, got {n}.")
    h = (n - 1) // 2
    X = np.concatenate([np.ones(h), -np.ones(h), [0.0]]).reshape(-1, 1)
    y = np.concatenate([np.ones(h), -np.ones(h), [1.0]])
    return _relabel_last(
        X,
        y,
        -1.0,
        name=f"tdil-symmetric n={n}",
        description="symmetric ends x = +-1 and one point at 0 whose label flips",
    )


# ----------------------------------------------------------------- factories
@dataclass(frozen=True)
class EstimatorFactory:
    """``factory(seed) -> estimator(**params, random_state=seed)`` (picklable).

    Parameters
    ----------
    estimator : type or str
        The estimator class, or ``"package.module:ClassName"``: then the class
        is imported on the first call, so an entry for a module that fails to
        import breaks only that entry, not :mod:`dpsvm.audit`.
    params : mapping
        Constructor arguments (except the seed and the accountant).
    seed_param : str or None, default="random_state"
        Name of the seed argument; ``None`` for deterministic estimators.
    accountant_epsilon : float or None, default=None
        With a value, each estimator gets a fresh
        :class:`~dpsvm.accounting.BudgetAccountant` of that budget as
        ``accountant`` (for estimators that require one, e.g. per-query
        mechanisms).

    Examples
    --------
    >>> f = EstimatorFactory(DPLinearSVC, {"epsilon": 0.5})
    >>> f(3).random_state, f(3).epsilon
    (3, 0.5)
    >>> g = EstimatorFactory("dpsvm.models:DPLinearSVC", {"epsilon": 2.0})
    >>> type(g(0)).__name__, g(0).epsilon
    ('DPLinearSVC', 2.0)
    """

    estimator: type | str
    params: Mapping[str, Any] = field(default_factory=dict)
    seed_param: str | None = "random_state"
    accountant_epsilon: float | None = None

    def __call__(self, seed: int) -> Any:
        """Return a new unfitted estimator seeded with ``seed``.

        Parameters
        ----------
        seed : int
            The noise seed.

        Returns
        -------
        estimator
            The unfitted estimator.
        """
        cls = self.estimator
        if isinstance(cls, str):
            module, _, name = cls.partition(":")
            cls = getattr(importlib.import_module(module), name)
        kw = dict(self.params)
        if self.seed_param is not None:
            kw[self.seed_param] = seed
        if self.accountant_epsilon is not None:
            kw["accountant"] = BudgetAccountant(epsilon=self.accountant_epsilon)
        return cls(**kw)


class LazyEstimatorFactory(EstimatorFactory):
    """An :class:`EstimatorFactory` that names its class as ``"module:Class"``.

    Parameters
    ----------
    estimator : str
        ``"package.module:ClassName"`` (see :class:`EstimatorFactory`).
    params : mapping
        Constructor arguments (except the seed and the accountant).
    seed_param : str or None, default="random_state"
        Name of the seed argument.
    accountant_epsilon : float or None, default=None
        Budget of a fresh accountant passed as ``accountant``.

    Examples
    --------
    >>> f = LazyEstimatorFactory("dpsvm.models.linear:DPLinearSVC", {"epsilon": 2.0})
    >>> type(f(0)).__name__, f(0).epsilon
    ('DPLinearSVC', 2.0)
    """


@dataclass(frozen=True)
class LabelledSumRelease(SeededRelease):
    """Release f(D) = Σᵢ yᵢxᵢ with a vector mechanism of :mod:`dpsvm.mechanisms`.

    Rows are clipped into the unit L1 ball (``"laplace"``) or L2 ball (the
    others), so replacing one record moves f by at most 2 in that norm; the
    mechanism is calibrated to that sensitivity.

    Parameters
    ----------
    mechanism : {"laplace", "gamma-norm", "analytic-gaussian"}
        :class:`~dpsvm.mechanisms.LaplaceVector` (L1),
        :class:`~dpsvm.mechanisms.GammaNormVector` (L2, pure) or
        :class:`~dpsvm.mechanisms.AnalyticGaussian` (L2, (ε, δ)).
    epsilon : float
        ε of the mechanism.
    delta : float, default=0.0
        δ (analytic Gaussian only).

    Examples
    --------
    >>> rel = LabelledSumRelease("gamma-norm", 1.0)
    >>> rel(np.ones((3, 2)), np.ones(3), 0).shape
    (2,)
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0

    SENSITIVITY = 2.0

    def _release(self, X: FloatArray, y: NDArray[Any], seed: int | None) -> FloatArray:
        y = np.asarray(y, dtype=np.float64)
        if self.mechanism == "laplace":
            l1 = np.maximum(np.abs(X).sum(axis=1, keepdims=True), 1.0)
            Xc = X / l1  # per-row public clip to ‖x‖₁ ≤ 1: Δ₁ = 2
            mech: Any = LaplaceVector(
                epsilon=self.epsilon, sensitivity=self.SENSITIVITY
            )
        else:
            Xc = project_rows_to_ball(X, 1.0)  # ‖x‖₂ ≤ 1: Δ₂ = 2
            if self.mechanism == "gamma-norm":
                mech = GammaNormVector(
                    epsilon=self.epsilon, sensitivity=self.SENSITIVITY
                )
            elif self.mechanism == "analytic-gaussian":
                mech = AnalyticGaussian(
                    epsilon=self.epsilon, delta=self.delta, sensitivity=self.SENSITIVITY
                )
            else:
                raise ValueError(f"Unknown vector mechanism {self.mechanism!r}.")
        return np.asarray(mech.randomise(y @ Xc, random_state=seed), dtype=np.float64)


@dataclass(frozen=True)
class ExponentialSelection(SeededRelease):
    """Select one of the two sign classifiers w ∈ {−1, +1} on the first feature.

    Utility u(w) = −#{i : yᵢ·w·xᵢ₁ ≤ 0} (minus the training errors), Δu = 1 under
    replace-one; the selected index is drawn by
    :class:`~dpsvm.mechanisms.ExponentialMechanism` and released as a
    one-element vector.

    Parameters
    ----------
    epsilon : float
        ε of the selection.

    Examples
    --------
    >>> sel = ExponentialSelection(1.0)
    >>> sel(np.ones((4, 1)), np.ones(4), 0).tolist() in ([0.0], [1.0])
    True
    """

    epsilon: float

    def _release(self, X: FloatArray, y: NDArray[Any], seed: int | None) -> FloatArray:
        # Released: the index of the selected classifier (0: w = −1, 1: w = +1).
        x = X[:, 0]
        y = np.asarray(y, dtype=np.float64)
        utilities = [-float(np.sum(y * w * x <= 0)) for w in (-1.0, 1.0)]
        em = ExponentialMechanism(epsilon=self.epsilon, sensitivity=1.0)
        return np.array([float(em.select(utilities, random_state=seed))])


# ------------------------------------------------------------------- entries
Kind = Literal["estimator", "mechanism"]


@dataclass(frozen=True)
class AuditEntry:
    """One auditable mechanism: how to build it, which pair, which statistic.

    Parameters
    ----------
    name : str
        Registry key (used by ``dpsvm audit --mechanism``).
    family : str
        Mechanism family (e.g. ``"linear-objective"``); the fast test suite
        audits at least one real mechanism per family.
    description : str
        One line for listings and the audit table.
    build : callable
        ``build(epsilon, delta) -> factory`` for the claimed (ε, δ).
    pair : callable
        ``pair() -> NeighbouringPair``.
    kind : {"estimator", "mechanism"}
        What the factory returns (see :class:`~dpsvm.audit.Auditor`).
    epsilon : float, default=1.0
        Default claimed ε.
    delta : float, default=0.0
        Default claimed δ.
    statistic : str or Statistic, default="auto"
        The statistic (see :class:`~dpsvm.audit.Auditor`).
    flawed : bool, default=False
        ``True`` for the never-for-use mechanisms of :mod:`dpsvm.audit.flawed`
        (and the non-private SVM): the audit must refute their claim.
    n_runs : int, default=2000
        Runs per dataset of the full audit (``scripts/run_audit.py``).
    fast_runs : int, default=200
        Runs per dataset of the fast audit (test suite, CLI default).
    reference : str, default=""
        Paper and section of the mechanism.

    Examples
    --------
    >>> entry = get_entry("laplace")
    >>> entry.family, entry.flawed, entry.kind
    ('vector-noise', False, 'mechanism')
    """

    name: str
    family: str
    description: str
    build: Callable[[float, float], Callable[..., Any]]
    pair: Callable[[], NeighbouringPair]
    kind: Kind
    epsilon: float = 1.0
    delta: float = 0.0
    statistic: str | Statistic = "auto"
    flawed: bool = False
    n_runs: int = 2000
    fast_runs: int = 200
    reference: str = ""

    def auditor(
        self,
        *,
        n_runs: int | None = None,
        epsilon: float | None = None,
        delta: float | None = None,
        confidence: float = 0.95,
        n_jobs: int | None = 1,
        random_state: int | None = 0,
        progress: bool | TextIO = False,
    ) -> Auditor:
        """Build the :class:`~dpsvm.audit.Auditor` of this entry.

        Parameters
        ----------
        n_runs : int or None, default=None
            Runs per dataset (default: ``fast_runs``).
        epsilon : float or None, default=None
            Claimed ε (default: the entry's).
        delta : float or None, default=None
            Claimed δ (default: the entry's).
        confidence : float, default=0.95
            Confidence of the bound.
        n_jobs : int or None, default=1
            Parallel workers.
        random_state : int or None, default=0
            Seed of the run seeds.
        progress : bool or text stream, default=False
            Progress line on standard error (or the given stream).

        Returns
        -------
        Auditor
            The configured auditor (call ``run()``).
        """
        eps = self.epsilon if epsilon is None else float(epsilon)
        dlt = self.delta if delta is None else float(delta)
        return Auditor(
            self.build(eps, dlt),
            self.pair(),
            epsilon=eps,
            delta=dlt,
            statistic=self.statistic,
            n_runs=self.fast_runs if n_runs is None else int(n_runs),
            confidence=confidence,
            n_jobs=n_jobs,
            random_state=random_state,
            progress=progress,
            kind=self.kind,
            name=self.name,
        )


@dataclass(frozen=True)
class SubsampleAggregateRelease(SeededRelease):
    """One answer of :class:`~dpsvm.prediction.SubsampleAggregatePredictor`.

    One teacher per row (a one-row chunk is a constant teacher, so the vote is
    the number of +1 labels) and one query with the cut-off c = 1; most of the
    ε goes to the charged vote (``vote_share=0.9``), so on
    :func:`flipped_label_pair` (vote gap n against n − 2, distance to
    instability ⌈n/2⌉ − 1 against one less) the released label attains
    nearly the claimed ε. Released as the vector [label].

    Parameters
    ----------
    epsilon : float
        Claimed ε.
    delta : float, default=1e-5
        Claimed δ.

    Examples
    --------
    >>> rel = SubsampleAggregateRelease(1.0)
    >>> rel(np.ones((4, 1)), np.ones(4), 0).shape
    (1,)
    """

    epsilon: float
    delta: float = 1e-5

    def _release(self, X: FloatArray, y: NDArray[Any], seed: int | None) -> FloatArray:
        import warnings

        from ..prediction import SubsampleAggregatePredictor, VacuousCalibrationWarning

        with warnings.catch_warnings():
            # Tiny k: the sparse vector never frees an answer (audited anyway).
            warnings.simplefilter("ignore", VacuousCalibrationWarning)
            p = SubsampleAggregatePredictor(
                epsilon=self.epsilon,
                delta=self.delta,
                n_queries=1,
                n_teachers=X.shape[0],
                max_charged=1,
                vote_share=0.9,
                on_vacuous="warn",
                kernel="linear",
                data_norm=None,
                classes=[-1, 1],
                random_state=seed,
            ).fit(X, y)
        return np.array([float(p.answer(X[-1:]).labels[0])])


_REGISTRY: dict[str, AuditEntry] = {}
#: Read-only view of the registered entries, by name.
REGISTRY: Mapping[str, AuditEntry] = MappingProxyType(_REGISTRY)


def register(entry: AuditEntry, *, replace: bool = False) -> AuditEntry:
    """Add an entry to :data:`REGISTRY`.

    Parameters
    ----------
    entry : AuditEntry
        The entry.
    replace : bool, default=False
        Allow replacing an entry of the same name.

    Returns
    -------
    AuditEntry
        ``entry``.

    Raises
    ------
    ValueError
        If the name is taken and ``replace`` is false.

    Examples
    --------
    >>> e = get_entry("laplace")
    >>> register(e)
    Traceback (most recent call last):
    ...
    ValueError: An audit entry named 'laplace' already exists; pass replace=True.
    """
    if not isinstance(entry, AuditEntry):
        raise TypeError(f"entry must be an AuditEntry, got {type(entry).__name__}.")
    if entry.name in _REGISTRY and not replace:
        raise ValueError(
            f"An audit entry named {entry.name!r} already exists; pass replace=True."
        )
    _REGISTRY[entry.name] = entry
    return entry


def get_entry(name: str) -> AuditEntry:
    """The entry called ``name``.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_entries`).

    Returns
    -------
    AuditEntry
        The entry.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> get_entry("no-such")
    Traceback (most recent call last):
    ...
    ValueError: unknown mechanism 'no-such'; known: ...
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(
            f"unknown mechanism {name!r}; known: {known} (see 'dpsvm audit --list')"
        ) from None


def list_entries(
    *, flawed: bool | None = None, family: str | None = None
) -> list[AuditEntry]:
    """Registered entries in registration order, optionally filtered.

    Parameters
    ----------
    flawed : bool or None, default=None
        Keep only the flawed (``True``) or only the real (``False``) ones.
    family : str or None, default=None
        Keep only this family.

    Returns
    -------
    list of AuditEntry
        The entries.

    Examples
    --------
    >>> all(e.flawed for e in list_entries(flawed=True))
    True
    """
    return [
        e
        for e in _REGISTRY.values()
        if (flawed is None or e.flawed == flawed)
        and (family is None or e.family == family)
    ]


def run_audit(name: str, **options: Any) -> AuditResult:
    """Audit the registered mechanism ``name``.

    Parameters
    ----------
    name : str
        Registered name.
    **options
        Keyword arguments of :meth:`AuditEntry.auditor` (``n_runs``,
        ``epsilon``, ``delta``, ``confidence``, ``n_jobs``, ``random_state``,
        ``progress``); by default the entry's fast setting, seed 0.

    Returns
    -------
    AuditResult
        The result.

    Examples
    --------
    >>> res = run_audit("exponential", n_runs=400)
    >>> res.epsilon, res.epsilon_lower <= res.epsilon
    (1.0, True)
    """
    return get_entry(name).auditor(**options).run()


# ------------------------------------------------------- the built-in entries
_CMS = "Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011)"


def _linear(
    estimator: type, **params: Any
) -> Callable[[float, float], EstimatorFactory]:
    def build(epsilon: float, delta: float) -> EstimatorFactory:
        return EstimatorFactory(
            estimator,
            # Explicit settings (bias-free, as in the papers): the audit's
            # results must not move when the estimators' defaults change.
            {
                "epsilon": epsilon,
                "regularization": 1.0,
                "fit_intercept": False,
                "classes": [-1, 1],
                **({"delta": delta} if delta > 0 else {}),
                **params,
            },
        )

    return build


#: Random-feature settings of the kernel entries: 5 RBF frequencies with public,
#: fixed draws (they are data-independent and released).
_RFF: dict[str, Any] = {"kernel": "rbf", "gamma": 1.0, "n_components": 5,
                        "feature_random_state": 0}  # fmt: skip


def _lazy(target: str, **params: Any) -> Callable[[float, float], LazyEstimatorFactory]:
    def build(epsilon: float, delta: float) -> LazyEstimatorFactory:
        kw = {"epsilon": epsilon, "regularization": 1.0, "classes": [-1, 1]}
        if delta > 0:
            kw["delta"] = delta
        return LazyEstimatorFactory(target, {**kw, **params})

    return build


def _lazy_predictor(epsilon: float, delta: float) -> LazyEstimatorFactory:
    # One decision_function call (the audit statistic) is one ε-DP answer; each
    # run gets a fresh accountant holding exactly that budget.
    return LazyEstimatorFactory(
        "dpsvm.models:PerQueryLaplacePredictor",
        {
            "epsilon": epsilon,
            "kernel": "rbf",
            "gamma": 1.0,
            "regularization": 1.0,
            "classes": [-1, 1],
        },
        accountant_epsilon=epsilon,
    )


#: The built-in entries, in listing order. One row each: name, family, kind,
#: (n_runs of the full audit, fast_runs of the fast one), build, pair,
#: description, reference, and the rest of the :class:`AuditEntry` options.
#: Flawed rows are NEVER FOR USE: the audit must refute their claim.
def _margin(solver: str, **params: Any) -> Callable[[float, float], EstimatorFactory]:
    def build(epsilon: float, delta: float) -> LazyEstimatorFactory:
        # Explicit small settings: Φ = I (one component on the 1-D pair), the
        # ρ-hinge at margin 0.5 on the unit ball, the solver under audit.
        kw = {
            "epsilon": epsilon,
            "delta": delta,
            "solver": solver,
            "n_components": 1,
            "margin": 0.5,
            "norm_bound": 1.0,
            "data_norm": 1.0,
            "classes": [-1, 1],
        }
        return LazyEstimatorFactory(
            "dpsvm.margins:JLMarginClassifier", {**kw, **params}
        )

    return build


_FLIP, _CANARY = flipped_label_pair, canary_pair
_BGM = "Bassily, Guzman & Menart (2021), Alg. 2 (reconstructed)"
_KSVC = "dpsvm.models.kernel:DPKernelSVC"
_NW = "docs/nie_wang.md"
_A2T9 = f"{_CMS}, Alg. 2 / Thm 9"
# fmt: off
_BUILTINS: tuple[tuple[Any, ...], ...] = (
    # ---- linear estimators (dpsvm.models.linear).
    ("objective-huber", "linear-objective", "estimator", (2000, 200),
     _linear(DPLinearSVC), _FLIP,
     "DPLinearSVC, objective perturbation, Huber loss (Lambda = 1)", _A2T9, {}),
    ("objective-logistic", "linear-objective", "estimator", (2000, 200),
     _linear(DPLogisticRegression), _FLIP,
     "DPLogisticRegression, objective perturbation (Lambda = 1)",
     f"{_A2T9} (c = 1/4)", {}),
    ("objective-huber-canary", "linear-objective", "estimator", (1000, 200),
     _linear(DPLinearSVC), _CANARY,
     "DPLinearSVC, objective perturbation, Huber; 5-D canary pair", _A2T9, {}),
    ("objective-gaussian-huber", "linear-objective", "estimator", (2000, 200),
     _linear(DPLinearSVC, mechanism="objective-gaussian"), _FLIP,
     "DPLinearSVC, objective perturbation with Gaussian b, Huber (Lambda = 1)",
     "Kifer, Smith & Thakurta, COLT 2012, Alg. 1 / Thm 2 (replace-one); "
     "noise term by Balle & Wang, ICML 2018, Thm 8 (docs/privacy.md s. 4)",
     {"delta": 1e-5}),
    ("objective-laplace-huber", "linear-objective", "estimator", (2000, 200),
     _linear(DPLinearSVC, mechanism="objective-laplace", data_norm_l1=1.0), _FLIP,
     "DPLinearSVC, objective perturbation with Laplace b (L1 bound 1), Huber",
     f"{_A2T9}, Laplace density", {}),
    ("output-hinge", "linear-output", "estimator", (2000, 200),
     _linear(DPLinearSVC, mechanism="output", loss="hinge"), _FLIP,
     "DPLinearSVC, output perturbation (Gamma-norm noise), hinge loss",
     f"{_CMS}, Alg. 1 / Cor. 8", {}),
    ("output-laplace-hinge", "linear-output", "estimator", (1000, 200),
     _linear(DPLinearSVC, mechanism="output-laplace", loss="hinge"), _FLIP,
     "DPLinearSVC, PRIVATESVM-FINITE (Laplace noise), hinge loss",
     "Rubinstein et al., arXiv:0911.5708, Alg. 2 / Thm 7", {}),
    ("output-hinge-lemma17", "linear-output", "estimator", (1000, 200),
     _linear(DPLinearSVC, mechanism="output", loss="hinge"), lemma17_pair,
     "DPLinearSVC, output perturbation, hinge; Lemma 17 pair (C = 1)",
     f"{_CMS}, Alg. 1; pair: Rubinstein et al. Lemma 17", {}),
    # ---- noise primitives (dpsvm.mechanisms) on a labelled sum.
    ("laplace", "vector-noise", "mechanism", (5000, 1000),
     lambda e, d: LabelledSumRelease("laplace", e), lambda: flipped_label_pair(10),
     "LaplaceVector on sum(y_i x_i), L1 sensitivity 2",
     "Dwork, McSherry, Nissim & Smith (2006)", {}),
    ("gamma-norm", "vector-noise", "mechanism", (5000, 2000),
     lambda e, d: LabelledSumRelease("gamma-norm", e), lambda: canary_pair(20, 3),
     "GammaNormVector on sum(y_i x_i), L2 sensitivity 2, 3-D canary",
     f"{_CMS}, Alg. 1", {}),
    ("analytic-gaussian", "vector-noise", "mechanism", (5000, 2000),
     lambda e, d: LabelledSumRelease("analytic-gaussian", e, d),
     lambda: canary_pair(20, 3),
     "AnalyticGaussian on sum(y_i x_i), L2 sensitivity 2, 3-D canary",
     "Balle & Wang, ICML 2018, Thm 8", {"delta": 1e-5}),
    ("exponential", "selection", "mechanism", (10000, 2000),
     lambda e, d: ExponentialSelection(e), balanced_pair,
     "ExponentialMechanism choosing a sign classifier, utility -errors",
     "McSherry & Talwar (2007), Thm 6", {}),
    # ---- kernel estimators (dpsvm.models.kernel), imported lazily.
    ("kernel-rff-rubinstein", "kernel-rff", "estimator", (500, 200),
     _lazy(_KSVC, **_RFF, mechanism="rubinstein"), _FLIP,
     "DPKernelSVC, PRIVATESVM (RBF, 5 frequencies, Laplace noise), hinge",
     "Rubinstein et al., arXiv:0911.5708, Alg. 3 / Cor. 9", {}),
    ("kernel-rff-objective", "kernel-rff", "estimator", (1000, 100),
     # norm_handling explicit: independent of the defaults
     _lazy(_KSVC, **_RFF, mechanism="objective", norm_handling="scale", huber_h=0.5),
     _FLIP, "DPKernelSVC, objective perturbation on random features, Huber",
     f"Sarwate et al., arXiv:0912.0071, Alg. 2; {_CMS}", {}),
    # ---- Nie–Wang estimators (dpsvm.models.nie_wang), imported lazily.
    ("nie-wang-output", "nie-wang", "estimator", (1000, 100),
     _lazy("dpsvm.models:DPOutputPerturbationSVC"), _FLIP,
     "DPOutputPerturbationSVC, vector output perturbation (H2), hinge",
     f"Nie & Wang, Thm 2 sensitivity ({_NW}, H2)", {}),
    ("nie-wang-gp", "nie-wang", "estimator", (500, 200),
     _lazy("dpsvm.models:DPGaussianProcessRelease", kernel="rbf", gamma=1.0), _FLIP,
     "DPGaussianProcessRelease (RBF), f_z + sigma*GP (H3)",
     f"Nie & Wang Thm 2; Hall, Rinaldo & Wasserman 2013 ({_NW}, H3)",
     {"delta": 1e-5}),
    ("nie-wang-predictor", "nie-wang", "estimator", (500, 200),
     _lazy_predictor, _FLIP,
     "PerQueryLaplacePredictor (RBF), one private answer f_z(x) + Laplace (H1)",
     f"Nie & Wang, Def. 2 / Prop. 1 sensitivity ({_NW}, H1)", {}),
    # ---- margin learners' private ERM (dpsvm.margins), imported lazily.
    ("margin-noisy-gd", "margin-erm", "estimator", (1000, 200),
     _margin("noisy-gd", max_iter=20), _FLIP,
     "JLMarginClassifier, noisy projected GD (20 steps, rho-hinge 0.5)",
     "Bassily, Smith & Thakurta 2014, Alg. 1 (replace-one), RDP composition; "
     "discrete Gaussian steps (CKS20)", {"delta": 1e-5}),
    ("margin-phased-sgd", "margin-erm", "estimator", (1000, 200),
     _margin("phased-sgd"), _FLIP,
     "JLMarginClassifier, phased SGD (smoothed rho-hinge 0.5)",
     f"{_BGM}; discrete Gaussian phase releases (CKS20)", {"delta": 1e-5}),
    # ---- private prediction (dpsvm.prediction).
    ("subsample-aggregate", "prediction-aggregate", "mechanism", (4000, 400),
     lambda e, d: SubsampleAggregateRelease(e, d), lambda: flipped_label_pair(4),
     "SubsampleAggregatePredictor, one answer (4 one-row teachers, c = 1)",
     "Bassily, Thakkar & Thakurta, NeurIPS 2018, Alg. 1 (docs/prediction.md §6)",
     {"delta": 1e-5}),
    # ---- flawed variants (dpsvm.audit.flawed and the non-private SVM).
    ("flawed-literal-beta", "flawed", "mechanism", (2000, 300),
     lambda e, d: LiteralBetaObjectivePerturbation(epsilon=e), _FLIP,
     "NOT PRIVATE: Sarwate et al. 2009 Alg. 1 with the literal beta = eps*n",
     "Sarwate et al., arXiv:0912.0071, Alg. 1 / eq. (9) / Thm 1", {"flawed": True}),
    ("flawed-nie-wang-offset", "flawed", "mechanism", (1000, 100),
     lambda e, d: NieWangScalarOffset(epsilon=e), _FLIP,
     "NOT PRIVATE: Nie & Wang's scalar-offset release f_z + b as printed",
     f"Nie & Wang, eq. (2), Lemma 1 / Prop. 1 ({_NW})",
     {"statistic": "function-difference", "flawed": True}),
    ("flawed-tdil-printed", "flawed", "mechanism", (1000, 200),
     lambda e, d: JainThakurtaTDILPrinted(epsilon=e, delta=d), tdil_pair,
     "NOT PRIVATE: Jain & Thakurta's TDIL (Alg. 3), printed calibration",
     "Jain & Thakurta, ICML 2013, Alg. 3 / Thm 7 (docs/prediction.md)",
     {"delta": 1e-5, "flawed": True}),
    ("flawed-non-private", "flawed", "estimator", (500, 60),
     lambda e, d: EstimatorFactory(
         NonPrivateLinearClassifier,
         {"loss": "hinge", "regularization": 1.0, "classes": [-1, 1]},
         seed_param=None,
     ),
     _CANARY, "NOT PRIVATE: NonPrivateLinearClassifier (hinge) with a claimed eps",
     "no noise at all", {"flawed": True}),
)
# fmt: on


def _register_builtins() -> None:
    for name, family, kind, runs, build, pair, description, ref, options in _BUILTINS:
        register(
            AuditEntry(
                name,
                family,
                description,
                build,
                pair,
                kind,
                n_runs=runs[0],
                fast_runs=runs[1],
                reference=ref,
                **options,
            )
        )


_register_builtins()
