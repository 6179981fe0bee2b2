# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the floating-point-safe Laplace release (discretised Laplace).

Covers the calibration (grid 2^m, integer scale t, ε ≤ claimed), the exact
discrete Laplace sampler of Canonne, Kamath & Steinke (2020), the release
``laplace_release`` and the floating-point attack of Mironov (CCS 2012) on the
naive ``value + numpy.random.laplace`` release.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import (
    LaplaceVector,
    discrete_laplace_calibration,
    laplace_release,
    sample_discrete_laplace,
)
from dpsvm.mechanisms._snapping import (
    GRID_BITS,
    _bernoulli_exp,
    _discrete_laplace_scalar,
    _int_times_pow2,
    _randbelow,
)

ALPHA = 1e-3


def _dlap_pmf(z: np.ndarray, t: float) -> np.ndarray:
    # P(Z = z) = (1 - q)/(1 + q) q^|z|, q = exp(-1/t)  (CKS20 Definition 1).
    q = math.exp(-1.0 / t)
    return (1 - q) / (1 + q) * q ** np.abs(z)


# --------------------------------------------------------------------------- #
# Calibration
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("scale", "sensitivity", "dim", "m", "t"),
    [
        # m = min(floor log2 1, floor log2 1 - ceil log2 1) - 20 = -20;
        # t = ceil(1 * 2^20 + 1 * 1/1) = 2^20 + 1.
        (1.0, 1.0, 1, -20, 2**20 + 1),
        # m = min(2, 1 - 2) - 20 = -21; t = ceil(4 * 2^21 + 3 * 4/2) = 2^23 + 6.
        (4.0, 2.0, 3, -21, 2**23 + 6),
        # m = min(floor log2 0.3 = -2, 0 - 0) - 20 = -22;
        # t = ceil(0.3 * 2^22 + 1 * 0.3/1) = ceil(1258291.5 + 0.3) = 1258292.
        (0.3, 1.0, 1, -22, 1258292),
    ],
)
def test_calibration_known_answers(scale, sensitivity, dim, m, t):
    cal = discrete_laplace_calibration(scale, sensitivity, dim)
    assert (cal.grid_exponent, cal.integer_scale) == (m, t)
    assert cal.grid == 2.0**m


def test_calibration_epsilon_is_exactly_the_claim_when_t_is_exact():
    # (4, 2, 3): eps = (Delta/Lambda + d)/t = (2 * 2^21 + 3)/(2^23 + 6) = 1/2 = 2/4.
    assert discrete_laplace_calibration(4.0, 2.0, 3).epsilon == 0.5


@pytest.mark.parametrize("scale", [1e-250, 3e-7, 0.01, 1.0, 7.5, 1e6, 1e250])
@pytest.mark.parametrize("sensitivity", [1e-200, 1e-3, 1.0, 40.0, 1e200])
@pytest.mark.parametrize("dim", [1, 2, 7, 1000])
def test_calibration_never_exceeds_the_claimed_epsilon(scale, sensitivity, dim):
    cal = discrete_laplace_calibration(scale, sensitivity, dim)
    grid = Fraction(2) ** cal.grid_exponent
    # The exact epsilon of the release: (Delta_1/Lambda + d)/t <= Delta_1/lambda.
    exact = (Fraction(sensitivity) / grid + dim) / cal.integer_scale
    assert exact <= Fraction(sensitivity) / Fraction(scale)
    # The reported value is an upper bound (inf when Delta_1/lambda overflows).
    assert cal.epsilon == math.inf or Fraction(cal.epsilon) >= exact
    # Cost: the noise scale t*Lambda is within lambda * (1 + 2^-19).
    lam_eff = cal.integer_scale * grid
    assert Fraction(scale) <= lam_eff <= Fraction(scale) * (1 + Fraction(1, 2**19))
    # The grid is at least 2^20 times finer than lambda and Delta_1/d.
    assert grid * 2**GRID_BITS <= Fraction(scale)
    assert grid * 2**GRID_BITS * dim <= Fraction(sensitivity)


def test_calibration_monotone_in_scale():
    ts = [discrete_laplace_calibration(s, 1.0, 4).effective_scale for s in (0.5, 1, 2)]
    assert ts == sorted(ts)
    assert discrete_laplace_calibration(1.0, 1.0, 4).effective_scale >= 1.0


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((0.0, 1.0, 1), ValueError, "scale"),
        ((1.0, -1.0, 1), ValueError, "sensitivity"),
        ((1.0, 1.0, 0), ValueError, "dim"),
        ((1.0, 1.0, 1.5), TypeError, "dim"),
        ((float("inf"), 1.0, 1), ValueError, "scale"),
    ],
)
def test_calibration_validates(args, error, match):
    with pytest.raises(error, match=match):
        discrete_laplace_calibration(*args)


