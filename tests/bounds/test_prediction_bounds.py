# SPDX-License-Identifier: BSD-3-Clause
"""Known-answer tests of dpsvm.bounds.prediction (Jain & Thakurta 2013)."""

from __future__ import annotations

import math

import pytest

from dpsvm.bounds import prediction as bp
from dpsvm.models.nie_wang import prediction_sensitivity


def test_sensitivity_agrees_with_both_conventions():
    # S = 2LR²/(λ_JT n) = 2κ²C_L/(λ_NW γ n) with λ_JT = 2λ_NW, γ = 2.
    s = bp.kernel_prediction_sensitivity(1.5, 2.0, 0.2, 100)
    assert s == pytest.approx(2 * 1.5 * 4 / (0.2 * 100))
    assert s == pytest.approx(
        prediction_sensitivity(2.0, 1.5, 0.1, 100, convention="nie-wang")
    )


def test_vacuity_example():
    # n = 1e5, λ = 1e-3, ε = 1, L = R = 1, T = 1e4, β = 0.05, δ = 1e-6, C = 2000:
    # printed B ≈ 25 900, ε₀ ≈ 2.0e-4 (Alg. 1), σ ≈ 2.5e5 ≫ C·R = 2000.
    C = bp.weight_norm_bound(1.0, 1.0, 1e-3)
    assert C == 2000.0
    p = bp.interactive_parameters(
        10**5, 1e-3, 1.0, 1e-6, 0.05, 10**4, 1.0, 1.0, C, constants="alg1"
    )
    assert p.max_updates == pytest.approx(25_900, rel=1e-3)
    assert p.eps0 == pytest.approx(2.04e-4, rel=1e-2)
    assert p.threshold == pytest.approx(2.52e5, rel=1e-2)
    assert p.vacuous and p.max_prediction == 2000.0
    # Theorem 9's ε₀ is half of Alg. 1's for the same B.
    q = bp.interactive_parameters(
        10**5, 1e-3, 1.0, 1e-6, 0.05, 10**4, 1.0, 1.0, C, constants="thm9"
    )
    assert q.max_updates == p.max_updates and q.eps0 == pytest.approx(p.eps0 / 2)
    assert q.step == pytest.approx(q.threshold / 4)


def test_potential_rule_is_self_consistent():
    # B = 16R²C²/(3σ²) with σ = σ(B): check the fixed point before flooring.
    p = bp.interactive_parameters(
        10**6, 1e-2, 10.0, 1e-6, 0.05, 100, 1.0, 1.0, 200.0, B_rule="potential"
    )
    B = p.max_updates
    assert 16 * 200.0**2 / (3 * p.threshold**2) == pytest.approx(B, rel=0.2)


@pytest.mark.parametrize(
    ("eps", "T", "nu"),
    [
        (0.1, 100, 8.4),
        (0.1, 1000, 26.7),
        (0.1, 10_000, 84),
        (1.0, 100, 0.87),
        (1.0, 1000, 2.75),
        (1.0, 10_000, 8.7),
    ],
)
def test_covertype_noise_table(eps, T, nu):
    # R² = 8 (cubic kernel on the unit ball), λ = 0.002, n = 500 000: S = 0.016.
    S = bp.kernel_prediction_sensitivity(1.0, math.sqrt(8), 0.002, 500_000)
    assert S == pytest.approx(0.016)
    assert bp.noisy_label_scale(T, eps, 1e-6, S) == pytest.approx(nu, rel=0.03)


def test_noise_scale_basic_for_zero_delta_and_never_worse():
    assert bp.noisy_label_scale(10, 1.0, 0.0, 0.5) == pytest.approx(5.0)
    assert bp.noisy_label_scale(2, 1.0, 1e-6, 0.5) == pytest.approx(1.0)


