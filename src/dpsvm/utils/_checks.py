# SPDX-License-Identifier: BSD-3-Clause
"""The input checks of the bound calculators (kept for existing imports).

Every check is written once, in :mod:`dpsvm.validation`; this module re-exports
the ones the calculators use.
"""

from __future__ import annotations

from dpsvm.validation import (
    check_int,
    check_nonnegative,
    check_open_unit,
    check_positive,
)

__all__ = ["check_int", "check_nonnegative", "check_open_unit", "check_positive"]