# --------------------------------------------------------------------------- #
# Exact integer samplers
# --------------------------------------------------------------------------- #
def test_randbelow_is_uniform_for_big_integers():
    gen = np.random.default_rng(5)
    n = 3 * 2**70  # beyond uint64: the byte-level rejection path
    draws = [_randbelow(gen, n) for _ in range(3000)]
    assert all(0 <= d < n for d in draws)
    assert stats.kstest(np.array(draws, dtype=float) / n, "uniform").pvalue > ALPHA
    assert _randbelow(gen, 1) == 0


@pytest.mark.parametrize(("num", "den"), [(0, 5), (1, 3), (2, 2), (7, 10)])
def test_bernoulli_exp_has_mean_exp_minus_gamma(num, den):
    # CKS20 Algorithm 1: P[1] = exp(-num/den).
    n = 40_000
    out = _bernoulli_exp(np.full(n, num, dtype=np.int64), den, np.random.default_rng(1))
    res = stats.binomtest(int(out.sum()), n, math.exp(-num / den))
    assert res.pvalue > ALPHA


@pytest.mark.parametrize("t", [1, 3, 17])
def test_discrete_laplace_pmf_chi_square(t):
    n = 60_000
    z = sample_discrete_laplace(n, t, np.random.default_rng(100 + t))
    assert z.dtype == np.int64
    # Bins: |z| <= 4t individually, tails pooled (expected counts >= 5).
    edge = 4 * t
    support = np.arange(-edge, edge + 1)
    p = _dlap_pmf(support, t)
    observed = np.array([np.sum(z == k) for k in support])
    tail_p, tail_obs = 1 - p.sum(), np.sum(np.abs(z) > edge)
    res = stats.chisquare(
        np.append(observed, tail_obs), n * np.append(p, tail_p), ddof=0
    )
    assert res.pvalue > ALPHA


def test_discrete_laplace_chi_square_detects_a_wrong_scale():
    # Power check: draws with t = 3 are rejected against the pmf with t = 3.5.
    n, t = 60_000, 3
    z = sample_discrete_laplace(n, t, np.random.default_rng(103))
    support = np.arange(-12, 13)
    p = _dlap_pmf(support, 3.5)
    observed = np.array([np.sum(z == k) for k in support])
    res = stats.chisquare(
        np.append(observed, np.sum(np.abs(z) > 12)), n * np.append(p, 1 - p.sum())
    )
    assert res.pvalue < ALPHA


def test_discrete_laplace_large_scale_is_laplace():
    # For t = 2^40 the discrete Laplace is Laplace(0, t) up to a 2^-40 grid.
    t = 2**40
    z = sample_discrete_laplace(20_000, t, np.random.default_rng(8))
    assert stats.kstest(z / t, stats.laplace().cdf).pvalue > ALPHA


def test_discrete_laplace_big_integer_path():
    # t > 2^52 uses exact Python integers; same law (checked on z / t).
    t = 3 * 2**60
    gen = np.random.default_rng(9)
    z = np.array([_discrete_laplace_scalar(t, gen) for _ in range(1500)], dtype=float)
    assert stats.kstest(z / t, stats.laplace().cdf).pvalue > ALPHA
    out = sample_discrete_laplace(4, t, 0)
    assert out.shape == (4,)


def test_sample_discrete_laplace_shapes_and_validation():
    assert sample_discrete_laplace((2, 3), 5, 0).shape == (2, 3)
    np.testing.assert_array_equal(
        sample_discrete_laplace(6, 5, 4), sample_discrete_laplace(6, 5, 4)
    )
    with pytest.raises(ValueError, match="scale"):
        sample_discrete_laplace(3, 0, 0)
    with pytest.raises(TypeError, match="scale"):
        sample_discrete_laplace(3, 2.5, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="size"):
        sample_discrete_laplace(0, 2, 0)


def test_int_times_pow2_saturates_and_rounds():
    assert _int_times_pow2(3, -2) == 0.75
    assert _int_times_pow2(0, 5000) == 0.0
    assert _int_times_pow2(1, 2000) == np.finfo(float).max
    assert _int_times_pow2(-(2**1100), 0) == -np.finfo(float).max
    assert _int_times_pow2(2**53 + 1, 0) == 2.0**53  # round half to even