def test_label_count_and_bounds():
    # Cor. 6: ball 2LR/λ gives T = 2nε/√ln(1/δ).
    T = bp.noisy_label_count(2.0, 1000, 0.5, 1.0, 1.0, 1.0, 1e-6)
    assert T == math.floor(2 * 1000 * 0.5 / math.sqrt(math.log(1e6)))
    assert (
        bp.noisy_label_count(2.0, 1000, 0.5, 1.0, 1.0, 1.0, 1e-6, n_available=10) == 10
    )
    # Thm 5 grows like ln(T/β) and shrinks like 1/√n.
    a = bp.noisy_label_excess_loss_bound(100, 1.0, 1.0, 1.0, 1.0, 1.0, 1e-6, 10, 0.1)
    b = bp.noisy_label_excess_loss_bound(400, 1.0, 1.0, 1.0, 1.0, 1.0, 1e-6, 10, 0.1)
    assert a == pytest.approx(2 * b)
    e3 = bp.interactive_error_thm3(100, 1.0, 1.0, 1e-6, 0.1, 10, 1.0, 1.0, 2.0)
    assert e3 == pytest.approx(2 * math.sqrt(math.log(100)) * math.log(1e6) ** 2 / 10)
    e10 = bp.interactive_error_thm10(0.1, 9, 1.0, 1e-6, 10, 0.1)
    assert e10 == pytest.approx(0.1 * 3 * math.log(1e6) * math.log(100))


def test_tdil_printed_is_not_private_and_honest_fits():
    # n = 1e5, λ = 1e-2, ε = 1, L = R = 1, δ = 1e-6: B ≈ 66, ε₀ ≈ 0.81, each
    # printed exponential-mechanism step costs ε₀/2 ≈ 0.41.
    p = bp.data_independent_parameters(10**5, 1.0, 1e-6, 0.05, 1e-2, 1.0, 1.0, 5, 1.0)
    assert p.n_rounds in (65, 66)
    assert p.eps0 == pytest.approx(0.81, rel=0.02)
    assert p.printed_em_epsilon == pytest.approx(0.41, rel=0.02)
    # Composing the printed steps alone overshoots ε = 1 many times over.
    from dpsvm.accounting import advanced_composition

    eps_adv, _ = advanced_composition([(p.printed_em_epsilon, 0)] * p.n_rounds, 1e-6)
    assert eps_adv > 20
    # ν-net of radius ≈ 6e-5 has ≈ 1e24 points for d = 5.
    assert p.net_radius == pytest.approx(6.2e-5, rel=0.03)
    assert 1e23 < p.net_size < 1e25
    # Honest: B rounds of ε_r compose to ε = 1.
    eps_h, _ = advanced_composition([(p.round_epsilon, 0)] * p.n_rounds, 1e-6)
    assert min(eps_h, p.round_epsilon * p.n_rounds) <= 1.0 + 1e-9
    assert p.em_epsilon == pytest.approx(p.laplace_epsilon)
    S = bp.kernel_prediction_sensitivity(1.0, 1.0, 1e-2, 10**5)
    assert p.threshold == pytest.approx(
        8 * S / p.laplace_epsilon * math.log(2 * p.n_rounds / 0.05)
    )


def test_thm8_forms_differ_in_exponents():
    kw = dict(
        n_samples=1000,
        epsilon=1.0,
        delta=1e-6,
        beta=0.1,
        lam=0.1,
        lipschitz=1.0,
        kernel_bound=2.0,
        dimension=3,
        feature_lipschitz=0.5,
    )
    printed = bp.data_independent_bound_thm8(**kw)
    proof = bp.data_independent_bound_thm8(**kw, form="proof")
    # ratio = R²·λ^{4/3}/λ^{5/3}·... = R² / λ^{1/3}
    assert proof / printed == pytest.approx(4 / 0.1 ** (1 / 3))
    with pytest.raises(ValueError, match="form"):
        bp.data_independent_bound_thm8(**kw, form="x")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(constants="x"), "constants"),
        (dict(B_rule="x"), "B_rule"),
        (dict(B_rule=0), "B_rule"),
    ],
)
def test_interactive_parameters_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bp.interactive_parameters(
            100, 1.0, 1.0, 1e-6, 0.05, 10, 1.0, 1.0, 2.0, **kwargs
        )
