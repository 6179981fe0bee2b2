# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the exponential mechanism, P(c) ∝ exp(ε·u(c)/(2Δu))."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import BaseMechanism, ExponentialMechanism, Mechanism

ALPHA = 1e-3


# --------------------------------------------------------------------------- #
# Known-answer probabilities
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    ("epsilon", "sens", "utilities"),
    [
        (1.0, 1.0, [0.0, 1.0, 2.0]),
        (0.3, 0.1, [-0.2, 0.05, 0.1, 0.0]),
        (5.0, 2.0, [3.0]),
        (2.0, 0.5, [1, 1, 0]),  # integer utilities are accepted
    ],
)
def test_probabilities_known_answer(epsilon, sens, utilities):
    # P(i) = exp(eps u_i / (2 Delta_u)) / sum_j exp(eps u_j / (2 Delta_u)).
    w = np.array([math.exp(epsilon * u / (2 * sens)) for u in utilities])
    expected = w / w.sum()
    em = ExponentialMechanism(epsilon=epsilon, sensitivity=sens)
    np.testing.assert_allclose(em.probabilities(utilities), expected, rtol=1e-13)


def test_two_candidates_closed_form():
    # u = (0, Delta_u): P(1)/P(0) = exp(eps/2) -- the factor 2 of McSherry & Talwar.
    em = ExponentialMechanism(epsilon=1.2, sensitivity=0.25)
    p = em.probabilities([0.0, 0.25])
    assert p[1] / p[0] == pytest.approx(math.exp(0.6), rel=1e-13)
    assert p[1] == pytest.approx(1 / (1 + math.exp(-0.6)), rel=1e-13)


def test_paper_004_error_count_form():
    # Spec 004 1.1: u = -(empirical error), Delta_u = 1/m gives
    # P(c) proportional to exp(-(eps/2) * #errors(c)).
    m, eps = 50, 0.8
    errors = np.array([3, 10, 7, 0])
    em = ExponentialMechanism(epsilon=eps, sensitivity=1 / m)
    w = np.exp(-(eps / 2) * errors)
    np.testing.assert_allclose(em.probabilities(-errors / m), w / w.sum(), rtol=1e-12)


def test_invariant_to_adding_a_constant():
    em = ExponentialMechanism(epsilon=0.9, sensitivity=1.0)
    u = np.array([0.3, -1.2, 2.0, 0.0])
    p = em.probabilities(u)
    for c in (-1e3, 7.5, 1e4):
        np.testing.assert_allclose(em.probabilities(u + c), p, rtol=1e-9)


def test_numerically_stable_for_huge_utilities():
    em = ExponentialMechanism(epsilon=2.0, sensitivity=1.0)  # logits = u
    # Naive exp(1e6) overflows; the log-space computation does not.
    p = em.probabilities([1e6, 1e6 - 1.0, -1e6])
    assert np.all(np.isfinite(p))
    assert p.sum() == pytest.approx(1.0)
    # Ratio between the two top candidates is exp(1) exactly as for (0, -1).
    np.testing.assert_allclose(p, em.probabilities([0.0, -1.0, -2e6]), rtol=1e-12)
    assert p[0] / p[1] == pytest.approx(math.e, rel=1e-12)
    assert p[2] == 0.0
    # Very negative utilities alone are just as fine.
    np.testing.assert_allclose(em.probabilities([-1e6, -1e6]), [0.5, 0.5])
    # Utilities spread over the whole float64 range: no warning, no NaN.
    np.testing.assert_array_equal(em.probabilities([1.7e308, -1.7e308]), [1.0, 0.0])


def test_overflowing_logits_rejected():
    em = ExponentialMechanism(epsilon=10.0, sensitivity=1.0)
    with pytest.raises(ValueError, match="overflows"):
        em.probabilities([1e308, 0.0])


def test_probabilities_monotone_in_utility_and_epsilon():
    u = [0.0, 1.0, 2.0]
    p = ExponentialMechanism(epsilon=1.0, sensitivity=1.0).probabilities(u)
    assert p[0] < p[1] < p[2]
    # More privacy budget concentrates the mass on the best candidate.
    tops = [
        ExponentialMechanism(epsilon=e, sensitivity=1.0).probabilities(u)[2]
        for e in (0.1, 1.0, 10.0)
    ]
    assert tops == sorted(tops)


# --------------------------------------------------------------------------- #
# Sampling
# --------------------------------------------------------------------------- #
_CHI_U = np.array([0.0, 0.3, -0.4, 0.8, 0.1])
_CHI_N = 8000


@pytest.fixture(scope="module")
def chi_counts():
    # 8000 selections from the EM with eps = 1.5, Delta_u = 0.5 (seeded).
    em = ExponentialMechanism(epsilon=1.5, sensitivity=0.5)
    gen = np.random.default_rng(77)
    picks = [em.select(_CHI_U, gen) for _ in range(_CHI_N)]
    return np.bincount(picks, minlength=_CHI_U.size)


