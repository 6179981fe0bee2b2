# SPDX-License-Identifier: BSD-3-Clause
"""Warnings and exceptions raised by dpsvm."""

from __future__ import annotations

import warnings

__all__ = [
    "BudgetExceededError",
    "DPSVMConvergenceError",
    "NonPrivateReleaseError",
    "NotPrivateWarning",
    "PrivacyLeakWarning",
]


class PrivacyLeakWarning(RuntimeWarning):
    """A value that the privacy guarantee depends on was computed from private data.

    The differential-privacy guarantee of every dpsvm mechanism assumes that its
    bounds (row norm, label set, Lipschitz constant, kernel bound) are public,
    i.e. fixed before the data are seen. When the caller asks dpsvm to derive such
    a bound from the data (for example ``data_norm=None``), the fit still runs but
    the released model is **not** covered by the guarantee. The message names the
    parameter to set to make the fit private again.
    """


class BudgetExceededError(ValueError):
    """A privacy spend would take an accountant over its budget.

    Raised *before* any data are touched; nothing is spent.
    """


class NotPrivateWarning(PrivacyLeakWarning, UserWarning):
    """A fit runs a mode that is **not** differentially private.

    Emitted (always shown) by every fit of a paper-literal or otherwise flawed
    mode, e.g. ``mechanism="objective-2009"`` or ``norm_handling="paper"``: the
    release carries no privacy guarantee and its ``privacy_event_`` is a
    :class:`~dpsvm.accounting.NonPrivateEvent` (ε = ∞). The message names the
    option to change for a private fit. It is a :class:`PrivacyLeakWarning` (and a
    :class:`UserWarning`), so filters on either class see it.
    """


class NonPrivateReleaseError(BudgetExceededError):
    """A release that is not differentially private was refused.

    Raised *before* any data are touched by an accountant with a finite budget
    and by the private selectors, for a mode with no privacy guarantee (see
    :class:`NotPrivateWarning`); the message names the option to change. Nothing
    is spent.
    """


class DPSVMConvergenceError(RuntimeError):
    """A solver did not reach the accuracy that a privacy proof assumes.

    Raised instead of releasing a model whose guarantee would not hold; nothing is
    spent from the accountant.
    """


# Privacy leaks are always shown, even when the same line warned before
# (diffprivlib does the same for its PrivacyLeakWarning).
warnings.simplefilter("always", PrivacyLeakWarning)
warnings.simplefilter("always", NotPrivateWarning)
