# SPDX-License-Identifier: BSD-3-Clause
"""Exact sparse-vector noise: discrete Laplace on public grids (issue 26).

The sampler has its own tests (tests/mechanisms); these test the wiring: the
calibration's exact discrete tail, the law of the noise drawn on the
predictors' code paths, the tie rule, and the neighbouring-dataset bound.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpsvm.mechanisms import sample_discrete_laplace
from dpsvm.prediction import (
    PrivateInteractivePredictor,
    SubsampleAggregatePredictor,
    VacuousCalibrationWarning,
    _interactive,
    _subsample,
    subsample_aggregate_calibration,
)
from dpsvm.prediction._sparse_vector import sparse_vector_grid
from dpsvm.prediction._subsample_calibration import (
    discrete_laplace_difference_tail,
)


def _dlap_pmf(t: int, half_width: int) -> np.ndarray:
    a = math.exp(-1.0 / t)
    k = np.arange(-half_width, half_width + 1)
    return (1 - a) / (1 + a) * a ** np.abs(k)


def _dlap_cdf(k: int, t: int) -> float:
    """P[X ≤ k] for X ~ DLap(t): P[X > n] = a^{n+1}/(1 + a) for n ≥ 0."""
    a = math.exp(-1.0 / t)
    return 1.0 - a ** (k + 1) / (1 + a) if k >= 0 else a ** (-k) / (1 + a)


def _chi2_pvalue(draws: np.ndarray, t: int) -> float:
    """χ² goodness of fit of integer draws to DLap(t) on 10 bins."""
    edges = [round(f * t) for f in (-2.0, -1.0, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0, 2.0)]
    cdf = np.array([0.0] + [_dlap_cdf(e, t) for e in edges] + [1.0])
    expected = np.diff(cdf) * draws.size
    idx = np.searchsorted(np.asarray(edges), draws, side="left")  # bins (e_i, e_i+1]
    observed = np.bincount(idx, minlength=len(edges) + 1)
    return float(stats.chisquare(observed, expected).pvalue)


# --------------------------------------------------------- the exact tail
@pytest.mark.parametrize("t_a,t_b", [(1, 1), (2, 3), (3, 2), (5, 5), (7, 2), (30, 40)])
def test_discrete_difference_tail_equals_brute_force_sum(t_a, t_b):
    L = 60 * max(t_a, t_b)
    law = np.convolve(_dlap_pmf(t_a, L), _dlap_pmf(t_b, L))  # of X + Y ~ X − Y
    support = np.arange(-2 * L, 2 * L + 1)
    for w in (-7, -1, 0, 1, 4, 20, 3 * max(t_a, t_b)):
        brute = float(law[support > w].sum())
        assert discrete_laplace_difference_tail(w, t_a, t_b) == pytest.approx(
            brute, rel=1e-12
        )
    # Symmetric in the two scales; the two tails of a level add to one.
    assert discrete_laplace_difference_tail(3, t_a, t_b) == pytest.approx(
        discrete_laplace_difference_tail(3, t_b, t_a), rel=1e-13
    )
    assert discrete_laplace_difference_tail(
        -4, t_a, t_b
    ) + discrete_laplace_difference_tail(3, t_a, t_b) == pytest.approx(1.0)


def test_discrete_difference_tail_near_equal_large_scales_is_stable():
    # Scales of 2^21 that differ by one (expm1 form): the continuous limit.
    g = 2**20
    for t in (0.0, 3.0, 25.0):
        discrete = discrete_laplace_difference_tail(round(g * t), 2 * g, 2 * g + 1)
        # P[X − Y > t] for X, Y ~ Lap(a) i.i.d.: e^{−t/a}(2 + t/a)/4.
        continuous = math.exp(-t / 2.0) * (2.0 + t / 2.0) / 4.0
        assert discrete == pytest.approx(continuous, rel=1e-5)


def test_calibration_constants_are_exact_rationals():
    cal = subsample_aggregate_calibration(10**4, 1.0, 1e-8, 10**4, 7, 0.1)
    g = cal.grid
    # T₁ ≥ g/ε₁ and T₂ ≥ 2g/ε₂ exactly (so each noise is ε₁-, ε₂-DP).
    assert Fraction(g, cal.threshold_noise_units) <= Fraction(cal.threshold_epsilon)
    assert Fraction(2 * g, cal.comparison_noise_units) <= Fraction(
        cal.comparison_epsilon
    )
    # δ_fail holds at W, not at W − 1 (smallest integer threshold).
    m, W = cal.n_queries, cal.threshold_units
    t_nu, t_rho = cal.comparison_noise_units, cal.threshold_noise_units
    assert m * discrete_laplace_difference_tail(W, t_nu, t_rho) <= cal.failure_delta
    assert m * discrete_laplace_difference_tail(W - 1, t_nu, t_rho) > cal.failure_delta


# ------------------------------------------------ subsample-and-aggregate
def _one_row_teachers(labels, **kw):
    k = len(labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        return SubsampleAggregatePredictor(
            n_teachers=k,
            classes=[-1, 1],
            on_vacuous="warn",
            random_state=0,
            **kw,
        ).fit(np.zeros((k, 1)), np.asarray(labels))


def test_subsample_threshold_noise_is_discrete_laplace():
    sa = _one_row_teachers([1] * 40 + [-1] * 24, epsilon=2.0, n_queries=1)
    t = sa.calibration_.threshold_noise_units
    draws = np.array([sa._draw_threshold_noise() for _ in range(3000)])
    assert all(isinstance(r, int) for r in draws.tolist())
    assert _chi2_pvalue(draws, t) > 1e-3
    # The same test rejects a scale 20% off (it has power).
    assert _chi2_pvalue(draws, round(0.8 * t)) < 1e-4


def test_subsample_free_rate_is_the_exact_tail():
    # 64 constant teachers, 55 of them +1: gap 46, q = 22. ν and ρ fresh
    # per trial; a free answer iff 22g + ν > W + ρ.
    sa = _one_row_teachers(
        [1] * 55 + [-1] * 9, epsilon=2.0, delta=1e-3, n_queries=1, vote_share=0.5
    )
    cal = sa.calibration_
    p_free = cal.free_probability(22)
    assert 0.2 < p_free < 0.8
    s0 = sa.state_dict()
    rng = np.random.default_rng(1)
    n = 2000
    free = 0
    for _ in range(n):
        rho = int(sample_discrete_laplace(1, cal.threshold_noise_units, rng)[0])
        sa.load_state_dict({**s0, "threshold_noise": rho})
        free += not sa.answer(np.zeros((1, 1))).charged[0]
    assert abs(free / n - p_free) < 4.5 * math.sqrt(p_free * (1 - p_free) / n)


def test_subsample_tie_is_charged(monkeypatch):
    # With ν = 0: free iff g·q > W + ρ; ρ = g·q − W is a tie.
    sa = _one_row_teachers([1] * 60 + [-1] * 4, epsilon=2.0, n_queries=4, max_charged=2)
    cal = sa.calibration_
    q_units = cal.grid * 27  # gap 56: q = 27
    monkeypatch.setattr(
        _subsample,
        "sample_discrete_laplace",
        lambda size, scale, gen: np.zeros(size, dtype=np.int64),
    )
    s0 = sa.state_dict()
    sa.load_state_dict({**s0, "threshold_noise": q_units - cal.threshold_units - 1})
    assert not sa.answer(np.zeros((1, 1))).charged[0]
    sa.load_state_dict({**s0, "threshold_noise": q_units - cal.threshold_units})
    assert sa.answer(np.zeros((1, 1))).charged[0]


def test_subsample_state_needs_integer_threshold_noise():
    sa = _one_row_teachers([1] * 40 + [-1] * 24, epsilon=2.0, n_queries=4)
    s0 = sa.state_dict()
    assert isinstance(s0["threshold_noise"], int)
    assert s0["config"]["grid"] == sa.calibration_.grid
    with pytest.raises(ValueError, match="integer"):
        sa.load_state_dict({**s0, "threshold_noise": 0.5})
    # A state of the floating-point calibration (no grid) is refused.
    old = {
        k: v for k, v in s0["config"].items() if k not in ("grid", "threshold_units")
    }
    with pytest.raises(ValueError, match="different configuration"):
        sa.load_state_dict({**s0, "config": old})


# ------------------------------------ the interactive sparse-vector mode
def _fit_interactive(**kw):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    params = dict(
        mechanism="sparse-vector",
        epsilon=2.0,
        n_queries=40,
        classes=[-1, 1],
        regularization=1.0,
        B_rule=1,
        random_state=0,
        on_vacuous="warn",
    )
    params.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        return PrivateInteractivePredictor(**params).fit(X, y)


class _ConstantModel:
    """The exact model replaced by a constant score (a worst-case neighbour)."""

    def __init__(self, spec, value):
        self.spec, self.value = spec, value

    def decision(self, Z):
        return np.full(Z.shape[0], self.value)


def test_interactive_grid_constants():
    p = _fit_interactive()
    grid = p._svt_grid
    S, B = p.prediction_sensitivity_, p.max_updates_
    e1, e2, _ = p._svt_eps
    gamma = grid.spacing
    assert math.frexp(gamma)[0] == 0.5  # a power of two
    assert gamma <= S * 2**-20 < 2 * gamma
    assert grid.sensitivity_units == math.ceil(S / gamma) + 1
    assert grid.threshold_units == math.ceil(p.threshold_ / gamma)
    assert grid.threshold_noise_units == math.ceil(
        grid.sensitivity_units / Fraction(e1)
    )
    assert grid.comparison_noise_units == math.ceil(
        2 * B * grid.sensitivity_units / Fraction(e2)
    )
    # In real units the scales grow by the rounding term only.
    assert grid.threshold_noise_units * gamma == pytest.approx(S / e1, rel=2**-18)
    assert p.privacy_event_.details["svt_grid"] == gamma
    assert p.state_dict()["config"]["svt_grid"] == gamma
    assert sparse_vector_grid(S, p.threshold_, e1, e2, B) == grid


def test_interactive_threshold_noise_is_discrete_laplace():
    p = _fit_interactive()
    t = p._svt_grid.threshold_noise_units
    draws = []
    for _ in range(2000):
        p._reset_state()  # the fit's draw of ρ, on a fresh stream each time
        draws.append(p.state_dict()["threshold_noise"])
    assert all(isinstance(r, int) for r in draws)
    assert _chi2_pvalue(np.array(draws), t) > 1e-3


def test_interactive_tie_is_an_update(monkeypatch):
    # Lyu, Su & Li Alg. 1: r(x) + ν ≥ Σ + ρ; with ν = 0 and ρ = r(x) − Σ, a tie.
    p = _fit_interactive()
    grid = p._svt_grid
    value = 3.0 * p.threshold_
    p._model = _ConstantModel(p._model.spec, value)
    monkeypatch.setattr(
        _interactive,
        "sample_discrete_laplace",
        lambda size, scale, gen: np.zeros(size, dtype=np.int64),
    )
    s0 = p.state_dict()
    r = int(grid.to_units(np.array([value]))[0])
    p.load_state_dict({**s0, "threshold_noise": r - grid.threshold_units})
    assert p.answer(np.zeros((1, 2))).updates[0]
    p.load_state_dict({**s0, "threshold_noise": r - grid.threshold_units + 1})
    assert not p.answer(np.zeros((1, 2))).updates[0]


@pytest.mark.slow
def test_interactive_neighbouring_scores_satisfy_the_guarantee():
    # Neighbours move ⟨w*, φ(z)⟩ by at most S: the extreme pair x and x + S
    # around the threshold. The update decision is (ε₁ + ε₂)-DP.
    p = _fit_interactive()
    S, sigma = p.prediction_sensitivity_, p.threshold_
    e1, e2, _ = p._svt_eps
    s0 = p.state_dict()
    spec = p._model.spec
    rng = np.random.default_rng(3)
    n = 2000
    rates = []
    for value in (sigma - S / 2, sigma + S / 2):
        p._model = _ConstantModel(spec, value)
        updates = 0
        for _ in range(n):
            rho = int(
                sample_discrete_laplace(1, p._svt_grid.threshold_noise_units, rng)[0]
            )
            p.load_state_dict({**s0, "threshold_noise": rho})
            updates += bool(p.answer(np.zeros((1, 2))).updates[0])
        rates.append(updates / n)
    bound = math.exp(e1 + e2)
    for a, b in (rates, rates[::-1]):
        for pa, pb in ((a, b), (1 - a, 1 - b)):
            slack = 4 * math.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n) + 1e-3
            assert pa <= bound * pb + slack, rates
    # The decision does depend on the value (the test can fail).
    assert rates[1] > rates[0] + 4 * math.sqrt(0.5 / n)
