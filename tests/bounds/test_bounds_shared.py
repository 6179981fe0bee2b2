# SPDX-License-Identifier: BSD-3-Clause
"""Known answers of the bound formulas that issue 11 moved into shared helpers.

Each expected value is the formula written out here independently, so a change
of a shared helper (validation, the Thm 4/5 form, the perturbation layer) that
alters a number fails.
"""

from __future__ import annotations

import inspect
import math

import pytest

from dpsvm.bounds import nie_wang as nw
from dpsvm.bounds import prediction as jt
from dpsvm.bounds import rubinstein as rb
from dpsvm.bounds import sarwate as sw
from dpsvm.margins import bounds as mb


@pytest.mark.parametrize("module", [nw, jt, rb, sw, mb])
def test_every_docstring_is_expanded(module):
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj):
            assert "{params:" not in obj.__doc__
            assert "{text:" not in obj.__doc__


@pytest.mark.parametrize(
    ("n", "C", "L", "kappa"),
    [(37, 3.0, 0.5, 2.5), (100, 1.0, 1.0, 1.0), (5, 0.2, 2.0, 1.0), (1000, 10.0, 1, 3)],
)
def test_rubinstein_sensitivity_known_answers(n, C, L, kappa):
    # Rubinstein et al. 2012, Lemma 6: 4LCκ/n; tight (1-strong convexity): 2LCκ/n.
    assert rb.finite_l2_sensitivity(n, C, L, kappa) == pytest.approx(
        4 * L * C * kappa / n, rel=1e-15
    )
    assert rb.finite_l2_sensitivity(n, C, L, kappa, tight=True) == pytest.approx(
        2 * L * C * kappa / n, rel=1e-15
    )


@pytest.mark.parametrize(
    ("eps", "n", "lam", "c"),
    [
        (0.05, 40_000, 1e-3, 1.0),  # ε′ > 0: Δ = 0
        (0.5, 1000, 0.01, 0.25),  # logistic c = 1/4, ε′ > 0
        (0.01, 1000, 1e-3, 1.0),  # ε′ ≤ 0: Δ > 0, ε′ = ε/2
        (0.1, 50, 0.1, 0.5),  # ε′ ≤ 0
    ],
)
def test_sarwate_objective_perturbation_known_answers(eps, n, lam, c):
    # Chaudhuri, Monteleoni & Sarwate 2011, Algorithm 2 steps 1–2:
    # ε′ = ε − ln(1 + 2c/(nΛ) + c²/(n²Λ²)); if ε′ ≤ 0, Δ = c/(n(e^{ε/4} − 1)) − Λ
    # and ε′ = ε/2, else Δ = 0.
    eps_prime = eps - math.log(1 + 2 * c / (n * lam) + c**2 / (n * lam) ** 2)
    delta_reg = 0.0
    if eps_prime <= 0:
        delta_reg = c / (n * (math.exp(eps / 4) - 1)) - lam
        eps_prime = eps / 2
    got_eps, got_delta = sw.objective_perturbation_epsilon_prime(eps, n, lam, c)
    assert got_eps == pytest.approx(eps_prime, rel=1e-9)
    assert got_delta == pytest.approx(delta_reg, rel=1e-9, abs=0.0)


@pytest.mark.parametrize(
    ("n", "lam", "L", "R"),
    [
        (50, 0.01, 0.25, 1.0),
        (50, 0.01, 0.25, 3.0),
        (100, 0.1, 1.0, 1.0),
        (7, 2.0, 1, 0.5),
    ],
)
def test_sarwate_output_sensitivity_known_answers(n, lam, L, R):
    # Chaudhuri, Monteleoni & Sarwate 2011, Corollary 8 with a row-norm bound R:
    # 2LR/(nΛ) (2L/(nΛ) on the unit ball).
    assert sw.output_perturbation_l2_sensitivity(n, lam, L=L, R=R) == pytest.approx(
        2 * L * R / (n * lam), rel=1e-15
    )
    if R == 1.0:
        assert sw.output_perturbation_l2_sensitivity(n, lam, L=L) == pytest.approx(
            2 * L / (n * lam), rel=1e-15
        )


