# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the analytic Gaussian mechanism (Balle & Wang 2018, Thm 8 / Alg. 1)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import ndtr

from dpsvm.mechanisms import AnalyticGaussian

ALPHA = 1e-3

CASES = [
    # (epsilon, delta, sensitivity)
    (1.0, 1e-5, 1.0),
    (0.1, 1e-5, 1.0),
    (0.5, 1e-6, 2.5),
    (2.0, 1e-3, 0.3),
    (5.0, 1e-8, 1.0),
    (0.01, 1e-10, 0.1),
    (10.0, 0.2, 1.0),
]


def _delta_direct(sigma: float, epsilon: float, sens: float) -> float:
    # Balle & Wang (2018), Thm 8, written plainly (no log space):
    # delta(sigma) = Phi(D/(2s) - e s/D) - e^e Phi(-D/(2s) - e s/D).
    a = sens / (2 * sigma) - epsilon * sigma / sens
    b = -sens / (2 * sigma) - epsilon * sigma / sens
    return float(ndtr(a) - math.exp(epsilon) * ndtr(b))


def _sigma_balle_wang_alg1(epsilon: float, delta: float, sens: float) -> float:
    """Independent re-derivation: Balle & Wang (2018) Alg. 1 by plain bisection.

    delta_0 = Phi(0) - e^eps Phi(-sqrt(2 eps)). If delta >= delta_0, find
    v* = sup{v >= 0 : B+(v) <= delta}, B+(v) = Phi(sqrt(eps v)) -
    e^eps Phi(-sqrt(eps (v + 2))), and alpha = sqrt(1 + v/2) - sqrt(v/2);
    else u* = inf{u >= 0 : B-(u) <= delta}, B-(u) = Phi(-sqrt(eps u)) -
    e^eps Phi(-sqrt(eps (u + 2))), alpha = sqrt(1 + u/2) + sqrt(u/2).
    Then sigma = alpha * Delta / sqrt(2 eps).
    """
    e = math.exp(epsilon)

    def b_plus(v):
        return ndtr(math.sqrt(epsilon * v)) - e * ndtr(-math.sqrt(epsilon * (v + 2)))

    def b_minus(u):
        return ndtr(-math.sqrt(epsilon * u)) - e * ndtr(-math.sqrt(epsilon * (u + 2)))

    def bisect(pred, hi):  # largest x with pred(x) true, pred monotone decreasing
        lo = 0.0
        while pred(hi):
            lo, hi = hi, 2 * hi
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if pred(mid) else (lo, mid)
        return lo

    delta0 = ndtr(0.0) - e * ndtr(-math.sqrt(2 * epsilon))
    if delta >= delta0:
        v = bisect(lambda v: b_plus(v) <= delta, 1.0)  # B+ increasing in v
        alpha = math.sqrt(1 + v / 2) - math.sqrt(v / 2)
    else:
        u = bisect(lambda u: b_minus(u) > delta, 1.0)  # B- decreasing in u
        alpha = math.sqrt(1 + u / 2) + math.sqrt(u / 2)
    return alpha * sens / math.sqrt(2 * epsilon)


# --------------------------------------------------------------------------- #
# Known-answer calibration
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(("epsilon", "delta", "sens"), CASES)
def test_sigma_solves_the_defining_equation(epsilon, delta, sens):
    sigma = AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=sens).sigma
    # Enough noise: delta(sigma) <= delta (checked with the plain formula).
    assert _delta_direct(sigma, epsilon, sens) <= delta * (1 + 1e-9)
    assert AnalyticGaussian.delta_for_sigma(sigma, epsilon, sens) <= delta
    # Smallest: 1e-6 less noise already violates (epsilon, delta)-DP.
    assert _delta_direct(sigma * (1 - 1e-6), epsilon, sens) > delta


@pytest.mark.parametrize(("epsilon", "delta", "sens"), CASES)
def test_sigma_matches_independent_algorithm_1(epsilon, delta, sens):
    expected = _sigma_balle_wang_alg1(epsilon, delta, sens)
    sigma = AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=sens).sigma
    assert sigma == pytest.approx(expected, rel=1e-7)


def test_known_value_epsilon_1_delta_1e5():
    # Alg. 1 of Balle & Wang (re-derived above by bisection) gives
    # sigma ~= 3.7306 for (eps, delta, Delta) = (1, 1e-5, 1), against the classic
    # sqrt(2 ln(1.25e5)) = 4.845 (which Thm A.1 does not even cover at eps = 1).
    sigma = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0).sigma
    assert sigma == pytest.approx(3.7306, abs=5e-4)


def test_delta_for_sigma_matches_hockey_stick_integral():
    # delta(sigma) is the hockey-stick divergence
    # int max(0, p(x) - e^eps q(x)) dx with p = N(0, s^2), q = N(Delta, s^2):
    # an independent (numerical-integration) check of Thm 8's closed form.
    for sigma, eps, sens in [(1.0, 1.0, 1.0), (2.0, 0.3, 1.5), (0.5, 3.0, 1.0)]:
        p = stats.norm(0.0, sigma).pdf
        q = stats.norm(sens, sigma).pdf
        # p > e^eps q exactly for x < Delta/2 - eps sigma^2 / Delta.
        x_star = sens / 2 - eps * sigma**2 / sens
        val, _ = integrate.quad(
            lambda x, p=p, q=q, eps=eps: p(x) - math.exp(eps) * q(x),
            -np.inf,
            x_star,
            epsabs=1e-13,
        )
        assert AnalyticGaussian.delta_for_sigma(sigma, eps, sens) == pytest.approx(
            val, rel=1e-8
        )


