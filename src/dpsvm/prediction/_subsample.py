# SPDX-License-Identifier: BSD-3-Clause
"""Subsample-and-aggregate with the sparse vector, for any kernel.

Bassily, Thakkar & Thakurta, "Model-agnostic private learning", NeurIPS 2018,
Algorithm 1 (``A_stab``), with the charged noisy vote of Dwork & Feldman,
"Privacy-preserving prediction", COLT 2018. Constants:
:mod:`dpsvm.prediction._subsample_calibration`; proof: ``docs/prediction.md``.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._compat import Interval, StrOptions, _fit_context, validate_data
from ..accounting.accountant import BudgetAccountant, resolve_accountant
from ..accounting.charge import Charge, charge
from ..accounting.events import PrivacyEvent
from ..exceptions import BudgetExceededError
from ..mechanisms import laplace_release, sample_discrete_laplace
from ..models.base import resolve_label_set
from ..models.kernel_erm import KERNEL_CONSTRAINTS, KernelSpec
from ..utils._random import (
    call_generator,
    check_random_state,
    random_state_constraint,
)
from ..validation import check_epsilon, resolve_delta
from ._common import (
    CallableKernelSpec,
    FloatArray,
    InteractiveBudgetMixin,
    VacuousCalibrationError,
)
from ._subsample_calibration import (
    SubsampleAggregateCalibration,
    default_max_charged,
    default_n_teachers,
    subsample_aggregate_calibration,
    vacuity_message,
)

__all__ = ["AggregateAnswers", "SubsampleAggregatePredictor"]

_STATE_FORMAT = "dpsvm.SubsampleAggregatePredictor/1"
REFERENCE = (
    "Bassily, Thakkar & Thakurta, 'Model-agnostic private learning', NeurIPS "
    "2018, Alg. 1 (A_stab) and Thm 3.4; sparse vector: Lyu, Su & Li 2017, Alg. 1 "
    "(c = 1) per round; charged noisy vote: Dwork & Feldman, COLT 2018; rounds "
    "composed by Dwork & Roth Thm 3.16 or Dwork, Rothblum & Vadhan Thm III.3"
)
#: Query rows per block when the teachers' votes are computed (memory bound).
_BLOCK_CELLS = 1 << 24


@dataclass(frozen=True)
class AggregateAnswers:
    """The private answers to one batch of queries and what they cost.

    Attributes
    ----------
    labels : ndarray of shape (n_queries,)
        One label in ``classes_`` per query.
    charged : ndarray of bool
        Answers given by the charged noisy vote (the others were free).
    answered : ndarray of bool
        False for rows after the c-th charged answer: those labels are fair
        coin flips (public, no information; the mechanism has halted).
    epsilon, delta : float
        The cost of this batch.
    spent_epsilon, spent_delta : float
        Total spent after this batch.
    n_answers : int
        Answers given so far (this batch's answered rows included).
    n_charged : int
        Charged answers so far.
    budget_exhausted : bool
        Whether no further query can be answered.
    """

    labels: np.ndarray
    charged: np.ndarray
    answered: np.ndarray
    epsilon: float
    delta: float
    spent_epsilon: float
    spent_delta: float
    n_answers: int
    n_charged: int
    budget_exhausted: bool

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict (arrays as lists).

        Returns
        -------
        dict
            Every field.
        """
        return {
            "labels": self.labels.tolist(),
            "charged": self.charged.tolist(),
            "answered": self.answered.tolist(),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "spent_epsilon": self.spent_epsilon,
            "spent_delta": self.spent_delta,
            "n_answers": self.n_answers,
            "n_charged": self.n_charged,
            "budget_exhausted": self.budget_exhausted,
        }


@dataclass(frozen=True)
class _Teachers:
    """k exact kernel SVMs on disjoint chunks (private; never released)."""

    spec: KernelSpec
    support: FloatArray  # all teachers' support vectors, teacher by teacher
    coef: FloatArray  # their dual coefficients
    starts: np.ndarray  # first support vector of each teacher that has some
    trained: np.ndarray  # indices of the teachers with support vectors
    intercept: FloatArray  # per teacher (trained ones)
    constant: FloatArray  # ±1 for a teacher whose chunk had one class, else 0

    def votes(self, Z: FloatArray) -> np.ndarray:
        """Number of teachers voting for the positive class, per row of Z."""
        k = self.constant.shape[0]
        out = np.zeros(Z.shape[0], dtype=np.int64)
        n_const_pos = int(np.sum(self.constant > 0))
        block = max(1, _BLOCK_CELLS // max(1, self.support.shape[0]))
        for s in range(0, Z.shape[0], block):
            Zb = Z[s : s + block]
            pos = np.full(Zb.shape[0], n_const_pos, dtype=np.int64)
            if self.trained.size:
                G = self.spec.gram(Zb, self.support) * self.coef
                dec = np.add.reduceat(G, self.starts, axis=1) + self.intercept
                pos += np.sum(dec > 0, axis=1)
            out[s : s + block] = pos
        assert np.all(out <= k)
        return out


def _fit_teachers(
    spec: KernelSpec,
    Xp: FloatArray,
    r: FloatArray,
    k: int,
    lam: float,
    rng: np.random.Generator,
) -> _Teachers:
    """Train k teachers on a random partition of the rows into k chunks.

    The partition depends only on the row positions (a permutation drawn
    without looking at the data), so replacing one row changes one chunk by a
    replacement and hence at most one teacher (Bassily, Thakkar & Thakurta
    Alg. 1 step 3). Each teacher is the kernel SVM (1/n_j)Σ hinge +
    (λ/2)‖f‖² (libsvm, C = 1/(λ n_j), with an intercept): the teachers need no
    sensitivity bound, so any kernel (a callable too) and any solver serve. A
    chunk with one class gives a constant teacher, so ``fit`` never fails
    because of one row.
    """
    n = Xp.shape[0]
    chunks = np.array_split(rng.permutation(n), k)
    supports: list[FloatArray] = []
    coefs: list[FloatArray] = []
    starts: list[int] = []
    trained: list[int] = []
    intercepts: list[float] = []
    constant = np.zeros(k)
    offset = 0
    for j, idx in enumerate(chunks):
        yj = r[idx]
        if np.all(yj == yj[0]):
            constant[j] = yj[0]
            continue
        G = spec.gram(Xp[idx], Xp[idx])
        svc = SVC(kernel="precomputed", C=1.0 / (lam * idx.size)).fit(G, yj)
        sv = idx[svc.support_]
        supports.append(Xp[sv])
        # libsvm's classes_ are sorted (−1, +1): decision > 0 ⇔ +1.
        coefs.append(np.asarray(svc.dual_coef_[0], dtype=np.float64))
        intercepts.append(float(svc.intercept_[0]))
        starts.append(offset)
        trained.append(j)
        offset += sv.size
    d = Xp.shape[1]
    return _Teachers(
        spec=spec,
        support=np.vstack(supports) if supports else np.empty((0, d)),
        coef=np.concatenate(coefs) if coefs else np.empty(0),
        starts=np.asarray(starts, dtype=np.intp),
        trained=np.asarray(trained, dtype=np.intp),
        intercept=np.asarray(intercepts),
        constant=constant,
    )


class SubsampleAggregatePredictor(InteractiveBudgetMixin, BaseEstimator):
    """Private predictions from k kernel models, free while the teachers agree.

    ``fit`` splits the rows into k chunks by a random permutation and trains
    an exact (non-private) kernel SVM on each: the *teachers*. A query z gets
    the teachers' majority **for free** when the noisy distance to instability
    of their vote clears a noisy threshold (the sparse vector technique);
    otherwise it gets a **charged** answer, a noisy vote (Laplace on the vote
    gap), and a new threshold is drawn. After ``max_charged`` charged answers
    (or ``n_queries`` answers) the predictor stops. The teachers are kept in
    the object: **never publish, pickle or send it**; clients only see what
    :meth:`answer` returns.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of all answers.
    delta : float or "auto", default=1e-6
        Total δ, in (0, 1/n): the free answers and advanced composition need
        it. ``"auto"``: the public rule of :func:`dpsvm.validation.auto_delta`
        (n^-1.5, at most 1/(2n)). The resolved δ is ``privacy_event_.delta``.
    n_queries : int, default=10000
        m, the most answers; enters the threshold as ln(m/δ).
    n_teachers : int or None, default=None
        k; ``None``: the public rule of ``default_n_teachers`` (about
        max(16, min(1, ε)·√n/2) rows per teacher).
    max_charged : int or None, default=None
        c, the cut-off of charged answers; ``None``: the largest c at which a
        query with 90% of the teachers agreeing is free 95% of the time.
    vote_share : float, default=0.1
        Share of each round's ε spent on the charged noisy vote; the rest goes
        to the sparse vector. 0 would make a charged answer a coin flip.
    on_vacuous : {"raise", "warn"}, default="raise"
        What ``fit`` does when even a unanimous vote would be refused a free
        answer (public check, before the data are read beyond their size):
        raise :class:`VacuousCalibrationError` (naming the smallest n, the
        largest ``max_charged`` or the ε that would work) or warn
        (:class:`VacuousCalibrationWarning`; for studying the mechanism).
    accountant : BudgetAccountant or None, default=None
        Charged the whole (ε, δ) as one event (``privacy_event_``) with the
        first answer, checked before it; later batches charge nothing, and
        ``fit`` charges nothing.
    kernel : {"linear", "rbf", "poly"} or callable, default="rbf"
        The teachers' kernel; a callable ``K(A, B) -> gram`` needs **no**
        declared bound: the guarantee does not depend on the teachers.
    gamma : float, default=1.0
        γ of ``"rbf"``.
    degree : int, default=3
        p of ``"poly"``.
    coef0 : float, default=1.0
        c₀ of ``"poly"``.
    data_norm : float or None, default=1.0
        Rows and queries are projected onto ‖x‖ ≤ ``data_norm`` (``None``:
        not projected; no privacy bound depends on it).
    regularization : float, default=0.01
        λ of each teacher's (1/n_j)Σ hinge + (λ/2)‖f‖².
    classes : array-like or None, default=None
        The public label set (two labels); ``None`` reads it from y with a
        :class:`~dpsvm.exceptions.PrivacyLeakWarning`.
    random_state : None or int, default=None
        ``None``: CSPRNG noise, a fresh stream for every call of
        :meth:`answer`, none kept. An int: reproducible, **tests and docs
        only**. The partition is drawn from it too (it need not be secret).

    Attributes
    ----------
    classes_ : ndarray
        The label set.
    n_teachers_ : int
        k.
    max_charged_ : int
        c.
    calibration_ : SubsampleAggregateCalibration
        Every public constant (threshold w, noise scales, composition).
    threshold_ : float
        w.
    answers_guaranteed_ : int
        min(c, m): the answers every run gives whatever the data (each query is
        answered, at worst by a charged vote). More are given while the
        teachers agree, up to m.
    vacuous_ : bool
        Whether even a unanimous vote is refused a free answer half the time.
    privacy_event_ : PrivacyEvent
        The record of the whole interaction (ε, δ).
    n_features_in_ : int
        Number of input features.

    See Also
    --------
    PrivateInteractivePredictor : Jain & Thakurta's Alg. 1 and variants.

    Notes
    -----
    Privacy: replace-one neighbours; the whole answer sequence is (ε, δ)-DP
    (proof in ``docs/prediction.md``, after Bassily, Thakkar & Thakurta Thm
    3.4). One row changes one teacher, so the distance to instability
    q = max(0, ⌈(ct₁ − ct₂)/2⌉ − 1) of the vote has sensitivity 1 and q ≥ 1
    means the majority is the same on both neighbours. Each round (queries up
    to and including a charged one) is AboveThreshold (Lyu, Su & Li Alg. 1,
    ε₁ + ε₂) plus a Laplace vote (ε_v); the c rounds compose to (ε, δ_comp);
    a free answer with q = 0 happens with probability at most
    δ_fail = m·P[ν − ρ > w]. The noise is exact: ρ and ν are discrete
    Laplace integers on the public grid (1/g)ℤ, compared with g·q and the
    threshold as integers (a tie is charged), and δ_fail is the exact tail of
    their difference (``_subsample_calibration``). Queries may depend on
    earlier answers, never on the training data. The whole (ε, δ) is charged
    as one event with the first answer (as ``"pinp"`` in
    :class:`PrivateInteractivePredictor`): an accountant composing per-batch
    increments of the composed bound would under-count. Whether ``fit``
    succeeds does not depend on any row (one-class chunks give constant
    teachers).

    References
    ----------
    .. [1] R. Bassily, O. Thakkar, A. Thakurta, "Model-agnostic private
       learning", NeurIPS 2018, Algorithm 1 and Theorem 3.4.
    .. [2] C. Dwork, V. Feldman, "Privacy-preserving prediction", COLT 2018.
    .. [3] M. Lyu, D. Su, N. Li, "Understanding the sparse vector technique for
       differential privacy", PVLDB 10(6), 2017, Algorithm 1.
    .. [4] A. Smith, A. Thakurta, "Differentially private feature selection via
       stability arguments", COLT 2013 (distance to instability).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(4000, 2)) / 2
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> sa = SubsampleAggregatePredictor(epsilon=2.0, n_queries=100,
    ...     classes=[-1, 1], random_state=0).fit(X, y)
    >>> sa.n_teachers_, sa.answers_guaranteed_
    (125, 1)
    >>> ans = sa.answer(np.array([[0.3, 0.0], [-0.3, 0.1]]))
    >>> ans.labels.tolist(), ans.charged.tolist()
    ([1, -1], [False, False])
    """

    _parameter_constraints: dict[str, Any] = {
        **KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "rbf", "poly"}), callable],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "n_queries": [Interval(Integral, 1, None, closed="left")],
        "n_teachers": [Interval(Integral, 1, None, closed="left"), None],
        "max_charged": [Interval(Integral, 1, None, closed="left"), None],
        "vote_share": [Interval(Real, 0, 1, closed="left")],
        "on_vacuous": [StrOptions({"raise", "warn"})],
        "accountant": [BudgetAccountant, None],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "random_state": random_state_constraint(),
    }

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        delta: float | str = 1e-6,
        n_queries: int = 10_000,
        n_teachers: int | None = None,
        max_charged: int | None = None,
        vote_share: float = 0.1,
        on_vacuous: str = "raise",
        accountant: BudgetAccountant | None = None,
        kernel: str | Callable[..., Any] = "rbf",
        gamma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        data_norm: float | None = 1.0,
        regularization: float = 0.01,
        classes: ArrayLike | None = None,
        random_state: int | None = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_queries = n_queries
        self.n_teachers = n_teachers
        self.max_charged = max_charged
        self.vote_share = vote_share
        self.on_vacuous = on_vacuous
        self.accountant = accountant
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.data_norm = data_norm
        self.regularization = regularization
        self.classes = classes
        self.random_state = random_state

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    # ------------------------------------------------------------------ fit
    def _spec(self) -> KernelSpec:
        norm = None if self.data_norm is None else float(self.data_norm)
        if callable(self.kernel):
            # The bound of CallableKernelSpec is unused: nothing here depends
            # on sup K(x, x) (the guarantee does not look inside the teachers).
            return CallableKernelSpec("callable", 1.0, 1, 0.0, norm, func=self.kernel)
        return KernelSpec(
            self.kernel, float(self.gamma), int(self.degree), float(self.coef0), norm
        )

    def _calibrate(self, n: int) -> SubsampleAggregateCalibration:
        """The public calibration for n rows (raises or warns when vacuous)."""
        eps = check_epsilon(self.epsilon)
        # Dwork & Roth Sec. 2.3: δ < 1/n (public n); "auto" is the public rule.
        delta = resolve_delta(self.delta, n, allow_zero=False)
        m, share = int(self.n_queries), float(self.vote_share)
        given = self.n_teachers is not None
        k = (
            int(self.n_teachers)
            if self.n_teachers is not None
            else default_n_teachers(n, eps)
        )
        if k > n:
            raise ValueError(
                f"n_teachers={k} exceeds the {n} training rows; use at most {n}."
            )
        c = (
            int(self.max_charged)
            if self.max_charged is not None
            else default_max_charged(k, eps, delta, m, share)
        )
        cal = subsample_aggregate_calibration(k, eps, delta, m, c, share)
        if cal.vacuous:
            msg = vacuity_message(cal, n, share, given)
            if self.on_vacuous == "raise":
                raise VacuousCalibrationError(msg)
            from ._common import VacuousCalibrationWarning

            warnings.warn(msg, VacuousCalibrationWarning, stacklevel=3)
        return cal

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> SubsampleAggregatePredictor:
        """Train the k teachers (spends nothing; nothing is released).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private training rows.
        y : array-like of shape (n_samples,)
            Private labels (two classes).

        Returns
        -------
        self
            The fitted predictor, ready to :meth:`answer`.

        Raises
        ------
        VacuousCalibrationError
            If the public configuration cannot give a free answer (with
            ``on_vacuous="raise"``); raised before the teachers are trained.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        check_classification_targets(y)
        classes = resolve_label_set(self.classes, y)
        if classes.size != 2:
            raise ValueError(
                "SubsampleAggregatePredictor is binary: pass a public label set "
                "of exactly 2 labels as classes=[...]."
            )
        n = int(X.shape[0])
        cal = self._calibrate(n)  # public: n and the parameters only
        self.classes_ = classes
        spec = self._spec()
        r = np.where(y == classes[1], 1.0, -1.0)
        partition_rng = np.random.default_rng(
            check_random_state(self.random_state, secure=False).integers(2**63)
        )
        self._teachers = _fit_teachers(
            spec,
            spec.project(X),
            r,
            cal.n_teachers,
            float(self.regularization),
            partition_rng,
        )
        self.calibration_ = cal
        self.n_teachers_ = cal.n_teachers
        self.max_charged_ = cal.max_charged
        self.threshold_ = cal.threshold
        self.answers_guaranteed_ = min(cal.max_charged, cal.n_queries)
        self.vacuous_ = cal.vacuous
        self.privacy_event_ = PrivacyEvent(
            mechanism="subsample-aggregate",
            epsilon=cal.epsilon,
            delta=cal.delta,
            sensitivity=1.0,
            sensitivity_norm="distance-to-instability",
            reference=REFERENCE,
            details=self._details(n),
        )
        self._n_noise_calls = 0
        self._n_answers = 0
        self._n_charged = 0
        self._round_open = False
        self._spent = (0.0, 0.0)
        self._rho = self._draw_threshold_noise()
        return self

    def _details(self, n: int) -> dict[str, Any]:
        cal = self.calibration_
        return {
            "n_samples": n,
            "n_teachers": cal.n_teachers,
            "max_charged": cal.max_charged,
            "n_queries": cal.n_queries,
            "round_epsilon": cal.round_epsilon,
            "vote_epsilon": cal.vote_epsilon,
            "threshold": cal.threshold,
            "threshold_scale": cal.threshold_scale,
            "comparison_scale": cal.comparison_scale,
            "vote_scale": cal.vote_scale,
            "failure_delta": cal.failure_delta,
            "composition": cal.composition,
            "composition_slack": cal.composition_slack,
            "grid": cal.grid,
            "threshold_units": cal.threshold_units,
            "threshold_noise_units": cal.threshold_noise_units,
            "comparison_noise_units": cal.comparison_noise_units,
        }

    def _noise_generator(self) -> np.random.Generator:
        """A fresh stream per call (never kept): :func:`call_generator`."""
        call = self._n_noise_calls
        self._n_noise_calls = call + 1
        return call_generator(self.random_state, call)

    def _draw_threshold_noise(self) -> int:
        # Lyu, Su & Li Alg. 1: ρ ~ Lap(Δ/ε₁), drawn afresh for every round; here
        # exactly, ρ ~ DLap(T₁) on ℤ in grid units (T₁ = ⌈g/ε₁⌉, sensitivity g;
        # Canonne, Kamath & Steinke 2020 Alg. 2; proof in the calibration module).
        gen = self._noise_generator()
        t_rho = self.calibration_.threshold_noise_units
        return int(sample_discrete_laplace(1, t_rho, gen)[0])

    # --------------------------------------------------------------- budget
    @property
    def n_charged(self) -> int:
        """Charged answers so far."""
        check_is_fitted(self)
        return self._n_charged

    @property
    def budget_exhausted(self) -> bool:
        """Whether no further query can be answered."""
        check_is_fitted(self)
        return (
            self._n_answers >= self.calibration_.n_queries
            or self._n_charged >= self.calibration_.max_charged
        )

    @property
    def answers_remaining(self) -> int:
        """Answers still guaranteed: min(m − answers, c − charged).

        Each further query is answered (free or charged) until one of the two
        runs out; more than this are given while the teachers agree.
        """
        check_is_fitted(self)
        cal = self.calibration_
        return max(
            0,
            min(cal.n_queries - self._n_answers, cal.max_charged - self._n_charged),
        )

    def remaining_budget(self) -> dict[str, Any]:
        """What is left: ε, δ, guaranteed answers and charged answers.

        Returns
        -------
        dict
            ``epsilon``, ``delta``, ``answers`` (:attr:`answers_remaining`),
            ``max_answers`` (m − answers) and ``charged`` (c − charged).
        """
        check_is_fitted(self)
        cal = self.calibration_
        return {
            "epsilon": max(0.0, self.total_epsilon - self._spent[0]),
            "delta": max(0.0, self.total_delta - self._spent[1]),
            "answers": self.answers_remaining,
            "max_answers": max(0, cal.n_queries - self._n_answers),
            "charged": max(0, cal.max_charged - self._n_charged),
        }

    def _spent_after(self, n_answers: int) -> tuple[float, float]:
        """(ε, δ) charged after ``n_answers`` answers: all or nothing.

        The whole answer sequence is one (ε, δ) guarantee (the c rounds
        composed, plus δ_fail), so it is charged as ONE event with the first
        answer, as :class:`PrivateInteractivePredictor` charges ``"pinp"``.
        Charging the growth of the running composed bound per batch instead
        would let an accountant that composes events itself (``slack`` > 0)
        apply advanced composition to increments that are far below a
        round's ε_r, and under-count.
        """
        if n_answers == 0:
            return 0.0, 0.0
        return self.total_epsilon, self.total_delta

    # --------------------------------------------------------------- answer
    def _project(self, X: ArrayLike) -> FloatArray:
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._teachers.spec.project(np.asarray(X, dtype=np.float64))

    def answer(self, X: ArrayLike) -> AggregateAnswers:
        """Answer a batch of queries, in order, and charge its privacy cost.

        Not thread-safe: a server serialises calls (and commits
        :meth:`state_dict` before sending the answers).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query rows; they may depend on earlier answers, never on the
            training data.

        Returns
        -------
        AggregateAnswers
            Labels, which were charged, and the cost.

        Raises
        ------
        BudgetExceededError
            If the predictor has halted (c charged answers or m answers), the
            batch exceeds the m − answers left, or the accountant cannot afford
            the batch's worst case. Nothing is answered or spent.
        ValueError
            For malformed queries; nothing is spent.
        """
        check_is_fitted(self)
        Z = self._project(X)
        rows = Z.shape[0]
        cal = self.calibration_
        if self.budget_exhausted:
            raise BudgetExceededError(
                f"The prediction budget is exhausted ({self._n_charged} of "
                f"max_charged={cal.max_charged} charged answers, {self._n_answers} "
                f"of n_queries={cal.n_queries} answers); a restart does not "
                "restore it."
            )
        if self._n_answers + rows > cal.n_queries:
            raise BudgetExceededError(
                f"This batch of {rows} queries exceeds the remaining "
                f"{cal.n_queries - self._n_answers} of n_queries={cal.n_queries}; "
                "nothing was answered."
            )
        before = self._spent
        acc = resolve_accountant(self.accountant)
        with acc.exclusive() if acc is not None else contextlib.nullcontext():
            # The whole (ε, δ) with the first answer, nothing after it.
            worst = self._spent_after(self._n_answers + rows)
            ticket = charge(self.accountant, worst[0] - before[0], worst[1] - before[1])
            saved = (
                self._n_answers,
                self._n_charged,
                self._round_open,
                self._rho,
                self._spent,
            )
            labels_idx, charged, answered = self._answer_rows(Z)
            try:
                self._charge_batch(ticket, before)
            except BaseException:
                # Not charged: nothing leaves; the state goes back.
                (
                    self._n_answers,
                    self._n_charged,
                    self._round_open,
                    self._rho,
                    self._spent,
                ) = saved
                raise
        return AggregateAnswers(
            labels=np.asarray(self.classes_[labels_idx]),
            charged=charged,
            answered=answered,
            epsilon=self._spent[0] - before[0],
            delta=self._spent[1] - before[1],
            spent_epsilon=self._spent[0],
            spent_delta=self._spent[1],
            n_answers=self._n_answers,
            n_charged=self._n_charged,
            budget_exhausted=self.budget_exhausted,
        )

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The labels of :meth:`answer` (spends budget exactly as ``answer``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query rows.

        Returns
        -------
        ndarray of shape (n_queries,)
            ``answer(X).labels``.
        """
        return self.answer(X).labels

    def _answer_rows(self, Z: FloatArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cal = self.calibration_
        rows = Z.shape[0]
        k = cal.n_teachers
        v = self._teachers.votes(Z)  # private: votes for the positive class
        signed_gap = 2 * v - k  # int64
        gap = np.abs(signed_gap)
        # Distance to instability (Bassily, Thakkar & Thakurta Alg. 1 step 8;
        # Smith & Thakurta 2013): q = max(0, ⌈gap/2⌉ − 1), sensitivity 1; in
        # grid units Q = g·q (an integer of sensitivity g).
        q_units = np.maximum(0, (gap + 1) // 2 - 1) * cal.grid
        gen = self._noise_generator()
        # Lyu, Su & Li Alg. 1: ν_i ~ Lap(2cΔ/ε₂) with c = Δ = 1, fresh per
        # query; exactly, ν_i ~ DLap(T₂) on ℤ in grid units (T₂ = ⌈2g/ε₂⌉).
        nu = sample_discrete_laplace(rows, cal.comparison_noise_units, gen)
        # Free iff Q + ν − W > ρ (ρ of the current round), in exact integers:
        # a tie is charged; δ_fail uses the matching strict tail.
        margin = q_units + nu - cal.threshold_units
        if cal.vote_epsilon > 0:
            # Laplace mechanism on 2v − k (sensitivity 2), floating-point safe.
            noisy_vote = laplace_release(
                signed_gap.astype(np.float64), cal.vote_scale, gen, sensitivity=2.0
            )
        else:
            noisy_vote = np.zeros(rows)
        # Fair coins for exact ties, drawn independently of every noise above.
        coins = self._noise_generator().integers(0, 2, size=rows)
        labels: np.ndarray = np.asarray(coins, dtype=np.intp)
        charged = np.zeros(rows, dtype=bool)
        answered = np.zeros(rows, dtype=bool)
        for t in range(rows):
            if self._n_charged >= cal.max_charged:
                break  # halted: the rest keep their coin labels, unanswered
            answered[t] = True
            self._n_answers += 1
            self._round_open = True
            if margin[t] > self._rho:
                # Free: the teachers' majority (Alg. 1 step 10).
                if signed_gap[t] != 0:
                    labels[t] = 1 if signed_gap[t] > 0 else 0
                continue
            # Charged: the noisy vote, then a new round with a fresh ρ.
            charged[t] = True
            if noisy_vote[t] != 0:
                labels[t] = 1 if noisy_vote[t] > 0 else 0
            self._n_charged += 1
            self._round_open = False
            if self._n_charged < cal.max_charged:
                self._rho = self._draw_threshold_noise()
        self._spent = self._spent_after(self._n_answers)
        return labels, charged, answered

    def _charge_batch(self, ticket: Charge, before: tuple[float, float]) -> None:
        """Spend the whole guarantee with the first answer, nothing after."""
        if before == (0.0, 0.0) and self._spent != (0.0, 0.0):
            ticket.spend(self.privacy_event_)

    # ----------------------------------------------------------- state
    def _config(self) -> dict[str, Any]:
        cal = self.calibration_
        return {
            "mechanism": "subsample-aggregate",
            "epsilon": cal.epsilon,
            "delta": cal.delta,
            "n_queries": cal.n_queries,
            "n_teachers": cal.n_teachers,
            "max_charged": cal.max_charged,
            "round_epsilon": cal.round_epsilon,
            "vote_epsilon": cal.vote_epsilon,
            "threshold": cal.threshold,
            "grid": cal.grid,
            "threshold_units": cal.threshold_units,
            "n_features": int(self.n_features_in_),
            "classes": np.asarray(self.classes_).tolist(),
        }

    def state_dict(self) -> dict[str, Any]:
        """The mechanism state as a JSON-serialisable dict (to resume exactly).

        The public configuration, every counter (answers, charged answers,
        whether a round is open, noise calls) and the current threshold noise
        ρ (an integer, in units of the grid 1/g). No generator state and
        nothing about the training data or the teachers. ρ is mechanism
        randomness: keep the state on the server, never send it to a client,
        and resume with it.

        Returns
        -------
        dict
            The state; ``json.dumps`` accepts it.
        """
        check_is_fitted(self)
        return {
            "format": _STATE_FORMAT,
            "config": self._config(),
            "n_answers": self._n_answers,
            "n_charged": self._n_charged,
            "round_open": self._round_open,
            "threshold_noise": self._rho,
            "noise_calls": self._n_noise_calls,
            "spent_epsilon": self._spent[0],
            "spent_delta": self._spent[1],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> SubsampleAggregatePredictor:
        """Resume from :meth:`state_dict` (same public configuration).

        The teachers may come from a new partition (a refit after a restart):
        the guarantee holds for any data-independent partition, round by round.

        Parameters
        ----------
        state : mapping
            A dict from :meth:`state_dict`.

        Returns
        -------
        self
            The predictor in the saved state.

        Raises
        ------
        ValueError
            If the state is malformed or its configuration differs (nothing is
            changed then).
        """
        check_is_fitted(self)
        if not isinstance(state, Mapping) or state.get("format") != _STATE_FORMAT:
            raise ValueError(f"Not a {_STATE_FORMAT} state dict.")
        if dict(state.get("config", {})) != self._config():
            raise ValueError(
                "The saved state was made by a predictor with a different "
                "configuration (budget, n_queries, n_teachers, max_charged, "
                "calibration or classes); refit with the same parameters."
            )
        try:
            n_answers = int(state["n_answers"])
            n_charged = int(state["n_charged"])
            round_open = state["round_open"]
            rho = state["threshold_noise"]
            if isinstance(rho, bool) or not isinstance(rho, Integral):
                raise TypeError("threshold_noise must be an integer (grid units)")
            rho = int(rho)
            calls = int(state["noise_calls"])
            spent = (float(state["spent_epsilon"]), float(state["spent_delta"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"Malformed {_STATE_FORMAT} state dict: {exc}.") from None
        cal = self.calibration_
        if (
            not isinstance(round_open, bool)
            or not 0 <= n_answers <= cal.n_queries
            or not 0 <= n_charged <= min(cal.max_charged, n_answers)
            or calls < 0
        ):
            raise ValueError(f"Inconsistent {_STATE_FORMAT} state dict.")
        self._n_answers, self._n_charged, self._round_open = (
            n_answers,
            n_charged,
            round_open,
        )
        self._rho, self._spent = rho, spent
        # Never reuse a stream: continue after the later of the two counters.
        self._n_noise_calls = max(self._n_noise_calls, calls)
        return self
