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

from dpsvm import perturbation
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


def test_rubinstein_sensitivity_is_the_perturbation_layers():
    # [R] Lemma 6: 4LCκ/n; tight (strong convexity): 2LCκ/n.
    n, C, L, kappa = 37, 3.0, 0.5, 2.5
    assert rb.finite_l2_sensitivity(n, C, L, kappa) == pytest.approx(
        4 * L * C * kappa / n, rel=1e-15
    )
    assert rb.finite_l2_sensitivity(n, C, L, kappa, tight=True) == pytest.approx(
        2 * L * C * kappa / n, rel=1e-15
    )
    assert rb.finite_l2_sensitivity(n, 1.0, L, 1.0) == (
        perturbation.rubinstein_l2_sensitivity(n, 1.0, L)
    )


def test_sarwate_calibrations_are_the_perturbation_layers():
    for eps, n, lam, c in [(0.05, 40_000, 1e-3, 1.0), (0.01, 1000, 1e-3, 1.0)]:
        cal = perturbation.objective_perturbation_calibration(eps, n, lam, c)
        assert sw.objective_perturbation_epsilon_prime(eps, n, lam, c) == (
            cal.epsilon_prime,
            cal.extra_regularization,
        )
    assert sw.output_perturbation_l2_sensitivity(50, 0.01, L=0.25) == (
        perturbation.output_l2_sensitivity(50, 0.01, 0.25)
    )
    # [CMS11] Cor. 8 with a row-norm bound R: 2LR/(nΛ).
    assert sw.output_perturbation_l2_sensitivity(50, 0.01, L=0.25, R=3.0) == (
        pytest.approx(2 * 0.25 * 3.0 / (50 * 0.01), rel=1e-15)
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
    # [R] Thm 7: λ = 4LCκ√F/(βn) (tight: half); Cor. 9: 2^{2.5}·L·C·√d̂/(βn).
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


def test_fill_and_check_params_checks_named_arguments_in_docstring_order():
    from dpsvm.utils._docstrings import fill_and_check_params

    seen = []

    def positive(value, name):
        seen.append(name)
        if not value > 0:
            raise ValueError(f"{name} must be > 0, got {value}.")
        return float(value)

    table = {"a": "int\nFirst.", "b": "float, default=2\nSecond.", "c": "int\nThird."}

    @fill_and_check_params(table, {"a": positive, "b": positive})
    def f(c, a, *, b=2):
        """Do.

        Parameters
        ----------
        {params: b a c}

        Returns
        -------
        tuple
            The arguments.
        """
        return c, a, b

    # Checked in the docstring's order, the default too; c has no check.
    assert f(-1, 3) == (-1, 3.0, 2.0)
    assert seen == ["b", "a"]
    with pytest.raises(ValueError, match="a must be > 0"):
        f(1, 0, b=5)
    with pytest.raises(ValueError, match="b must be > 0"):
        f(1, 1, b=0)
    # By keyword, too; a missing argument is still the call's TypeError.
    assert f(c=1, a=2, b=3) == (1, 2.0, 3.0)
    with pytest.raises(ValueError, match="a must be > 0"):
        f(c=1, a=-2)
    with pytest.raises(TypeError):
        f(1)
    assert "a : int\n            First." in f.__doc__
    assert list(inspect.signature(f).parameters) == ["c", "a", "b"]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Each range below is enforced by the parameter table, not the body.
        (lambda: nw.nw_sensitivity_thm1(1.0, 0.0, 2.0, 16), "lam"),
        (lambda: nw.nw_param_rule_general(1, 1.0), "m"),
        (lambda: nw.nw_general_rate_exponent(1.5), "beta"),
        (lambda: nw.nw_ls_lipschitz(1.0, 1.0, 2.0), "lam <= 1"),
        (lambda: nw.nw_ls_noise_scale(1.0, 1.0, 2.0, 10, 1.0), "lam <= 1"),
        (lambda: nw.nw_prop2_bound(1.0, 0.5, 0.0, 1.0, 1.0), "eps"),
        (lambda: nw.nw_thm4_rate_constant(1, 0, 1, 1, 2, 0, 1, "x"), "variant"),
        (lambda: nw.nw_prop3_bound(1, 1, 1, 2, 10, 0.5, noise_convention="x"), "noise"),
        (lambda: rb.finite_max_noise_for_usefulness(0.1, 1.5, 1.0, 4), "delta"),
        (lambda: rb.rff_dhat_for_usefulness(0.1, 0.1, 2, math.inf, 2, 1, 1, 1), "inf"),
        (lambda: rb.rbf_lower_bound_min_delta(1.0, 0.9), "sigma"),
        (lambda: rb.lemma19_databases(1.0, 1.0), "sigma"),
        (lambda: rb.sigma_p_squared("rbf", 0, sigma=1.0), "d"),
        (lambda: sw.objpert_noise_norm_quantile(3, 0.0, 0.1), "eps_p"),
        (lambda: sw.lemma1_sample_complexity(1.0, 1.0, 0.0, 0.1), "eps_g"),
        (lambda: sw.cor2_sample_complexity(1.0, 2, 1.0, 0.0, 0.1), "eps_g"),
        (lambda: sw.thm5_sample_complexity(1.0, 0.0, 2, 1.0, 0.1, 0.01), "zeta"),
        (lambda: sw.output_perturbation_l2_sensitivity(0, 0.1), "n"),
        (lambda: jt.weight_norm_bound(1.0, 0.0, 1.0), "kernel_bound"),
        (lambda: jt.interactive_error_thm10(1.0, 3, 1.0, 0.0, 5, 0.1), "delta"),
        (lambda: jt.noisy_label_count(0.0, 100, 1.0, 1.0, 1.0, 1.0, 0.1), "radius"),
        (lambda: jt.noisy_label_scale(5, -1.0, 0.0, 1.0), "epsilon"),
        (lambda: jt.data_independent_bound_thm8(9, 1, 0.1, 0.1, 1, 1, 1, 0, 1), "dim"),
        (lambda: jt.kernel_prediction_sensitivity(1.0, -1.0, 0.1, 10), "kernel_bound"),
        (lambda: mb.jl_erm_dimension(100, 0.0, 0.1, 0.1), "epsilon"),
        (lambda: mb.rff_approximation_penalty(1, 1, 0.0, 100, 0.1, 10), "margin"),
        (lambda: mb.rff_norm_inflation(100, 0.1, 0), "n_features"),
        (lambda: mb.label_dp_risk_bound(1.5, 100, 1.0, 0.1, 2.0), "error rate"),
        (lambda: mb.neural_cover_scale(1.0, 1.0, 1.0, 2, 0.0), "activation_scale"),
        (lambda: mb.neural_jl_dimension(100, 0.1, 1, 1, 1, 2, 0.0), "activation"),
        (lambda: mb.margin_selection_bound([1.0], [0.1], 1.0, 100, 1.0), "beta"),
    ],
)
def test_table_checks_reject_out_of_range_arguments(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
