# SPDX-License-Identifier: BSD-3-Clause
"""A thread-safe privacy budget accountant with a read-only ledger.

One :class:`BudgetAccountant` guards one dataset (or one tenant's data): it holds
a total (ε, δ) budget, refuses any spend that would take the composition of all
releases over it, and records each accepted release as a frozen
:class:`~dpsvm.accounting.PrivacyEvent`.

Estimators take an accountant as an ``accountant`` parameter (``None``: no
accounting) and follow one order (STYLE.md, "Privacy parameters and budget"):
:meth:`BudgetAccountant.check` before reading the data, compute, and
:meth:`BudgetAccountant.spend` only when the fit succeeded.

**No global default accountant, by design.** diffprivlib resolves a process-wide
default accountant when none is given. dpsvm does not: a hidden global budget makes
a fit's outcome depend on unrelated earlier fits, silently couples models, users or
tenants that share a process (a server), and cannot be resolved in an estimator's
``__init__`` without breaking the scikit-learn contract. Whoever owns the data
creates the accountant and passes it explicitly; :func:`resolve_accountant` maps
``None`` to "no accounting".
"""

from __future__ import annotations

import contextlib
import math
import numbers
import threading
from collections.abc import Iterator
from typing import Any

from ..exceptions import BudgetExceededError, NonPrivateReleaseError
from ..validation import check_epsilon
from .composition import _basic, _best
from .events import NEIGHBOURING_RELATIONS, NonPrivateEvent, PrivacyEvent

__all__ = ["BudgetAccountant", "resolve_accountant"]

#: The neighbouring relation whose budgets an accountant composes by default.
_SUPPORTED_RELATION = "replace-one"

#: The relations whose events an accountant of each relation composes. A
#: replace-one (full-DP) guarantee implies the label-DP guarantee with the same
#: (ε, δ): changing one label is one replaced record. The converse is false, so
#: a full-DP accountant never composes a label-DP event (it fails closed), while
#: a label-DP accountant composes both and its total is a **label-DP** claim.
_COMPOSABLE = {
    "replace-one": frozenset({"replace-one"}),
    "replace-one-label": frozenset({"replace-one", "replace-one-label"}),
}


