# SPDX-License-Identifier: BSD-3-Clause
"""Empirical privacy auditing: lower bounds on ε from neighbouring datasets.

* :class:`Auditor` runs a mechanism many times on two neighbouring datasets
  and returns an :class:`AuditResult` with a Clopper–Pearson lower bound on ε
  (:func:`epsilon_lower_bound`, :func:`epsilon_lower_bound_split`).
* :mod:`dpsvm.audit.registry` holds worst-case neighbouring pairs and one
  :class:`AuditEntry` per mechanism of the library (:func:`run_audit` by name).
* :mod:`dpsvm.audit.flawed` holds deliberately broken mechanisms — never for
  use — that the auditor must catch; they are not exported here.
* :func:`add_audit_subparser` / :func:`run_audit_command` implement
  ``dpsvm audit``.

A lower bound below the claimed ε is evidence, not a proof, of privacy.
"""

from ._auditor import (
    Auditor,
    AuditResult,
    Coordinate,
    DecisionValue,
    FunctionDifference,
    NeighbouringPair,
    Projection,
    Statistic,
    released_vector,
)
from ._bounds import (
    AuditBound,
    clopper_pearson,
    epsilon_from_rates,
    epsilon_lower_bound,
    epsilon_lower_bound_split,
    max_epsilon_lower_bound,
)
from .cli import add_audit_subparser, format_results, run_audit_command
from .registry import (
    REGISTRY,
    AuditEntry,
    get_entry,
    list_entries,
    register,
    run_audit,
)

__all__ = [
    "REGISTRY",
    "AuditBound",
    "AuditEntry",
    "AuditResult",
    "Auditor",
    "Coordinate",
    "DecisionValue",
    "FunctionDifference",
    "NeighbouringPair",
    "Projection",
    "Statistic",
    "add_audit_subparser",
    "clopper_pearson",
    "epsilon_from_rates",
    "epsilon_lower_bound",
    "epsilon_lower_bound_split",
    "format_results",
    "get_entry",
    "list_entries",
    "max_epsilon_lower_bound",
    "register",
    "released_vector",
    "run_audit",
    "run_audit_command",
]
