# SPDX-License-Identifier: BSD-3-Clause
"""Tests for dpsvm.bounds.nie_wang (Nie & Wang, J. Inequal. Appl.)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpsvm.bounds
from dpsvm.bounds import nie_wang as nw

SQRT_2PI = math.sqrt(2.0 * math.pi)


def test_package_exports_the_bound_modules():
    assert set(dpsvm.bounds.__all__) == {
        "nie_wang",
        "prediction",
        "rubinstein",
        "sarwate",
    }
    for name in dpsvm.bounds.__all__:
        assert getattr(dpsvm.bounds, name).__name__ == f"dpsvm.bounds.{name}"


# ---------------------------------------------------------------------------
# Sensitivities (Thm 1, Thm 2, B_Δ)
# ---------------------------------------------------------------------------


def test_thm1_worked_value():
    # √(16B/(λγm)) = √(16·2/(0.25·2·4)) = √16 = 4; sup-norm version ×κ.
    assert nw.nw_sensitivity_thm1(2.0, 0.25, 2.0, 4) == pytest.approx(4.0)
    assert nw.nw_sup_sensitivity_thm1(1.5, 2.0, 0.25, 2.0, 4) == pytest.approx(6.0)


def test_thm2_and_sup_sensitivity_worked_values():
    # Δ_H = 2κC_L/(λγm) = 2·2·0.5/(0.1·2·100) = 0.1; B_Δ = κΔ_H = 0.2.
    assert nw.nw_sensitivity_thm2(2.0, 0.5, 0.1, 2.0, 100) == pytest.approx(0.1)
    assert nw.nw_sup_sensitivity(2.0, 0.5, 0.1, 2.0, 100) == pytest.approx(0.2)


@settings(max_examples=60, deadline=None)
@given(
    R=st.floats(min_value=0.01, max_value=100.0),
    L=st.floats(min_value=0.01, max_value=100.0),
    lam=st.floats(min_value=1e-6, max_value=10.0),
    n=st.integers(min_value=1, max_value=10**6),
)
def test_nw_and_jt_conventions_agree(R, L, lam, n):
    # Nie & Wang Thm 2 = Jain & Thakurta eq. (3): λ‖f‖²_K (γ = 2) is (λ_JT/2)‖w‖²
    # with λ_JT = 2λ, and
    # Δ_H = 2LR/(λ_JT n), S = 2LR²/(λ_JT n).
    lam_jt = 2.0 * lam
    assert nw.nw_sensitivity_thm2(R, L, lam, 2.0, n) == pytest.approx(
        2.0 * L * R / (lam_jt * n), rel=1e-12
    )
    assert nw.nw_sup_sensitivity(R, L, lam, 2.0, n) == pytest.approx(
        2.0 * L * R**2 / (lam_jt * n), rel=1e-12
    )


def test_sensitivity_monotone():
    base = nw.nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 100)
    assert nw.nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 200) < base
    assert nw.nw_sensitivity_thm2(1.0, 1.0, 0.2, 2.0, 100) < base
    assert nw.nw_sensitivity_thm2(2.0, 1.0, 0.1, 2.0, 100) > base
    assert nw.nw_sensitivity_thm2(1.0, 2.0, 0.1, 2.0, 100) > base


# ---------------------------------------------------------------------------
# Noise scales and the factor-2 erratum
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("m", "expected_lam_eps", "lemma1", "prop1"),
    [(10**3, 0.1, 0.1, 0.05), (10**6, 0.01, 0.01, 0.005)],
)
def test_spec_worked_values_hinge(m, expected_lam_eps, lemma1, prop1):
    # Nie & Wang Thm 4 rule and Sec. 5.2: hinge, κ = 1, β = 1: λ = ε = m^{−1/3};
    # Lemma-1 scale κ²/(λmε),
    # Prop-1 scale half of it.
    lam, eps = nw.nw_param_rule_general(m, 1.0)
    assert lam == pytest.approx(expected_lam_eps, rel=1e-12)
    assert eps == pytest.approx(expected_lam_eps, rel=1e-12)
    assert nw.nw_svm_noise_scale(1.0, lam, m, eps) == pytest.approx(lemma1, rel=1e-9)
    assert nw.nw_svm_noise_scale(1.0, lam, m, eps, "prop1") == pytest.approx(
        prop1, rel=1e-9
    )
    # The SVM scale is the general one with C_L = 1 and γ = 2.
    assert nw.nw_noise_scale(1.0, 1.0, lam, 2.0, m, eps) == pytest.approx(
        nw.nw_svm_noise_scale(1.0, lam, m, eps)
    )


@settings(max_examples=50, deadline=None)
@given(
    kappa=st.floats(min_value=0.1, max_value=10.0),
    C_L=st.floats(min_value=0.1, max_value=10.0),
    lam=st.floats(min_value=1e-4, max_value=10.0),
    m=st.integers(min_value=1, max_value=10**6),
    eps=st.floats(min_value=1e-3, max_value=10.0),
)
def test_lemma1_scale_is_twice_prop1_and_equals_sensitivity_over_eps(
    kappa, C_L, lam, m, eps
):
    lemma1 = nw.nw_noise_scale(kappa, C_L, lam, 2.0, m, eps)
    prop1 = nw.nw_noise_scale(kappa, C_L, lam, 2.0, m, eps, "prop1")
    assert lemma1 == pytest.approx(2.0 * prop1, rel=1e-12)
    assert lemma1 == pytest.approx(
        nw.nw_sup_sensitivity(kappa, C_L, lam, 2.0, m) / eps, rel=1e-12
    )


def test_ls_lipschitz_and_noise():
    # C_L = 2M(κ+1)/√λ = 2·2·3/0.5 = 24 (M = 2, κ = 2, λ = ¼).
    assert nw.nw_ls_lipschitz(2.0, 2.0, 0.25) == pytest.approx(24.0)
    # α_ls = 2Mκ²(κ+1)/(λ^{3/2}mε) = 2·2·4·3/(0.125·10·0.5) = 48/0.625 = 76.8.
    assert nw.nw_ls_noise_scale(2.0, 2.0, 0.25, 10, 0.5) == pytest.approx(76.8)
    assert nw.nw_ls_noise_scale(2.0, 2.0, 0.25, 10, 0.5, "prop1") == pytest.approx(38.4)
    with pytest.raises(ValueError, match="lam <= 1"):
        nw.nw_ls_lipschitz(1.0, 1.0, 1.5)


def test_ls_second_moment_printed_formula():
    # Printed: E b² = 2M²κ⁴(κ+1)²/(λ³m²ε²), which is the Prop-1 noise's 2·(α_ls/2)².
    M, kappa, lam, m, eps = 1.5, 0.8, 0.3, 50, 0.4
    printed = 2 * M**2 * kappa**4 * (kappa + 1) ** 2 / (lam**3 * m**2 * eps**2)
    assert nw.nw_ls_noise_second_moment(M, kappa, lam, m, eps, "prop1") == (
        pytest.approx(printed, rel=1e-12)
    )
    assert nw.nw_ls_noise_second_moment(M, kappa, lam, m, eps) == pytest.approx(
        4.0 * printed, rel=1e-12
    )


# ---------------------------------------------------------------------------
# Section 4 error analysis
# ---------------------------------------------------------------------------


def test_thm3_and_props_worked_values():
    assert nw.nw_thm3_bound(3.0, 0.5) == pytest.approx(3.0)  # 2Gε
    # Prop 2: corrected 2(B₀ + λΩ(0))ε + 2ε·ER₂ = 2·(1 + 0.5·2)·0.1 + 2·0.1·3 = 1.0;
    # printed doubles the first term: 0.8 + 0.6 = 1.4.
    assert nw.nw_prop2_bound(1.0, 0.5, 2.0, 0.1, 3.0) == pytest.approx(1.0)
    assert nw.nw_prop2_bound(1.0, 0.5, 2.0, 0.1, 3.0, "printed") == pytest.approx(1.4)
    # Prop 4: 2√(2π)B_ρ/√m = 2√(2π)·3/10.
    assert nw.nw_prop4_bound(3.0, 100) == pytest.approx(0.6 * SQRT_2PI)


def test_prop3_variants():
    kappa, C_L, lam, gamma, m, eps = 1.2, 3.0, 0.2, 2.0, 500, 0.3
    base = kappa**2 / (lam * gamma * m * eps)
    # Printed κ²C_L/(λγmε) drops a factor C_L.
    assert nw.nw_prop3_bound(kappa, C_L, lam, gamma, m, eps, "printed") == (
        pytest.approx(base * C_L)
    )
    # Corrected: C_L·E|b|; Prop-1 noise κ²C_L²/(λγmε), Lemma-1 noise twice that.
    assert nw.nw_prop3_bound(kappa, C_L, lam, gamma, m, eps, "corrected", "prop1") == (
        pytest.approx(base * C_L**2)
    )
    assert nw.nw_prop3_bound(kappa, C_L, lam, gamma, m, eps) == pytest.approx(
        2 * base * C_L**2
    )
    # For the hinge (C_L = 1) the printed value is the corrected Prop-1 one.
    assert nw.nw_prop3_bound(kappa, 1.0, lam, gamma, m, eps, "printed") == (
        pytest.approx(
            nw.nw_prop3_bound(kappa, 1.0, lam, gamma, m, eps, "corrected", "prop1")
        )
    )


def test_thm4_printed_formula():
    # 2(B₀+λΩ(0))ε + (1+2ε)κ²C_L/(λγmε) + 2√(2π)B_ρ/√m + c_βλ^β.
    m, lam, eps, B0, Om, kappa, C_L, gamma, Br, cb, beta = (
        400,
        0.3,
        0.2,
        1.5,
        0.5,
        1.1,
        2.0,
        2.0,
        0.7,
        1.3,
        0.6,
    )
    expected = (
        2 * (B0 + lam * Om) * eps
        + (1 + 2 * eps) * kappa**2 * C_L / (lam * gamma * m * eps)
        + 2 * SQRT_2PI * Br / math.sqrt(m)
        + cb * lam**beta
    )
    got = nw.nw_thm4_bound(
        m, lam, eps, B0, Om, kappa, C_L, gamma, Br, cb, beta, "printed"
    )
    assert got == pytest.approx(expected, rel=1e-12)
    # Corrected with Lemma-1 noise replaces κ²C_L by 2κ²C_L² in the R₂ terms.
    corrected = expected + (1 + 2 * eps) * (2 * kappa**2 * C_L**2 - kappa**2 * C_L) / (
        lam * gamma * m * eps
    )
    assert nw.nw_thm4_bound(
        m, lam, eps, B0, Om, kappa, C_L, gamma, Br, cb, beta
    ) == pytest.approx(corrected, rel=1e-12)


@pytest.mark.parametrize("m", [10, 1000, 10**6])
@pytest.mark.parametrize("beta", [0.25, 0.5, 1.0])
@pytest.mark.parametrize("convention", ["lemma1", "prop1"])
def test_corrected_rate_constant_dominates_bound_under_rule(m, beta, convention):
    args = dict(
        B0=1.0, Omega0=0.5, kappa=1.3, C_L=1.7, gamma=2.0, B_rho=2.0, c_beta=0.8
    )
    lam, eps = nw.nw_param_rule_general(m, beta)
    bound = nw.nw_thm4_bound(
        m,
        lam,
        eps,
        args["B0"],
        args["Omega0"],
        args["kappa"],
        args["C_L"],
        args["gamma"],
        args["B_rho"],
        args["c_beta"],
        beta,
        "corrected",
        convention,
    )
    K = nw.nw_thm4_rate_constant(**args, noise_convention=convention)
    rate = m ** (-nw.nw_general_rate_exponent(beta))
    assert bound <= K * rate * (1 + 1e-12)


def test_printed_rate_constant_omits_sample_error_term():
    # With a large B_ρ the printed constant no longer bounds the printed display.
    m, beta = 10, 1.0
    lam, eps = nw.nw_param_rule_general(m, beta)
    bound = nw.nw_thm4_bound(
        m, lam, eps, 1.0, 0.0, 1.0, 1.0, 2.0, 10.0, 1.0, beta, "printed"
    )
    K = nw.nw_thm4_rate_constant(1.0, 0.0, 1.0, 1.0, 2.0, 10.0, 1.0, "printed")
    assert bound > K * m ** (-nw.nw_general_rate_exponent(beta))
    # The printed constant is 2B₀ + 2Ω(0) + 3κ²C_L/γ + c_β = 2 + 1.5 + 1.
    assert K == pytest.approx(4.5)


# ---------------------------------------------------------------------------
# Parameter rules and rates
# ---------------------------------------------------------------------------


def test_general_rule_half():
    # β = ½: λ = m^{−1/2}, ε = 1/√(λm) = m^{−1/4}.
    lam, eps = nw.nw_param_rule_general(10**4, 0.5)
    assert lam == pytest.approx(0.01)
    assert eps == pytest.approx(0.1)
    assert nw.nw_general_rate_exponent(0.5) == pytest.approx(0.25)


def test_ls_rule():
    # r = ¼ → β = ½: λ = m^{−2/(4.5)} = m^{−4/9}, ε = 1/(λm^{2/3}) = m^{−2/9}, rate 2/9.
    m = 10**6
    lam, eps, rate = nw.nw_param_rule_ls(m, 0.25)
    assert lam == pytest.approx(m ** (-4 / 9))
    assert eps == pytest.approx(m ** (-2 / 9))
    assert eps == pytest.approx(1.0 / (lam * m ** (2 / 3)))
    assert rate == pytest.approx(2 / 9)
    # r ≥ ½ saturates at β = 1: λ = ε = m^{−1/3}, rate 1/3.
    lam, eps, rate = nw.nw_param_rule_ls(m, 3.0)
    assert (lam, eps, rate) == (
        pytest.approx(0.01),
        pytest.approx(0.01),
        pytest.approx(1 / 3),
    )


def test_svm_rate_exponent():
    # β/(2(2β+1)) with β = min{r, 1}: r = 1 → 1/6; r = ½ → 1/8; r = 3 → 1/6.
    assert nw.nw_svm_rate_exponent(1.0) == pytest.approx(1 / 6)
    assert nw.nw_svm_rate_exponent(0.5) == pytest.approx(1 / 8)
    assert nw.nw_svm_rate_exponent(3.0) == pytest.approx(1 / 6)
    lam, eps, rate = nw.nw_param_rule_svm(10**3, 0.5)
    assert (lam, eps) == nw.nw_param_rule_general(10**3, 0.5)
    assert rate == pytest.approx(1 / 8)


def test_rules_make_eps_decrease_with_m():
    # Nie & Wang Thm 4 rule ε = 1/√(λm): ε(m) decreases (privacy gets stronger as
    # m grows).
    e1 = nw.nw_param_rule_general(100, 1.0)[1]
    e2 = nw.nw_param_rule_general(10_000, 1.0)[1]
    assert e2 < e1 < 1.0


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc"),
    [
        (lambda: nw.nw_sensitivity_thm1(0.0, 0.1, 2.0, 10), ValueError),
        (lambda: nw.nw_sensitivity_thm2(1.0, 1.0, 0.0, 2.0, 10), ValueError),
        (lambda: nw.nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 0), ValueError),
        (lambda: nw.nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 2.5), TypeError),
        (lambda: nw.nw_noise_scale(1.0, 1.0, 0.1, 2.0, 10, 0.0), ValueError),
        (lambda: nw.nw_noise_scale(1.0, 1.0, 0.1, 2.0, 10, 0.5, "lemma2"), ValueError),
        (lambda: nw.nw_thm3_bound(1.0, 1.0), ValueError),
        (lambda: nw.nw_thm3_bound(-1.0, 0.5), ValueError),
        (lambda: nw.nw_prop2_bound(1.0, 0.1, 0.0, 0.5, 1.0, "typo"), ValueError),
        (lambda: nw.nw_prop4_bound(1.0, 0), ValueError),
        (
            lambda: nw.nw_thm4_bound(10, 0.1, 0.5, 1, 0, 1, 1, 2, 1, 1, 1.5),
            ValueError,
        ),
        (
            lambda: nw.nw_thm4_bound(10, 0.1, 1.5, 1, 0, 1, 1, 2, 1, 1, 1.0),
            ValueError,
        ),
        (lambda: nw.nw_param_rule_general(1, 1.0), ValueError),
        (lambda: nw.nw_param_rule_general(100, 0.0), ValueError),
        (lambda: nw.nw_param_rule_ls(100, -1.0), ValueError),
        (lambda: nw.nw_svm_rate_exponent(0.0), ValueError),
        (lambda: nw.nw_general_rate_exponent(2.0), ValueError),
    ],
)
def test_invalid_inputs(call, exc):
    with pytest.raises(exc):
        call()
