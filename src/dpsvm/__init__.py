# SPDX-License-Identifier: BSD-3-Clause
"""dpsvm: differentially private support vector machines and kernel learning."""

__version__ = "0.1.0"
