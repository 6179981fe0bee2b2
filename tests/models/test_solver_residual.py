# SPDX-License-Identifier: BSD-3-Clause
"""The certified solver residual is charged in objective perturbation's calibration."""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.accounting.accountant import BudgetAccountant
from dpsvm.datasets import make_nested_balls
from dpsvm.exceptions import DPSVMConvergenceError
from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.perturbation import _output as noise_module
from dpsvm.perturbation._calibration import (
    RESIDUAL_EPSILON_FRACTION,
    approximate_minimiser_calibration,
    objective_perturbation_calibration,
)
from dpsvm.solvers._erm import solve_smooth


def _data(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return make_nested_balls(n, random_state=seed)


def test_residual_calibration_known_values():
    # Δ_r = 2τ/Λ = 2·1e-10/1e-3 = 2e-7; Gamma scale Δ_r/ε_r = 2e-7/0.01 = 2e-5.
    cal = approximate_minimiser_calibration(0.01, 1e-10, 1e-3)
    assert cal.sensitivity == pytest.approx(2e-7, rel=1e-12)
    assert cal.noise_scale == pytest.approx(2e-5, rel=1e-12)
    assert cal.epsilon_residual == 0.01


def test_fit_draws_the_residual_noise_at_the_known_scale(monkeypatch):
    # ε = 1 split into ε_r = 0.01 and ε_op = 0.99; n = 400, Λ = 0.01, R = 1, τ = 1e-6,
    # logistic c = 1/4: ε′ = 0.99 − ln(1 + 2c/(nΛ) + c²/(nΛ)²) > 0, so Δ = 0 and
    # the residual's Gamma scale is 2τ/(Λ·ε_r) = 2e-6/(0.01·0.01) = 0.02.
    X, y = _data()
    scales = []
    real = noise_module.sample_gamma_norm

    def spy(dim, scale, rng):  # type: ignore[no-untyped-def]
        scales.append(scale)
        return real(dim, scale, rng)

    monkeypatch.setattr(noise_module, "sample_gamma_norm", spy)
    clf = DPLogisticRegression(
        epsilon=1.0, regularization=0.01, tol=1e-6, classes=[-1, 1], random_state=0
    ).fit(X, y)
    cal = objective_perturbation_calibration(0.99, 400, 0.01, 0.25)
    assert scales == [pytest.approx(cal.noise_scale), pytest.approx(0.02)]
    d = clf.privacy_event_.details
    assert d["epsilon_residual"] == pytest.approx(RESIDUAL_EPSILON_FRACTION * 1.0)
    assert d["epsilon_objective"] == pytest.approx(0.99)
    assert d["certified_residual"] == 1e-6
    assert d["residual_sensitivity"] == pytest.approx(2e-6 / 0.01)
    assert clf.privacy_event_.epsilon == 1.0


def test_loose_tolerance_is_paid_for_not_released_silently():
    # Regression (issue: tol=0.5, max_iter=1 released at the nominal ε with the
    # residual uncharged). Now the residual ‖w − w*‖ ≤ τ/Λ is charged: the event
    # states it and the released model carries noise of sensitivity 2τ/Λ.
    X, y = _data()
    loose = DPLinearSVC(
        tol=0.5, max_iter=1, regularization=0.01, classes=[-1, 1], random_state=0
    )
    loose.fit(X, y)
    details = loose.privacy_event_.details
    assert details["certified_residual"] == 0.5
    assert details["residual_sensitivity"] == pytest.approx(2 * 0.5 / 0.01)
    tight = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, y)
    # E‖Z‖ = d·Δ_r/ε_r = 5·100/0.01 for the loose fit: far from the tight model.
    assert np.linalg.norm(loose.coef_ - tight.coef_) > 100.0


def test_uncertifiable_tolerance_is_refused_before_release():
    X, y = _data()
    acc = BudgetAccountant(epsilon=5.0)
    clf = DPLogisticRegression(
        tol=1e-300, max_iter=2, classes=[-1, 1], accountant=acc, random_state=0
    )
    with pytest.raises(DPSVMConvergenceError) as info:
        clf.fit(X, y)
    message = str(info.value)
    assert "max_iter" in message and "tol" in message
    # No achieved (data-dependent) residual in the message.
    assert "‖∇J‖ =" not in message and "stopped at" not in message
    assert len(acc) == 0
    assert not hasattr(clf, "coef_")


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5)])
@pytest.mark.parametrize("lam", [1e-1, 1e-3])
def test_certificate_holds_empirically(loss, lam):
    # ‖w − w*‖ ≤ ‖∇J(w)‖/Λ ≤ τ/Λ, with w* from a much tighter solve.
    rng = np.random.default_rng(1)
    X, y = _data(300, seed=2)
    y = np.where(y == 1, 1.0, -1.0)
    lin = rng.standard_normal(X.shape[1]) / 300
    ref = solve_smooth(X, y, loss, lam, linear=lin, tol=1e-13)
    for tau in (1e-2, 1e-4, 1e-6):
        res = solve_smooth(X, y, loss, lam, linear=lin, tol=tau, max_iter=1)
        if res.grad_norm > tau:
            continue  # not certified: the estimator refuses such a fit
        dist = np.linalg.norm(res.coef - ref.coef)
        assert dist <= res.distance_bound + ref.distance_bound
        assert dist <= tau / lam + ref.distance_bound