def _unit_interval(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    v = float(value)
    if math.isnan(v) or not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {v}.")
    return v


def _nonnegative(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    v = float(value)
    if math.isnan(v) or v < 0:
        raise ValueError(f"{name} must be >= 0, got {v}.")
    return v


def _fmt(value: float) -> str:
    return repr(float(value))


def _json_float(value: float) -> float | str:
    return value if math.isfinite(value) else str(value)


class BudgetAccountant:
    """Track and cap the privacy spent on one dataset.

    Parameters
    ----------
    epsilon : float, default=inf
        The total ε budget, > 0 (``inf``: unlimited ε, the ledger still records).
    delta : float, default=0.0
        The total δ budget, in [0, 1]. With the default 0 only pure-DP releases
        are accepted; pass e.g. ``delta=1e-6`` to allow (ε, δ) releases.
    slack : float, default=0.0
        The δ′ of advanced composition, in [0, ``delta``] (and < 1), fixed up
        front. With 0 only basic composition is used. With δ′ > 0 the accountant
        is a *privacy filter*: a release is accepted while basic composition,
        (Σ ε_i, Σ δ_i), or the advanced-composition bound,
        (√(2 ln(1/δ′) Σ ε_i²) + Σ ε_i (e^{ε_i} − 1), Σ δ_i + δ′), of all releases
        so far (the new one included) stays within the budget, and Σ δ_i + δ′
        stays within ``delta`` (see Notes).
    neighbouring : {"replace-one", "replace-one-label"}, default="replace-one"
        The neighbouring relation of the budget. ``"replace-one"`` (full DP:
        one record, features and label) composes replace-one events only and
        refuses label-DP events. ``"replace-one-label"`` (label DP: one label,
        features public) composes label-DP events and also replace-one events
        (a full-DP release is label-DP with the same ε and δ); its totals are
        label-DP guarantees only.

    Attributes
    ----------
    epsilon : float
        The total ε budget.
    delta : float
        The total δ budget.
    slack : float
        The δ′ of advanced composition (0: basic only).
    neighbouring : str
        The neighbouring relation of the budget.
    ledger : tuple of PrivacyEvent
        The accepted releases, oldest first (a read-only snapshot).

    Raises
    ------
    TypeError
        If a parameter is not a real number.
    ValueError
        If ``epsilon`` ≤ 0 or NaN, ``delta`` is outside [0, 1], or ``slack`` is
        outside [0, ``delta``] or equal to 1.

    See Also
    --------
    dpsvm.accounting.composition.best_composition : The composition rule used.
    resolve_accountant : How estimators interpret their ``accountant`` parameter.

    Notes
    -----
    **Privacy.** By default the accountant composes releases under the
    *replace-one* neighbouring relation (datasets of equal size differing in one
    record); it refuses events of any other relation (it fails closed), since a
    label-DP release (``"replace-one-label"``, features public) is not a
    replace-one release and adding its ε to a full-DP budget would claim a
    guarantee that does not hold. A label-DP budget is kept separately, by an
    accountant created with ``neighbouring="replace-one-label"``; it also
    accepts replace-one events (full DP implies label DP at the same (ε, δ)),
    and what it reports is a label-DP guarantee. If every
    release computed from the dataset is spent through the accountant, the
    releases together are (ε, δ)-DP for the budget (ε, δ), also when they were
    chosen adaptively: basic composition (Dwork & Roth 2014, Thm 3.16) or
    advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3,
    heterogeneous form as in Kairouz, Oh & Viswanath 2015, Thm 3.5) used as a
    filter (below). A :class:`~dpsvm.accounting.NonPrivateEvent` costs (∞, 1)
    and is refused (:class:`~dpsvm.exceptions.NonPrivateReleaseError`) unless
    the budget is (∞, 1), i.e. the accountant only keeps a ledger.

    **Adaptive use (filters).** The advanced composition theorem (DRV10,
    KOV15) assumes the number of releases k and their ε_i are fixed before the
    first one; an analyst who decides from earlier outputs whether to go on, and
    with which ε, is not covered by it. With ``slack`` > 0 the accountant is
    therefore run as a *privacy filter* (Rogers, Roth, Ullman & Vadhan 2016): it
    refuses a release as soon as the composition of everything accepted so far
    and that release would leave the budget. By Whitehouse, Ramdas, Rogers & Wu
    (2023), Thm 1, the filter that stops when √(2 ln(1/δ′) Σ ε_i²) + ½ Σ ε_i²
    would exceed ε (or Σ δ_i would exceed δ − δ′) makes the whole adaptive
    interaction (ε, δ)-DP; the bound used here has the drift Σ ε_i (e^{ε_i} − 1)
    ≥ ½ Σ ε_i², so it stops no later. The basic branch (Σ ε_i ≤ ε) bounds the
    privacy loss pointwise; δ′ is reserved in both branches (Σ δ_i + δ′ ≤ δ), so
    that whichever branch the analyst steers to, the failure probabilities add
    up to at most δ. **The guarantee of an adaptive interaction is the budget
    (ε, δ)**; with ``slack`` > 0, :meth:`total` is the filter's running bound,
    not a guarantee at an analyst-chosen stopping time (no odometer with the
    advanced-composition rate exists, Rogers et al. 2016). With ``slack=0``,
    (Σ ε_i, Σ δ_i) is also valid as a running (odometer) bound.

    **Thread safety.** A :class:`threading.RLock` makes the check and the append
    of :meth:`spend` one atomic step, so concurrent fits cannot overspend. An
    estimator calls :meth:`check` before reading data and :meth:`spend` after a
    successful fit; if a concurrent fit spent in between, :meth:`spend` raises
    :class:`~dpsvm.exceptions.BudgetExceededError` and the estimator must discard
    its result.

    **Copies share the ledger.** ``copy.copy``, ``copy.deepcopy`` and
    :func:`sklearn.base.clone` return the accountant itself (``__copy__``,
    ``__deepcopy__`` and ``__sklearn_clone__`` return ``self``). An accountant
    passed as an estimator parameter therefore survives ``clone`` and
    ``GridSearchCV`` (both deep-copy parameters) without losing spends or counting
    them twice: all clones spend from the one ledger, and each refit spends again.

    **Pickles are read-only snapshots.** A pickled copy (e.g. sent to a joblib
    worker process by ``GridSearchCV(n_jobs=2)``, or a saved model) keeps its
    budget and ledger but refuses :meth:`check` and :meth:`spend` with
    :class:`RuntimeError`: spends made on a copy in another process would never
    reach the original ledger, so a process-local copy must not authorise any.
    Use ``n_jobs=1`` or a threading backend when fits share an accountant.

    References
    ----------
    .. [1] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Theorem 3.16.
    .. [2] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
       Privacy", FOCS 2010, Theorem III.3.
    .. [3] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015 (arXiv:1311.0776), Theorem 3.5.
    .. [4] R. Rogers, A. Roth, J. Ullman and S. Vadhan, "Privacy Odometers and
       Filters: Pay-as-you-Go Composition", NeurIPS 2016 (arXiv:1605.08294).
    .. [5] J. Whitehouse, A. Ramdas, R. Rogers and Z. S. Wu, "Fully-Adaptive
       Composition in Differential Privacy", ICML 2023 (arXiv:2203.05481),
       Theorem 1.

    Examples
    --------
    >>> from dpsvm.accounting import BudgetAccountant, PrivacyEvent
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> acc.check(0.5)  # fits: nothing is spent yet
    >>> _ = acc.spend(PrivacyEvent("laplace", 0.5))
    >>> acc.total(), acc.remaining(), len(acc)
    ((0.5, 0.0), (0.5, 0.0), 1)
    >>> acc.check(0.75)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpsvm.exceptions.BudgetExceededError: Privacy budget exceeded: ...
    >>> import copy
    >>> copy.deepcopy(acc) is acc
    True
    """

    def __init__(
        self,
        epsilon: float = math.inf,
        delta: float = 0.0,
        *,
        slack: float = 0.0,
        neighbouring: str = _SUPPORTED_RELATION,
    ) -> None:
        if neighbouring not in _COMPOSABLE:
            raise ValueError(
                f"neighbouring must be one of {NEIGHBOURING_RELATIONS}, got "
                f"{neighbouring!r}."
            )
        self._neighbouring = neighbouring
        self._epsilon = check_epsilon(epsilon, allow_inf=True)
        self._delta = _unit_interval(delta, "delta")
        self._slack = _unit_interval(slack, "slack")
        if self._slack > self._delta:
            raise ValueError(
                f"slack must be in [0, delta] = [0, {self._delta}], got {self._slack}: "
                "the δ′ of advanced composition is paid from the δ budget."
            )
        if self._slack >= 1.0:
            raise ValueError("slack must be < 1 (δ′ = 1 makes every claim vacuous).")
        self._ledger: list[PrivacyEvent] = []
        # (ε, δ) of each ledger event, kept alongside for composition.
        self._costs: list[tuple[float, float]] = []
        self._lock = threading.RLock()
        self._read_only = False

    # ------------------------------------------------------------------ budget
    @property
    def epsilon(self) -> float:
        """The total ε budget."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The total δ budget."""
        return self._delta

    @property
    def slack(self) -> float:
        """The δ′ of advanced composition (0: basic composition only)."""
        return self._slack

    @property
    def neighbouring(self) -> str:
        """The neighbouring relation of the budget (see the class docs)."""
        return getattr(self, "_neighbouring", _SUPPORTED_RELATION)

    @property
    def ledger(self) -> tuple[PrivacyEvent, ...]:
        """The accepted releases, oldest first (an immutable snapshot)."""
        with self._lock:
            return tuple(self._ledger)

    def __len__(self) -> int:
        """Return the number of recorded releases.

        Returns
        -------
        int
            The length of the ledger.
        """
        with self._lock:
            return len(self._ledger)

    def __repr__(self) -> str:
        """Return the budget, the spent (ε, δ) and the number of events.

        Returns
        -------
        str
            E.g. ``BudgetAccountant(epsilon=1.0, delta=0.0, slack=0.0;
            spent=(0.5, 0.0) in 1 event)``.
        """
        eps, delta = self.total()
        n = len(self)
        frozen = ", read_only=True" if self._read_only else ""
        relation = (
            ""
            if self.neighbouring == _SUPPORTED_RELATION
            else f", neighbouring={self.neighbouring!r}"
        )
        return (
            f"BudgetAccountant(epsilon={_fmt(self._epsilon)}, "
            f"delta={_fmt(self._delta)}, slack={_fmt(self._slack)}{relation}; "
            f"spent=({_fmt(eps)}, {_fmt(delta)}) in {n} event{'s' * (n != 1)}"
            f"{frozen})"
        )

    # ------------------------------------------------------------- composition
    def _compose(self, pairs: list[tuple[float, float]]) -> tuple[float, float]:
        # Dwork & Roth (2014) Thm 3.16 (basic) or, with slack > 0, DRV10
        # Thm III.3 (advanced): each theorem's own (ε, δ) pair, the one with the
        # smaller ε among those with δ within the δ budget.
        return _best(pairs, self._slack, self._delta)

    def total(self) -> tuple[float, float]:
        """Return the (ε, δ) spent so far under the best valid composition.

        Returns
        -------
        epsilon : float
            The smaller of Σ ε_i (basic) and, when ``slack > 0``, the advanced
            composition bound, among those whose δ is within the δ budget.
        delta : float
            The δ that goes with that ε: Σ δ_i for basic composition,
            Σ δ_i + ``slack`` for advanced composition.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0, 1e-5, slack=1e-5)
        >>> for _ in range(100):
        ...     _ = acc.spend(PrivacyEvent("laplace", 0.01))
        >>> eps, delta = acc.total()
        >>> round(eps, 4), delta
        (0.4899, 1e-05)
        """
        with self._lock:
            return self._compose(self._costs)

    def remaining(self) -> tuple[float, float]:
        """Return the budget minus :meth:`total` (ε and δ, each at least 0).

        Returns
        -------
        epsilon : float
            ``epsilon - total()[0]`` (``inf`` for an unlimited budget).
        delta : float
            ``delta - total()[1]``.

        Notes
        -----
        Under basic composition a single further release of exactly this size is
        accepted (up to rounding). Under advanced composition the next release
        adds more than its own ε to the bound, so use :meth:`check` to test a
        particular release.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0, 1e-6)
        >>> _ = acc.spend(PrivacyEvent("gaussian", 0.25, 1e-7))
        >>> acc.remaining()
        (0.75, 9e-07)
        """
        eps, delta = self.total()
        eps_left = (
            math.inf if math.isinf(self._epsilon) else max(0.0, self._epsilon - eps)
        )
        return eps_left, max(0.0, self._delta - delta)

    def get_epsilon(self, delta: float) -> float:
        """Return the ε spent so far when the total δ may be at most ``delta``.

        Parameters
        ----------
        delta : float
            The largest acceptable δ, in [0, 1].

        Returns
        -------
        float
            Σ ε_i when Σ δ_i ≤ ``delta`` (basic composition, valid however the
            releases were chosen, Rogers et al. 2016), and, with ``slack`` > 0,
            at most the ε budget when the δ budget is within ``delta`` (the
            filter's guarantee, see the class Notes); ``inf`` if neither
            applies. Advanced composition evaluated after the fact, with a δ′
            chosen now, is not a valid claim for adaptively chosen releases.

        Examples
        --------
        >>> acc = BudgetAccountant(2.0, 1e-5)
        >>> _ = acc.spend(PrivacyEvent("gaussian", 0.5, 1e-6))
        >>> _ = acc.spend(PrivacyEvent("gaussian", 0.5, 1e-6))
        >>> acc.get_epsilon(2e-6), acc.get_epsilon(1e-6)
        (1.0, inf)
        """
        target = _unit_interval(delta, "delta")
        with self._lock:
            pairs = list(self._costs)
        candidates = []
        # Basic composition (Dwork & Roth 2014, Thm 3.16) holds pointwise, also
        # for adaptively chosen releases (an odometer, Rogers et al. 2016).
        eps_basic, delta_basic = _basic(pairs)
        if delta_basic <= target:
            candidates.append(eps_basic)
        # With δ′ > 0 the accountant is a filter whose guarantee is the whole
        # budget (Whitehouse et al. 2023, Thm 1), whatever comes next.
        if self._slack > 0 and self._delta <= target:
            candidates.append(self._epsilon)
        return min(candidates, default=math.inf)

    # -------------------------------------------------------------- spending
    def supports(self, event: object) -> bool:
        """Return whether this accountant can compose ``event``.

        Parameters
        ----------
        event : object
            A candidate release.

        Returns
        -------
        bool
            True for a :class:`PrivacyEvent` whose neighbouring relation (and that
            of each of its children) this accountant composes: ``"replace-one"``
            only for a full-DP accountant; ``"replace-one"`` or
            ``"replace-one-label"`` for a label-DP one.

        Examples
        --------
        >>> acc = BudgetAccountant()
        >>> acc.supports(PrivacyEvent("laplace", 1.0))
        True
        >>> acc.supports(PrivacyEvent("rr", 1.0, neighbouring="replace-one-label"))
        False
        >>> label = PrivacyEvent("rr", 1.0, neighbouring="replace-one-label")
        >>> BudgetAccountant(neighbouring="replace-one-label").supports(label)
        True
        """
        if not isinstance(event, PrivacyEvent):
            return False
        return self._composes(event.neighbouring) and all(
            self.supports(child) for child in event.children
        )

    def _composes(self, relation: str) -> bool:
        return relation in _COMPOSABLE[self.neighbouring]

    def _refuse_relation(self, what: str) -> None:
        allowed = " or ".join(repr(r) for r in sorted(_COMPOSABLE[self.neighbouring]))
        raise ValueError(
            f"This BudgetAccountant keeps a {self.neighbouring!r} budget and "
            f"composes only {allowed} events, not {what}: a label-DP release "
            "(features public, labels protected) is not a full-DP release, and "
            "its epsilon must not be added to a full-DP budget. Keep label-DP "
            "releases in their own accountant, "
            "BudgetAccountant(..., neighbouring='replace-one-label'). "
            "Nothing was spent."
        )

    def _ensure_writable(self) -> None:
        if self._read_only:
            raise RuntimeError(
                "This BudgetAccountant was unpickled: it is a read-only snapshot, "
                "because spends on a copy in another process never reach the "
                "original ledger. Share one accountant within one process "
                "(n_jobs=1 or a threading backend)."
            )

    def _check_locked(self, epsilon: float, delta: float) -> None:
        pairs = [*self._costs, (epsilon, delta)]
        after = self._compose(pairs)
        # Privacy filter (Rogers et al. 2016; Whitehouse et al. 2023, Thm 1):
        # accept while the bound of everything accepted, this release included,
        # is within the budget. With δ′ > 0, δ′ stays reserved whichever branch
        # (basic or advanced) is used: Σ δ_i + δ′ ≤ δ (see the class Notes).
        reserved = _basic(pairs)[1] + self._slack if self._slack > 0 else 0.0
        if not (
            after[0] <= self._epsilon
            and after[1] <= self._delta
            and reserved <= self._delta
        ):
            spent = self._compose(self._costs)
            raise BudgetExceededError(
                "Privacy budget exceeded: "
                f"spent (epsilon={_fmt(spent[0])}, delta={_fmt(spent[1])}) "
                f"+ requested (epsilon={_fmt(epsilon)}, delta={_fmt(delta)}) "
                f"would exceed the total budget (epsilon={_fmt(self._epsilon)}, "
                f"delta={_fmt(self._delta)}); nothing was spent."
            )

    def check(
        self,
        epsilon: float,
        delta: float = 0.0,
        *,
        neighbouring: str = _SUPPORTED_RELATION,
    ) -> None:
        """Raise if a release of (``epsilon``, ``delta``) would exceed the budget.

        Spends nothing. Estimators call this before reading any data.

        Parameters
        ----------
        epsilon : float
            The ε of the planned release, ≥ 0.
        delta : float, default=0.0
            The δ of the planned release, in [0, 1].
        neighbouring : str, default="replace-one"
            The neighbouring relation of the planned release; one this
            accountant does not compose is refused (see :meth:`supports`).

        Raises
        ------
        BudgetExceededError
            If the composition of the ledger and the planned release would
            exceed the budget; the message gives spent, requested and total.
        TypeError, ValueError
            If ``epsilon`` or ``delta`` is invalid, or the accountant does not
            compose the relation ``neighbouring``.
        RuntimeError
            If the accountant is an unpickled, read-only snapshot.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0)
        >>> acc.check(1.0)
        >>> len(acc)
        0
        """
        epsilon = _nonnegative(epsilon, "epsilon")
        delta = _unit_interval(delta, "delta")
        if neighbouring not in _COMPOSABLE:
            raise ValueError(
                f"neighbouring must be one of {NEIGHBOURING_RELATIONS}, got "
                f"{neighbouring!r}."
            )
        if not self._composes(neighbouring):
            self._refuse_relation(f"{neighbouring!r} releases")
        self._ensure_writable()
        with self._lock:
            self._check_locked(epsilon, delta)

    def spend(self, event: PrivacyEvent) -> PrivacyEvent:
        """Record a release, if it fits in the budget (atomically).

        Parameters
        ----------
        event : PrivacyEvent
            The release, with the ε and δ it was calibrated to.

        Returns
        -------
        PrivacyEvent
            ``event``, now in the ledger.

        Raises
        ------
        TypeError
            If ``event`` is not a :class:`PrivacyEvent`.
        ValueError
            If the event (or a child) has a neighbouring relation this
            accountant does not compose (a label-DP event in a full-DP
            accountant: it fails closed).
        BudgetExceededError
            If the release would exceed the budget; nothing is recorded.
        NonPrivateReleaseError
            If the event is a :class:`~dpsvm.accounting.NonPrivateEvent` and the
            budget is not (∞, 1) (it costs ε = ∞, δ = 1).
        RuntimeError
            If the accountant is an unpickled, read-only snapshot.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0)
        >>> acc.spend(PrivacyEvent("laplace", 0.5)).epsilon
        0.5
        """
        if not isinstance(event, PrivacyEvent):
            raise TypeError(
                f"BudgetAccountant can only spend PrivacyEvent objects, got "
                f"{type(event).__name__}."
            )
        if not self.supports(event):
            self._refuse_relation(
                f"event {event.mechanism!r} (it or one of its children has the "
                "relation 'replace-one-label')"
            )
        if isinstance(event, NonPrivateEvent) and (
            math.isfinite(self._epsilon) or self._delta < 1.0
        ):
            raise NonPrivateReleaseError(
                f"Release {event.mechanism!r} is not differentially private "
                f"({event.reason}); an accountant with a finite budget "
                f"(epsilon={_fmt(self._epsilon)}, delta={_fmt(self._delta)}) refuses "
                "it. Nothing was spent."
            )
        self._ensure_writable()
        with self._lock:
            self._check_locked(event.epsilon, event.delta)
            self._ledger.append(event)
            self._costs.append((event.epsilon, event.delta))
        return event

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[BudgetAccountant]:
        """Hold the ledger: no other thread spends until the block ends.

        For a release whose final cost depends on the data (e.g. a sparse-vector
        batch, charged only for the updates it made): check the worst case,
        compute and spend inside one block, so that no concurrent spend can
        slip in between and make the refusal of the actual cost depend on the
        data. The lock is re-entrant: :meth:`check` and :meth:`spend` work
        inside the block.

        Yields
        ------
        BudgetAccountant
            ``self``.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0)
        >>> with acc.exclusive():
        ...     acc.check(0.5)
        ...     _ = acc.spend(PrivacyEvent("release", 0.25))
        >>> len(acc)
        1
        """
        with self._lock:
            yield self

    def _spend_batch(self, event: PrivacyEvent, times: int) -> None:
        """Record ``event`` ``times`` times, all or none (one lock for the batch).

        If a later copy does not fit (e.g. a concurrent release took budget
        since it was checked), the copies already recorded are removed again.
        """
        with self._lock:
            n0 = len(self._ledger)
            try:
                for _ in range(times):
                    self.spend(event)
            except BaseException:
                del self._ledger[n0:]
                del self._costs[n0:]
                raise

    def compose(self, event: PrivacyEvent) -> BudgetAccountant:
        """Spend ``event`` and return the accountant (dp-accounting style).

        Parameters
        ----------
        event : PrivacyEvent
            The release to record.

        Returns
        -------
        BudgetAccountant
            ``self``, so that calls can be chained.

        Raises
        ------
        TypeError, ValueError, BudgetExceededError, RuntimeError
            As :meth:`spend`.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0)
        >>> len(acc.compose(PrivacyEvent("a", 0.25)).compose(PrivacyEvent("b", 0.25)))
        2
        """
        self.spend(event)
        return self

    # ------------------------------------------------------ copies and reports
    def __copy__(self) -> BudgetAccountant:
        """Return ``self``: copies and clones share the one ledger (class Notes).

        Also :func:`sklearn.base.clone`'s hook ``__sklearn_clone__``.

        Returns
        -------
        BudgetAccountant
            This accountant, not a copy.
        """
        return self

    __sklearn_clone__ = __copy__

    def __deepcopy__(self, memo: dict[int, Any]) -> BudgetAccountant:
        """Return ``self``, so that ``clone`` and ``GridSearchCV`` share the ledger.

        Parameters
        ----------
        memo : dict
            The :func:`copy.deepcopy` memo (unused).

        Returns
        -------
        BudgetAccountant
            This accountant, not a copy.
        """
        return self.__copy__()

    def __getstate__(self) -> dict[str, Any]:
        """Return the state for pickling (the lock is not pickled).

        Returns
        -------
        dict
            Budget, ledger and flags.
        """
        with self._lock:
            state = self.__dict__.copy()
            state["_ledger"] = list(self._ledger)
            state["_costs"] = list(self._costs)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled accountant as a read-only snapshot (see Notes).

        Parameters
        ----------
        state : dict
            The state returned by :meth:`__getstate__`.
        """
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._read_only = True

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable report of budget, spend and ledger.

        Returns
        -------
        dict
            Keys ``budget`` (epsilon, delta, slack), ``neighbouring`` (the
            relation of the budget), ``composition``
            (``"basic"`` or ``"basic+advanced"``), ``spent`` and ``remaining``
            (epsilon, delta), ``read_only`` and ``ledger`` (a list of event
            dicts, oldest first). Infinite floats are written as strings.

        Examples
        --------
        >>> acc = BudgetAccountant(1.0)
        >>> _ = acc.spend(PrivacyEvent("laplace", 0.5))
        >>> d = acc.to_dict()
        >>> d["spent"], d["remaining"], len(d["ledger"])
        ({'epsilon': 0.5, 'delta': 0.0}, {'epsilon': 0.5, 'delta': 0.0}, 1)
        """
        with self._lock:
            ledger = tuple(self._ledger)
            spent = self.total()
            left = self.remaining()
        return {
            "budget": {
                "epsilon": _json_float(self._epsilon),
                "delta": self._delta,
                "slack": self._slack,
            },
            "neighbouring": self.neighbouring,
            "composition": "basic+advanced" if self._slack > 0 else "basic",
            "spent": {"epsilon": _json_float(spent[0]), "delta": spent[1]},
            "remaining": {"epsilon": _json_float(left[0]), "delta": left[1]},
            "read_only": self._read_only,
            "ledger": [e.to_dict() for e in ledger],
        }


def resolve_accountant(accountant: object) -> BudgetAccountant | None:
    """Interpret an estimator's ``accountant`` parameter.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The accountant passed by the user.

    Returns
    -------
    BudgetAccountant or None
        ``accountant`` itself, or ``None`` for no accounting. There is **no**
        process-global default accountant (see the module docstring): ``None``
        never resolves to a shared hidden budget.

    Raises
    ------
    TypeError
        If ``accountant`` is neither None nor a :class:`BudgetAccountant`.

    Examples
    --------
    >>> resolve_accountant(None) is None
    True
    >>> acc = BudgetAccountant(1.0)
    >>> resolve_accountant(acc) is acc
    True
    """
    if accountant is None or isinstance(accountant, BudgetAccountant):
        return accountant
    raise TypeError(
        "accountant must be a dpsvm.accounting.BudgetAccountant or None, got "
        f"{type(accountant).__name__}. dpsvm has no global default accountant: "
        "create one per dataset and pass it to every estimator that uses the data."
    )
