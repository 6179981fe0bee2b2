# SPDX-License-Identifier: BSD-3-Clause
"""The perturbation layer: calibrations, draws, certificates and typed events."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from dpsvm.accounting import ApproximateDpEvent, NonPrivateEvent, PureDpEvent
from dpsvm.exceptions import DPSVMConvergenceError
from dpsvm.mechanisms import (
    AnalyticGaussian,
    discrete_gaussian_calibration,
    laplace_release,
    sample_gamma_norm,
    zcdp_noise_multiplier,
)
from dpsvm.perturbation import (
    CERTIFICATE_RTOL,
    ObjectivePerturbation,
    OutputNoise,
    OutputPerturbation,
    approximate_minimiser_calibration,
    certified_sensitivity,
    check_certificate,
    objective_perturbation_calibration,
)


def test_gamma_norm_release_is_value_plus_the_sampler_draw():
    noise = OutputNoise.gamma_norm(0.5, 0.3)
    assert noise.scale == 0.3 / 0.5 and noise.sensitivity_norm == "l2"
    value = np.array([1.0, -2.0, 0.5])
    got = noise.release(value, np.random.default_rng(7))
    want = value + sample_gamma_norm(3, 0.3 / 0.5, np.random.default_rng(7))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(value, [1.0, -2.0, 0.5])  # not modified


def test_laplace_release_is_the_discretised_sampler():
    noise = OutputNoise.laplace(0.25, 2.0)
    assert noise.scale == 8.0 and noise.sensitivity_norm == "l1"
    got = noise.release([0.1, 0.2], np.random.default_rng(3))
    want = laplace_release([0.1, 0.2], 8.0, np.random.default_rng(3), sensitivity=2.0)
    np.testing.assert_array_equal(got, want)


def test_from_l2_laplace_uses_sqrt_d_times_the_l2_sensitivity():
    # Rubinstein et al. Thm 7: Δ₁ = √d·Δ₂; d = 9 ⇒ Δ₁ = 3·0.5.
    noise = OutputNoise.from_l2("laplace", epsilon=1.0, l2_sensitivity=0.5, dim=9)
    assert noise.sensitivity == pytest.approx(1.5) and noise.scale == pytest.approx(1.5)
    with pytest.raises(ValueError, match="Unknown noise kind"):
        OutputNoise.from_l2("cauchy", epsilon=1.0, l2_sensitivity=1.0, dim=2)


def test_gaussian_noise_has_the_analytic_sigma_and_an_approximate_event():
    noise = OutputNoise.gaussian(1.0, 1e-5, 2.0)
    assert (
        noise.scale == AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=2.0).sigma
    )
    draws = noise.release(np.zeros(20000), np.random.default_rng(0))
    # The release is exact: discrete Gaussian on a grid 2^k with the zCDP
    # calibration (CKS20), whose sigma is fine-grained enough to pass as normal.
    z = zcdp_noise_multiplier(1.0, 1e-5)
    cal = discrete_gaussian_calibration(z, 2.0, 20000)
    assert cal.sigma > noise.scale
    assert stats.kstest(draws / cal.sigma, "norm").pvalue > 1e-3
    event = noise.event("gauss", reference="Balle & Wang 2018, Thm 8", data_norm=4.0)
    assert isinstance(event, ApproximateDpEvent)
    assert (event.epsilon, event.delta, event.sensitivity) == (1.0, 1e-5, 0.5)


def test_gamma_norm_radius_has_the_gamma_law():
    noise = OutputNoise.gamma_norm(2.0, 1.0)
    rng = np.random.default_rng(1)
    radii = [np.linalg.norm(noise.release(np.zeros(4), rng)) for _ in range(2000)]
    assert stats.kstest(radii, stats.gamma(4, scale=0.5).cdf).pvalue > 1e-3


def test_event_of_a_paper_literal_release_is_non_private():
    noise = OutputNoise.gamma_norm(1.0, 1.0)
    event = noise.event("literal", reference="x", non_private_reason="proof gap")
    assert isinstance(event, NonPrivateEvent) and event.reason == "proof gap"
    assert event.details["nominal_epsilon"] == 1.0
    assert isinstance(noise.event("ok", reference="x"), PureDpEvent)


def test_certified_sensitivity_inflates_by_twice_the_cap():
    cap, eff = certified_sensitivity(0.5)
    assert cap == CERTIFICATE_RTOL * 0.5 and eff == 0.5 + 2.0 * cap


def test_certificate_failure_quotes_the_public_cap_only():
    with pytest.raises(DPSVMConvergenceError) as exc:
        check_certificate(0.0123456, 0.001, max_iter=7)
    assert "0.0123" not in str(exc.value)
    assert "0.001" in str(exc.value) and "max_iter = 7" in str(exc.value)
    assert "Increase max_iter" in str(exc.value)
    # Without a max_iter (estimators that have none) it does not advise one.
    with pytest.raises(DPSVMConvergenceError) as exc:
        check_certificate(math.nan, 1.0)
    assert "max_iter" not in str(exc.value)


def test_output_perturbation_solves_to_the_cap_and_refuses_an_uncertified_solution():
    op = OutputPerturbation.calibrate(
        "gamma-norm", epsilon=1.0, l2_sensitivity=0.2, dim=2
    )
    seen = []

    def solve(cap):  # type: ignore[no-untyped-def]
        seen.append(cap)
        return SimpleNamespace(coef=np.ones(2), distance_bound=cap / 2)

    out = op.perturb(solve, rng=np.random.default_rng(0))
    assert seen == [op.cap] and out.solution.distance_bound == op.cap / 2
    assert op.noise.sensitivity == pytest.approx(0.2 * (1 + 2 * CERTIFICATE_RTOL))
    assert not np.array_equal(out.value, np.ones(2))
    bad = SimpleNamespace(coef=np.ones(2), distance_bound=2 * op.cap)
    with pytest.raises(DPSVMConvergenceError):
        op.perturb(lambda cap: bad, rng=0)
    event = op.event("out", reference="CMS11", details=op.details(2.0), data_norm=2.0)
    assert event.sensitivity == pytest.approx(op.noise.sensitivity / 2.0)
    assert event.details["certificate_cap"] == op.cap / 2.0


def test_objective_perturbation_splits_epsilon_and_draws_b_then_the_residual():
    eps, n, lam, c, tau = 1.0, 400, 0.01, 0.25, 1e-6
    op = ObjectivePerturbation.calibrate(
        eps, n=n, dim=3, regularization=lam, smoothness=c, tol=tau
    )
    cal = objective_perturbation_calibration(0.99, n, lam, c)
    assert op.epsilon_objective == 0.99 and op.epsilon_residual == 0.01
    assert op.calibration == cal
    assert op.residual == approximate_minimiser_calibration(0.01, tau, lam)
    received = []

    def solve(strong, linear):  # type: ignore[no-untyped-def]
        received.append((strong, linear))
        return SimpleNamespace(coef=np.zeros(3), grad_norm=tau)

    out = op.perturb(solve, rng=np.random.default_rng(5))
    gen = np.random.default_rng(5)
    b = sample_gamma_norm(3, cal.noise_scale, gen)
    z = sample_gamma_norm(3, op.residual.noise_scale, gen)
    ((strong, linear),) = received
    assert strong == lam
    np.testing.assert_array_equal(linear, b / n)
    np.testing.assert_array_equal(out.value, z)
    event = op.event("objective-perturbation", reference="CMS11", lipschitz=1.0)
    assert isinstance(event, PureDpEvent) and event.epsilon == eps
    assert event.sensitivity == 2.0 and event.sensitivity_norm == "gradient-l2"
    stalled = SimpleNamespace(coef=np.zeros(3), grad_norm=2 * tau)
    with pytest.raises(DPSVMConvergenceError, match="max_iter = 9"):
        op.perturb(lambda s, lin: stalled, rng=0, max_iter=9)


def test_objective_fallback_adds_regularisation_to_the_solve():
    # ε = 0.05, n = 100, λ = 1e-3, c = 1: ε′ ≤ 0 ⇒ Δ > 0 (CMS11 Alg. 2 step 2).
    op = ObjectivePerturbation.calibrate(
        0.05, n=100, dim=2, regularization=1e-3, smoothness=1.0, tol=1e-10
    )
    assert op.calibration.extra_regularization > 0
    assert op.strong_convexity == 1e-3 + op.calibration.extra_regularization
    assert op.details(2.0)["extra_regularization"] == pytest.approx(
        op.calibration.extra_regularization * 4.0
    )


def test_paper_literal_objective_variant_has_no_residual_and_a_non_private_event():
    op = ObjectivePerturbation.calibrate(
        1.0,
        n=100,
        dim=2,
        regularization=0.1,
        smoothness=1.0,
        tol=1e-10,
        variant="sarwate2009",
    )
    assert not op.private and op.residual is None and op.epsilon_objective == 1.0
    assert "certified_residual" not in op.details()
    sol = SimpleNamespace(coef=np.zeros(2), grad_norm=0.0)
    out = op.perturb(lambda s, lin: sol, rng=0)
    np.testing.assert_array_equal(out.value, np.zeros(2))  # no residual noise
    event = op.event("objective-perturbation-2009", reference="SCM09 Alg. 1")
    assert isinstance(event, NonPrivateEvent) and "Jacobian" in event.reason


@pytest.mark.parametrize("kind", ["gamma-norm", "laplace", "gaussian"])
def test_noise_matches_the_mechanism_classes_draw_for_draw(kind):
    # The layer's release and event details equal those of the mechanism objects
    # (GammaNormVector, LaplaceVector, AnalyticGaussian) for the same generator.
    from dpsvm.mechanisms import GammaNormVector, LaplaceVector

    delta = 1e-6 if kind == "gaussian" else 0.0
    noise = OutputNoise.from_l2(
        kind, epsilon=0.7, l2_sensitivity=0.3, dim=4, delta=delta
    )
    if kind == "gamma-norm":
        mech = GammaNormVector(epsilon=0.7, sensitivity=0.3)
    elif kind == "laplace":
        mech = LaplaceVector(epsilon=0.7, sensitivity=math.sqrt(4) * 0.3)
    else:
        mech = AnalyticGaussian(epsilon=0.7, delta=1e-6, sensitivity=0.3)
    value = np.array([0.5, -1.0, 2.0, 0.0])
    np.testing.assert_array_equal(
        noise.release(value, np.random.default_rng(11)),
        mech.randomise(value, np.random.default_rng(11)),
    )
    assert noise.details() == dict(mech.privacy_event().details)
    assert noise.event("x", reference="r").sensitivity == mech.sensitivity


def test_certificate_constant_is_still_importable_from_the_linear_module():
    # Moved to dpsvm.perturbation; dpsvm.models.linear keeps the name.
    from dpsvm.models import linear

    assert linear.CERTIFICATE_RTOL is CERTIFICATE_RTOL == 1e-3
