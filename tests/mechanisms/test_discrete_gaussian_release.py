# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the exact Gaussian release (public grid 2^k + discrete Gaussian).

Calibration known answers, the zCDP -> (ε, δ) conversion of CKS20 Cor. 13,
releases on the public grid, the noise law, and the Mironov-style support
check: no released double rules out either of two neighbouring inputs.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import (
    AnalyticGaussian,
    discrete_gaussian_calibration,
    gaussian_release,
    zcdp_delta,
    zcdp_noise_multiplier,
)

ALPHA = 1e-3


def test_calibration_known_answer():
    # z = 2, Delta = 1, d = 4, B = 10: k = max(floor log2 min(2, 1/2) - 20,
    # ceil log2 2 - 24, floor log2 10 - 52) = -21; Delta_g = 2^21 + sqrt 4;
    # sigma^2 >= 4 Delta_g^2 = (2^22 + 4)^2, t = floor(2^22 + 4) + 1 = 2^22 + 5,
    # c = ceil((2^22 + 4)^2 / (2^22 + 5)) = ceil(2^22 + 3 + 1/(2^22 + 5)) = 2^22 + 4.
    cal = discrete_gaussian_calibration(2.0, 1.0, 4, bound=10.0)
    assert cal.grid_exponent == -21
    assert cal.laplace_scale == 2**22 + 5
    assert cal.sigma2_factor == 2**22 + 4
    assert cal.bound_units == 10 * 2**21 and cal.bound == 10.0
    # rho = Delta_g^2 / (2 c t) <= 1/(2 z^2) = 1/8 (CKS20 Thm 14).
    exact_rho = Fraction(2**21 + 2) ** 2 / (2 * (2**22 + 4) * (2**22 + 5))
    assert Fraction(cal.rho) >= exact_rho and exact_rho <= Fraction(1, 8)
    assert cal.sensitivity >= 1.0 + 2 * 2.0**-21


@pytest.mark.parametrize(
    ("z", "sens", "dim", "bound"),
    [
        (0.7, 1e-3, 1, None),
        (30.0, 0.02, 500, 1.0),
        (5.0, 2.0, 3, 1e12),
        (1.0, 1.0, 7, None),
    ],
)
def test_calibration_never_below_the_claimed_noise(z, sens, dim, bound):
    cal = discrete_gaussian_calibration(z, sens, dim, bound)
    grid = Fraction(2) ** cal.grid_exponent
    delta_g = Fraction(sens) / grid + math.sqrt(dim)
    # sigma^2 = c t >= z^2 Delta_g^2, so rho <= 1/(2 z^2).
    assert Fraction(cal.sigma2_factor * cal.laplace_scale) >= Fraction(
        z
    ) ** 2 * Fraction(delta_g) ** 2 * (1 - Fraction(1, 10**12))
    assert cal.rho <= 1 / (2 * z * z) * (1 + 1e-12)
    # Released grid points of [-B, B] are doubles: k >= floor(log2 B) - 52.
    if bound is not None:
        assert cal.grid_exponent >= math.frexp(bound)[1] - 1 - 52
    # Unless the bound forces a coarse grid, the rounding costs little noise
    # (relative <= z sqrt(d) 2^-20 + 2^-20).
    if bound is None or bound <= 1.0:
        assert cal.sigma <= z * sens * (1 + (z * math.sqrt(dim) + 2) * 2.0**-20)


def test_zcdp_conversion_upper_bounds_the_exact_gaussian_delta():
    # CKS20 Cor. 13 converts zCDP to (eps, delta); for the continuous Gaussian
    # with sigma = z Delta the exact delta (Balle & Wang Thm 8) can only be
    # smaller, and the conversion is never worse than Bun & Steinke's
    # exp(-(eps - rho)^2 / (4 rho)) bound.
    for z in (0.8, 2.0, 5.0):
        for eps in (0.5, 1.0, 3.0):
            rho = 1 / (2 * z * z)
            d = zcdp_delta(rho, eps)
            assert AnalyticGaussian.delta_for_sigma(z, eps, 1.0) <= d
            if eps > rho:
                assert d <= math.exp(-((eps - rho) ** 2) / (4 * rho)) * (1 + 1e-9)


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-5), (0.1, 1e-6), (4.0, 1e-3)])
def test_zcdp_noise_multiplier_is_tight_and_valid(eps, delta):
    z = zcdp_noise_multiplier(eps, delta)
    assert zcdp_delta(1 / (2 * z * z), eps) <= delta
    assert zcdp_delta(1 / (2 * (0.999 * z) ** 2), eps) > delta  # 0.1 % less fails
    # The price of exactness: at most ~15 % more noise than the analytic sigma.
    bw = AnalyticGaussian(epsilon=eps, delta=delta, sensitivity=1.0).sigma
    assert bw < z < 1.15 * bw


