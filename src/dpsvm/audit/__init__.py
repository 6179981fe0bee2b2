# SPDX-License-Identifier: BSD-3-Clause
"""Empirical privacy auditing: lower bounds on ε from neighbouring datasets."""

from ._bounds import AuditBound, clopper_pearson, epsilon_lower_bound

__all__ = ["AuditBound", "clopper_pearson", "epsilon_lower_bound"]
