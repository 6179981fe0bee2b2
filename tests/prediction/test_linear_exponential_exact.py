# SPDX-License-Identifier: BSD-3-Clause
"""The exact continuous exponential mechanism of the test-data-independent learner.

sample_linear_exponential draws uniform points of the ball without the data
and accepts one with an exact Bernoulli(exp(−γ)) coin on a utility rounded to
a public grid (issue 26). Checked: the released point is a proposal and the
proposals do not depend on the data, the calibration on the grid, the law
against the floating-point reference sampler and the analytic density, an
empirical neighbouring bound, the running-time formula, and the learner's
public choice between the continuous sampler and uniform candidates.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpsvm.accounting import BudgetAccountant
from dpsvm.audit import epsilon_lower_bound
from dpsvm.mechanisms._exact import (
    UTILITY_GRID_BITS,
    _scale_coefficient,
    exponential_rejection_sample,
)
from dpsvm.prediction import TestDataIndependentLearner, sample_linear_exponential
from dpsvm.prediction._data_independent import (
    _sample_linear_exponential_float,
    linear_exponential_acceptance,
)
from dpsvm.prediction._test_data import uniform_ball_points

ALPHA = 1e-3


def _recording(d: int, log: list[np.ndarray]):  # type: ignore[no-untyped-def]
    def propose(m: int, g: np.random.Generator) -> np.ndarray:
        Z = uniform_ball_points(m, d, 1.0, g)
        log.append(Z.copy())
        return Z

    return propose


def test_released_point_is_a_data_independent_proposal():
    firsts = []
    for v in (np.array([3.0, 0.0, 0.0]), np.array([0.0, -7.0, 1.0])):
        log: list[np.ndarray] = []
        z = exponential_rejection_sample(
            _recording(3, log),
            lambda Z, v=v: np.abs(Z @ v),
            float(np.linalg.norm(v)),
            2.0,
            0.1,
            np.random.default_rng(5),
        )
        # The output is one of the proposal doubles, bit for bit.
        assert any(np.any(np.all(batch == z, axis=1)) for batch in log)
        firsts.append(log[0])
    # The first batch is drawn before any coin: identical for both data.
    np.testing.assert_array_equal(firsts[0], firsts[1])


def test_grid_calibration_never_exceeds_the_claimed_epsilon():
    for scale, sens in ((1.0, 0.5), (37.5, 0.013), (1e-3, 2.0), (0.0, 1.0)):
        j = math.frexp(sens)[1] - 1 - UTILITY_GRID_BITS
        num, den = _scale_coefficient(scale, sens, j)
        lam = Fraction(num, den)
        delta_g = Fraction(sens) / Fraction(2) ** j + 1
        # ε′ = 2λΔ_g ≤ ε = 2·scale·Δu, and λ loses at most 2^-20 relative to it.
        assert 2 * lam * delta_g <= 2 * Fraction(scale) * Fraction(sens)
        assert lam * delta_g >= Fraction(scale) * Fraction(sens) * (
            1 - Fraction(1, 2**19)
        )


def test_exact_and_float_samplers_have_the_same_law():
    # d = 3, a = scale·radius·‖v‖ = 4: the projection |s| on v̂ has density
    # ∝ exp(4|s|)(1 − s²); both samplers are compared with it and with each
    # other (KS), and the radial law of the rest with a chi-square on bins.
    v = np.array([0.0, 2.0, 0.0])
    g1, g2 = np.random.default_rng(31), np.random.default_rng(32)
    exact = np.array(
        [
            sample_linear_exponential(v, 2.0, 1.0, g1, sensitivity=0.05)
            for _ in range(2000)
        ]
    )
    ref = np.array(
        [_sample_linear_exponential_float(v, 2.0, 1.0, g2) for _ in range(2000)]
    )
    assert np.all(np.linalg.norm(exact, axis=1) <= 1.0)
    assert stats.ks_2samp(np.abs(exact[:, 1]), np.abs(ref[:, 1])).pvalue > ALPHA
    grid = np.linspace(0, 1, 100_001)
    f = np.exp(4.0 * grid) * (1 - grid**2)
    c = np.concatenate([[0], np.cumsum((f[1:] + f[:-1]) / 2)])
    c /= c[-1]
    assert (
        stats.kstest(np.abs(exact[:, 1]), lambda u: np.interp(u, grid, c)).pvalue
        > ALPHA
    )
    # Sign of ⟨z, v⟩ and the orthogonal part: symmetric and isotropic.
    assert stats.binomtest(int(np.sum(exact[:, 1] > 0)), 2000).pvalue > ALPHA
    bins = np.histogram(np.arctan2(exact[:, 2], exact[:, 0]), bins=8)[0]
    assert stats.chisquare(bins).pvalue > ALPHA


def test_neighbouring_directions_empirical_epsilon():
    # Utilities |⟨z, v⟩| and |⟨z, v′⟩| with radius·‖v − v′‖ = Δu = 0.5 and
    # scale = 1: the mechanism claims ε = 2·scale·Δu = 1.
    v, v2 = np.array([1.0, 0.0]), np.array([0.5, 0.0])
    g1, g2 = np.random.default_rng(41), np.random.default_rng(42)
    a = [
        sample_linear_exponential(v, 1.0, 1.0, g1, sensitivity=0.5) for _ in range(3000)
    ]
    b = [
        sample_linear_exponential(v2, 1.0, 1.0, g2, sensitivity=0.5)
        for _ in range(3000)
    ]
    ta, tb = np.abs(np.array(a)[:, 0]), np.abs(np.array(b)[:, 0])
    assert epsilon_lower_bound(ta, tb, confidence=0.999).epsilon_lower <= 1.0
    assert stats.mannwhitneyu(ta, tb).pvalue < 1e-3  # the laws do differ


def test_acceptance_rate_formula():
    # d = 1: E[exp(−a(1 − |s|))] with s uniform is (1 − e^{−a})/a exactly.
    for a in (0.5, 3.0, 40.0):
        assert linear_exponential_acceptance(a, 1) == pytest.approx(
            -math.expm1(-a) / a, rel=1e-6
        )
    # The cost grows like a^{(d+1)/2}: doubling a multiplies it by ~2^{(d+1)/2}.
    for d in (2, 5):
        ratio = linear_exponential_acceptance(200.0, d) / linear_exponential_acceptance(
            400.0, d
        )
        assert ratio == pytest.approx(2 ** ((d + 1) / 2), rel=0.05)
    # Measured: proposals per accepted draw match 1/rate (within 20 %).
    counts: list[int] = []

    def propose(m: int, g: np.random.Generator) -> np.ndarray:
        counts.append(m)
        return uniform_ball_points(m, 2, 1.0, g)

    g = np.random.default_rng(0)
    v = np.array([30.0, 0.0])
    draws = 400
    used = 0
    for _ in range(draws):
        counts.clear()
        exponential_rejection_sample(
            propose, lambda Z: np.abs(Z @ v), 30.0, 1.0, 1e-3, g
        )
        used += sum(counts)
    # Whole batches are drawn: the mean draw is at least 1/rate, at most a
    # batch-doubling factor above it.
    expected = 1.0 / linear_exponential_acceptance(30.0, 2)
    assert expected * 0.8 < used / draws < 2 * expected + 512


def _data(n: int = 200):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(n, 2)) / 2
    return X, np.where(X[:, 0] + 0.2 * X[:, 1] > 0, 1, -1)


def test_learner_uses_the_exact_sampler_only_when_its_public_cost_is_small():
    X, y = _data()
    kw = {"on_vacuous": "warn", "n_rounds": 3, "classes": [-1, 1], "random_state": 0}
    small = TestDataIndependentLearner(epsilon=5.0, regularization=0.1, **kw).fit(X, y)
    assert small.privacy_event_.details["candidates"] == "continuous"
    huge = TestDataIndependentLearner(epsilon=1e5, n_candidates=50, **kw).fit(X, y)
    assert huge.privacy_event_.details["candidates"] == 50  # auto: uniform points
    acc = BudgetAccountant(1e6, 1e-3)
    with pytest.raises(ValueError, match="candidates='continuous' would need"):
        TestDataIndependentLearner(
            epsilon=1e5, candidates="continuous", accountant=acc, **kw
        ).fit(X, y)
    assert len(acc) == 0  # nothing spent


def test_two_point_base_measure_known_answer():
    # Base measure: two points with probability 1/2 each, utilities 0 and 1
    # (Δu = 1, scale = 0.7). The law is exactly ∝ exp(λK) with K = 0 and 2^20
    # on the grid 2^-20 and λ from the rounded-down coefficient:
    # P(second) = 1/(1 + exp(−λ·2^20)). A chi-square test of 20 000 draws.
    pts = np.array([[0.0], [1.0]])
    scale, sens = 0.7, 1.0
    j = math.frexp(sens)[1] - 1 - UTILITY_GRID_BITS
    num, den = _scale_coefficient(scale, sens, j)
    p2 = 1.0 / (1.0 + math.exp(-num / den * 2**-j))
    assert p2 == pytest.approx(1.0 / (1.0 + math.exp(-0.7)), rel=1e-5)
    g = np.random.default_rng(9)
    draws = 20_000
    hits = sum(
        int(
            exponential_rejection_sample(
                lambda m, gen: pts[gen.integers(0, 2, size=m)],
                lambda Z: Z[:, 0],
                1.0,
                scale,
                sens,
                g,
            )[0]
        )
        for _ in range(draws)
    )
    observed = [draws - hits, hits]
    expected = [draws * (1 - p2), draws * p2]
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    # Power: an exponent 10 % off (0.77) is rejected by the same test.
    p_wrong = 1.0 / (1.0 + math.exp(-0.77))
    assert (
        stats.chisquare(observed, [draws * (1 - p_wrong), draws * p_wrong]).pvalue
        < ALPHA
    )
