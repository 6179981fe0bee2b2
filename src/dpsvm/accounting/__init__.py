# SPDX-License-Identifier: BSD-3-Clause
"""Privacy accounting: frozen events and budget accountants."""

from .accountant import BudgetAccountant, resolve_accountant
from .charge import (
    Charge,
    allow_non_private,
    charge,
    first_non_private_reason,
    non_private_reason,
    refuse_non_private,
)
from .composition import (
    advanced_composition,
    basic_composition,
    best_composition,
    parallel_composition,
    per_step_epsilon,
)
from .events import (
    NEIGHBOURING_RELATIONS,
    ApproximateDpEvent,
    NonPrivateEvent,
    PrivacyEvent,
    PureDpEvent,
)

__all__ = [
    "NEIGHBOURING_RELATIONS",
    "ApproximateDpEvent",
    "BudgetAccountant",
    "Charge",
    "NonPrivateEvent",
    "PrivacyEvent",
    "PureDpEvent",
    "advanced_composition",
    "allow_non_private",
    "basic_composition",
    "best_composition",
    "charge",
    "first_non_private_reason",
    "non_private_reason",
    "parallel_composition",
    "per_step_epsilon",
    "refuse_non_private",
    "resolve_accountant",
]
