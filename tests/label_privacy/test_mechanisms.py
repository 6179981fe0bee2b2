# SPDX-License-Identifier: BSD-3-Clause
"""Known answers, exact ε and the noise distribution of the label randomisers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.label_privacy import (
    randomized_response,
    rr_keep_probability,
    rr_top_k_distribution,
    rr_with_prior,
    rr_with_prior_top_k,
)


# ---------------------------------------------------------------- known answers
@pytest.mark.parametrize(
    ("epsilon", "k", "expected"),
    [
        (math.log(3.0), 2, 0.75),  # 3 / (3 + 1)
        (math.log(3.0), 4, 0.5),  # 3 / (3 + 3)
        (1.0, 2, math.e / (math.e + 1.0)),
        (0.0, 5, 0.2),  # ε = 0: uniform
        (2.0, 1, 1.0),  # one candidate: kept
        (800.0, 10, 1.0),  # no overflow
    ],
)
def test_keep_probability_known_answers(epsilon, k, expected):
    assert rr_keep_probability(epsilon, k) == pytest.approx(expected, rel=1e-12)


def test_top_k_distribution_known_answers():
    # e^ε = 3, k = 3 of 4 labels, order (2, 0, 3, 1): Y_k = {2, 0, 3}.
    eps = math.log(3.0)
    order = [2, 0, 3, 1]
    inside = rr_top_k_distribution(order, 3, eps, 0)  # keep 3/5, others 1/5
    assert inside.tolist() == pytest.approx([0.6, 0.0, 0.2, 0.2])
    outside = rr_top_k_distribution(order, 3, eps, 1)  # uniform on Y_k
    assert outside.tolist() == pytest.approx([1 / 3, 0.0, 1 / 3, 1 / 3])
    assert rr_top_k_distribution(order, 1, eps, 3).tolist() == [0.0, 0.0, 1.0, 0.0]


def test_rr_with_prior_chooses_the_best_k():
    # e^ε = 3: w_1 = p_1, w_2 = (p_1 + p_2)·3/4, w_3 = 1·3/5.
    eps = math.log(3.0)
    priors = [
        [0.6, 0.3, 0.1],  # w = 0.6, 0.675, 0.6 -> k = 2
        [0.9, 0.05, 0.05],  # w = 0.9, 0.7125, 0.6 -> k = 1
        [1 / 3, 1 / 3, 1 / 3],  # w = 1/3, 1/2, 3/5 -> k = 3 (plain RR)
        [0.1, 0.1, 0.8],  # order does not matter: w = 0.8, 0.675, 0.6 -> k = 1
    ]
    assert rr_with_prior_top_k(priors, eps).tolist() == [2, 1, 3, 1]


# ----------------------------------------------------------------- exact ε-DP
@pytest.mark.parametrize("n_classes", [2, 3, 5])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_rr_with_prior_is_exactly_epsilon_dp(n_classes, epsilon):
    """max over outputs and label pairs of P(o | y) / P(o | y') = e^ε (k* ≥ 2)."""
    rng = np.random.default_rng(0)
    priors = rng.dirichlet(np.full(n_classes, 0.7), size=200)
    ks = rr_with_prior_top_k(priors, epsilon)
    worst = 0.0
    for p, k in zip(priors, ks, strict=True):
        order = np.argsort(-p, kind="stable")
        M = np.array(
            [rr_top_k_distribution(order, int(k), epsilon, y) for y in range(n_classes)]
        )
        assert np.allclose(M.sum(axis=1), 1.0)
        support = M.max(axis=0) > 0
        # An output is possible under every label or under none.
        assert np.all(M[:, support] > 0)
        ratio = M[:, support].max(axis=0) / M[:, support].min(axis=0)
        assert ratio.max() <= math.exp(epsilon) * (1 + 1e-12)
        worst = max(worst, float(ratio.max()))
    # Some row has k* ≥ 2 and then the bound is attained: the calibration is exact.
    assert ks.max() >= 2
    assert worst == pytest.approx(math.exp(epsilon), rel=1e-12)


# ---------------------------------------------------------- noise distribution
def test_randomized_response_noise_distribution():
    rng = np.random.default_rng(1)
    K, eps, n = 4, 0.8, 40_000
    codes = np.repeat(np.arange(K), n // K)
    noisy = randomized_response(codes, K, eps, rng)
    keep = rr_keep_probability(eps, K)
    kept = int(np.sum(noisy == codes))
    assert stats.binomtest(kept, n, keep).pvalue > 1e-4
    # Flipped labels are uniform on the K − 1 others.
    for y in range(K):
        moved = noisy[(codes == y) & (noisy != codes)]
        counts = np.bincount(moved, minlength=K)
        assert counts[y] == 0
        others = np.delete(counts, y)
        assert stats.chisquare(others).pvalue > 1e-4


def test_rr_with_prior_noise_matches_its_distribution():
    rng = np.random.default_rng(2)
    eps, n = 1.0, 30_000
    prior = np.array([0.45, 0.35, 0.15, 0.05])  # k* = 2 at ε = 1
    assert rr_with_prior_top_k(prior[None, :], eps).tolist() == [2]
    order = np.argsort(-prior, kind="stable")
    for y in range(4):
        noisy = rr_with_prior(np.full(n, y), np.tile(prior, (n, 1)), eps, rng)
        expected = rr_top_k_distribution(order, 2, eps, y)
        counts = np.bincount(noisy, minlength=4)
        assert np.all(counts[expected == 0] == 0)
        observed = counts[expected > 0]
        f_exp = n * expected[expected > 0]
        assert stats.chisquare(observed, f_exp).pvalue > 1e-4


def test_rr_with_prior_refuses_a_bad_prior():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="one row per label"):
        rr_with_prior([0, 1], [[0.5, 0.5]], 1.0, rng)
    with pytest.raises(ValueError, match="non-negative"):
        rr_with_prior([0], [[np.nan, 0.5]], 1.0, rng)