@pytest.mark.slow
def test_select_frequencies_match_probabilities_chi_square(chi_counts):
    p = ExponentialMechanism(epsilon=1.5, sensitivity=0.5).probabilities(_CHI_U)
    assert stats.chisquare(chi_counts, _CHI_N * p).pvalue > ALPHA


@pytest.mark.slow
def test_chi_square_detects_the_wrong_factor(chi_counts):
    # Power check: the frequencies are rejected against exp(eps u / Delta_u)
    # (the factor-2-free variant, not valid under replace-one).
    wrong = ExponentialMechanism(epsilon=3.0, sensitivity=0.5).probabilities(_CHI_U)
    assert stats.chisquare(chi_counts, _CHI_N * wrong).pvalue < ALPHA


def test_select_with_huge_utilities_and_large_epsilon():
    em = ExponentialMechanism(epsilon=1e6, sensitivity=1.0)
    assert em.select([1e6, 1e6 + 1.0, -1e6], random_state=3) == 1
    em = ExponentialMechanism(epsilon=1.0, sensitivity=1.0)
    assert em.select([5.0], random_state=0) == 0


def test_select_random_state():
    em = ExponentialMechanism(epsilon=0.1, sensitivity=1.0)
    u = np.zeros(1000)  # uniform over 1000 candidates
    assert em.select(u, 9) == em.select(u, 9)
    picks = {em.select(u) for _ in range(20)}  # CSPRNG: not all equal
    assert len(picks) > 1
    gen = np.random.default_rng(5)
    first = [em.select(u, gen) for _ in range(10)]
    assert len(set(first)) > 1  # the Generator is advanced between calls
    assert first[0] == em.select(u, np.random.default_rng(5))
    assert isinstance(em.select(u, 9), int)


# --------------------------------------------------------------------------- #
# Privacy ratio
# --------------------------------------------------------------------------- #
def test_log_probability_ratio_bounded_by_epsilon():
    # If |u(S, c) - u(S', c)| <= Delta_u for every c, then
    # max_c |log P_S(c) - log P_S'(c)| <= eps (McSherry & Talwar Thm 6).
    eps, sens = 0.6, 0.2
    em = ExponentialMechanism(epsilon=eps, sensitivity=sens)
    rng = np.random.default_rng(8)
    worst = 0.0
    for _ in range(500):
        u = rng.normal(scale=1.0, size=8)
        if rng.random() < 0.5:
            move = rng.uniform(-sens, sens, size=8)
        else:  # adversarial: one candidate up by Delta_u, the rest down.
            move = -sens * np.ones(8)
            move[rng.integers(8)] = sens
        lp, lq = np.log(em.probabilities(u)), np.log(em.probabilities(u + move))
        worst = max(worst, float(np.max(np.abs(lp - lq))))
    assert worst <= eps + 1e-12


def test_factor_two_is_needed_and_tight():
    # Non-monotone move: candidate 0 (unlikely) up by Delta_u, the others down.
    # Its log-probability moves by eps/2 + (almost) eps/2: nearly the whole eps,
    # so exp(eps u / Delta_u) (no factor 2) would leak about 2 eps.
    eps, sens = 1.0, 1.0
    em = ExponentialMechanism(epsilon=eps, sensitivity=sens)
    u = np.array([-40.0, 0.0, 0.0, 0.0])
    move = np.array([sens, -sens, -sens, -sens])
    ratio = np.log(em.probabilities(u + move)[0]) - np.log(em.probabilities(u)[0])
    assert 0.99 * eps < ratio <= eps + 1e-12


# --------------------------------------------------------------------------- #
# Interface and validation
# --------------------------------------------------------------------------- #
def test_is_a_base_mechanism_without_additive_methods():
    em = ExponentialMechanism(epsilon=1.0, sensitivity=1.0)
    assert isinstance(em, BaseMechanism)
    assert not isinstance(em, Mechanism)
    assert not hasattr(em, "sample")
    assert not hasattr(em, "randomise")
    assert em.delta == 0.0
    assert repr(em) == "ExponentialMechanism(epsilon=1.0, sensitivity=1.0)"


@pytest.mark.parametrize(
    ("utilities", "error", "match"),
    [
        ([], ValueError, "non-empty"),
        ([[0.0, 1.0]], ValueError, "1-D"),
        (3.0, ValueError, "1-D"),
        ([0.0, np.nan], ValueError, "finite"),
        ([np.inf, 0.0], ValueError, "finite"),
        ([-np.inf, 0.0], ValueError, "finite"),
        (["a", "b"], TypeError, "real numbers"),
        ([1j, 0], TypeError, "real numbers"),
    ],
)
def test_bad_utilities_rejected(utilities, error, match):
    em = ExponentialMechanism(epsilon=1.0, sensitivity=1.0)
    with pytest.raises(error, match=match):
        em.probabilities(utilities)
    with pytest.raises(error, match=match):
        em.select(utilities, random_state=0)
