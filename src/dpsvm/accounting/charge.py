# SPDX-License-Identifier: BSD-3-Clause
"""Check → compute → spend, written once; and the refusal of non-private modes.

Every private fit follows one order (STYLE.md, "Privacy parameters and budget"):
check the accountant before reading any data, compute, and spend only when the
release succeeded. :func:`charge` does the check when it is called and returns a
:class:`Charge` whose :meth:`Charge.spend` records the release's event, after
checking that the event costs no more than what was checked; a fit that fails
in between spends nothing. It also works as a context manager, which refuses to
leave the block without a spend::

    ticket = charge(accountant, epsilon, delta)   # before reading data
    ...                                            # compute the release
    ticket.spend(event)                            # only on success

Modes that are **not** differentially private (a paper's mechanism as printed,
whose proof is wrong) declare it through an estimator method
``_non_private_reason()`` returning a sentence that says why and which option to
change (``None`` for a private configuration). :func:`non_private_reason` reads
it; :func:`charge` refuses such a release for any accountant with a finite budget
and :func:`refuse_non_private` (called by the private selectors before any data
are read) refuses such candidates, unless the caller opted in with
:func:`allow_non_private` to reproduce a paper.
"""

from __future__ import annotations

import contextvars
import math
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from ..exceptions import NonPrivateReleaseError, NotPrivateWarning
from .accountant import BudgetAccountant, resolve_accountant
from .events import NonPrivateEvent, PrivacyEvent

__all__ = [
    "Charge",
    "allow_non_private",
    "charge",
    "first_non_private_reason",
    "non_private_reason",
    "refuse_non_private",
    "warn_not_private",
]

# Label of the innermost allow_non_private() block of this thread/task, if any.
_ALLOWED: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "dpsvm_allow_non_private", default=None
)

# Relative rounding allowed between the checked ε and the event's ε (an
# estimator's event may be a sum of per-class shares of the checked ε).
_RTOL = 1e-12


def non_private_reason(estimator: Any) -> str | None:
    """Why an (unfitted) estimator's configuration is not private, if it is not.

    Parameters
    ----------
    estimator : object
        An estimator; dpsvm estimators with non-private modes define
        ``_non_private_reason()``.

    Returns
    -------
    str or None
        A sentence naming the option to change, or ``None`` when the
        configuration is private (or the estimator declares nothing).

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> non_private_reason(DPLinearSVC()) is None
    True
    >>> "mechanism='objective'" in non_private_reason(
    ...     DPLinearSVC(mechanism="objective-2009", loss="huber"))
    True
    """
    hook = getattr(estimator, "_non_private_reason", None)
    if not callable(hook):
        return None
    reason = hook()
    return None if reason is None else str(reason)


def first_non_private_reason(estimators: Iterable[Any]) -> str | None:
    """The :func:`non_private_reason` of the first non-private estimator, if any.

    A selector passes it to :func:`charge`, so that a finite accountant refuses
    non-private candidates before any data are read, even inside
    :func:`allow_non_private`.

    Parameters
    ----------
    estimators : iterable of estimators
        Unfitted candidates.

    Returns
    -------
    str or None
        ``None`` when every candidate is private.

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> first_non_private_reason([DPLinearSVC(), DPLinearSVC()]) is None
    True
    """
    for est in estimators:
        reason = non_private_reason(est)
        if reason is not None:
            return f"{type(est).__name__}: {reason}"
    return None


def warn_not_private(reason: str, *, stacklevel: int = 3) -> None:
    """Emit the :class:`~dpsvm.exceptions.NotPrivateWarning` of a non-private fit.

    Parameters
    ----------
    reason : str
        The estimator's :func:`non_private_reason`.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn` (3: the caller of the caller).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_not_private("demo: use mechanism='objective'.")
    >>> caught[0].category.__name__
    'NotPrivateWarning'
    """
    warnings.warn(
        f"This fit is NOT differentially private: {reason} Its privacy_event_ is a "
        "NonPrivateEvent (epsilon = inf); use it to reproduce a paper only.",
        NotPrivateWarning,
        stacklevel=stacklevel,
    )


@contextmanager
def allow_non_private(label: str) -> Iterator[None]:
    """Let the private selectors run non-private candidates, inside the block.

    For reproducing a paper's experiment with its (flawed) mechanism as printed.
    The candidates' and the selector's events stay :class:`NonPrivateEvent`
    (a composition with a non-private part is not private), and an accountant
    with a finite budget still refuses them.

    Parameters
    ----------
    label : str
        Why (e.g. ``"reproduce sarwate2009: Figure 3, 2009 calibration"``); it
        is recorded nowhere but makes the opt-in explicit at the call site.

    Yields
    ------
    None
        Inside the block :func:`refuse_non_private` accepts every candidate.

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> est = DPLinearSVC(mechanism="objective-2009", loss="huber")
    >>> with allow_non_private("doctest"):
    ...     refuse_non_private([est])
    """
    if not isinstance(label, str) or not label:
        raise ValueError("allow_non_private needs a non-empty label saying why.")
    token = _ALLOWED.set(label)
    try:
        yield
    finally:
        _ALLOWED.reset(token)


