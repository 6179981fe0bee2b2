# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's transformer contract for the JL projections."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from dpsvm.margins.projections import FastJL, RademacherJL


# No expected failures: every check of scikit-learn passes as is.
@parametrize_with_checks([RademacherJL(3, random_state=0), FastJL(3, random_state=0)])
def test_sklearn_contract(estimator, check):
    check(estimator)
