# SPDX-License-Identifier: BSD-3-Clause
"""Numerical hardening of the floating-point noise samplers.

The Gamma-norm (L2 Laplace) sampler and numpy's Laplace noise must never return
a zero, subnormal-collapsed, infinite or NaN draw: a zero noise vector releases
the exact value, an infinite one destroys it (and which of the two happens may
depend on the scale, i.e. on ε and the sensitivity). Extreme dimensions and
scales are either sampled correctly or refused up front with ValueError.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import GammaNormVector, sample_gamma_norm, sample_laplace
from dpsvm.mechanisms.base import MIN_NOISE_SCALE, check_noise_scale

ALPHA = 1e-3
FMAX = np.finfo(float).max


def _headroom(d: int) -> float:
    # Gamma(d, 1) exceeds d + 64 sqrt(d) + 64 with probability below e^-40.
    return d + 64 * math.sqrt(d) + 64


# --------------------------------------------------------------------------- #
# Scale limits
# --------------------------------------------------------------------------- #
def test_min_noise_scale_is_smallest_normal_over_machine_epsilon():
    # 2^-1022 / 2^-53 = 2^-969: a draw >= 2^-53 scales is still a normal double.
    assert MIN_NOISE_SCALE == 2.0**-969
    assert MIN_NOISE_SCALE * 2.0**-53 == np.finfo(float).tiny


@pytest.mark.parametrize("dim", [1, 2, 10, 1000])
def test_gamma_norm_at_the_smallest_scale_is_normal_and_nonzero(dim):
    gen = np.random.default_rng(dim)
    for _ in range(50):
        b = sample_gamma_norm(dim, MIN_NOISE_SCALE, gen)
        # hypot is scale-safe (np.linalg.norm would underflow b**2 to 0 here).
        norm = math.hypot(*b)
        assert math.isfinite(norm) and norm >= np.finfo(float).tiny


@pytest.mark.parametrize("dim", [1, 3, 100_000])
def test_gamma_norm_at_the_largest_scale_is_finite(dim):
    scale = FMAX / _headroom(dim) * (1 - 1e-12)
    gen = np.random.default_rng(7)
    for _ in range(5):
        b = sample_gamma_norm(dim, scale, gen)
        assert np.all(np.isfinite(b)) and np.linalg.norm(b / scale) > 0


@pytest.mark.parametrize("dim", [1, 5, 10**6])
def test_gamma_norm_refuses_scales_that_could_overflow(dim):
    too_big = np.nextafter(FMAX / _headroom(dim), np.inf) * 1.01
    with pytest.raises(ValueError, match="too large"):
        sample_gamma_norm(dim, too_big, 0)
    with pytest.raises(ValueError, match="too large"):
        GammaNormVector(epsilon=1.0, sensitivity=too_big).sample(dim, 0)


@pytest.mark.parametrize("scale", [1e-300, 5e-324, np.nextafter(2.0**-969, 0)])
def test_gamma_norm_refuses_scales_that_could_underflow(scale):
    with pytest.raises(ValueError, match=r"underflow|at least"):
        sample_gamma_norm(3, scale, 0)


@pytest.mark.parametrize(
    ("scale", "match"),
    [(1e-300, "underflow"), (FMAX / 10, "too large"), (0.0, "> 0")],
)
def test_laplace_noise_scale_limits(scale, match):
    with pytest.raises(ValueError, match=match):
        sample_laplace(3, scale, 0)
    # Just inside the limits the draws are finite and nonzero.
    assert np.all(sample_laplace(1000, MIN_NOISE_SCALE, 0) != 0)
    assert np.all(np.isfinite(sample_laplace(1000, FMAX / 64, 0)))


def test_check_noise_scale_headroom():
    assert check_noise_scale(1.0, "s", headroom=1e300) == 1.0
    with pytest.raises(ValueError, match="too large"):
        check_noise_scale(1e10, "s", headroom=1e300)
    with pytest.raises(TypeError):
        check_noise_scale("1", "s")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# Extreme dimensions
# --------------------------------------------------------------------------- #
def test_huge_dimension_norm_is_gamma():
    # d = 10^6: ||b|| ~ Gamma(d, s) has mean d s and sd sqrt(d) s.
    d, s = 10**6, 0.5
    norms = [np.linalg.norm(sample_gamma_norm(d, s, seed)) for seed in range(3)]
    z = (np.array(norms) - d * s) / (math.sqrt(d) * s)
    assert np.all(np.abs(z) < 5)


def test_dimension_one_is_laplace():
    gen = np.random.default_rng(3)
    x = np.array([sample_gamma_norm(1, 2.0, gen)[0] for _ in range(4000)])
    assert stats.kstest(x, stats.laplace(scale=2.0).cdf).pvalue > ALPHA
    assert np.all(x != 0)


# --------------------------------------------------------------------------- #
# Degenerate draws are rejected, not released
# --------------------------------------------------------------------------- #
class _Scripted(np.random.Generator):
    """A generator whose first draws are degenerate (zero, tiny, inf)."""

    def __init__(self, normals=(), gammas=()):
        super().__init__(np.random.PCG64(0))
        self.normals = list(normals)
        self.gammas = list(gammas)
        self.normal_calls = 0
        self.gamma_calls = 0

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        self.normal_calls += 1
        if self.normals:
            return np.full(size, self.normals.pop(0))
        return super().standard_normal(size)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        self.gamma_calls += 1
        if self.gammas:
            return self.gammas.pop(0)
        return super().standard_gamma(shape, size)


@pytest.mark.parametrize("bad", [0.0, 1e-30, -1e-25, np.inf, np.nan])
def test_degenerate_gaussian_direction_is_redrawn(bad):
    gen = _Scripted(normals=[bad])
    b = sample_gamma_norm(3, 1.0, gen)
    assert gen.normal_calls == 2
    assert np.all(np.isfinite(b)) and np.linalg.norm(b) > 0


@pytest.mark.parametrize("bad", [0.0, np.inf, np.nan])
def test_degenerate_gamma_radius_is_redrawn(bad):
    # A zero radius would release the value unperturbed (b = 0).
    gen = _Scripted(gammas=[bad, bad])
    b = sample_gamma_norm(1, 1.0, gen)
    assert gen.gamma_calls == 3
    assert np.all(np.isfinite(b)) and b[0] != 0


def test_overflowing_product_is_redrawn():
    # radius = G * scale overflows when G is absurdly large: redrawn.
    scale = FMAX / _headroom(2) * (1 - 1e-12)
    gen = _Scripted(gammas=[1e300])
    b = sample_gamma_norm(2, scale, gen)
    assert gen.gamma_calls == 2 and np.all(np.isfinite(b))


def test_broken_generator_is_refused():
    gen = _Scripted(normals=[0.0] * 100)
    with pytest.raises(RuntimeError, match="broken"):
        sample_gamma_norm(2, 1.0, gen)
    gen = _Scripted(gammas=[0.0] * 100)
    with pytest.raises(RuntimeError, match="broken"):
        sample_gamma_norm(2, 1.0, gen)


def test_direction_rejection_does_not_bias_the_direction():
    # Norm and direction of a Gaussian are independent, so rejecting on the
    # norm keeps u uniform: (u_1 + 1)/2 ~ Beta(1, 1) on S^2.
    gen = np.random.default_rng(11)
    b = np.stack([sample_gamma_norm(3, 1.0, gen) for _ in range(3000)])
    u = b / np.linalg.norm(b, axis=1, keepdims=True)
    assert stats.kstest((u[:, 0] + 1) / 2, stats.beta(1, 1).cdf).pvalue > ALPHA