@pytest.mark.parametrize("epsilon", [0.05, 0.2, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-12])
def test_analytic_never_exceeds_classic(epsilon, delta):
    # Classic: sigma = sqrt(2 ln(1.25/delta)) Delta / eps (Dwork & Roth Thm A.1).
    classic = AnalyticGaussian.classic_sigma(epsilon, delta, 2.0)
    assert classic == pytest.approx(math.sqrt(2 * math.log(1.25 / delta)) * 2 / epsilon)
    analytic = AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=2.0).sigma
    assert analytic <= classic
    # The classic sigma is itself (eps, delta)-DP by Thm 8 (sanity of both).
    assert _delta_direct(classic, epsilon, 2.0) <= delta


def test_classic_sigma_refuses_epsilon_at_least_one():
    with pytest.raises(ValueError, match="epsilon < 1"):
        AnalyticGaussian.classic_sigma(1.0, 1e-5, 1.0)
    with pytest.raises(ValueError, match="delta must be > 0"):
        AnalyticGaussian.classic_sigma(0.5, 0.0, 1.0)


def test_sigma_scales_linearly_with_sensitivity():
    # Thm 8 depends on sigma / Delta only: sigma(Delta) = Delta sigma(1).
    base = AnalyticGaussian(epsilon=0.7, delta=1e-6, sensitivity=1.0).sigma
    for sens in (0.01, 3.0, 250.0):
        s = AnalyticGaussian(epsilon=0.7, delta=1e-6, sensitivity=sens).sigma
        assert s == pytest.approx(sens * base, rel=1e-12)


def test_sigma_monotone_in_epsilon_and_delta():
    by_eps = [
        AnalyticGaussian(epsilon=e, delta=1e-5, sensitivity=1.0).sigma
        for e in (0.01, 0.1, 1.0, 10.0, 100.0)
    ]
    assert all(a > b for a, b in itertools.pairwise(by_eps))
    by_delta = [
        AnalyticGaussian(epsilon=1.0, delta=d, sensitivity=1.0).sigma
        for d in (1e-12, 1e-8, 1e-4, 0.1)
    ]
    assert all(a > b for a, b in itertools.pairwise(by_delta))


@pytest.mark.parametrize(
    ("epsilon", "delta"), [(1e-6, 1e-5), (500.0, 1e-5), (50.0, 1e-300), (1.0, 0.999)]
)
def test_extreme_parameters_are_solved(epsilon, delta):
    # No overflow of e^eps, no failure for tiny eps or delta.
    sigma = AnalyticGaussian(epsilon=epsilon, delta=delta, sensitivity=1.0).sigma
    assert math.isfinite(sigma) and sigma > 0
    assert AnalyticGaussian.delta_for_sigma(sigma, epsilon, 1.0) <= delta
    assert AnalyticGaussian.delta_for_sigma(sigma * (1 - 1e-6), epsilon, 1.0) > delta


# --------------------------------------------------------------------------- #
# Distribution
# --------------------------------------------------------------------------- #
def test_noise_is_gaussian_ks():
    mech = AnalyticGaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0)
    noise = mech.sample(20_000, random_state=31)
    assert stats.kstest(noise, stats.norm(0.0, mech.sigma).cdf).pvalue > ALPHA
    # Power check: 10% more spread is rejected.
    assert stats.kstest(noise, stats.norm(0.0, 1.1 * mech.sigma).cdf).pvalue < ALPHA


def test_sample_shape():
    mech = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    assert mech.sample((3, 2), 0).shape == (3, 2)
    assert mech.sample(4, 0).dtype == np.float64


# --------------------------------------------------------------------------- #
# Validation
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("delta", "match"),
    [
        (0.0, "delta must be > 0"),
        (1.0, r"delta must be in \[0, 1\)"),
        (-1e-5, r"delta must be in \[0, 1\)"),
        (1.5, r"delta must be in \[0, 1\)"),
        (float("nan"), r"delta must be in \[0, 1\)"),
    ],
)
def test_delta_must_be_in_open_unit_interval(delta, match):
    with pytest.raises(ValueError, match=match):
        AnalyticGaussian(epsilon=1.0, delta=delta, sensitivity=1.0)


def test_out_of_range_noise_rejected():
    with pytest.raises(ValueError, match="out of float64 range"):
        AnalyticGaussian(epsilon=1e-10, delta=1e-5, sensitivity=1e300)


def test_delta_for_sigma_validates():
    with pytest.raises(ValueError, match="sigma must be > 0"):
        AnalyticGaussian.delta_for_sigma(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        AnalyticGaussian.delta_for_sigma(1.0, -1.0, 1.0)
