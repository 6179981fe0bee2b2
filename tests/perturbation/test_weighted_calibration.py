# SPDX-License-Identifier: BSD-3-Clause
"""Public weights in the perturbation layer: every calibration scales by W.

A weighted per-example loss ωℓ with ω ≤ W is W·L-Lipschitz with curvature
bound W·c (Chaudhuri, Monteleoni & Sarwate 2011, Thm 9 and Cor. 8 applied to
it). Known answers computed by hand from the formulas, a statistical test of
the objective-perturbation noise norm, and an empirical neighbouring-dataset
test of the weighted minimiser's sensitivity.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.perturbation import (
    ObjectivePerturbation,
    auto_regularization,
    check_max_weight,
    objective_perturbation_calibration,
    output_l2_sensitivity,
    output_laplace_scale,
    rubinstein_l2_sensitivity,
    weighted_loss_constants,
)
from dpsvm.solvers import solve_hinge, solve_smooth


def test_weighted_loss_constants_scale_lipschitz_and_curvature_by_w():
    assert weighted_loss_constants(1.0, 0.25, 4.0) == (4.0, 1.0)
    assert weighted_loss_constants(0.5, None, 3.0) == (1.5, None)
    assert weighted_loss_constants(1.0, 2.0) == (1.0, 2.0)  # unweighted: W = 1


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_weight_bound_must_be_finite_and_positive(bad):
    with pytest.raises(ValueError, match="maximum weight"):
        check_max_weight(bad)
    with pytest.raises(ValueError, match="maximum weight"):
        weighted_loss_constants(1.0, 1.0, bad)


def test_objective_calibration_known_answer_with_weights():
    # ε = 1, n = 1000, λ = 0.01, c = 0.5, W = 3: W·c/(nλ) = 1.5/10 = 0.15.
    cal = objective_perturbation_calibration(1.0, 1000, 0.01, 0.5, max_weight=3.0)
    ratio = 0.15
    eps_prime = 1.0 - math.log(1.0 + 2 * ratio + ratio**2)
    assert cal.epsilon_prime == pytest.approx(eps_prime, rel=1e-12)
    assert cal.extra_regularization == 0.0
    assert cal.noise_scale == pytest.approx(2.0 * 3.0 / eps_prime, rel=1e-12)
    assert cal.max_weight == 3.0


def test_objective_calibration_is_the_unweighted_one_at_lambda_over_w():
    # Dividing J by W: weights ≤ 1 and λ/W, so ε′ (and Δ·W) must agree.
    for lam in (1e-2, 1e-5):  # without and with the Δ fallback
        w = objective_perturbation_calibration(0.5, 500, lam, 1.0, max_weight=4.0)
        u = objective_perturbation_calibration(0.5, 500, lam / 4.0, 1.0)
        assert w.epsilon_prime == pytest.approx(u.epsilon_prime, rel=1e-12)
        assert w.noise_scale == pytest.approx(4.0 * u.noise_scale, rel=1e-12)
        assert w.extra_regularization == pytest.approx(
            4.0 * u.extra_regularization, rel=1e-12
        )
    fallback = objective_perturbation_calibration(0.5, 500, 1e-5, 1.0, max_weight=4.0)
    # CMS11 Alg. 2 step 2 with c → W·c: Δ = W·c/(n(e^{ε/4} − 1)) − λ.
    assert fallback.extra_regularization == pytest.approx(
        4.0 / (500 * math.expm1(0.5 / 4)) - 1e-5, rel=1e-12
    )


def test_output_sensitivities_known_answers_with_weights():
    # CMS11 Cor. 8: 2·L·W/(nλ); Rubinstein et al. Lemma 6: 4·L·W/(nλ).
    assert output_l2_sensitivity(100, 0.1, 1.0, 2.5) == pytest.approx(0.5)
    assert rubinstein_l2_sensitivity(100, 0.1, 0.5, 2.0) == pytest.approx(0.4)
    # Thm 7: λ_L = 4·L·W·√F/(ε n λ) = 4·1·3·2/(1·100·0.1).
    assert output_laplace_scale(1.0, 100, 0.1, 4, 1.0, 3.0) == pytest.approx(2.4)
    assert output_l2_sensitivity(100, 0.1) == pytest.approx(0.2)  # unchanged


def test_auto_regularization_scales_by_w_above_its_floor():
    base = auto_regularization(0.5, 30_000, 1.0)
    assert auto_regularization(0.5, 30_000, 1.0, max_weight=8.0) == pytest.approx(
        8.0 * base, rel=1e-12
    )
    # The floor 1/n is not scaled (large ε).
    assert auto_regularization(1e4, 100, 1.0, max_weight=8.0) == pytest.approx(0.01)


def test_objective_perturbation_draws_b_with_norm_gamma_d_2w_over_eps_prime():
    op = ObjectivePerturbation.calibrate(
        1.0, n=200, dim=3, regularization=0.5, smoothness=0.25, tol=1e-10,
        max_weight=5.0,
    )  # fmt: skip
    gen = np.random.default_rng(11)
    norms = []

    def solve(strong, linear):
        norms.append(float(np.linalg.norm(linear)) * op.n)  # linear = b/n
        return SimpleNamespace(coef=np.zeros(3), grad_norm=0.0)

    for _ in range(1500):
        op.perturb(solve, gen)
    scale = 2.0 * 5.0 / op.calibration.epsilon_prime
    assert op.calibration.noise_scale == pytest.approx(scale)
    assert stats.kstest(norms, stats.gamma(3, scale=scale).cdf).pvalue > 1e-3
    event = op.event("objective-perturbation", reference="CMS11", lipschitz=1.0)
    assert event.sensitivity == pytest.approx(10.0)  # 2·L·W
    assert op.details()["weight_bound"] == 5.0
    unweighted = ObjectivePerturbation.calibrate(
        1.0, n=200, dim=3, regularization=0.5, smoothness=0.25, tol=1e-10
    )
    assert "weight_bound" not in unweighted.details()  # old events unchanged


def _neighbours(rng, n, d):
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5), "hinge"])
def test_weighted_minimiser_moves_at_most_2w_over_n_lambda(loss):
    # Empirical neighbouring datasets: replace row 0 (a unit row of weight W)
    # by its opposite; the exact minimisers are ≤ 2·W·L/(nλ) apart, and for
    # W > 1 the unweighted bound 2L/(nλ) is exceeded, so the scaling matters.
    rng = np.random.default_rng(5)
    n, d, lam, W = 40, 3, 0.5, 6.0
    worst = 0.0
    for _ in range(15):
        X, y = _neighbours(rng, n, d)
        sw = rng.uniform(0.0, 1.0, n)
        sw[0] = W
        X[0] /= np.linalg.norm(X[0])
        X2, y2 = X.copy(), y
        X2[0] = -X[0]
        if loss == "hinge":
            a = solve_hinge(X, y, lam, sample_weight=sw, target_distance=1e-9)
            b = solve_hinge(X2, y2, lam, sample_weight=sw, target_distance=1e-9)
            slack = a.distance_bound + b.distance_bound
        else:
            a = solve_smooth(X, y, loss, lam, sample_weight=sw)
            b = solve_smooth(X2, y2, loss, lam, sample_weight=sw)
            slack = (a.grad_norm + b.grad_norm) / lam
        worst = max(worst, float(np.linalg.norm(a.coef - b.coef)) - slack)
    # (the hinge attains the bound: all rows inside the margin, w linear in α)
    assert worst <= output_l2_sensitivity(n, lam, 1.0, W) * (1 + 1e-9)
    assert worst > output_l2_sensitivity(n, lam, 1.0)
