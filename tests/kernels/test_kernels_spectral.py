# SPDX-License-Identifier: BSD-3-Clause
"""Spectral samplers, second moments and exact kernels.

The laws are those of Rubinstein et al. (2012), Table 1, corrected as in
``docs/kernels.md``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.bounds.rubinstein import sigma_p_squared
from dpsvm.kernels import (
    check_gamma,
    kernel_matrix,
    sample_frequencies,
    spectral_second_moment,
)

ALPHA = 1e-3  # significance of the seeded distribution tests


@pytest.mark.parametrize("gamma", [0.5, 2.0])
def test_rbf_frequencies_are_normal_with_variance_two_gamma(gamma):
    # exp(−γ‖Δ‖²) = E cos⟨ω,Δ⟩ for ω ~ N(0, 2γI) (Sarwate et al. 2009, §4.2).
    W = sample_frequencies("rbf", gamma, 4, 2000, random_state=1)
    assert W.shape == (4, 2000)
    assert stats.kstest(W.ravel() / math.sqrt(2 * gamma), "norm").pvalue > ALPHA


def test_gaussian_is_an_alias_of_rbf():
    a = sample_frequencies("gaussian", 0.5, 3, 10, random_state=3)
    b = sample_frequencies("rbf", 0.5, 3, 10, random_state=3)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("gamma", [0.5, 3.0])
def test_laplacian_frequencies_are_cauchy_with_scale_gamma(gamma):
    # exp(−γ|Δ|) is the characteristic function of Cauchy(0, γ).
    W = sample_frequencies("laplacian", gamma, 3, 3000, random_state=2)
    assert stats.kstest(W.ravel() / gamma, "cauchy").pvalue > ALPHA


@pytest.mark.parametrize("gamma", [1.0, 0.25])
def test_cauchy_frequencies_are_laplace_with_scale_sqrt_gamma(gamma):
    # 1/(1 + γΔ²) is the characteristic function of Laplace(0, √γ) (correction of
    # Rubinstein et al. 2012, Table 1: the normalised Cauchy kernel has
    # Laplace(0, 1) frequencies for γ = 1).
    W = sample_frequencies("cauchy", gamma, 3, 3000, random_state=4)
    assert stats.kstest(W.ravel() / math.sqrt(gamma), "laplace").pvalue > ALPHA


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "cauchy"])
def test_characteristic_function_matches_the_kernel(kernel):
    # Monte-Carlo E cos⟨ω, Δ⟩ over 200,000 frequencies equals g(Δ) within 5 sd.
    gamma, delta = 0.8, np.array([0.3, -0.5])
    W = sample_frequencies(kernel, gamma, 2, 200_000, random_state=5)
    c = np.cos(delta @ W)
    exact = kernel_matrix(delta[None, :], np.zeros((1, 2)), kernel=kernel, gamma=gamma)
    assert abs(c.mean() - exact[0, 0]) < 5 * c.std() / math.sqrt(c.size)


def test_second_moments_agree_with_the_bounds_module():
    # σ_p² = E‖ω‖²: RBF 2γd (= d/σ², σ = 1/√(2γ)); normalised Cauchy 2d at γ = 1.
    d = 5
    assert spectral_second_moment("rbf", 0.5, d) == sigma_p_squared(
        "gaussian", d, gamma=0.5
    )
    assert spectral_second_moment("rbf", 2.0, d) == pytest.approx(
        sigma_p_squared("rbf", d, sigma=0.5)
    )
    assert spectral_second_moment("cauchy", 1.0, d) == sigma_p_squared("cauchy", d)
    assert math.isinf(spectral_second_moment("laplacian", 1.0, d))


@pytest.mark.parametrize("kernel,gamma", [("rbf", 0.7), ("cauchy", 1.5)])
def test_second_moment_matches_the_sampled_frequencies(kernel, gamma):
    W = sample_frequencies(kernel, gamma, 3, 20_000, random_state=6)
    sq = np.sum(W * W, axis=0)
    expected = spectral_second_moment(kernel, gamma, 3)
    assert abs(sq.mean() - expected) < 5 * sq.std() / math.sqrt(sq.size)


def test_exact_kernels_match_their_formulas():
    X = np.array([[0.0, 0.0], [1.0, -2.0]])
    d1, d2 = 3.0, 5.0  # ‖Δ‖₁ and ‖Δ‖₂² of the pair
    g = 0.5
    assert kernel_matrix(X, kernel="rbf", gamma=g)[0, 1] == pytest.approx(
        math.exp(-g * d2)
    )
    assert kernel_matrix(X, kernel="laplacian", gamma=g)[0, 1] == pytest.approx(
        math.exp(-g * d1)
    )
    # ∏ 1/(1 + γΔᵢ²) = 1/((1 + 0.5)(1 + 2))
    assert kernel_matrix(X, kernel="cauchy", gamma=g)[0, 1] == pytest.approx(1 / 4.5)
    assert kernel_matrix(X, kernel="poly", degree=2, coef0=1.0)[1, 1] == 36.0
    assert kernel_matrix(X, kernel="linear")[1, 1] == 5.0
    np.testing.assert_allclose(np.diag(kernel_matrix(X, kernel="cauchy")), 1.0)


@pytest.mark.parametrize("gamma", ["scale", "auto"])
def test_string_gamma_is_refused_as_data_dependent(gamma):
    with pytest.raises(ValueError, match="computed from the data"):
        check_gamma(gamma)
    with pytest.raises(ValueError, match="computed from the data"):
        sample_frequencies("rbf", gamma, 2, 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("gamma", [0.0, -1.0, math.nan, math.inf])
def test_non_positive_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match="gamma must be a finite real number > 0"):
        sample_frequencies("rbf", gamma, 2, 3)


def test_bad_kernel_and_sizes_are_refused():
    with pytest.raises(ValueError, match="Unknown kernel 'sigmoid'"):
        sample_frequencies("sigmoid", 1.0, 2, 3)
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        sample_frequencies("rbf", 1.0, 2, 0)
    with pytest.raises(TypeError, match="n_features must be an int"):
        sample_frequencies("rbf", 1.0, 2.5, 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Unknown kernel"):
        spectral_second_moment("linear", 1.0, 2)