# --------------------------------------------------------------------------- #
# laplace_release
# --------------------------------------------------------------------------- #
def test_release_lies_on_the_public_grid_and_keeps_the_shape():
    value = np.array([[0.1, -2.5, 3.0], [7.0, 0.0, 1e-9]])
    out = laplace_release(value, 0.5, 3, sensitivity=0.25)
    assert out.shape == value.shape and out.dtype == np.float64
    cal = discrete_laplace_calibration(0.5, 0.25, value.size)
    k = out / cal.grid
    np.testing.assert_array_equal(k, np.rint(k))
    np.testing.assert_array_equal(value[0], [0.1, -2.5, 3.0])  # not modified


def test_release_noise_is_discrete_laplace_around_the_snapped_value():
    # y/Lambda - rint(v/Lambda) ~ DLap(t): checked on z/t against Laplace(0, 1).
    v, lam, sens, n = 0.123456789, 0.01, 0.01, 5000
    cal = discrete_laplace_calibration(lam, sens, n)
    ys = laplace_release(
        np.full(n, v), lam, np.random.default_rng(21), sensitivity=sens
    )
    z = ys / cal.grid - np.rint(v / cal.grid)
    np.testing.assert_array_equal(z, np.rint(z))
    assert stats.kstest(z / cal.integer_scale, stats.laplace().cdf).pvalue > ALPHA
    # Mean absolute noise ~ lambda (4 standard errors).
    assert abs(np.mean(np.abs(ys - v)) - lam) < 4 * lam / math.sqrt(n)


def test_release_vector_is_iid_laplace():
    lam, d = 2.0, 20_000
    out = laplace_release(np.zeros(d), lam, np.random.default_rng(4), sensitivity=1.0)
    assert stats.kstest(out, stats.laplace(scale=lam).cdf).pvalue > ALPHA
    assert stats.pearsonr(out[:-1], out[1:]).pvalue > ALPHA


@pytest.mark.slow
def test_release_neighbour_ratio_bounded_by_exp_epsilon():
    # f(D) = 0, f(D') = Delta = 1, lambda = 1 (eps = 1): for every bin S,
    # P[M(D) in S] <= e^eps P[M(D') in S] (+ sampling slack, 4 standard errors).
    n, eps = 200_000, 1.0
    a = laplace_release(np.zeros(n), 1.0, np.random.default_rng(31), sensitivity=1.0)
    b = laplace_release(np.ones(n), 1.0, np.random.default_rng(32), sensitivity=1.0)
    edges = np.linspace(-4, 5, 19)
    pa = np.histogram(a, edges)[0] / n
    pb = np.histogram(b, edges)[0] / n
    slack = 4 * np.sqrt((pa + pb) / n)
    assert np.all(pa <= math.exp(eps) * pb + slack)
    assert np.all(pb <= math.exp(eps) * pa + slack)
    # The bound is nearly attained left of 0 (ratio e^eps there): tight noise.
    left = edges[1:] <= 0
    assert np.all(pa[left] / pb[left] > 0.9 * math.exp(eps))


def test_release_bound_clamps_input_and_output():
    out = laplace_release([100.0, -100.0, 0.0], 0.1, 0, sensitivity=0.1, bound=1.0)
    assert np.all(np.abs(out) <= 1.0)
    assert out[0] > 0.5 and out[1] < -0.5  # clamped to ±1 first, then noised


def test_release_handles_extreme_magnitudes():
    # Values near the largest double with tiny noise: saturates, never inf.
    big = np.finfo(float).max
    out = laplace_release([big, -big, 0.0], 1e-300, 0, sensitivity=1e-300)
    assert np.all(np.isfinite(out))
    assert out[0] == big and out[1] == -big
    # Huge scale: exact big-integer path, finite output on the grid.
    out = laplace_release(np.zeros(3), 1e300, 1, sensitivity=1e299)
    assert np.all(np.isfinite(out)) and np.any(out != 0)
    # Tiny (normal) scale and a subnormal value: the output stays finite.
    out = laplace_release([5e-310], 1e-300, 2, sensitivity=1e-300)
    assert np.isfinite(out[0])
    # Subnormal scales are refused (1/scale would overflow).
    with pytest.raises(ValueError):
        laplace_release([0.0], 1e-310, 2, sensitivity=1e-310)


