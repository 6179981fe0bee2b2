# SPDX-License-Identifier: BSD-3-Clause
"""Tests for dpsvm.bounds.sarwate (Sarwate et al., arXiv:0912.0071; CMS11)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpsvm.bounds import sarwate as sw

# ---------------------------------------------------------------------------
# Thm 2 and the noise-norm quantile
# ---------------------------------------------------------------------------


def test_excess_risk_worked_value():
    # 8d² ln²(d/δ)/(Λn²ε_p²) with d = 2, n = 10, Λ = ½, ε_p = 2, δ = 0.2:
    # 8·4·ln²(10)/(0.5·100·4) = 0.16·ln²(10) ≈ 0.848303.
    got = sw.objpert_excess_risk_bound(2, 10, 0.5, 2.0, 0.2)
    assert got == pytest.approx(0.16 * math.log(10.0) ** 2, rel=1e-14)
    assert got == pytest.approx(0.848303, abs=1e-6)


def test_excess_risk_is_twice_squared_effective_noise_over_lam():
    # Derivation check: 2‖b/n‖²/Λ with ‖b‖ = 2d ln(d/δ)/ε_p gives Thm 2's value.
    d, n, lam, eps, delta = 5, 300, 0.01, 0.5, 0.05
    b = sw.objpert_noise_norm_quantile(d, eps, delta)
    assert sw.objpert_excess_risk_bound(d, n, lam, eps, delta) == pytest.approx(
        2.0 * (b / n) ** 2 / lam, rel=1e-13
    )


def test_excess_risk_monotone():
    base = sw.objpert_excess_risk_bound(3, 100, 0.1, 1.0, 0.05)
    assert sw.objpert_excess_risk_bound(3, 200, 0.1, 1.0, 0.05) < base
    assert sw.objpert_excess_risk_bound(3, 100, 0.2, 1.0, 0.05) < base
    assert sw.objpert_excess_risk_bound(3, 100, 0.1, 2.0, 0.05) < base
    assert sw.objpert_excess_risk_bound(4, 100, 0.1, 1.0, 0.05) > base


def test_noise_quantile_paper_value():
    # 2d ln(d/δ)/ε_p = 2·3·ln(100)/0.5 = 12 ln 100 ≈ 55.262.
    got = sw.objpert_noise_norm_quantile(3, 0.5, 0.03)
    assert got == pytest.approx(12.0 * math.log(100.0), rel=1e-14)


def test_noise_quantile_d1_exact_equals_paper():
    # d = 1: ‖b‖ ∼ Exp(scale 2/ε_p), quantile (2/ε_p) ln(1/δ) = the paper's bound.
    for eps, delta in [(0.1, 0.5), (2.0, 1e-6)]:
        assert sw.objpert_noise_norm_quantile(
            1, eps, delta, exact=True
        ) == pytest.approx(sw.objpert_noise_norm_quantile(1, eps, delta), rel=1e-12)


@pytest.mark.parametrize("d", [1, 2, 5, 20, 100, 1000])
@pytest.mark.parametrize("delta", [0.9, 0.5, 0.1, 1e-3, 1e-9])
def test_noise_quantile_exact_is_gamma_quantile_and_not_larger(d, delta):
    eps = 0.7
    exact = sw.objpert_noise_norm_quantile(d, eps, delta, exact=True)
    # ‖b‖ ∼ Gamma(d, scale 2/ε_p): P(‖b‖ > exact) = δ.
    assert stats.gamma.sf(exact, d, scale=2.0 / eps) == pytest.approx(delta, rel=1e-8)
    assert exact <= sw.objpert_noise_norm_quantile(d, eps, delta) * (1 + 1e-12)


@pytest.mark.slow
def test_noise_quantile_matches_sampled_noise():
    # Sample b ∝ exp(−(ε/2)‖b‖) as Gamma(d, 2/ε) radius × uniform direction and
    # check the empirical tail at the exact quantile (binomial 4σ band).
    rng = np.random.default_rng(12345)
    d, eps, delta, size = 4, 0.5, 0.1, 100_000
    g = rng.normal(size=(size, d))
    u = g / np.linalg.norm(g, axis=1, keepdims=True)
    b = rng.gamma(d, 2.0 / eps, size=size)[:, None] * u
    norms = np.linalg.norm(b, axis=1)
    # E‖b‖ = 2d/ε_p: the density exp(−(ε_p/2)‖b‖) of Sarwate et al. 2009, Alg. 1
    # with the (1/n)bᵀf objective of eq. (9) (correction: the printed β = ε_p·n
    # adds n times too little noise; docs/audit.md).
    assert abs(norms.mean() - 2 * d / eps) < 4 * norms.std() / size**0.5
    q = sw.objpert_noise_norm_quantile(d, eps, delta, exact=True)
    frac = np.mean(norms > q)
    assert abs(frac - delta) < 4 * math.sqrt(delta * (1 - delta) / size)


# ---------------------------------------------------------------------------
# Thm 7, volumes and order-only sample complexities
# ---------------------------------------------------------------------------


def test_tuning_slack_worked_value():
    # (2/ε_p) ln(m/δ) = 4 ln(700) with m = 7, ε_p = ½, δ = 0.01.
    assert sw.tuning_error_slack(7, 0.5, 0.01) == pytest.approx(4.0 * math.log(700.0))
    assert sw.tuning_error_slack(7, 1.0, 0.01) < sw.tuning_error_slack(7, 0.5, 0.01)
    assert sw.tuning_error_slack(8, 0.5, 0.01) > sw.tuning_error_slack(7, 0.5, 0.01)


def test_unit_ball_volume():
    assert sw.unit_ball_volume(1) == pytest.approx(2.0)
    assert sw.unit_ball_volume(2) == pytest.approx(math.pi)
    assert sw.unit_ball_volume(3) == pytest.approx(4.0 * math.pi / 3.0)
    assert sw.unit_ball_volume(4) == pytest.approx(math.pi**2 / 2.0)
    # Computed in logs: no overflow of Γ(d/2 + 1) for large d.
    assert sw.unit_ball_volume(200) == pytest.approx(
        math.pi**100 / math.gamma(101), rel=1e-10
    )
    assert sw.unit_ball_volume(1000) >= 0.0


def test_cor2_both_branches():
    # max{‖f‖²/ε_g², ‖f‖ d ln(d/δ)/(ε_p ε_g)}.
    assert sw.cor2_sample_complexity(1.0, 1, 1.0, 0.1, math.exp(-1)) == (
        pytest.approx(100.0)
    )  # first branch: 1/0.01 = 100 > 1·1·1/0.1 = 10
    got = sw.cor2_sample_complexity(1.0, 10, 0.1, 0.5, 0.01)
    assert got == pytest.approx(10 * math.log(1000.0) / 0.05)  # second branch
    assert sw.cor2_sample_complexity(1.0, 10, 0.1, 0.5, 0.01, constant=3.0) == (
        pytest.approx(3 * got)
    )


def test_lemma1_value():
    # C²√ln(1/δ)/(ε_p ε_g²) · ln(C ln(1/δ)/(ε_g δ)) with C = 2, δ = e⁻⁴, ε_p = ½,
    # ε_g = ½: 4·2/(0.5·0.25) · ln(2·4·e⁴/0.5) = 64·(ln 16 + 4).
    got = sw.lemma1_sample_complexity(2.0, 0.5, 0.5, math.exp(-4.0))
    assert got == pytest.approx(64.0 * (math.log(16.0) + 4.0), rel=1e-12)


def test_thm4_is_lemma1_with_substituted_bound_when_gamma_term_vanishes():
    # For d = 2, Γ(d/2 + 1) = 1, so eq. (38) is eq. (25) with C = Vol·ζ·‖f*‖_∞.
    f, zeta, vol = 1.5, math.sqrt(2.0), 0.7
    args = (0.3, 0.2, 0.01)
    assert sw.thm4_sample_complexity(f, zeta, 2, *args, volume=vol) == pytest.approx(
        sw.lemma1_sample_complexity(vol * zeta * f, *args), rel=1e-12
    )
    # Default volume is the unit ball's (π in ℝ²).
    assert sw.thm4_sample_complexity(f, zeta, 2, *args) == pytest.approx(
        sw.lemma1_sample_complexity(math.pi * zeta * f, *args), rel=1e-12
    )


def test_thm4_printed_gamma_term():
    # d = 3: the printed log argument is divided by Γ(5/2) = 3√π/4.
    f, zeta, vol, eps_p, eps_g, delta = 1.0, 1.0, 1.0, 1.0, 0.5, 0.1
    L = math.log(10.0)
    K = f**2 * zeta**2 * vol**2 * math.sqrt(L) / (eps_p * eps_g**2)
    expected = K * math.log(
        f * vol * zeta * L / (eps_g * delta * 0.75 * math.sqrt(math.pi))
    )
    got = sw.thm4_sample_complexity(f, zeta, 3, eps_p, eps_g, delta, volume=vol)
    assert got == pytest.approx(expected, rel=1e-12)


def test_thm5_relation_to_thm4():
    # Eq. (39) = eq. (38) × ‖f‖²/ε_g² (same logarithm).
    args = (math.sqrt(2.0), 3, 0.4, 0.2, 0.05)
    assert sw.thm5_sample_complexity(1.7, *args) == pytest.approx(
        sw.thm4_sample_complexity(1.7, *args) * 1.7**2 / 0.2**2, rel=1e-12
    )


def test_order_only_constant_is_linear():
    for fn, args in [
        (sw.lemma1_sample_complexity, (2.0, 0.5, 0.1, 0.01)),
        (sw.thm4_sample_complexity, (1.0, 1.4, 2, 0.5, 0.1, 0.01)),
        (sw.thm5_sample_complexity, (1.0, 1.4, 2, 0.5, 0.1, 0.01)),
    ]:
        assert fn(*args, 7.0) == pytest.approx(7.0 * fn(*args))


# ---------------------------------------------------------------------------
# ε′ / Δ of Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2 / Theorem 9
# ---------------------------------------------------------------------------


def test_epsilon_prime_spec_example():
    # n = 4·10⁴, Λ = 10⁻³, h = ½ (c = 1/(2h) = 1): c/(nΛ) = 0.025 and
    # ln(1 + 2c/(nΛ) + c²/(n²Λ²)) = 2 ln 1.025 ≈ 0.049385 ≈ 0.0494.
    eps_prime, Delta = sw.objective_perturbation_epsilon_prime(0.05, 40_000, 1e-3, 1.0)
    assert 0.05 - eps_prime == pytest.approx(2.0 * math.log(1.025), rel=1e-12)
    assert round(0.05 - eps_prime, 4) == 0.0494
    assert eps_prime == pytest.approx(0.000615, abs=5e-7)  # "ε′ ≈ 0.0006"
    assert Delta == 0.0


def test_epsilon_prime_n_giving_exactly_spec_value():
    # Solve 2 ln(1 + c/(nΛ)) = 0.0494: n = c/(Λ(e^{0.0247} − 1)) ≈ 39 987.8; at
    # n = 39 988 the correction is 0.0494 to within 1e-6.
    n_star = 1.0 / (1e-3 * math.expm1(0.0247))
    assert n_star == pytest.approx(39987.8, abs=0.1)
    eps_prime, _ = sw.objective_perturbation_epsilon_prime(1.0, 39_988, 1e-3, 1.0)
    assert abs((1.0 - eps_prime) - 0.0494) < 1e-6


def test_epsilon_prime_second_branch_value_and_identity():
    # ε = 0.01, n = 1000, Λ = 10⁻³, c = 1: 2 ln 2 > ε, so ε′ = ε/2 = 0.005 and
    # Δ = c/(n(e^{ε/4} − 1)) − Λ = 1/(1000(e^{0.0025} − 1)) − 0.001 ≈ 0.398501.
    eps_prime, Delta = sw.objective_perturbation_epsilon_prime(0.01, 1000, 1e-3, 1.0)
    assert eps_prime == 0.005
    assert Delta == pytest.approx(1.0 / (1000.0 * math.expm1(0.0025)) - 1e-3)
    assert Delta == pytest.approx(0.398501, abs=1e-6)
    # With Λ + Δ, the Jacobian term is exactly ε/2.
    assert 2.0 * math.log1p(1.0 / (1000 * (1e-3 + Delta))) == pytest.approx(0.005)


@settings(max_examples=100, deadline=None)
@given(
    eps=st.floats(min_value=1e-4, max_value=10.0),
    n=st.integers(min_value=1, max_value=10**7),
    lam=st.floats(min_value=1e-8, max_value=10.0),
    c=st.floats(min_value=0.01, max_value=10.0),
)
def test_epsilon_prime_properties(eps, n, lam, c):
    eps_prime, Delta = sw.objective_perturbation_epsilon_prime(eps, n, lam, c)
    assert 0.0 < eps_prime <= eps
    assert Delta >= 0.0
    # Total privacy: noise level ε′ plus the Jacobian term never exceeds ε.
    jac = 2.0 * math.log1p(c / (n * (lam + Delta)))
    assert eps_prime + jac <= eps * (1 + 1e-9)


# ---------------------------------------------------------------------------
# Output perturbation sensitivity
# ---------------------------------------------------------------------------


def test_output_perturbation_sensitivity():
    # 2LR/(nΛ): 2/(50·0.01) = 4; with L = ¼, R = 2: 2·0.5/0.5 = 2.
    assert sw.output_perturbation_l2_sensitivity(50, 0.01) == pytest.approx(4.0)
    assert sw.output_perturbation_l2_sensitivity(50, 0.01, L=0.25, R=2.0) == (
        pytest.approx(2.0)
    )
    assert sw.output_perturbation_l2_sensitivity(100, 0.01) < 4.0


def test_output_perturbation_sensitivity_holds_on_neighbours():
    # Exact minimisers of the 1-D ridge-Huber problem on neighbours differ by at
    # most 2/(nΛ) (here the replaced point flips both x and y).
    from scipy.optimize import minimize_scalar

    def huber(z: np.ndarray, h: float = 0.5) -> np.ndarray:
        return np.where(
            z > 1 + h, 0.0, np.where(z < 1 - h, 1 - z, (1 + h - z) ** 2 / (4 * h))
        )

    rng = np.random.default_rng(3)
    n, lam = 20, 0.05
    x = rng.uniform(-1, 1, n)
    y = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    x2, y2 = x.copy(), y.copy()
    x2[0], y2[0] = -np.sign(x[0]), -y[0]

    def solve(xs: np.ndarray, ys: np.ndarray) -> float:
        def objective(w: float) -> float:
            return float(np.mean(huber(ys * w * xs)) + 0.5 * lam * w * w)

        res = minimize_scalar(
            objective, bounds=(-100, 100), method="bounded", options={"xatol": 1e-12}
        )
        return float(res.x)

    gap = abs(solve(x, y) - solve(x2, y2))
    assert 0 < gap <= sw.output_perturbation_l2_sensitivity(n, lam) + 1e-6


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: sw.objpert_excess_risk_bound(0, 10, 0.1, 1.0, 0.1), ValueError),
        (lambda: sw.objpert_excess_risk_bound(2, 10, 0.0, 1.0, 0.1), ValueError),
        (lambda: sw.objpert_excess_risk_bound(2, 10, 0.1, 1.0, 1.0), ValueError),
        (lambda: sw.objpert_noise_norm_quantile(2, -1.0, 0.1), ValueError),
        (lambda: sw.objpert_noise_norm_quantile(2.5, 1.0, 0.1), TypeError),
        (lambda: sw.tuning_error_slack(0, 1.0, 0.1), ValueError),
        (lambda: sw.unit_ball_volume(0), ValueError),
        (lambda: sw.cor2_sample_complexity(0.0, 1, 1.0, 0.1, 0.1), ValueError),
        (lambda: sw.lemma1_sample_complexity(1.0, 1.0, 1.0, 0.1, 0.0), ValueError),
        (
            lambda: sw.thm4_sample_complexity(1, 1, 2, 1, 1, 0.1, volume=-1.0),
            ValueError,
        ),
        (
            lambda: sw.objective_perturbation_epsilon_prime(0.0, 10, 0.1, 1.0),
            ValueError,
        ),
        (lambda: sw.objective_perturbation_epsilon_prime(1.0, 0, 0.1, 1.0), ValueError),
        (
            lambda: sw.objective_perturbation_epsilon_prime(1.0, 10, 0.1, 0.0),
            ValueError,
        ),
        (lambda: sw.output_perturbation_l2_sensitivity(10, 0.0), ValueError),
        (
            lambda: sw.output_perturbation_l2_sensitivity(10, 0.1, R=math.inf),
            ValueError,
        ),
    ],
)
def test_invalid_inputs(call, exc):
    with pytest.raises(exc):
        call()


def test_return_types():
    assert type(sw.objpert_noise_norm_quantile(3, 1.0, 0.1, exact=True)) is float
    eps_prime, Delta = sw.objective_perturbation_epsilon_prime(1.0, 100, 0.1, 1.0)
    assert type(eps_prime) is float and type(Delta) is float
    assert type(sw.output_perturbation_l2_sensitivity(10, 0.1)) is float
