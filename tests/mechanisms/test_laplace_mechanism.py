# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the Laplace mechanism (Dwork et al. 2006; Rubinstein et al. Thm 7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import LaplaceVector, sample_laplace

ALPHA = 1e-3


# --------------------------------------------------------------------------- #
# Known-answer calibration
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("epsilon", "sensitivity", "scale"),
    [
        (0.5, 2.0, 4.0),  # lambda = Delta_1 / epsilon = 2 / 0.5
        (1.0, 1.0, 1.0),  # 1 / 1
        (4.0, 0.1, 0.025),  # 0.1 / 4
    ],
)
def test_scale_is_l1_sensitivity_over_epsilon(epsilon, sensitivity, scale):
    mech = LaplaceVector(epsilon=epsilon, sensitivity=sensitivity)
    assert mech.scale == pytest.approx(scale, rel=1e-15)
    assert mech.delta == 0.0


def test_epsilon_for_scale_inverts_the_calibration():
    # epsilon = Delta_1 / lambda.
    assert LaplaceVector.epsilon_for_scale(4.0, 2.0) == 0.5
    for eps in (0.01, 0.3, 7.0):
        mech = LaplaceVector(epsilon=eps, sensitivity=1.7)
        assert LaplaceVector.epsilon_for_scale(mech.scale, 1.7) == pytest.approx(eps)


def test_epsilon_for_rubinstein_theorem_7_scale():
    # Rubinstein et al. Thm 7: lambda = 4 L C kappa sqrt(F) / (beta n) gives beta-DP
    # because the L1 sensitivity is 4 L C kappa sqrt(F) / n.
    L, C, kappa, F, n, beta = 1.0, 2.0, 1.0, 9, 1000, 0.3
    l1 = 4 * L * C * kappa * math.sqrt(F) / n
    lam = 4 * L * C * kappa * math.sqrt(F) / (beta * n)
    assert LaplaceVector.epsilon_for_scale(lam, l1) == pytest.approx(beta)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_epsilon_for_scale_validates(bad):
    with pytest.raises(ValueError, match="scale"):
        LaplaceVector.epsilon_for_scale(bad, 1.0)
    with pytest.raises(ValueError, match="sensitivity"):
        LaplaceVector.epsilon_for_scale(1.0, bad)


def test_noise_monotone_in_epsilon_and_sensitivity():
    scales = [LaplaceVector(epsilon=e, sensitivity=1.0).scale for e in (0.1, 1, 10)]
    assert scales == sorted(scales, reverse=True)
    scales = [LaplaceVector(epsilon=1.0, sensitivity=s).scale for s in (0.1, 1, 10)]
    assert scales == sorted(scales)


# --------------------------------------------------------------------------- #
# Distribution
# --------------------------------------------------------------------------- #
def test_coordinates_are_laplace_ks():
    mech = LaplaceVector(epsilon=0.5, sensitivity=1.5)  # lambda = 3
    noise = mech.sample(20_000, random_state=2024)
    res = stats.kstest(noise, stats.laplace(loc=0.0, scale=3.0).cdf)
    assert res.pvalue > ALPHA
    # Mean absolute value is lambda.
    assert np.mean(np.abs(noise)) == pytest.approx(3.0, rel=0.03)


def test_ks_detects_a_wrong_scale():
    # The KS test above has power: the same draws are rejected against 1.2 lambda.
    noise = LaplaceVector(epsilon=0.5, sensitivity=1.5).sample(20_000, 2024)
    assert stats.kstest(noise, stats.laplace(scale=3.6).cdf).pvalue < ALPHA


def test_l1_norm_is_erlang():
    # ||mu||_1 ~ Gamma(shape F, scale lambda): a sum of F exponentials of mean
    # lambda (Rubinstein et al. 2012, footnote 5; correction: their "scale
    # lambda^-1" means rate 1/lambda).
    F, lam = 6, 0.7
    noise = sample_laplace((5_000, F), lam, np.random.default_rng(7))
    l1 = np.abs(noise).sum(axis=1)
    assert stats.kstest(l1, stats.gamma(a=F, scale=lam).cdf).pvalue > ALPHA


def test_coordinates_are_independent():
    noise = sample_laplace((20_000, 2), 1.0, np.random.default_rng(3))
    res = stats.pearsonr(noise[:, 0], noise[:, 1])
    assert res.pvalue > ALPHA


def test_tuple_size_and_scalar_size():
    assert sample_laplace((2, 3), 1.0, 0).shape == (2, 3)
    assert sample_laplace((), 1.0, 0).shape == ()
    assert sample_laplace(4, 1.0, 0).dtype == np.float64


@pytest.mark.parametrize(
    ("size", "error"),
    [(0, ValueError), ((3, 0), ValueError), ((2, -1), ValueError), (1.0, TypeError)],
)
def test_sample_laplace_rejects_bad_size(size, error):
    with pytest.raises(error, match="size"):
        sample_laplace(size, 1.0, 0)


@pytest.mark.parametrize("scale", [0.0, -0.5, float("nan"), float("inf")])
def test_sample_laplace_rejects_bad_scale(scale):
    with pytest.raises(ValueError, match="scale"):
        sample_laplace(3, scale, 0)


# --------------------------------------------------------------------------- #
# Privacy ratio
# --------------------------------------------------------------------------- #
def test_density_ratio_bounded_by_exp_epsilon():
    # log p(y - f(D)) - log p(y - f(D')) = (||y - f(D')||_1 - ||y - f(D)||_1) / lambda
    # <= ||f(D) - f(D')||_1 / lambda <= epsilon, with equality for some y.
    rng = np.random.default_rng(0)
    eps, l1 = 0.8, 2.0
    lam = LaplaceVector(epsilon=eps, sensitivity=l1).scale
    worst = -np.inf
    for _ in range(200):
        shift = rng.normal(size=5)
        shift *= l1 / np.abs(shift).sum()  # ||f(D) - f(D')||_1 = Delta_1
        y = rng.laplace(scale=3.0, size=(100, 5))
        log_ratio = (np.abs(y - shift).sum(1) - np.abs(y).sum(1)) / lam
        worst = max(worst, log_ratio.max())
    assert worst <= eps + 1e-12
    assert worst > 0.9 * eps  # the bound is attained (tight calibration)
