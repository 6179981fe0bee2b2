# SPDX-License-Identifier: BSD-3-Clause
"""The δ-aware and split helpers added to dpsvm.audit._bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsvm.audit import (
    epsilon_from_rates,
    epsilon_lower_bound,
    epsilon_lower_bound_split,
    max_epsilon_lower_bound,
)


def test_epsilon_from_rates_known_answers():
    # ε = max(ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR), 0).
    assert epsilon_from_rates(0.1, 0.2) == pytest.approx(math.log(0.8 / 0.1))
    assert epsilon_from_rates(0.2, 0.1) == pytest.approx(math.log(0.8 / 0.1))
    assert epsilon_from_rates(0.1, 0.2, delta=0.3) == pytest.approx(math.log(5.0))
    assert epsilon_from_rates(0.0, 0.5) == math.inf
    assert epsilon_from_rates(0.6, 0.6) == 0.0  # a test worse than chance: nothing
    # δ can only lower the implied ε.
    assert epsilon_from_rates(0.05, 0.3, delta=0.01) < epsilon_from_rates(0.05, 0.3)


@pytest.mark.parametrize(
    ("fpr", "fnr", "delta"), [(-0.1, 0.1, 0.0), (0.1, 1.5, 0.0), (0.1, 0.1, 1.0)]
)
def test_epsilon_from_rates_rejects_bad_input(fpr, fnr, delta):
    with pytest.raises(ValueError, match="must be in"):
        epsilon_from_rates(fpr, fnr, delta=delta)


@pytest.mark.parametrize(("n", "conf", "delta"), [(50, 0.999, 0.0), (500, 0.95, 1e-3)])
def test_max_bound_is_the_clopper_pearson_ceiling(n, conf, delta):
    # Clopper–Pearson limit of 0/n, one-sided (1 − c)/2: u = 1 − ((1 − c)/2)^(1/n).
    u = 1.0 - ((1.0 - conf) / 2.0) ** (1.0 / n)
    expected = math.log((1.0 - delta - u) / u)
    assert max_epsilon_lower_bound(n, delta=delta, confidence=conf) == pytest.approx(
        expected, rel=1e-9
    )
    # A perfect distinguisher reaches exactly this ceiling.
    res = epsilon_lower_bound_split(
        np.ones(n), np.zeros(n), np.ones(n), np.zeros(n), delta=delta, confidence=conf
    )
    assert res.fpr == res.fnr == 0.0
    assert res.epsilon_lower == pytest.approx(expected, rel=1e-9)
    assert res.epsilon_point == math.inf


def test_split_bound_matches_the_permuting_bound():
    rng = np.random.default_rng(3)
    a, b = rng.laplace(0.0, 1.0, 400), rng.laplace(0.7, 1.0, 300)
    perm = np.random.default_rng(11)
    pa, pb = perm.permutation(a), perm.permutation(b)
    split = epsilon_lower_bound_split(
        pa[:200], pb[:150], pa[200:], pb[150:], selection="pointwise"
    )
    full = epsilon_lower_bound(a, b, random_state=11)
    assert split == full


def test_simultaneous_selection_resists_lucky_tail_thresholds():
    # Laplace(0, 1) against Laplace(1, 1) is exactly 1-DP and every threshold
    # test has likelihood ratio e. Scoring the candidate tests pointwise lets a
    # tail threshold with a few lucky errors win on the selection half (and lose
    # on the evaluation half); the simultaneous (Bonferroni) score keeps the
    # bound near ε on every seed.
    sim, pw = [], []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        a, b = rng.laplace(0.0, 1.0, (2, 1000)), rng.laplace(1.0, 1.0, (2, 1000))
        sim.append(epsilon_lower_bound_split(a[0], b[0], a[1], b[1]).epsilon_lower)
        pw.append(
            epsilon_lower_bound_split(
                a[0], b[0], a[1], b[1], selection="pointwise"
            ).epsilon_lower
        )
    assert max(sim) <= 1.0 and min(sim) > 0.5
    assert np.mean(sim) > np.mean(pw)


def test_split_bound_threshold_comes_from_the_selection_half_only():
    # Selection half: D scores high; evaluation half: the roles are swapped. The
    # test chosen on the selection half must fail on the evaluation half.
    sel_a, sel_b = np.full(100, 5.0), np.zeros(100)
    res = epsilon_lower_bound_split(sel_a, sel_b, sel_b, sel_a)
    assert res.direction == 1
    assert res.fpr == 1.0 and res.fnr == 1.0
    assert res.epsilon_lower == 0.0


def test_split_bound_validation():
    with pytest.raises(ValueError, match="at least 2"):
        epsilon_lower_bound_split([1.0], [0.0, 1.0], [1.0, 2.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="confidence"):
        epsilon_lower_bound_split([0, 1], [0, 1], [0, 1], [0, 1], confidence=1.0)
    with pytest.raises(ValueError, match="finite"):
        epsilon_lower_bound_split([0, np.nan], [0, 1], [0, 1], [0, 1])
    with pytest.raises(ValueError, match="selection must be"):
        epsilon_lower_bound_split([0, 1], [0, 1], [0, 1], [0, 1], selection="best")
