# SPDX-License-Identifier: BSD-3-Clause
"""Bound calculators of Bassily, Mohri & Suresh (2022) against the worked examples."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpsvm.margins import bounds as B
from dpsvm.margins.losses import RhoHingeLoss

M, BETA = 10_000, 0.05


def test_alg1_dimension_and_cover_size_worked_example():
    # Λr/ρ = 4, m = 10⁴, β = 0.05, c′ = 1: k = ⌈16 ln(2·10⁵)⌉ = ⌈195.3⌉ ≈ 195.
    k = B.jl_em_dimension(M, BETA, 4.0, 1.0, 1.0)
    assert k == math.ceil(16 * math.log(2e5)) == 196
    # |C| = (20Λr/ρ)^k = 80^k: log10|C| ≈ 372.
    log10 = B.cover_log_size(k, 2 * 4.0, 1.0 / 10, kind="paper") / math.log(10)
    assert log10 == pytest.approx(k * math.log10(80))
    assert abs(log10 - 372) < 2


def test_alg1_explicit_dimension_worked_example():
    # ε_J = ρ/(3Λr) = 1/12, n = (m+1)(m+2)+1:
    # k = (4 ln n + 2 ln 20)/(ε_J²/2 − ε_J³/3) ≈ 25,000, log10|C| ≈ 48,000.
    n = (M + 1) * (M + 2) + 1
    e = 1 / 12
    k = B.jl_em_dimension_explicit(M, BETA, 4.0, 1.0, 1.0)
    assert k == math.ceil((4 * math.log(n) + 2 * math.log(20)) / (e**2 / 2 - e**3 / 3))
    assert 24_000 < k < 25_500
    log10 = B.cover_log_size(k, 8.0, 0.1, kind="paper") / math.log(10)
    assert log10 == pytest.approx(48_000, rel=0.05)


def test_alg2_dimension_worked_example():
    # k = εm ln(m/β)/(ln^{3/2}(1/δ) ln(1/β)) ≈ 1043 for m=10⁴, ε=1, δ=10⁻⁵.
    raw = M * math.log(M / BETA) / (math.log(1e5) ** 1.5 * math.log(20))
    assert raw == pytest.approx(1043, abs=0.5)
    assert B.jl_erm_dimension(M, 1.0, 1e-5, BETA) == math.ceil(raw)


def test_rff_dimension_worked_example():
    # D = m² ln(2m/β) ≈ 1.3·10⁹ for m = 10⁴, β = 0.05.
    assert B.rff_dimension(M, BETA) == pytest.approx(1.3e9, rel=0.01)


def test_margin_grid_worked_example():
    # J = ⌈½ log₂ 10⁴⌉ = 7; ρⱼ = 2^{−j} h_max from h_max/2.
    grid = B.margin_grid(2.0, M)
    np.testing.assert_allclose(grid, 2.0 * 2.0 ** -np.arange(1, 8))


def test_em_and_gem_gaps_known_answers():
    # 2(ln|C| + ln(1/β))/(εm) and 4Δ ln(K/β)/ε.
    assert B.em_gap(50, 2.0, 100, 0.1) == pytest.approx(
        2 * (math.log(50) + math.log(10)) / 200
    )
    assert B.gem_gap(0.5, 4, 2.0, 0.1) == pytest.approx(4 * 0.5 * math.log(40) / 2)


def test_label_dp_bound_explicit_constants():
    # c = 17; M = 1 + d log₂(2c²m) log₂(2cem/d) + ln(2/β).
    m, d, eps, r = 10**6, 3.0, 0.5, 0.04
    big_m = 1 + d * math.log2(2 * 17**2 * m) * math.log2(2 * 17 * math.e * m / d)
    big_m += math.log(2 / BETA)
    expected = (
        r
        + 2 * math.sqrt(r) * math.sqrt(big_m / m)
        + 2 * big_m / m
        + 64 * big_m * math.log(2 / BETA) / (eps * m)
    )
    assert B.label_dp_risk_bound(r, m, eps, BETA, d) == pytest.approx(expected)


def test_jl_em_explicit_chain():
    # R̂ + 2√(R̂V/m) + 2α + 8V/m, V = k ln(2m) + ln(16/β), α = 2(ln|C| + ln(4/β))/(εm).
    m, k, log_c, r = 10**5, 3, 20.0, 0.1
    v = k * math.log(2 * m) + math.log(16 / BETA)
    alpha = 2 * (log_c + math.log(4 / BETA)) / m
    expected = r + 2 * math.sqrt(r * v / m) + 2 * alpha + 8 * v / m
    got = B.jl_em_risk_bound(
        r, m, 1.0, BETA, 1.0, 1.0, 0.5, n_components=k, log_cover_size=log_c
    )
    assert got == pytest.approx(expected)


def test_thm32_bound_is_non_increasing_in_margin():
    vals = [
        B.jl_erm_risk_bound(0.2, M, 1.0, 1e-5, BETA, 1.0, 1.0, rho)
        for rho in (0.1, 0.2, 0.4, 0.8)
    ]
    assert all(a >= b for a, b in itertools.pairwise(vals))


def test_selection_sensitivity_is_the_hinge_range():
    # (1 + Λr/ρ)/m ≤ 2Λr/(mρ) (the paper's value) when ρ ≤ Λr.
    s = B.margin_bound_sensitivity("jl-erm", 100, norm_bound=2.0, margin=0.5)
    assert s == pytest.approx((1 + 4) / 100) and s <= 2 * 2 / (100 * 0.5)
    with pytest.raises(ValueError, match="fat_dim"):
        B.margin_bound_sensitivity("label-dp", 100)


def test_appendix_h_large_norm_hinge_minimizer():
    # r = 1, α = γ/2: E hinge(w) = α max(0, 1 + w) + (1 − α) max(0, 1 − wγ) is
    # minimized at w* = 1/γ with value (1 + γ)/2, and every w > 0 has zero-one
    # error α (App. H, Figs 1 and 3).
    gamma = 0.01
    alpha = gamma / 2
    hinge = RhoHingeLoss(1.0)
    w = np.linspace(0.0, 3 / gamma, 30_001)
    risk = alpha * hinge.value(-w * 1.0) + (1 - alpha) * hinge.value(w * gamma)
    assert w[np.argmin(risk)] == pytest.approx(1 / gamma, rel=1e-3)
    assert risk.min() == pytest.approx((1 + gamma) / 2, rel=1e-6)


def test_rff_error_theorem_41_on_random_data():
    # Gaussian kernel, ψ̂(x) = (1/√D)(cos⟨ωⱼ,x⟩, sin⟨ωⱼ,x⟩)ⱼ, ‖ψ̂‖ = r = 1 exactly;
    # inner-product error ≤ 2r²√(ln(m/β)/D) (Thm 4.1) on this draw.
    rng = np.random.default_rng(0)
    m, d, D = 40, 5, 2000
    X = rng.normal(size=(m, d)) / 2
    omega = rng.normal(size=(D, d))
    proj = X @ omega.T
    psi = np.hstack([np.cos(proj), np.sin(proj)]) / math.sqrt(D)
    np.testing.assert_allclose(np.linalg.norm(psi, axis=1), 1.0)
    sq = np.sum((X[:, None] - X[None]) ** 2, axis=2)
    err = np.abs(psi @ psi.T - np.exp(-sq / 2)).max()
    assert err <= B.rff_kernel_error(1.0, m, BETA, D)


def test_calculators_reject_bad_input():
    with pytest.raises(ValueError):
        B.jl_erm_dimension(100, 1.0, 1.5, BETA)
    with pytest.raises(ValueError, match="kind"):
        B.cover_log_size(2, 1.0, 0.1, kind="exact")
    with pytest.raises(ValueError, match="error rate"):
        B.relative_deviation_bound(1.5, 3, 100, BETA)


def test_jl_distortion_inverts_the_explicit_dimension():
    # ε_J = ρ/(3Λr) = 1/12 gives k ≈ 24,300; k back gives ε_J ≤ 1/12.
    k = B.jl_em_dimension_explicit(M, BETA, 4.0, 1.0, 1.0)
    e = B.jl_distortion(k, M, BETA)
    assert e <= 1 / 12 and B.jl_distortion(k - 1, M, BETA) > e
    assert math.isinf(B.jl_distortion(10, M, BETA))
