# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the L2 ("spherical Laplace") mechanism, density ∝ exp(−ε‖b‖₂/Δ₂)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import GammaNormVector, sample_gamma_norm

ALPHA = 1e-3


def _draws(dim: int, scale: float, n: int, seed: int) -> np.ndarray:
    gen = np.random.default_rng(seed)
    return np.stack([sample_gamma_norm(dim, scale, gen) for _ in range(n)])


# --------------------------------------------------------------------------- #
# Known-answer calibration
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("epsilon", "sensitivity", "scale"),
    [
        (0.5, 0.1, 0.2),  # s = Delta_2 / epsilon = 0.1 / 0.5
        (2.0, 1.0, 0.5),  # 1 / 2
        # Output perturbation of [S] S.2: Delta_2 = 2/(n Lambda) = 2/(100*0.01) = 2,
        # eps = 0.1, so s = 20 = 2/(n Lambda eps), i.e. beta = n Lambda eps in (8).
        (0.1, 2.0, 20.0),
    ],
)
def test_scale_is_l2_sensitivity_over_epsilon(epsilon, sensitivity, scale):
    mech = GammaNormVector(epsilon=epsilon, sensitivity=sensitivity)
    assert mech.scale == pytest.approx(scale, rel=1e-15)
    assert mech.delta == 0.0


def test_mean_norm_is_d_times_scale():
    # E||b|| = d * Delta_2 / epsilon (mean of Gamma(d, s)); sd of the mean is
    # sqrt(d) s / sqrt(n), so 5 standard errors is a loose, seeded tolerance.
    d, eps, sens, n = 7, 0.5, 0.3, 4_000
    mech = GammaNormVector(epsilon=eps, sensitivity=sens)
    gen = np.random.default_rng(1)
    norms = np.array([np.linalg.norm(mech.sample(d, gen)) for _ in range(n)])
    expected = d * sens / eps
    assert abs(norms.mean() - expected) < 5 * math.sqrt(d) * (sens / eps) / math.sqrt(n)


# --------------------------------------------------------------------------- #
# Distribution
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("dim", [2, 5, 40])
def test_radius_is_gamma_ks(dim):
    scale = 0.25
    norms = np.linalg.norm(_draws(dim, scale, 3_000, seed=dim), axis=1)
    res = stats.kstest(norms, stats.gamma(a=dim, scale=scale).cdf)
    assert res.pvalue > ALPHA


@pytest.mark.parametrize("dim", [2, 3, 6])
def test_direction_is_uniform_ks(dim):
    # For u uniform on the sphere S^{d-1}, (u_1 + 1)/2 ~ Beta((d-1)/2, (d-1)/2),
    # and by symmetry every coordinate has this law.
    b = _draws(dim, 1.0, 3_000, seed=100 + dim)
    u = b / np.linalg.norm(b, axis=1, keepdims=True)
    law = stats.beta((dim - 1) / 2, (dim - 1) / 2)
    for j in (0, dim - 1):
        assert stats.kstest((u[:, j] + 1) / 2, law.cdf).pvalue > ALPHA


def test_direction_ks_detects_a_non_uniform_direction():
    # Power check: a direction biased towards the first axis is rejected.
    b = _draws(3, 1.0, 3_000, seed=103)
    b[:, 0] *= 1.5
    u = b / np.linalg.norm(b, axis=1, keepdims=True)
    assert stats.kstest((u[:, 0] + 1) / 2, stats.beta(1, 1).cdf).pvalue < ALPHA


def test_radius_and_direction_independent():
    # Polar factorisation of exp(-||b||/s): norm and direction are independent.
    b = _draws(3, 1.0, 5_000, seed=9)
    norms = np.linalg.norm(b, axis=1)
    res = stats.spearmanr(norms, np.abs(b[:, 0]) / norms)
    assert res.pvalue > ALPHA


def test_one_dimensional_law_is_laplace():
    # d = 1: |b| ~ Gamma(1, s) = Exponential(s) with a random sign = Laplace(0, s).
    mech = GammaNormVector(epsilon=2.0, sensitivity=3.0)  # s = 1.5
    gen = np.random.default_rng(55)
    x = np.array([mech.sample(1, gen)[0] for _ in range(5_000)])
    assert stats.kstest(x, stats.laplace(scale=1.5).cdf).pvalue > ALPHA


def test_randomise_matrix_is_one_spherical_vector():
    # randomise flattens: the noise of a (2, 3) array has norm ~ Gamma(6, s).
    mech = GammaNormVector(epsilon=1.0, sensitivity=0.5)
    gen = np.random.default_rng(12)
    norms = [
        np.linalg.norm(mech.randomise(np.zeros((2, 3)), gen)) for _ in range(3_000)
    ]
    assert stats.kstest(norms, stats.gamma(a=6, scale=0.5).cdf).pvalue > ALPHA


def test_zero_gaussian_direction_is_redrawn():
    class ZeroFirst(np.random.Generator):
        calls = 0

        def standard_normal(self, size=None, dtype=np.float64, out=None):
            type(self).calls += 1
            if type(self).calls == 1:
                return np.zeros(size)
            return super().standard_normal(size)

    b = sample_gamma_norm(3, 1.0, ZeroFirst(np.random.PCG64(0)))
    assert ZeroFirst.calls == 2
    assert np.all(np.isfinite(b)) and np.linalg.norm(b) > 0


# --------------------------------------------------------------------------- #
# Privacy ratio
# --------------------------------------------------------------------------- #
def test_density_ratio_bounded_by_exp_epsilon():
    # nu(b) = exp(-||b||/s)/Z with s = Delta_2/eps, so for a shift of norm Delta_2,
    # log nu(b) - log nu(b + Delta_2 u) = (||b + Delta_2 u|| - ||b||)/s <= eps.
    eps, sens, d = 0.7, 0.4, 5
    s = GammaNormVector(epsilon=eps, sensitivity=sens).scale
    rng = np.random.default_rng(4)
    b = rng.normal(scale=3.0, size=(10_000, d))
    u = rng.normal(size=(10_000, d))
    u /= np.linalg.norm(u, axis=1, keepdims=True)

    def log_nu(v):
        return -np.linalg.norm(v, axis=1) / s

    log_ratio = log_nu(b) - log_nu(b + sens * u)
    assert np.all(np.abs(log_ratio) <= eps + 1e-12)
    # Tight: b parallel to u attains eps (the triangle inequality is an equality).
    log_ratio_par = log_nu(5 * u) - log_nu(5 * u + sens * u)
    np.testing.assert_allclose(log_ratio_par, eps, rtol=1e-12)


# --------------------------------------------------------------------------- #
# Validation
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("size", "error"),
    [(0, ValueError), (-2, ValueError), ((3,), TypeError), (2.0, TypeError)],
)
def test_size_must_be_a_positive_int(size, error):
    with pytest.raises(error, match="size must be a positive int"):
        GammaNormVector(epsilon=1.0, sensitivity=1.0).sample(size)
    with pytest.raises(error, match="size must be a positive int"):
        sample_gamma_norm(size, 1.0, 0)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_sample_gamma_norm_rejects_bad_scale(scale):
    with pytest.raises(ValueError, match="scale"):
        sample_gamma_norm(3, scale, 0)


def test_sample_gamma_norm_shape_and_reproducibility():
    a = sample_gamma_norm(4, 2.0, 8)
    assert a.shape == (4,) and a.dtype == np.float64
    np.testing.assert_array_equal(a, sample_gamma_norm(4, 2.0, 8))
    np.testing.assert_array_equal(
        a, GammaNormVector(epsilon=1.0, sensitivity=2.0).sample(4, 8)
    )