def test_release_lies_on_the_public_grid_within_the_bound():
    rng = np.random.default_rng(0)
    value = rng.uniform(-3, 3, size=50) * np.logspace(-12, 0, 50)
    y = gaussian_release(value, 1, epsilon=1.0, delta=1e-5, sensitivity=0.5, bound=2.0)
    cal = discrete_gaussian_calibration(zcdp_noise_multiplier(1.0, 1e-5), 0.5, 50, 2.0)
    units = y / cal.grid
    np.testing.assert_array_equal(units, np.rint(units))
    assert np.all(np.abs(y) <= 2.0) and y.dtype == np.float64 and y.shape == (50,)


def test_release_noise_is_the_discrete_gaussian():
    # A bound far above sigma forces a coarse grid (k = 60 - 52 = 8): the noise
    # in grid units is N_Z(0, c t) with small c t, checked against its pmf.
    cal = discrete_gaussian_calibration(1.0, 1.0, 1, bound=2.0**60)
    assert cal.grid_exponent == 8
    s2 = cal.sigma2_factor * cal.laplace_scale  # (Delta/256 + 1)^2 -> t = 2, c = 1
    assert (cal.laplace_scale, cal.sigma2_factor) == (2, 1)
    gen = np.random.default_rng(3)
    noise = cal.sample(30_000, gen)
    y = cal.release(np.zeros(30_000), noise) / cal.grid
    support = np.arange(-6, 7)
    p = np.exp(-(support**2) / (2 * s2))
    p /= np.exp(-(np.arange(-40, 41) ** 2) / (2 * s2)).sum()
    obs = np.array([np.sum(y == k) for k in support])
    res = stats.chisquare(
        np.append(obs, np.sum(np.abs(y) > 6)), 30_000 * np.append(p, 1 - p.sum())
    )
    assert res.pvalue > ALPHA


def test_support_attack_finds_no_excluded_output():
    # Mironov's attack looks for released doubles that one input can produce
    # and its neighbour cannot. Here the support of the release is the public
    # grid within [-B, B] for every input, and the discrete Gaussian charges
    # every grid point, so no output of 0 or of 1/3 (not a grid point) rules
    # out the other.
    n = 4000
    outs = []
    for value, seed in ((0.0, 1), (1.0 / 3.0, 2), (2.0**-40, 3)):
        outs.append(
            gaussian_release(
                np.full(n, value), seed, epsilon=1.0, delta=1e-5, sensitivity=1.0
            )
        )
    cal = discrete_gaussian_calibration(zcdp_noise_multiplier(1.0, 1e-5), 1.0, n)
    for y in outs:
        units = y / cal.grid
        np.testing.assert_array_equal(units, np.rint(units))
        assert np.all(np.abs(y) <= cal.bound)
    # The naive release's low-order bits move with the input: off-grid doubles.
    naive = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0, method="naive")
    y = naive.randomise(np.full(n, 1.0 / 3.0), random_state=4) / cal.grid
    assert np.mean(y != np.rint(y)) > 0.99


def test_analytic_gaussian_randomise_is_exact_by_default():
    mech = AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0, bound=4.0)
    assert mech.method == "discrete" and mech.bound == 4.0
    y = mech.randomise([0.1, 0.2, 5.0], random_state=0)
    cal = discrete_gaussian_calibration(mech.release_noise_multiplier, 1.0, 3, 4.0)
    np.testing.assert_array_equal(y / cal.grid, np.rint(y / cal.grid))
    assert np.all(np.abs(y) <= 4.0)
    details = mech.privacy_event().details
    assert details["release"] == "discrete"
    assert details["noise_multiplier"] == mech.release_noise_multiplier
    assert "method='naive'" in repr(
        AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0, method="naive")
    )
    with pytest.raises(ValueError, match="method"):
        AnalyticGaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0, method="x")


def test_calibration_validates():
    with pytest.raises(ValueError, match="dim"):
        discrete_gaussian_calibration(1.0, 1.0, 0)
    with pytest.raises(ValueError, match="noise_multiplier"):
        discrete_gaussian_calibration(0.0, 1.0, 1)
    with pytest.raises(ValueError, match="range"):
        discrete_gaussian_calibration(1.0, 1.0, 1, bound=1e308)
