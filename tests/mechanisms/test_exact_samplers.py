# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the exact samplers of dpsvm.mechanisms._exact (CKS20 Algorithms 1-3).

Statistical tests compare seeded draws with the exact pmf (chi-square, with a
power check on a wrong parameter) and with OpenDP's samplers (two-sample
chi-square; OpenDP is a test dependency, its samplers need the "contrib" flag).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms._exact import (
    _bernoulli_exp_scalar,
    _gaussian_accept_scalar,
    sample_bernoulli_exp,
    sample_discrete_gaussian,
    sample_discrete_laplace,
    select_exponential,
)

ALPHA = 1e-3


def _dgauss_pmf(support: np.ndarray, sigma2: float) -> np.ndarray:
    # P(Z = z) ∝ exp(-z²/(2σ²)) (CKS20 Definition 1); normalised over a range
    # wide enough (±14σ) that the omitted mass is below 1e-40.
    half = int(14 * math.sqrt(sigma2)) + 2
    full = np.arange(-half, half + 1)
    norm = np.exp(-(full**2) / (2 * sigma2)).sum()
    return np.exp(-(support**2) / (2 * sigma2)) / norm


def _chi_square_vs_pmf(z: np.ndarray, pmf, edge: int) -> float:
    support = np.arange(-edge, edge + 1)
    p = pmf(support)
    observed = np.array([np.sum(z == k) for k in support])
    tail_p, tail_obs = max(1 - p.sum(), 0.0), np.sum(np.abs(z) > edge)
    n = z.size
    f_obs, f_exp = np.append(observed, tail_obs), n * np.append(p, tail_p)
    keep = f_exp > 0
    f_exp = f_exp[keep] * f_obs[keep].sum() / f_exp[keep].sum()
    return float(stats.chisquare(f_obs[keep], f_exp).pvalue)


# --------------------------------------------------------------------------- #
# Bernoulli(exp(-gamma)), CKS20 Algorithm 1
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(("num", "den"), [(0, 1), (1, 3), (5, 2), (7, 3), (3, 1)])
def test_bernoulli_exp_mean_for_any_rational_gamma(num, den):
    n = 40_000
    out = sample_bernoulli_exp(np.full(n, num), den, np.random.default_rng(num))
    assert out.dtype == bool and out.shape == (n,)
    assert stats.binomtest(int(out.sum()), n, math.exp(-num / den)).pvalue > ALPHA


