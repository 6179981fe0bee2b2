# SPDX-License-Identifier: BSD-3-Clause
"""Privacy accounting: frozen events and budget accountants."""

from .accountant import BudgetAccountant, resolve_accountant
from .composition import (
    advanced_composition,
    basic_composition,
    best_composition,
    parallel_composition,
    per_step_epsilon,
)
from .events import NEIGHBOURING_RELATIONS, PrivacyEvent

__all__ = [
    "NEIGHBOURING_RELATIONS",
    "BudgetAccountant",
    "PrivacyEvent",
    "advanced_composition",
    "basic_composition",
    "best_composition",
    "parallel_composition",
    "per_step_epsilon",
    "resolve_accountant",
]