def refuse_non_private(estimators: Iterable[Any], *, where: str = "") -> None:
    """Raise if any estimator is configured in a non-private mode.

    The private selectors call this on their candidates before reading any data.

    Parameters
    ----------
    estimators : iterable of estimators
        Unfitted candidates.
    where : str, default=""
        Who refuses (for the message), e.g. ``"PrivateParameterTuning"``.

    Raises
    ------
    NonPrivateReleaseError
        For the first non-private candidate (outside :func:`allow_non_private`).

    Examples
    --------
    >>> from dpsvm.models import DPLinearSVC
    >>> refuse_non_private([DPLinearSVC()])
    >>> refuse_non_private([DPLinearSVC(mechanism="objective-2009", loss="huber")])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpsvm.exceptions.NonPrivateReleaseError: A private selector cannot ...
    """
    if _ALLOWED.get() is not None:
        return
    reason = first_non_private_reason(estimators)
    if reason is not None:
        raise NonPrivateReleaseError(
            f"{where or 'A private selector'} cannot select among candidates that "
            f"are not differentially private: {reason} Nothing was read or spent."
        )


class Charge:
    """One planned release: checked against the accountant, spent once on success.

    Create it with :func:`charge`.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The accountant (``None``: no accounting; the event is still checked
        against the planned cost).
    epsilon : float
        The planned ε.
    delta : float
        The planned δ.
    non_private_reason : str or None
        Set for a release with no privacy guarantee: its cost is (∞, 1).
    owner : object or None, default=None
        The estimator that makes the release. Its attributes are recorded when
        the budget is checked (before any data are read) and put back if
        :meth:`spend` fails, so that a refused release (a concurrent spend used
        the shared budget) leaves nothing unpaid on it: it is as before ``fit``.
    neighbouring : str, default="replace-one"
        The neighbouring relation of the release, checked against the
        accountant's (:meth:`BudgetAccountant.check`).

    Attributes
    ----------
    epsilon : float
        The checked ε (``inf`` for a non-private release).
    delta : float
        The checked δ (1 for a non-private release).
    spent : PrivacyEvent or None
        The event once :meth:`spend` succeeded.

    Examples
    --------
    >>> from dpsvm.accounting import BudgetAccountant, PrivacyEvent
    >>> acc = BudgetAccountant(1.0)
    >>> with charge(acc, 0.5) as ticket:  # a Charge
    ...     _ = ticket.spend(PrivacyEvent("laplace", 0.5))
    >>> ticket.spent.epsilon, acc.total()
    (0.5, (0.5, 0.0))
    """

    def __init__(
        self,
        accountant: BudgetAccountant | None,
        epsilon: float,
        delta: float,
        non_private_reason: str | None,
        owner: Any = None,
        neighbouring: str = "replace-one",
    ) -> None:
        self.accountant = resolve_accountant(accountant)
        self.non_private_reason = non_private_reason
        if non_private_reason is not None:
            epsilon, delta = math.inf, 1.0
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.spent: PrivacyEvent | None = None
        # The owner's state before the release (shallow: fit reassigns its
        # attributes), put back by discard().
        self._owner = owner
        self._owner_state = None if owner is None else dict(vars(owner))
        acc = self.accountant
        if acc is None:
            return
        if non_private_reason is not None and (
            math.isfinite(acc.epsilon) or acc.delta < 1.0
        ):
            raise NonPrivateReleaseError(
                "An accountant with a finite budget (epsilon="
                f"{acc.epsilon!r}, delta={acc.delta!r}) cannot book a release that "
                f"is not differentially private: {non_private_reason} Nothing was "
                "read or spent."
            )
        acc.check(self.epsilon, self.delta, neighbouring=neighbouring)

    def spend(self, event: PrivacyEvent, *, times: int = 1) -> PrivacyEvent:
        """Record ``event``, after checking it against the planned cost.

        Parameters
        ----------
        event : PrivacyEvent
            The release's event.
        times : int, default=1
            Record it this many times (a batch of identical releases, e.g. one
            per private prediction), atomically; their basic composition must
            be within the planned cost.

        Returns
        -------
        PrivacyEvent
            ``event``.

        Raises
        ------
        ValueError
            If the event costs more than was checked, or is non-private while
            the release was checked as private.
        RuntimeError
            If this charge was already spent.
        BudgetExceededError
            If a concurrent spend used up the budget in between (nothing is
            recorded; the caller must discard the release).
        """
        if self.spent is not None:
            raise RuntimeError("This charge was already spent.")
        try:
            self._record(event, int(times))
        except BaseException:
            self.discard()
            raise
        self.spent = event
        return event

    def _record(self, event: PrivacyEvent, times: int) -> None:
        """Check ``event`` against the planned cost and record it ``times`` times."""
        if isinstance(event, NonPrivateEvent) and self.non_private_reason is None:
            raise ValueError(
                f"Event {event.mechanism!r} is not private but the release was "
                "checked as private; refusing to record it."
            )
        # Basic composition of the batch (Dwork & Roth 2014, Thm 3.16).
        eps, delta = times * event.epsilon, times * event.delta
        if eps > self.epsilon * (1.0 + _RTOL) or delta > self.delta * (1.0 + _RTOL):
            raise ValueError(
                f"Event {event.mechanism!r} costs (epsilon={eps!r}, "
                f"delta={delta!r}), more than the (epsilon={self.epsilon!r}, "
                f"delta={self.delta!r}) checked before the fit; refusing to record it."
            )
        acc = self.accountant
        if acc is not None:
            # All or none: a batch refused part-way (a concurrent release took
            # budget since the check) leaves nothing in the ledger.
            acc._spend_batch(event, times)

    def discard(self) -> None:
        """Put the owner's attributes back as they were when the budget was checked.

        Called by :meth:`spend` when recording fails; a caller whose release
        fails after the check may call it too. Without an owner it does nothing.

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> est = SimpleNamespace(coef_=None)
        >>> ticket = charge(None, 1.0, owner=est)
        >>> est.coef_ = [1.0]
        >>> ticket.discard()
        >>> est.coef_ is None
        True
        """
        if self._owner_state is not None:
            state = vars(self._owner)
            state.clear()
            state.update(self._owner_state)

    def __enter__(self) -> Charge:
        """Return the charge.

        Returns
        -------
        Charge
            ``self``.
        """
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Refuse a block that ended normally without :meth:`spend`.

        Parameters
        ----------
        exc_type, exc, traceback
            The exception leaving the block, if any (then nothing is spent and
            the owner is put back, :meth:`discard`).
        """
        if self.spent is None:
            if exc_type is not None:
                self.discard()
                return
            raise RuntimeError("A charge block ended without spend(event).")


def charge(
    accountant: BudgetAccountant | None,
    epsilon: float,
    delta: float = 0.0,
    *,
    non_private_reason: str | None = None,
    owner: Any = None,
    neighbouring: str = "replace-one",
) -> Charge:
    """Check a planned release against ``accountant`` now; spend later.

    Call it before reading any data; call :meth:`Charge.spend` with the release's
    event only when the release succeeded. A failure in between spends nothing.

    Parameters
    ----------
    accountant : BudgetAccountant or None
        The accountant (``None``: no accounting).
    epsilon : float
        The planned ε.
    delta : float, default=0.0
        The planned δ.
    non_private_reason : str or None, default=None
        For a mode with no privacy guarantee: why, naming the option to change.
        Such a release costs (∞, 1) and is refused by any accountant whose
        budget is not (∞, 1).
    owner : object or None, default=None
        The estimator making the release: if the final spend fails, its
        attributes are put back as they were now (:meth:`Charge.discard`).
    neighbouring : str, default="replace-one"
        The neighbouring relation of the release. An accountant that does not
        compose it (a full-DP accountant and a label-DP release) refuses it
        here, before any data are read.

    Returns
    -------
    Charge
        The checked plan.

    Raises
    ------
    BudgetExceededError
        If the accountant cannot afford the release.
    NonPrivateReleaseError
        If the release is not private and the accountant's budget is finite.

    Examples
    --------
    >>> from dpsvm.accounting import BudgetAccountant, PrivacyEvent
    >>> acc = BudgetAccountant(1.0)
    >>> ticket = charge(acc, 0.5)          # checked, nothing spent
    >>> len(acc)
    0
    >>> _ = ticket.spend(PrivacyEvent("laplace", 0.5))
    >>> acc.total()
    (0.5, 0.0)
    >>> with charge(acc, 0.25) as t:  # doctest: +ELLIPSIS
    ...     _ = t.spend(PrivacyEvent("laplace", 0.5))  # costs more than checked
    Traceback (most recent call last):
    ...
    ValueError: Event 'laplace' costs (epsilon=0.5, delta=0.0), more than ...
    >>> len(acc)
    1
    """
    return Charge(accountant, epsilon, delta, non_private_reason, owner, neighbouring)