def test_naive_method_is_value_plus_numpy_laplace():
    value = np.array([1.0, -2.0, 0.5])
    out = laplace_release(value, 0.7, 5, sensitivity=1.0, method="naive")
    np.testing.assert_array_equal(
        out, value + np.random.default_rng(5).laplace(0.0, 0.7, size=3)
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"method": "snap"}, ValueError, "method"),
        ({"sensitivity": 0.0}, ValueError, "sensitivity"),
        ({"sensitivity": float("nan")}, ValueError, "sensitivity"),
        ({"bound": -1.0}, ValueError, "bound"),
        ({"bound": "1"}, TypeError, "bound"),
        ({"scale": float("inf")}, ValueError, "scale"),
        ({"value": [np.nan]}, ValueError, "finite"),
        ({"value": []}, ValueError, "non-empty"),
        ({"value": ["a"]}, TypeError, "real-valued"),
    ],
)
def test_release_validates(kwargs, error, match):
    args = {"value": [1.0], "scale": 1.0, "sensitivity": 1.0, **kwargs}
    value, scale = args.pop("value"), args.pop("scale")
    with pytest.raises(error, match=match):
        laplace_release(value, scale, 0, **args)


def test_laplace_vector_randomise_uses_the_discrete_release():
    mech = LaplaceVector(epsilon=2.0, sensitivity=1.0)
    assert mech.method == "discrete" and mech.bound is None
    np.testing.assert_array_equal(
        mech.randomise([1.0, 2.0], random_state=7),
        laplace_release([1.0, 2.0], 0.5, 7, sensitivity=1.0),
    )
    clamped = LaplaceVector(epsilon=2.0, sensitivity=1.0, bound=1.5)
    assert np.all(np.abs(clamped.randomise([10.0, -10.0], random_state=1)) <= 1.5)
    details = clamped.privacy_event().details
    assert details["release"] == "discrete" and details["bound"] == 1.5
    assert repr(clamped) == "LaplaceVector(epsilon=2.0, sensitivity=1.0, bound=1.5)"
    with pytest.raises(ValueError, match="method"):
        LaplaceVector(epsilon=1.0, sensitivity=1.0, method="snapping")


# --------------------------------------------------------------------------- #
# The floating-point attack (Mironov, CCS 2012)
# --------------------------------------------------------------------------- #
def _numpy_laplace_can_output(y: float) -> bool:
    """Whether numpy's Laplace(0, 1) can return the double ``y`` at all.

    numpy draws U = j·2⁻⁵³ and returns ±log(v) with v = 2U or (2 − U) − U, so
    v is a multiple of 2⁻⁵³ in (0, 1] (a superset of the true v's; "False" is
    therefore a proof of impossibility). Invert: v ≈ exp(−|y|), then try the
    neighbouring grid points with the same libm ``log`` that numpy's C code
    calls.
    """
    if y == 0.0:
        return True
    a = abs(y)
    k0 = round(math.exp(-a) * 2.0**53)
    return any(
        -math.log(k * 2.0**-53) == a
        for k in range(max(1, k0 - 8), min(2**53, k0 + 8) + 1)
    )


def test_naive_release_support_depends_on_the_value():
    # f(D) = 0 and f(D') = 1 with lambda = 1 (epsilon = 1).
    n = 4000
    y0 = laplace_release(np.zeros(n), 1.0, 1, sensitivity=1.0, method="naive")
    y1 = laplace_release(np.ones(n), 1.0, 2, sensitivity=1.0, method="naive")
    # Sanity (the inversion is right): every output of 0 + noise is found.
    assert all(_numpy_laplace_can_output(y) for y in y0)
    # Attack: a large share of the outputs of 1 + noise are doubles that
    # 0 + noise can never produce -- they identify D' with certainty.
    impossible_from_0 = np.array([not _numpy_laplace_can_output(y) for y in y1])
    assert impossible_from_0.mean() > 0.25
    # ... even in the region where both inputs are likely (|y - 0.5| < 1).
    middle = np.abs(y1 - 0.5) < 1.0
    assert impossible_from_0[middle].mean() > 0.25


def test_discrete_release_support_does_not_depend_on_the_value():
    # Same two inputs: every output of either lies on the grid Lambda*Z, and
    # every grid point has positive probability under both (the discrete
    # Laplace charges all of Z), so no output rules an input out.
    n = 4000
    cal = discrete_laplace_calibration(1.0, 1.0, n)
    for value, seed in ((0.0, 1), (1.0, 2), (2.0**-30, 3)):
        y = laplace_release(np.full(n, value), 1.0, seed, sensitivity=1.0)
        k = y / cal.grid
        np.testing.assert_array_equal(k, np.rint(k))
    # The grid is public: it depends on (lambda, Delta_1, d) only.
    assert cal.grid == discrete_laplace_calibration(1.0, 1.0, n).grid
