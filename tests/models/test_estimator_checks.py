# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn's estimator contract for every dpsvm estimator."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpsvm.models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier

ESTIMATORS = [
    DPLinearSVC(random_state=0),
    DPLinearSVC(mechanism="output", loss="hinge", random_state=0),
    DPLinearSVC(mechanism="output-laplace", random_state=0),
    DPLinearSVC(mechanism="objective-laplace", data_norm_l1=2.0, random_state=0),
    DPLogisticRegression(mechanism="objective-gaussian", delta=1e-6, random_state=0),
    DPLogisticRegression(random_state=0, fit_intercept=True),
    NonPrivateLinearClassifier(),
]


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
# No expected failures: every check of scikit-learn passes as is.
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_contract(estimator, check):
    check(estimator)