def test_bernoulli_exp_python_int_path_same_law():
    # A denominator beyond 2^52 takes the exact Python-integer path.
    den = 3 * 2**60
    gen = np.random.default_rng(3)
    out = sample_bernoulli_exp(np.array([den * 3 // 2] * 3000, dtype=object), den, gen)
    assert stats.binomtest(int(out.sum()), 3000, math.exp(-1.5)).pvalue > ALPHA
    assert _bernoulli_exp_scalar(0, 7, gen) is True


def test_bernoulli_exp_validates():
    with pytest.raises(ValueError, match="numerators"):
        sample_bernoulli_exp([-1], 2, 0)
    with pytest.raises(ValueError, match="denominator"):
        sample_bernoulli_exp([1], 0, 0)
    with pytest.raises(TypeError, match="integers"):
        sample_bernoulli_exp([0.5], 2, 0)


# --------------------------------------------------------------------------- #
# Discrete Gaussian, CKS20 Algorithm 3
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("sigma2", [Fraction(1, 4), 1, Fraction(7, 3), 9, 40])
def test_discrete_gaussian_pmf_chi_square(sigma2):
    n = 40_000
    z = sample_discrete_gaussian(n, sigma2, np.random.default_rng(7))
    assert z.dtype == np.int64 and z.shape == (n,)
    edge = max(2, int(3 * math.sqrt(float(sigma2))))
    pvalue = _chi_square_vs_pmf(z, lambda s: _dgauss_pmf(s, float(sigma2)), edge)
    assert pvalue > ALPHA


def test_discrete_gaussian_chi_square_detects_a_wrong_variance():
    # Power check: sigma^2 = 9 draws are rejected against the sigma^2 = 10 pmf.
    z = sample_discrete_gaussian(40_000, 9, np.random.default_rng(8))
    assert _chi_square_vs_pmf(z, lambda s: _dgauss_pmf(s, 10.0), 9) < ALPHA


def test_discrete_gaussian_tail_path_is_exact():
    # The Python-integer acceptance coin (used beyond int64) has the law of
    # CKS20 Alg. 3: P(accept | u) = exp(-(u - sigma^2/t)^2 / (2 sigma^2)).
    gen = np.random.default_rng(9)
    sigma2, t = Fraction(9), 4
    for u in (0, 2, 7):
        hits = sum(_gaussian_accept_scalar(u, sigma2, t, gen) for _ in range(4000))
        p = math.exp(-((u - 9 / 4) ** 2) / 18)
        assert stats.binomtest(hits, 4000, p).pvalue > ALPHA


def test_discrete_gaussian_validates_and_is_reproducible():
    np.testing.assert_array_equal(
        sample_discrete_gaussian((2, 3), 5, 4), sample_discrete_gaussian((2, 3), 5, 4)
    )
    with pytest.raises(TypeError, match="sigma2"):
        sample_discrete_gaussian(3, 2.5, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sigma2"):
        sample_discrete_gaussian(3, 0, 0)


# --------------------------------------------------------------------------- #
# Exponential mechanism on integer scores
# --------------------------------------------------------------------------- #
def test_select_exponential_matches_the_softmax():
    scores = np.array([0, 3, 5, 5, -2], dtype=np.int64)
    num, den = 1, 2  # lambda = 1/2
    gen = np.random.default_rng(11)
    n = 4000
    picks = np.array([select_exponential(scores, num, den, gen) for _ in range(n)])
    p = np.exp(scores / 2.0)
    p /= p.sum()
    counts = np.bincount(picks, minlength=scores.size)
    assert stats.chisquare(counts, n * p).pvalue > ALPHA


def test_select_exponential_huge_gaps_use_exact_integers():
    # A spread whose gap * numerator overflows int64: the Python-int path.
    scores = np.array([0, 2**61], dtype=np.int64)
    assert select_exponential(scores, 7, 3, np.random.default_rng(0)) == 1


# --------------------------------------------------------------------------- #
# Cross-check against OpenDP's samplers (Rust, behind "contrib")
# --------------------------------------------------------------------------- #
def _two_sample_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    lo, hi = int(np.percentile(np.r_[a, b], 1)), int(np.percentile(np.r_[a, b], 99))
    edges = np.arange(lo, hi + 2)
    ca = np.bincount(np.clip(a, lo - 1, hi + 1) - lo + 1, minlength=hi - lo + 3)
    cb = np.bincount(np.clip(b, lo - 1, hi + 1) - lo + 1, minlength=hi - lo + 3)
    table = np.vstack([ca, cb])
    table = table[:, table.sum(axis=0) > 0]
    assert edges.size > 3
    return float(stats.chi2_contingency(table).pvalue)


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_samplers_agree_with_opendp(family):
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    scale = 3
    domain = dp.vector_domain(dp.atom_domain(T=int))
    if family == "gaussian":
        meas = dp.m.make_gaussian(domain, dp.l2_distance(T=int), scale=float(scale))
        ours = sample_discrete_gaussian(20_000, scale**2, np.random.default_rng(1))
    else:
        meas = dp.m.make_laplace(domain, dp.l1_distance(T=int), scale=float(scale))
        ours = sample_discrete_laplace(20_000, scale, np.random.default_rng(1))
    theirs = np.array(meas([0] * 1500), dtype=np.int64)
    assert _two_sample_pvalue(ours, theirs) > ALPHA
    # Power check: a different scale is told apart from OpenDP's draws.
    wrong = (
        sample_discrete_gaussian(20_000, (scale + 1) ** 2, np.random.default_rng(2))
        if family == "gaussian"
        else sample_discrete_laplace(20_000, scale + 1, np.random.default_rng(2))
    )
    assert _two_sample_pvalue(wrong, theirs) < ALPHA


# --------------------------------------------------------------------------- #
# The exponential mechanism's select() (utilities on a public grid)
# --------------------------------------------------------------------------- #
def test_exponential_mechanism_select_has_the_exponential_law():
    from dpsvm.mechanisms import ExponentialMechanism

    em = ExponentialMechanism(epsilon=2.0, sensitivity=0.5)
    u = np.array([0.0, 0.3, 0.9, 0.2])
    gen = np.random.default_rng(12)
    n = 4000
    picks = np.array([em.select(u, gen) for _ in range(n)])
    counts = np.bincount(picks, minlength=u.size)
    assert stats.chisquare(counts, n * em.probabilities(u)).pvalue > ALPHA
    assert em.privacy_event().details["sampler"] == "exact"


def test_exponential_mechanism_calibration_is_stated():
    # lambda = eps / (2 (Delta/2^j + 1)) rounded down to 24 bits: the selection
    # is eps'-DP with eps' = 2 lambda Delta_g <= eps, eps' > eps (1 - 2^-19).
    from dpsvm.mechanisms._exact import UTILITY_GRID_BITS

    captured = {}
    import dpsvm.mechanisms._exact as exact

    real = exact.select_exponential

    def spy(scores, num, den, gen):
        captured.update(scores=np.asarray(scores), num=num, den=den)
        return real(scores, num, den, gen)

    mp = pytest.MonkeyPatch()
    mp.setattr(exact, "select_exponential", spy)
    try:
        exact.exponential_mechanism_select(
            np.array([0.25, 1 / 3]), 1.5, 0.75, np.random.default_rng(0)
        )
    finally:
        mp.undo()
    j = -1 - UTILITY_GRID_BITS  # floor(log2 0.75) = -1
    np.testing.assert_array_equal(
        captured["scores"], [round(0.25 * 2**-j), round((1 / 3) * 2**-j)]
    )
    delta_g = Fraction(0.75) * 2**-j + 1
    eps_prime = 2 * Fraction(captured["num"], captured["den"]) * delta_g
    assert Fraction(1.5) * (1 - Fraction(1, 2**19)) < eps_prime <= Fraction(1.5)


def test_exponential_mechanism_extreme_spreads_are_exact():
    from dpsvm.mechanisms import ExponentialMechanism

    # Gap * numerator beyond int64 (huge spread relative to the sensitivity).
    em = ExponentialMechanism(epsilon=1.0, sensitivity=1e-6)
    assert em.select([0.0, 1e9, 5.0], random_state=0) == 1
    # Scores beyond int64 after scaling: the Python-integer path.
    em = ExponentialMechanism(epsilon=1e-3, sensitivity=1.0)
    picks = {em.select([0.0, 1e30], random_state=s) for s in range(3)}
    assert picks == {1}


def test_permute_and_flip_has_its_law():
    # McKenna & Sheldon (2020): P(r) for u = (0, 1) with lambda = eps/(2 Delta):
    # p_1 = 1 (the maximiser), p_0 = exp(-lambda); P(select 0) = p_0 / 2.
    from dpsvm.margins.selection import PermuteAndFlip

    pf = PermuteAndFlip(epsilon=2.0, sensitivity=1.0)
    gen = np.random.default_rng(21)
    n = 4000
    picks = np.array([pf.select([0.0, 1.0], gen) for _ in range(n)])
    p0 = math.exp(-1.0) / 2
    assert stats.binomtest(int(np.sum(picks == 0)), n, p0).pvalue > ALPHA


def test_bernoulli_exp_one_single_draw_coin():
    # Bernoulli(exp(-1)) from one uniform integer on {0, ..., 20! - 1} (the
    # factorial thresholds of CKS20 Alg. 1 with gamma = 1).
    from dpsvm.mechanisms._exact import _bernoulli_exp_one

    n = 60_000
    out = _bernoulli_exp_one(n, np.random.default_rng(5))
    assert out.dtype == bool and out.shape == (n,)
    assert stats.binomtest(int(out.sum()), n, math.exp(-1.0)).pvalue > ALPHA
    # Power check: rejected against exp(-1.05).
    assert stats.binomtest(int(out.sum()), n, math.exp(-1.05)).pvalue < ALPHA


@pytest.mark.parametrize("t", [1, 4])
def test_batched_discrete_laplace_has_the_same_law(t):
    # The discrete Gaussian's proposal draws DLap(t) in oversampled batches
    # (CKS20 Alg. 2, another order of draws than the Laplace releases' sampler).
    from dpsvm.mechanisms._exact import _discrete_laplace

    z = _discrete_laplace(t, 40_000, np.random.default_rng(30 + t), batched=True)
    q = math.exp(-1.0 / t)
    pvalue = _chi_square_vs_pmf(z, lambda s: (1 - q) / (1 + q) * q ** np.abs(s), 4 * t)
    assert pvalue > ALPHA
