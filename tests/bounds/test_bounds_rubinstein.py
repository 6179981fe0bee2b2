# SPDX-License-Identifier: BSD-3-Clause
"""Tests for dpsvm.bounds.rubinstein (Rubinstein et al., arXiv:0911.5708)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy import optimize, stats

from dpsvm.bounds import rubinstein as rb

LN2 = math.log(2.0)

# ---------------------------------------------------------------------------
# Constants of Rubinstein et al. 2012 (Cor. 9, Lemma 10, Lemma 19)
# ---------------------------------------------------------------------------


def test_spec_constants():
    # 2^{2.5} = 4√2 ≈ 5.656854 (Cor. 9); 16 ln 2 ≈ 11.0904 (Lemma 10).
    assert rb.RFF_NOISE_CONSTANT == pytest.approx(5.656854, abs=1e-6)
    assert rb.RFF_NOISE_CONSTANT == pytest.approx(4.0 * math.sqrt(2.0), rel=1e-15)
    assert rb.LEMMA10_CONSTANT == pytest.approx(11.0904, abs=1e-4)
    # σ < √(1/(2 ln 2)) ≈ 0.84932 (Lemma 19).
    assert rb.RBF_SIGMA_MAX == pytest.approx(0.84932, abs=1e-5)


# ---------------------------------------------------------------------------
# Privacy calibrations (Thm 7, Lemma 6, Cor. 9)
# ---------------------------------------------------------------------------


def test_rff_noise_scale_worked_value():
    # 2^{2.5}·L·C·√d̂/(βn) = 2^{2.5}·√8/100 = 2^{2.5}·2^{1.5}/100 = 16/100.
    assert rb.rff_noise_scale(1.0, 100, 1.0, 1.0, 8) == pytest.approx(0.16, rel=1e-14)


def test_rff_noise_scale_is_thm7_with_two_dhat_features():
    # Cor. 9 = Thm 7 with κ = 1 and F = 2d̂ (not F = d̂).
    for dhat in (1, 5, 64):
        assert rb.rff_noise_scale(0.7, 33, 2.0, 0.5, dhat) == pytest.approx(
            rb.finite_noise_scale(0.7, 33, 2.0, 0.5, 1.0, 2 * dhat), rel=1e-14
        )


def test_finite_sensitivity_and_noise_worked_values():
    # 4LCκ/n = 4·0.5·2·3/10 = 1.2; tight 2LCκ/n = 0.6.
    assert rb.finite_l2_sensitivity(10, 2.0, 0.5, 3.0) == pytest.approx(1.2)
    assert rb.finite_l2_sensitivity(10, 2.0, 0.5, 3.0, tight=True) == pytest.approx(0.6)
    # 4LCκ√F/(βn) = 4·1·1·1·3/(2·50) = 0.12.
    assert rb.finite_noise_scale(2.0, 50, 1.0, 1.0, 1.0, 9) == pytest.approx(0.12)
    assert rb.finite_noise_scale(2.0, 50, 1.0, 1.0, 1.0, 9, tight=True) == (
        pytest.approx(0.06)
    )


pos = st.floats(min_value=1e-3, max_value=1e3)
ints = st.integers(min_value=1, max_value=10**6)


@settings(max_examples=60, deadline=None)
@given(beta=pos, n=ints, C=pos, L=pos, dhat=ints)
def test_rff_noise_scale_monotone(beta, n, C, L, dhat):
    lam = rb.rff_noise_scale(beta, n, C, L, dhat)
    # Decreasing in n and β, increasing in C, L and d̂.
    assert rb.rff_noise_scale(beta, n + 1, C, L, dhat) < lam
    assert rb.rff_noise_scale(2 * beta, n, C, L, dhat) < lam
    assert rb.rff_noise_scale(beta, n, 2 * C, L, dhat) > lam
    assert rb.rff_noise_scale(beta, n, C, 2 * L, dhat) > lam
    assert rb.rff_noise_scale(beta, n, C, L, dhat + 1) > lam


@settings(max_examples=60, deadline=None)
@given(beta=pos, n=ints, C=pos, kappa=pos, F=ints)
def test_finite_noise_scale_monotone(beta, n, C, kappa, F):
    lam = rb.finite_noise_scale(beta, n, C, 1.0, kappa, F)
    assert rb.finite_noise_scale(beta, n + 1, C, 1.0, kappa, F) < lam
    assert rb.finite_noise_scale(2 * beta, n, C, 1.0, kappa, F) < lam
    assert rb.finite_noise_scale(beta, n, 2 * C, 1.0, kappa, F) > lam
    assert rb.finite_noise_scale(beta, n, C, 1.0, 2 * kappa, F) > lam
    assert rb.finite_noise_scale(beta, n, C, 1.0, kappa, F + 1) > lam


# ---------------------------------------------------------------------------
# Usefulness (Thm 8, Lemma 10) and the exact Erlang versions
# ---------------------------------------------------------------------------


def test_finite_max_noise_worked_value():
    # ε/(2Φ(F ln2 + ln(1/δ))) = 1/(2·0.5·(2 ln2 + ln 4)) = 1/(4 ln 2).
    got = rb.finite_max_noise_for_usefulness(1.0, 0.25, 0.5, 2)
    assert got == pytest.approx(1.0 / (4.0 * LN2), rel=1e-14)


def test_rff_max_noise_first_term_binds_for_large_dhat():
    # d̂ = 100, δ = ½: ε/(16 ln2·10) = 0.0090168 < ε·10/(8 ln 4) = 0.9017.
    got = rb.rff_max_noise_for_usefulness(1.0, 0.5, 100)
    assert got == pytest.approx(1.0 / (16.0 * LN2 * 10.0), rel=1e-14)
    assert got == pytest.approx(0.0090168, abs=1e-7)


def test_rff_max_noise_second_term_binds_for_tiny_delta():
    # d̂ = 1, δ = 1e-6: ε/(8 ln(2/δ)) = 1/(8 ln 2e6) ≈ 0.008616 < 1/(16 ln 2).
    got = rb.rff_max_noise_for_usefulness(1.0, 1e-6, 1)
    assert got == pytest.approx(1.0 / (8.0 * math.log(2e6)), rel=1e-14)


def test_finite_exact_closed_form_for_one_feature():
    # F = 1: Gamma(1, 1) is Exp(1), whose (1−δ)-quantile is ln(1/δ) = 2 for δ = e⁻².
    # λ = (ε/Φ)/2 = 0.5; the Chernoff value is 1/(2(ln 2 + 2)) ≈ 0.18567.
    delta = math.exp(-2.0)
    assert rb.finite_max_noise_for_usefulness_exact(1.0, delta, 1.0, 1) == (
        pytest.approx(0.5, rel=1e-12)
    )
    assert rb.finite_max_noise_for_usefulness(1.0, delta, 1.0, 1) == pytest.approx(
        1.0 / (2.0 * (LN2 + 2.0)), rel=1e-14
    )


def test_rff_exact_closed_form_for_one_frequency():
    # d̂ = 1: Gamma(2, 1) has survival (1 + x)e^{−x}; at x = 2 that is 3e⁻², so
    # with δ/2 = 3e⁻² the quantile is 2 and λ = (ε·1/2)/2 = ε/4.
    delta = 2.0 * 3.0 * math.exp(-2.0)
    assert rb.rff_max_noise_for_usefulness_exact(1.0, delta, 1) == pytest.approx(
        0.25, rel=1e-12
    )


@pytest.mark.parametrize("F", [1, 2, 10, 500])
@pytest.mark.parametrize("delta", [0.5, 0.05, 1e-6])
def test_exact_finite_is_a_true_quantile_and_larger(F, delta):
    eps, Phi = 0.3, 0.7
    lam_exact = rb.finite_max_noise_for_usefulness_exact(eps, delta, Phi, F)
    lam_chernoff = rb.finite_max_noise_for_usefulness(eps, delta, Phi, F)
    assert lam_exact > lam_chernoff
    # P(Φ‖μ‖₁ > ε) with ‖μ‖₁ ∼ Gamma(F, λ) equals δ at the exact λ.
    tail = stats.gamma.sf(eps / Phi, F, scale=lam_exact)
    assert tail == pytest.approx(delta, rel=1e-8)


@pytest.mark.parametrize("dhat", [1, 3, 50, 2000])
@pytest.mark.parametrize("delta", [0.9, 0.05, 1e-8])
def test_exact_rff_is_a_true_quantile_and_larger(dhat, delta):
    eps = 0.2
    lam_exact = rb.rff_max_noise_for_usefulness_exact(eps, delta, dhat)
    lam_chernoff = rb.rff_max_noise_for_usefulness(eps, delta, dhat)
    assert lam_exact > lam_chernoff
    # P(‖μ‖₁/√d̂ > ε/2) = δ/2 with ‖μ‖₁ ∼ Gamma(2d̂, λ).
    tail = stats.gamma.sf(eps * math.sqrt(dhat) / 2.0, 2 * dhat, scale=lam_exact)
    assert tail == pytest.approx(delta / 2.0, rel=1e-8)


@settings(max_examples=60, deadline=None)
@given(
    eps=pos,
    delta=st.floats(min_value=1e-12, max_value=0.999),
    dhat=st.integers(min_value=1, max_value=10**5),
)
def test_exact_rff_never_smaller_than_chernoff(eps, delta, dhat):
    exact = rb.rff_max_noise_for_usefulness_exact(eps, delta, dhat)
    assert exact >= rb.rff_max_noise_for_usefulness(eps, delta, dhat) * (1 - 1e-12)


def test_max_noise_monotone():
    # More accuracy slack (ε) or failure probability (δ) allows more noise.
    assert rb.rff_max_noise_for_usefulness(2.0, 0.1, 10) > (
        rb.rff_max_noise_for_usefulness(1.0, 0.1, 10)
    )
    assert rb.finite_max_noise_for_usefulness(1.0, 0.2, 1.0, 5) > (
        rb.finite_max_noise_for_usefulness(1.0, 0.1, 1.0, 5)
    )
    assert rb.finite_max_noise_for_usefulness(1.0, 0.1, 1.0, 6) < (
        rb.finite_max_noise_for_usefulness(1.0, 0.1, 1.0, 5)
    )


# ---------------------------------------------------------------------------
# Random-feature counts (Lemmas 12, 13, Thm 14, Cor. 15)
# ---------------------------------------------------------------------------


def test_rr_dhat_worked_value():
    # (4(d+2)/ε²)·ln(2⁸(σ_p diam)²/(δε²)) = 48·ln(256·4/(0.1·0.25)) = 48 ln 40960
    # = 509.77… → 510.
    got = rb.rr_dhat_for_kernel_error(0.5, 0.1, 1, 1.0, 2.0)
    assert got == 510
    assert isinstance(got, int)


def test_rr_dhat_is_at_least_one_when_log_is_negative():
    # 2⁸(σ_p diam)²/(δε²) < 1 makes the bound ≤ 0; any d̂ ≥ 1 satisfies it.
    assert rb.rr_dhat_for_kernel_error(0.5, 0.5, 1, 1e-6, 1.0) == 1


def test_kernel_error_tolerance_hinge_value():
    # Λ = C = 1, L = 1: H = 1 + 2√1.5 = 1 + √6, tolerance ε²/(4(1+√6)²) for ε = 1.
    got = rb.kernel_error_tolerance(1.0, 1.0, 1.0, 1.0)
    assert got == pytest.approx(1.0 / (4.0 * (1.0 + math.sqrt(6.0)) ** 2), rel=1e-14)
    # It saturates at 1 for large ε.
    assert rb.kernel_error_tolerance(1e3, 1.0, 1.0, 1.0) == 1.0


def test_usefulness_theta_is_squared_tolerance():
    for eps, lam, C, L in [(1.0, 0.5, 1.0, 1.0), (0.1, 2.0, 3.0, 0.5)]:
        tol = rb.kernel_error_tolerance(eps, lam, C, L)
        assert rb.usefulness_theta(eps, lam, C, L) == pytest.approx(tol**2)


def test_cor15_theta_spec_example():
    # Rubinstein et al. 2012, Cor. 15: C = 1, ε = 0.1 gives θ = ε⁴/2¹² = 1e-4/4096
    # ≈ 2.44e-8.
    theta = rb.hinge_usefulness_theta(0.1, 1.0)
    assert theta == pytest.approx(1e-4 / 4096.0, rel=1e-14)
    assert f"{theta:.1e}" == "2.4e-08"


def test_cor15_exact_theta_constant():
    # Exact θ = ε⁴/(2⁴C⁴(1+√6)⁴) and 2⁴(1+√6)⁴ ≈ 2265.37 ≤ 2¹² = 4096.
    assert 16.0 * (1.0 + math.sqrt(6.0)) ** 4 == pytest.approx(2265.37, abs=0.01)
    exact = rb.hinge_usefulness_theta(0.1, 1.0, exact=True)
    assert exact == pytest.approx(1e-4 / (16.0 * (1.0 + math.sqrt(6.0)) ** 4))
    assert exact > rb.hinge_usefulness_theta(0.1, 1.0)
    # The exact θ is Thm 14's θ with Λ = C and L = 1.
    assert exact == rb.usefulness_theta(0.1, 1.0, 1.0, 1.0)


def test_hinge_dhat_exact_theta_matches_thm14():
    args = (0.3, 0.05, 4, 2.0, 2.0)
    assert rb.hinge_rff_dhat_for_usefulness(
        *args, 1.5, exact_theta=True
    ) == rb.rff_dhat_for_usefulness(*args, 1.5, 1.5, 1.0)
    # The stated θ is conservative: it asks for more frequencies.
    assert rb.hinge_rff_dhat_for_usefulness(*args, 1.5) > (
        rb.hinge_rff_dhat_for_usefulness(*args, 1.5, exact_theta=True)
    )


def test_thm14_is_lemma13_with_tolerance_and_half_delta():
    # Thm 14: d̂ from Lemma 13 with kernel error √θ (= Lemma 12 tolerance) and δ/2.
    eps, delta, d, sp, diam, lam, C, L = 0.5, 0.1, 3, 1.7, 2.0, 0.8, 1.0, 1.0
    tol = rb.kernel_error_tolerance(eps, lam, C, L)
    lemma13 = rb.rr_dhat_for_kernel_error(tol, delta / 2.0, d, sp, diam)
    thm14 = rb.rff_dhat_for_usefulness(eps, delta, d, sp, diam, lam, C, L)
    assert abs(thm14 - lemma13) <= 1


def test_hinge_dhat_worked_value():
    # θ = 1/4096; d̂ = ⌈(4·3·4096)·ln(2⁹·4·4096/0.1)⌉ = ⌈49152·ln(83886080)⌉.
    expected = math.ceil(49152.0 * math.log(2.0**9 * 4.0 * 4096.0 / 0.1))
    got = rb.hinge_rff_dhat_for_usefulness(1.0, 0.1, 1, 1.0, 2.0, 1.0)
    assert got == expected == 896777
    assert isinstance(got, int)


def test_spec_dhat_is_astronomical():
    # Rubinstein et al. 2012, Cor. 15: C = 1, ε = 0.1 gives d̂ ~ 10¹⁰–10¹¹ (RBF σ = 1
    # in ℝ¹⁰, unit ball).
    d = 10
    sigma_p = math.sqrt(rb.sigma_p_squared("rbf", d, sigma=1.0))
    dhat = rb.hinge_rff_dhat_for_usefulness(0.1, 0.05, d, sigma_p, 2.0, 1.0)
    assert 1e10 <= dhat <= 1e11


def test_dhat_monotone():
    base = rb.hinge_rff_dhat_for_usefulness(0.5, 0.1, 2, 1.0, 2.0, 1.0)
    assert rb.hinge_rff_dhat_for_usefulness(0.25, 0.1, 2, 1.0, 2.0, 1.0) > base
    assert rb.hinge_rff_dhat_for_usefulness(0.5, 0.01, 2, 1.0, 2.0, 1.0) > base
    assert rb.hinge_rff_dhat_for_usefulness(0.5, 0.1, 3, 1.0, 2.0, 1.0) > base
    assert rb.hinge_rff_dhat_for_usefulness(0.5, 0.1, 2, 2.0, 2.0, 1.0) > base
    assert rb.hinge_rff_dhat_for_usefulness(0.5, 0.1, 2, 1.0, 2.0, 2.0) > base


def test_infinite_sigma_p_is_rejected():
    sp = math.sqrt(rb.sigma_p_squared("laplacian", 3))
    with pytest.raises(ValueError, match="vacuous"):
        rb.rr_dhat_for_kernel_error(0.5, 0.1, 3, sp, 2.0)
    with pytest.raises(ValueError, match="vacuous"):
        rb.hinge_rff_dhat_for_usefulness(0.5, 0.1, 3, sp, 2.0, 1.0)


# ---------------------------------------------------------------------------
# Optimal differential privacy: upper bound (Thm 16) and lower bounds
# ---------------------------------------------------------------------------


def test_upper_bound_matches_first_term_closed_form():
    # With the first Lemma 10 term binding, β = 2^{2.5}·16 ln2·C·d̂/(εn).
    eps, delta, C, n = 1.0, 0.1, 1.0, 10**6
    dhat = rb.hinge_rff_dhat_for_usefulness(eps, delta, 1, 1.0, 2.0, C)
    beta = rb.optimal_dp_upper_bound(eps, delta, C, n, 1, 1.0, 2.0)
    assert beta == pytest.approx(2**2.5 * 16 * LN2 * C * dhat / (eps * n), rel=1e-12)
    assert beta == pytest.approx(56.2607, abs=1e-4)


def test_upper_bound_scales_as_one_over_n():
    b1 = rb.optimal_dp_upper_bound(0.5, 0.1, 1.0, 1000, 2, 1.0, 2.0)
    b2 = rb.optimal_dp_upper_bound(0.5, 0.1, 1.0, 4000, 2, 1.0, 2.0)
    assert b1 / b2 == pytest.approx(4.0, rel=1e-12)


def test_upper_bound_grows_faster_than_printed_eps_cubed_rate():
    # Halving ε multiplies β by about 2⁵ (times a log factor), not 2³ (Thm 16's
    # printed O(ε⁻³) rate): the documented discrepancy.
    b1 = rb.optimal_dp_upper_bound(0.1, 0.05, 1.0, 10**6, 2, 1.0, 2.0)
    b2 = rb.optimal_dp_upper_bound(0.05, 0.05, 1.0, 10**6, 2, 1.0, 2.0)
    assert 32.0 < b2 / b1 < 40.0


def test_lower_bound_linear_values():
    # ln((1 − δ)/δ): δ = 0.01 → ln 99; δ = ½ → 0.
    assert rb.optimal_dp_lower_bound_linear(0.01) == pytest.approx(math.log(99.0))
    assert rb.optimal_dp_lower_bound_linear(0.5) == 0.0
    assert rb.optimal_dp_lower_bound_linear(0.9) < 0.0


def test_lower_bound_rbf_values():
    # σ = 0.5: N = ⌊(2/0.5)√(2/ln 2)⌋ = ⌊6.79⌋ = 6; ln(0.99·5/0.01) = ln 495.
    assert rb.rbf_packing_size(0.5) == 6
    assert rb.optimal_dp_lower_bound_rbf(0.01, 0.5) == pytest.approx(math.log(495.0))
    # Stronger than the linear bound whenever N > 2.
    assert rb.optimal_dp_lower_bound_rbf(0.01, 0.5) > (
        rb.optimal_dp_lower_bound_linear(0.01)
    )


def test_packing_size_edges():
    # σ just below √(1/(2 ln 2)) gives N = 4 (not N > 4 as the proof says).
    assert rb.rbf_packing_size(0.8493) == 4
    assert rb.rbf_packing_size(0.679) == 5
    # σ = 1 is outside Thm 20's range but still a valid packing (N = 3).
    assert rb.rbf_packing_size(1.0) == 3
    with pytest.raises(ValueError, match="N"):
        rb.rbf_packing_size(2.0)  # ⌊1.70⌋ = 1 < 2
    with pytest.raises(ValueError, match="sigma"):
        rb.optimal_dp_lower_bound_rbf(0.01, 1.0)


@settings(max_examples=60, deadline=None)
@given(beta=st.floats(min_value=1e-3, max_value=30.0))
def test_min_delta_inverts_lower_bounds(beta):
    d_lin = rb.linear_lower_bound_min_delta(beta)
    assert rb.optimal_dp_lower_bound_linear(d_lin) == pytest.approx(beta, rel=1e-9)
    # δ ≥ 1/(1+e^β) is weaker than the paper's restatement δ ≥ e^{−β}.
    assert d_lin < math.exp(-beta)
    d_rbf = rb.rbf_lower_bound_min_delta(beta, 0.5)
    assert rb.optimal_dp_lower_bound_rbf(d_rbf, 0.5) == pytest.approx(beta, rel=1e-9)
    assert d_rbf > d_lin


def test_lower_bound_validity_ranges():
    # Thm 18: ε < √C/(2n).
    assert rb.optimal_dp_lower_bound_linear(0.1, eps=0.04, C=1.0, n=10) > 0
    with pytest.raises(ValueError, match="sqrt"):
        rb.optimal_dp_lower_bound_linear(0.1, eps=0.05, C=1.0, n=10)
    with pytest.raises(ValueError, match="all of"):
        rb.optimal_dp_lower_bound_linear(0.1, eps=0.01)
    # Thm 20: n > C and ε < C/(4n) (the printed n/(4C) is a typo).
    assert rb.optimal_dp_lower_bound_rbf(0.1, 0.5, eps=0.004, C=2.0, n=100) > 0
    with pytest.raises(ValueError, match="C/\\(4n\\)"):
        rb.optimal_dp_lower_bound_rbf(0.1, 0.5, eps=0.005, C=2.0, n=100)
    with pytest.raises(ValueError, match="C/\\(4n\\)"):
        # ε < n/(4C) = 12.5 (the typo) but not < C/(4n).
        rb.optimal_dp_lower_bound_rbf(0.1, 0.5, eps=1.0, C=2.0, n=100)
    with pytest.raises(ValueError, match="n > C"):
        rb.optimal_dp_lower_bound_rbf(0.1, 0.5, eps=1e-4, C=200.0, n=100)


# ---------------------------------------------------------------------------
# Spectral second moments
# ---------------------------------------------------------------------------


def test_sigma_p_squared():
    assert rb.sigma_p_squared("rbf", 3, sigma=0.5) == pytest.approx(12.0)
    # Gaussian(γ) = RBF(σ) with γ = 1/(2σ²): 2γd = d/σ².
    assert rb.sigma_p_squared("gaussian", 3, gamma=2.0) == pytest.approx(12.0)
    assert rb.sigma_p_squared("laplacian", 3) == math.inf
    assert rb.sigma_p_squared("Cauchy", 3) == 6.0
    with pytest.raises(ValueError, match="sigma"):
        rb.sigma_p_squared("rbf", 3)
    with pytest.raises(ValueError, match="gamma"):
        rb.sigma_p_squared("gaussian", 3)
    with pytest.raises(ValueError, match="Unknown kernel"):
        rb.sigma_p_squared("linear", 3)


@pytest.mark.slow
def test_sigma_p_squared_matches_sampled_frequencies():
    # Monte Carlo check of E‖ω‖² for the Cauchy kernel (ω iid Laplace(0, 1)) and
    # the RBF kernel (ω ∼ N(0, σ⁻²I)); 4σ bands of the sample mean.
    rng = np.random.default_rng(0)
    d, size = 3, 200_000
    w = rng.laplace(0.0, 1.0, size=(size, d))
    sq = np.sum(w * w, axis=1)
    assert abs(sq.mean() - rb.sigma_p_squared("cauchy", d)) < 4 * sq.std() / size**0.5
    w = rng.normal(0.0, 1.0 / 0.5, size=(size, d))
    sq = np.sum(w * w, axis=1)
    assert abs(sq.mean() - rb.sigma_p_squared("rbf", d, sigma=0.5)) < (
        4 * sq.std() / size**0.5
    )


# ---------------------------------------------------------------------------
# Input validation and return types
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: rb.rff_noise_scale(0.0, 10, 1.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(-1.0, 10, 1.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(math.nan, 10, 1.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(math.inf, 10, 1.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(1.0, 0, 1.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(1.0, 10.5, 1.0, 1.0, 4), TypeError),
        (lambda: rb.rff_noise_scale(1.0, True, 1.0, 1.0, 4), TypeError),
        (lambda: rb.rff_noise_scale(1.0, 10, 0.0, 1.0, 4), ValueError),
        (lambda: rb.rff_noise_scale(1.0, 10, 1.0, 1.0, 0), ValueError),
        (lambda: rb.finite_noise_scale(1.0, 10, 1.0, 1.0, -1.0, 4), ValueError),
        (lambda: rb.finite_noise_scale(1.0, 10, 1.0, 1.0, 1.0, 0), ValueError),
        (lambda: rb.finite_max_noise_for_usefulness(1.0, 0.0, 1.0, 4), ValueError),
        (lambda: rb.finite_max_noise_for_usefulness(1.0, 1.0, 1.0, 4), ValueError),
        (lambda: rb.finite_max_noise_for_usefulness(0.0, 0.1, 1.0, 4), ValueError),
        (lambda: rb.rff_max_noise_for_usefulness_exact(1.0, 1.5, 4), ValueError),
        (lambda: rb.rr_dhat_for_kernel_error(0.5, 0.1, 0, 1.0, 2.0), ValueError),
        (lambda: rb.rr_dhat_for_kernel_error(0.5, 0.1, 1, 1.0, 0.0), ValueError),
        (lambda: rb.kernel_error_tolerance(1.0, 0.0, 1.0, 1.0), ValueError),
        (lambda: rb.optimal_dp_lower_bound_linear(0.0), ValueError),
        (lambda: rb.optimal_dp_lower_bound_linear(1.0), ValueError),
        (lambda: rb.linear_lower_bound_min_delta(0.0), ValueError),
        (lambda: rb.optimal_dp_upper_bound(0.5, 0.1, 1.0, 0, 1, 1.0, 2.0), ValueError),
    ],
)
def test_invalid_inputs(call, exc):
    with pytest.raises(exc):
        call()


def test_return_types():
    assert type(rb.rff_noise_scale(1, 10, 1, 1, 4)) is float
    assert type(rb.finite_noise_scale(1, 10, 1, 1, 1, 4)) is float
    assert type(rb.finite_max_noise_for_usefulness_exact(1, 0.1, 1, 4)) is float
    assert type(rb.rff_max_noise_for_usefulness_exact(1, 0.1, 4)) is float
    assert type(rb.rr_dhat_for_kernel_error(0.5, 0.1, 1, 1.0, 2.0)) is int
    assert type(rb.rff_dhat_for_usefulness(1, 0.1, 1, 1, 2, 1, 1, 1)) is int
    assert type(rb.rbf_packing_size(0.5)) is int
    assert type(rb.optimal_dp_upper_bound(1, 0.1, 1, 100, 1, 1, 2)) is float
    # NumPy integers are accepted as integers.
    assert rb.rff_noise_scale(1.0, np.int64(100), 1.0, 1.0, np.int32(8)) == (
        pytest.approx(0.16)
    )


# ---------------------------------------------------------------------------
# Lemma 17 fixture against an exact 1-D hinge-SVM solver
# ---------------------------------------------------------------------------


def _hinge_objective(w: float, x: NDArray, y: NDArray, C: float) -> float:
    n = x.size
    return 0.5 * w * w + (C / n) * float(np.sum(np.maximum(0.0, 1.0 - y * w * x)))


def _solve_1d_hinge_exact(x: NDArray, y: NDArray, C: float) -> float:
    """Exact minimiser of ½w² + (C/n)Σ max(0, 1 − yᵢwxᵢ) by breakpoint enumeration.

    The objective is convex and piecewise quadratic with kinks at w = 1/(yᵢxᵢ).
    On each open piece the active set is fixed and the stationary point is
    w = (C/n)·Σ_active yᵢxᵢ; the minimiser is either such a point inside its
    piece or a kink.
    """
    n = x.size
    yx = y * x
    kinks = np.unique(1.0 / yx[yx != 0])
    edges = np.concatenate(([-np.inf], kinks, [np.inf]))
    candidates = list(kinks)
    for lo, hi in itertools.pairwise(edges):
        if np.isinf(lo) and np.isinf(hi):
            t = 0.0
        elif np.isinf(lo):
            t = hi - 1.0
        elif np.isinf(hi):
            t = lo + 1.0
        else:
            t = 0.5 * (lo + hi)
        active = 1.0 - yx * t > 0
        w = (C / n) * float(np.sum(yx[active]))
        if lo <= w <= hi:
            candidates.append(w)
    values = [_hinge_objective(w, x, y, C) for w in candidates]
    return float(candidates[int(np.argmin(values))])


@pytest.mark.parametrize("n", [2, 3, 7, 10, 51])
@pytest.mark.parametrize("C", [0.5, 1.0, 4.0])
def test_lemma17_closed_form_matches_exact_solver(n, C):
    eps = 0.9 * math.sqrt(C) / (2 * n)  # inside the lemma's range ε < √C/(2n)
    (X1, y1), (X2, y2) = rb.lemma17_databases(n, C, eps)
    assert X1.shape == (n, 1) and y1.shape == (n,)
    np.testing.assert_array_equal(X1, X2)
    # Neighbours: only the last label differs.
    assert np.sum(y1 != y2) == 1 and y1[-1] == -1 and y2[-1] == 1
    w1_star, w2_star = rb.lemma17_solutions(n, C, eps)
    w1 = _solve_1d_hinge_exact(X1[:, 0], y1.astype(float), C)
    w2 = _solve_1d_hinge_exact(X2[:, 0], y2.astype(float), C)
    assert w1 == pytest.approx(w1_star, rel=1e-12, abs=1e-15)
    assert w2 == pytest.approx(w2_star, rel=1e-12, abs=1e-15)
    # |f₁(1) − f₂(1)| = |w₁* − w₂*| = 2ε.
    assert abs(w1 - w2) == pytest.approx(2 * eps, rel=1e-10)


def test_lemma17_matches_scalar_minimiser():
    n, C = 9, 2.0
    eps = 0.5 * math.sqrt(C) / (2 * n)
    (X1, y1), (X2, y2) = rb.lemma17_databases(n, C, eps)
    for (X, y), w_star in zip(
        [(X1, y1), (X2, y2)], rb.lemma17_solutions(n, C, eps), strict=True
    ):
        res = optimize.minimize_scalar(
            _hinge_objective,
            bounds=(-10.0, 10.0),
            args=(X[:, 0], y.astype(float), C),
            method="bounded",
            options={"xatol": 1e-12},
        )
        # Brent on a quadratic locates the minimiser to about √(machine ε).
        assert res.x == pytest.approx(w_star, abs=1e-6)


def test_lemma17_validity_condition_is_the_real_limit():
    # n = 2, C = 1: the lemma's range is ε < √C/(2n) = 0.25, but the closed form
    # holds up to ε < √(C/(2n(2n−1))) = √(1/12) ≈ 0.2887.
    n, C, eps = 2, 1.0, 0.28
    (X1, y1), (X2, y2) = rb.lemma17_databases(n, C, eps)
    w1_star, w2_star = rb.lemma17_solutions(n, C, eps)
    assert _solve_1d_hinge_exact(X1[:, 0], y1.astype(float), C) == pytest.approx(
        w1_star
    )
    assert _solve_1d_hinge_exact(X2[:, 0], y2.astype(float), C) == pytest.approx(
        w2_star
    )
    with pytest.raises(ValueError, match="1/M > C"):
        rb.lemma17_solutions(n, C, 0.29)
    with pytest.raises(ValueError, match="1/M > C"):
        rb.lemma17_databases(n, C, 0.29)
    with pytest.raises(ValueError):
        rb.lemma17_databases(1, C, 0.01)


def test_lemma17_worked_values():
    # n = 4, C = 1, ε = 0.05: M = 0.4, m = 0.2, w₁* = (0.4·2 + 0.2)/4 = 0.25,
    # w₂* = (1.6 − 0.2)/4 = 0.35.
    (X1, _), _ = rb.lemma17_databases(4, 1.0, 0.05)
    np.testing.assert_allclose(X1[:, 0], [-0.4, -0.4, 0.4, 0.2])
    w1, w2 = rb.lemma17_solutions(4, 1.0, 0.05)
    assert (w1, w2) == (pytest.approx(0.25), pytest.approx(0.35))


# ---------------------------------------------------------------------------
# Lemma 19 fixture against a box-constrained dual solver
# ---------------------------------------------------------------------------


def _rbf(A: NDArray, B: NDArray, sigma: float) -> NDArray:
    sq = np.sum(A * A, 1)[:, None] + np.sum(B * B, 1)[None, :] - 2.0 * A @ B.T
    return np.exp(-np.maximum(sq, 0.0) / (2.0 * sigma**2))


def _solve_box_dual(K: NDArray, y: NDArray, upper: float) -> NDArray:
    """Coordinate ascent for max Σα − ½αᵀQα, 0 ≤ α ≤ upper (no equality)."""
    Q = (y[:, None] * y[None, :]) * K
    alpha = np.zeros(y.size)
    for _ in range(20_000):
        old = alpha.copy()
        for i in range(y.size):
            g = 1.0 - Q[i] @ alpha
            alpha[i] = min(upper, max(0.0, alpha[i] + g / Q[i, i]))
        if np.max(np.abs(alpha - old)) < 1e-15:
            break
    return alpha


@pytest.mark.parametrize(
    ("n", "C", "sigma"),
    [(6, 2.0, 0.5), (2, 1.5, 0.8), (5, 4.5, 0.3), (12, 1.0, 0.7)],
)
def test_lemma19_closed_form_matches_dual_solver(n, C, sigma):
    fx = rb.lemma19_databases(n, C, sigma)
    assert fx.N == rb.rbf_packing_size(sigma)
    assert fx.X.shape == (fx.N, n, 2)
    assert fx.gamma == pytest.approx(math.exp(-1.0 / (2.0 * sigma**2)))
    assert fx.gamma < 0.5
    pos = fx.X[:, -1, :]
    values = np.empty((fx.N, fx.N))  # values[i, j] = f_i(positive of database j)
    for i in range(fx.N):
        Xi = fx.X[i]
        alpha = _solve_box_dual(_rbf(Xi, Xi, sigma), fx.y.astype(float), C / n)
        # The positive point's box constraint is active (n > C).
        assert alpha[-1] == pytest.approx(C / n, abs=1e-12)
        # Only the negatives' sum is unique; it matches the closed form.
        assert np.sum(alpha[:-1]) == pytest.approx(np.sum(fx.alpha[:-1]), abs=1e-9)
        values[i] = (alpha * fx.y) @ _rbf(Xi, pos, sigma)
        closed = (fx.alpha * fx.y) @ _rbf(Xi, pos, sigma)
        np.testing.assert_allclose(values[i], closed, atol=1e-9)
    np.testing.assert_allclose(np.diag(values), fx.f_at_own_positive, atol=1e-9)
    # |f_i(x_{i,n}) − f_j(x_{i,n})|: minimum over j ≠ i is the stated separation,
    # which is ≥ C/(2n) and hence > 2ε for every ε < C/(4n).
    gaps = np.abs(np.diag(values)[None, :] - values)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() == pytest.approx(fx.separation, abs=1e-9)
    assert fx.separation >= C / (2 * n)


def test_lemma19_paper_alpha_slip():
    # The paper's (1 + Cγ/n)/(n − 1)² is not the solution; (1 + γC/n)/(n − 1) is.
    n, C, sigma = 6, 2.0, 0.5
    fx = rb.lemma19_databases(n, C, sigma)
    g = fx.gamma
    assert fx.alpha[0] == pytest.approx((1 + g * C / n) / (n - 1))
    assert fx.alpha[0] != pytest.approx((1 + g * C / n) / (n - 1) ** 2)


def test_lemma19_validation():
    with pytest.raises(ValueError, match="n > C"):
        rb.lemma19_databases(5, 5.0, 0.5)
    with pytest.raises(ValueError, match="sigma"):
        rb.lemma19_databases(5, 1.0, 0.85)
    with pytest.raises(ValueError):
        rb.lemma19_databases(1, 0.5, 0.5)