@pytest.mark.parametrize(
    ("power", "fn"), [(2, sw.thm4_sample_complexity), (4, sw.thm5_sample_complexity)]
)
def test_sarwate_thm4_thm5_known_answers(power, fn):
    f, zeta, d, eps_p, eps_g, delta, const = 1.7, math.sqrt(2), 3, 0.5, 0.2, 0.01, 2.0
    vol = math.pi**1.5 / math.gamma(2.5)
    log_inv = math.log(1 / delta)
    expected = (
        const
        * f**power
        * zeta**2
        * vol**2
        * math.sqrt(log_inv)
        / (eps_p * eps_g**power)
        * (math.log(f * vol * zeta * log_inv / (eps_g * delta)) - math.lgamma(2.5))
    )
    assert fn(f, zeta, d, eps_p, eps_g, delta, const) == pytest.approx(
        expected, rel=1e-12
    )
    # An explicit volume replaces the unit ball's.
    assert fn(f, zeta, d, eps_p, eps_g, delta, const, volume=vol) == pytest.approx(
        expected, rel=1e-12
    )
    with pytest.raises(ValueError, match="delta"):
        fn(f, zeta, d, eps_p, eps_g, 1.0, const)


def test_jain_thakurta_bounds_known_answers():
    n, lam, eps, delta, beta, T, L, R, C = 1000, 0.1, 0.5, 1e-3, 0.05, 7, 2.0, 1.5, 3.0
    thm3 = C * R**2 * math.sqrt(L * math.log(T / beta)) * math.log(1 / delta) ** 2
    thm3 /= math.sqrt(n * eps * lam)
    assert jt.interactive_error_thm3(n, lam, eps, delta, beta, T, L, R, C) == (
        pytest.approx(thm3, rel=1e-14)
    )
    S, B = 0.3, 11
    thm10 = S * math.sqrt(B) * math.log(1 / delta) * math.log(T / beta) / eps
    assert jt.interactive_error_thm10(S, B, eps, delta, T, beta) == (
        pytest.approx(thm10, rel=1e-14)
    )
    radius = 4.0
    thm5 = (L * R) ** 1.5 * math.sqrt(radius * math.sqrt(math.log(1 / delta)))
    thm5 *= math.log(T / beta) / math.sqrt(n * eps * lam)
    assert jt.noisy_label_excess_loss_bound(
        n, eps, lam, L, R, radius, delta, T, beta
    ) == pytest.approx(thm5, rel=1e-14)
    with pytest.raises(ValueError, match="delta"):
        jt.interactive_error_thm3(n, lam, eps, 0.0, beta, T, L, R, C)


def test_nie_wang_thm2_known_answer_and_checks():
    # [NW] Thm 2: 2κC_L/(λγm).
    assert nw.nw_sensitivity_thm2(1.5, 2.0, 0.1, 2.0, 300) == pytest.approx(
        2 * 1.5 * 2.0 / (0.1 * 2.0 * 300), rel=1e-15
    )
    # Prop. 3 as printed goes through the same checks.
    with pytest.raises(ValueError, match="gamma"):
        nw.nw_prop3_bound(1.0, 1.0, 0.1, -2.0, 10, 0.5, "printed")
    with pytest.raises(TypeError, match="m must be an integer"):
        nw.nw_sensitivity_thm2(1.0, 1.0, 0.1, 2.0, 10.0)


