# SPDX-License-Identifier: BSD-3-Clause
"""RandomFourierFeatures: norms, kernel approximation, data independence, memory."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import InvalidParameterError

from dpsvm.kernels import RandomFourierFeatures, fourier_features, kernel_matrix


def _points(n=40, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d)) * 0.5


# ---------------------------------------------------------------- norm bounds
@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "cauchy"])
def test_cos_sin_features_have_norm_exactly_one(kernel):
    # Rubinstein et al. 2012, eq. (4.1): ‖φ̂(x)‖² = (1/d̂)Σ(cos² + sin²) = 1 (κ = 1).
    X = _points(200) * 50.0  # far outside any ball: the bound is unconditional
    rff = RandomFourierFeatures(kernel, 0.5, 37, random_state=0).fit(X)
    Z = rff.transform(X)
    assert Z.shape == (200, 74) and rff.n_output_features_ == 74
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0, rtol=1e-14)
    assert rff.feature_norm_bound_ == 1.0 and rff.phases_ is None
    # Φ = d̂^{−1/2} bounds every coordinate (Rubinstein et al. 2012, Thm 8 / Lemma 10).
    assert np.max(np.abs(Z)) <= 1 / math.sqrt(37) * (1 + 1e-15)


def test_cos_sin_pairs_are_cosine_and_sine_of_one_frequency():
    X = _points(5)
    rff = RandomFourierFeatures("rbf", 1.0, 4, random_state=1).fit(X)
    Z = rff.transform(X) * 2.0  # d̂^{−1/2} = 1/2
    arg = X @ rff.frequencies_
    np.testing.assert_allclose(Z[:, :4], np.cos(arg), atol=1e-15)
    np.testing.assert_allclose(Z[:, 4:], np.sin(arg), atol=1e-15)


@pytest.mark.parametrize(
    "norm_handling,bound", [("bound", math.sqrt(2.0)), ("scale", 1.0)]
)
def test_cos_phase_norm_bound(norm_handling, bound):
    # Sarwate, Chaudhuri & Monteleoni 2009, Alg. 2: ‖v‖² = (2/D)Σcos² ≤ 2, not the
    # unit norm their Thm 3 assumes; "scale" divides by √2.
    D = 3
    X = _points(4000, d=2) * 20.0
    rff = RandomFourierFeatures(
        "rbf",
        1.0,
        D,
        feature_map="cos-phase",
        norm_handling=norm_handling,
        random_state=2,
    ).fit(X)
    norms = np.linalg.norm(rff.transform(X), axis=1)
    assert rff.feature_norm_bound_ == bound
    assert np.all(norms <= bound * (1 + 1e-15))
    # With D = 3 the bound is nearly attained (all three cosines near ±1).
    assert norms.max() > 0.97 * bound
    assert rff.scale_ == pytest.approx(bound / math.sqrt(D))


def test_cos_phase_phases_are_independent_uniform():
    # Sarwate, Chaudhuri & Monteleoni 2009, Alg. 2: one ψⱼ ~ U[−π, π] per feature
    # (correction: not the one shared ψ of their Sec. 4.2).
    rff = RandomFourierFeatures(
        feature_map="cos-phase", n_components=500, random_state=3
    )
    rff.fit(np.zeros((1, 2)))
    psi = rff.phases_
    assert psi.shape == (500,) and np.unique(psi).size == 500
    assert np.all((psi >= -math.pi) & (psi <= math.pi))
    # Uniform: mean 0 and variance π²/3 within 5 sd.
    assert abs(psi.mean()) < 5 * math.pi / math.sqrt(3 * 500)


# ------------------------------------------------------- kernel approximation
def _mean_abs_error(kernel, feature_map, m, seeds, X, gamma=0.7):
    K = kernel_matrix(X, kernel=kernel, gamma=gamma)
    iu = np.triu_indices(len(X), 1)
    errs = []
    for s in seeds:
        Z = RandomFourierFeatures(
            kernel,
            gamma,
            m,
            feature_map=feature_map,
            norm_handling="bound",
            random_state=s,
        ).fit_transform(X)
        errs.append(np.mean(np.abs((Z @ Z.T - K)[iu])))
    return float(np.mean(errs))


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "cauchy"])
@pytest.mark.parametrize("feature_map", ["cos-sin", "cos-phase"])
def test_kernel_error_shrinks_like_one_over_sqrt_components(kernel, feature_map):
    # Var k̂ ∝ 1/m (Rahimi & Recht 2007), so the mean absolute error at m and 16m
    # has ratio √16 = 4; seeded, the observed ratios lie in 3.5–4.0.
    X = _points()
    coarse = _mean_abs_error(kernel, feature_map, 64, range(8), X)
    fine = _mean_abs_error(kernel, feature_map, 1024, range(8), X)
    assert 3.0 < coarse / fine < 5.0


def test_rbf_cos_sin_error_has_the_predicted_size():
    # For cos-sin, k̂ − k is a mean of m iid terms cos⟨ω,Δ⟩ − g(Δ) with variance
    # ½(1 + g(2Δ)) − g(Δ)² (RBF); by the CLT E|k̂ − k| ≈ √(2/π)·sd/√m.
    X, gamma, m = _points(30), 0.7, 2048
    K = kernel_matrix(X, gamma=gamma)
    K2 = kernel_matrix(2 * X, gamma=gamma)  # g(2Δ) = k(2x, 2y)
    iu = np.triu_indices(len(X), 1)
    var = 0.5 * (1 + K2[iu]) - K[iu] ** 2
    predicted = float(np.mean(np.sqrt(2 / math.pi) * np.sqrt(var / m)))
    observed = _mean_abs_error("rbf", "cos-sin", m, range(6), X, gamma=gamma)
    assert observed == pytest.approx(predicted, rel=0.2)


# ------------------------------------------------------------ data independence
def test_fit_reads_only_the_number_of_columns():
    a = RandomFourierFeatures(n_components=20, random_state=7).fit(_points(10))
    b = RandomFourierFeatures(n_components=20, random_state=7).fit(np.full((3, 3), 1e6))
    np.testing.assert_array_equal(a.frequencies_, b.frequencies_)
    X = _points(6)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))


def test_transform_equals_the_map_rebuilt_from_released_parameters():
    X = _points(50)
    for fm in ("cos-sin", "cos-phase"):
        rff = RandomFourierFeatures(n_components=9, feature_map=fm, random_state=8)
        Z = rff.fit_transform(X)
        rebuilt = fourier_features(
            X, rff.frequencies_.copy(), rff.phases_, scale=rff.scale_
        )
        np.testing.assert_array_equal(Z, rebuilt)


# ------------------------------------------------------------ chunking, dtype
@pytest.mark.parametrize("feature_map", ["cos-sin", "cos-phase"])
def test_chunk_size_does_not_change_the_output(feature_map):
    X = _points(1003)
    base = RandomFourierFeatures(
        n_components=16, feature_map=feature_map, random_state=9
    )
    full = clone(base).set_params(chunk_size=5000).fit_transform(X)
    for chunk in (1, 7, 256):
        Z = clone(base).set_params(chunk_size=chunk).fit_transform(X)
        # Equal up to the rounding of BLAS blockings (a few ulps).
        np.testing.assert_allclose(Z, full, rtol=0, atol=1e-15)
    threaded = clone(base).set_params(chunk_size=100, n_jobs=2).fit_transform(X)
    np.testing.assert_array_equal(
        threaded, clone(base).set_params(chunk_size=100).fit_transform(X)
    )


def test_float32_output_is_close_to_float64():
    X = _points(300)
    z64 = RandomFourierFeatures(n_components=64, random_state=10).fit_transform(X)
    rff32 = RandomFourierFeatures(n_components=64, dtype=np.float32, random_state=10)
    z32 = rff32.fit_transform(X.astype(np.float32))
    assert z32.dtype == np.float32
    np.testing.assert_allclose(z32, z64, atol=1e-6)
    assert rff32.frequencies_.dtype == np.float64


def test_transform_memory_is_bounded_by_the_chunk():
    # Extra memory beyond the output: one chunk of matmul results (cos-sin) —
    # not the n × m temporary of an unchunked implementation.
    n, m, chunk = 20_000, 100, 500
    X = _points(n, d=5)
    rff = RandomFourierFeatures(n_components=m, chunk_size=chunk, random_state=11).fit(
        X
    )
    out_bytes = n * 2 * m * 8
    tracemalloc.start()
    try:
        Z = rff.transform(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert Z.nbytes == out_bytes
    assert peak - out_bytes < 4 * chunk * 2 * m * 8  # ≪ n·m·8 = 16 MB


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("gamma", ["scale", "auto"])
def test_data_dependent_gamma_is_refused(gamma):
    with pytest.raises(ValueError, match="computed from the data"):
        RandomFourierFeatures(gamma=gamma).fit(_points())


@pytest.mark.parametrize(
    "params,match",
    [
        ({"gamma": 0.0}, "'gamma' parameter"),
        ({"gamma": -2.0}, "'gamma' parameter"),
        ({"n_components": 0}, "'n_components' parameter"),
        ({"kernel": "sigmoid"}, "'kernel' parameter"),
        ({"feature_map": "cos"}, "'feature_map' parameter"),
        ({"norm_handling": "paper"}, "'norm_handling' parameter"),
    ],
)
def test_bad_parameters_give_clear_errors(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        RandomFourierFeatures(**params).fit(_points())


def test_bad_dtype_and_shape_are_refused():
    with pytest.raises(ValueError, match=r"float64 or numpy\.float32"):
        RandomFourierFeatures(dtype=np.int64).fit(_points())
    rff = RandomFourierFeatures(random_state=0).fit(_points(d=3))
    with pytest.raises(ValueError, match="features"):
        rff.transform(_points(d=4))
    with pytest.raises(ValueError, match="shape"):
        fourier_features(_points(d=4), rff.frequencies_, scale=1.0)
