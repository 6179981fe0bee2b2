"""The estimators' defaults: the public a-priori Λ rule, the intercept, kernels."""

import math

import numpy as np
import pytest
from sklearn.base import clone

from dpsvm.models import DPKernelSVC, DPLinearSVC, DPLogisticRegression
from dpsvm.perturbation._calibration import (
    AUTO_CORRECTION_SHARE_KERNEL,
    auto_regularization,
    objective_perturbation_calibration,
)


def _data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / math.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def test_auto_rule_known_answer():
    # λ = c/(n(e^{fε/2} − 1)) with c = max(c, 1), f = 1/10; floor 1/n.
    assert auto_regularization(0.5, 1000, 1.0) == pytest.approx(
        1.0 / (1000 * math.expm1(0.025))
    )
    # logistic c = 1/4 keeps the λ of c = 1; losses without c take c = 1
    assert auto_regularization(0.5, 1000, 0.25) == auto_regularization(0.5, 1000, 1)
    assert auto_regularization(0.5, 1000, None) == auto_regularization(0.5, 1000, 1)
    assert auto_regularization(0.5, 1000, 2.0) == pytest.approx(
        2.0 / (1000 * math.expm1(0.025))
    )
    assert auto_regularization(1e6, 1000, 1.0) == 1.0 / 1000  # floor
    # kernel share f = 1/2: CMS11's fallback value c/(n(e^{ε/4} − 1)) at c = 1
    assert auto_regularization(
        0.1, 1000, 0.5, share=AUTO_CORRECTION_SHARE_KERNEL
    ) == pytest.approx(1.0 / (1000 * math.expm1(0.025)))


@pytest.mark.parametrize("c", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("eps", [0.01, 0.5, 5.0])
def test_auto_rule_keeps_most_of_epsilon_without_fallback(c, eps):
    # At the resolved λ the CMS11 correction costs at most fε: ε′ ≥ 0.9ε, Δ = 0.
    n = 5000
    cal = objective_perturbation_calibration(eps, n, auto_regularization(eps, n, c), c)
    assert cal.extra_regularization == 0.0
    assert cal.epsilon_prime >= 0.9 * eps * (1 - 1e-12)


@pytest.mark.parametrize("cls", [DPLinearSVC, DPLogisticRegression])
def test_defaults_are_auto_and_intercept(cls):
    X, y = _data()
    est = cls(epsilon=0.5, data_norm=2.0, classes=[-1, 1], random_state=0)
    assert est.get_params()["regularization"] == "auto"
    assert est.get_params()["fit_intercept"] is True
    est.fit(X, y)
    c = est._get_loss().smoothness
    expected = auto_regularization(0.5, len(y), c) * 2.0**2  # Λ = λ·R²
    assert est.regularization_ == pytest.approx(expected)
    assert est.regularization == "auto"  # the parameter is never overwritten
    assert est.privacy_event_.details["regularization"] == est.regularization_
    assert est.privacy_event_.details["fit_intercept"] is True
    assert clone(est).get_params()["regularization"] == "auto"


def test_auto_splits_epsilon_over_one_vs_rest_problems():
    X, y = _data(n=600)
    y3 = np.where(X[:, 1] > 0.2, 2, y)
    est = DPLinearSVC(epsilon=0.9, classes=[-1, 1, 2], random_state=0).fit(X, y3)
    assert est.regularization_ == pytest.approx(auto_regularization(0.3, 600, 1.0))


def test_numeric_regularization_is_used_as_given():
    X, y = _data()
    est = DPLinearSVC(regularization=0.03, classes=[-1, 1], random_state=0).fit(X, y)
    assert est.regularization_ == 0.03


def test_intercept_is_inside_the_norm_bound():
    # The public constant s = 0.5·R is appended and x is projected onto
    # √(R² − s²): the score of a long row is that of its projection.
    X, y = _data()
    est = DPLinearSVC(epsilon=1.0, classes=[-1, 1], random_state=0).fit(X, y)
    far = 10 * X[:1] / np.linalg.norm(X[0])
    proj = far / 10 * math.sqrt(1 - 0.25)
    assert est.decision_function(far) == pytest.approx(est.decision_function(proj))


def test_kernel_defaults_resolve_from_public_quantities():
    X, y = _data()
    est = DPKernelSVC(
        gamma=0.5, epsilon=0.1, classes=[-1, 1], feature_random_state=0, random_state=0
    )
    params = est.get_params()
    assert (params["norm_handling"], params["huber_h"]) == ("clip", 1.0)
    assert params["regularization"] == "auto"
    est.fit(X, y)
    expected = auto_regularization(
        0.1, len(y), 0.5, share=AUTO_CORRECTION_SHARE_KERNEL
    )  # R = 1 for "clip"
    assert est.regularization_ == pytest.approx(expected)
    assert est.privacy_event_.details["regularization"] == pytest.approx(expected)