def test_rubinstein_laplace_scales_known_answers():
    # Rubinstein et al. 2012, Thm 7: λ = 4LCκ√F/(βn) (tight: half);
    # Cor. 9: 2^{2.5}·L·C·√d̂/(βn).
    beta, n, C, L, kappa, F = 0.7, 33, 2.5, 0.5, 1.5, 6
    expected = 4 * L * C * kappa * math.sqrt(F) / (beta * n)
    assert rb.finite_noise_scale(beta, n, C, L, kappa, F) == pytest.approx(
        expected, rel=1e-14
    )
    assert rb.finite_noise_scale(beta, n, C, L, kappa, F, tight=True) == (
        pytest.approx(expected / 2, rel=1e-14)
    )
    assert rb.rff_noise_scale(beta, n, C, L, 3) == pytest.approx(
        2**2.5 * L * C * math.sqrt(3) / (beta * n), rel=1e-14
    )
    with pytest.raises(ValueError, match="kappa"):
        rb.finite_noise_scale(beta, n, C, L, 0.0, F)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Each range below is enforced by the parameter table, not the body.
        (
            lambda: nw.nw_sensitivity_thm1(1.0, 0.0, 2.0, 16),
            r"^lam must be > 0, got 0\.0",
        ),
        (
            lambda: nw.nw_param_rule_general(1, 1.0),
            r"^m must be an integer >= 2, got 1",
        ),
        (
            lambda: nw.nw_general_rate_exponent(1.5),
            r"^beta \(approximation-error exponent\) must be in \(0, 1\], got 1\.5",
        ),
        (lambda: nw.nw_ls_lipschitz(1.0, 1.0, 2.0), r"needs lam <= 1, got 2\.0"),
        (
            lambda: nw.nw_ls_noise_scale(1.0, 1.0, 2.0, 10, 1.0),
            r"needs lam <= 1, got 2\.0",
        ),
        (
            lambda: nw.nw_prop2_bound(1.0, 0.5, 0.0, 1.0, 1.0),
            r"^eps must be in the open interval \(0, 1\), got 1\.0",
        ),
        (
            lambda: nw.nw_thm4_rate_constant(1, 0, 1, 1, 2, 0, 1, "x"),
            r"^variant must be 'printed' or 'corrected', got 'x'",
        ),
        (
            lambda: nw.nw_prop3_bound(1, 1, 1, 2, 10, 0.5, noise_convention="x"),
            r"^noise_convention must be 'lemma1' or 'prop1', got 'x'",
        ),
        (
            lambda: rb.finite_max_noise_for_usefulness(0.1, 1.5, 1.0, 4),
            r"^delta must be in the open interval \(0, 1\), got 1\.5",
        ),
        (
            lambda: rb.rff_dhat_for_usefulness(0.1, 0.1, 2, math.inf, 2, 1, 1, 1),
            r"^sigma_p is infinite",
        ),
        (
            lambda: rb.rbf_lower_bound_min_delta(1.0, 0.9),
            r"need sigma < sqrt\(1/\(2 ln 2\)\) = 0\.849322, got sigma=0\.9",
        ),
        # Regression: this row called lemma19_databases without sigma and
        # matched the TypeError of the missing argument.
        (lambda: rb.lemma19_databases(4, 1.0, 0.0), r"^sigma must be > 0, got 0\.0"),
        (
            lambda: rb.sigma_p_squared("rbf", 0, sigma=1.0),
            r"^d must be an integer >= 1, got 0",
        ),
        (
            lambda: sw.objpert_noise_norm_quantile(3, 0.0, 0.1),
            r"^eps_p must be > 0, got 0\.0",
        ),
        (
            lambda: sw.lemma1_sample_complexity(1.0, 1.0, 0.0, 0.1),
            r"^eps_g must be > 0, got 0\.0",
        ),
        (
            lambda: sw.cor2_sample_complexity(1.0, 2, 1.0, 0.0, 0.1),
            r"^eps_g must be > 0, got 0\.0",
        ),
        (
            lambda: sw.thm5_sample_complexity(1.0, 0.0, 2, 1.0, 0.1, 0.01),
            r"^zeta must be > 0, got 0\.0",
        ),
        (
            lambda: sw.output_perturbation_l2_sensitivity(0, 0.1),
            r"^n must be an integer >= 1, got 0",
        ),
        (
            lambda: jt.weight_norm_bound(1.0, 0.0, 1.0),
            r"^kernel_bound must be > 0, got 0\.0",
        ),
        (
            lambda: jt.interactive_error_thm10(1.0, 3, 1.0, 0.0, 5, 0.1),
            r"^delta must be > 0 for this mechanism, got 0",
        ),
        (
            lambda: jt.noisy_label_count(0.0, 100, 1.0, 1.0, 1.0, 1.0, 0.1),
            r"^radius must be > 0, got 0\.0",
        ),
        (
            lambda: jt.noisy_label_scale(5, -1.0, 0.0, 1.0),
            r"^epsilon must be > 0, got -1\.0",
        ),
        (
            lambda: jt.data_independent_bound_thm8(9, 1, 0.1, 0.1, 1, 1, 1, 0, 1),
            r"^dimension must be an integer >= 1, got 0",
        ),
        (
            lambda: jt.kernel_prediction_sensitivity(1.0, -1.0, 0.1, 10),
            r"^kernel_bound must be > 0, got -1\.0",
        ),
        (
            lambda: mb.jl_erm_dimension(100, 0.0, 0.1, 0.1),
            r"^epsilon must be > 0, got 0\.0",
        ),
        (
            lambda: mb.rff_approximation_penalty(1, 1, 0.0, 100, 0.1, 10),
            r"^margin must be > 0, got 0\.0",
        ),
        (
            lambda: mb.rff_norm_inflation(100, 0.1, 0),
            r"^n_features must be an integer >= 1, got 0",
        ),
        (
            lambda: mb.label_dp_risk_bound(1.5, 100, 1.0, 0.1, 2.0),
            r"^emp_margin_error must be an error rate in \[0, 1\], got 1\.5",
        ),
        (
            lambda: mb.neural_cover_scale(1.0, 1.0, 1.0, 2, 0.0),
            r"^activation_scale must be > 0, got 0\.0",
        ),
        (
            lambda: mb.neural_jl_dimension(100, 0.1, 1, 1, 1, 2, 0.0),
            r"^activation_scale must be > 0, got 0\.0",
        ),
        (
            lambda: mb.margin_selection_bound([1.0], [0.1], 1.0, 100, 1.0),
            r"^beta must be in the open interval \(0, 1\), got 1\.0",
        ),
    ],
)
def test_table_checks_reject_out_of_range_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()
