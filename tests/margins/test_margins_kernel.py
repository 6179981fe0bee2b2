# SPDX-License-Identifier: BSD-3-Clause
"""Tests of KernelMarginClassifier (Bassily, Mohri & Suresh, Algorithm 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpsvm.audit import epsilon_lower_bound
from dpsvm.kernels import RandomFourierFeatures
from dpsvm.margins import KernelMarginClassifier
from dpsvm.margins.bounds import rff_dimension, rff_norm_inflation
from dpsvm.margins.kernel import _StreamedFeatures
from dpsvm.margins.projections import RademacherJL


def _circle(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / 2
    return X, np.where(np.linalg.norm(X, axis=1) < 0.35, 1, -1)


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
@parametrize_with_checks(
    [
        KernelMarginClassifier(n_random_features=20, delta=1e-4, random_state=0),
        KernelMarginClassifier(
            kernel="poly", degree=2, delta=1e-4, max_iter=20, random_state=0
        ),
        KernelMarginClassifier(
            n_random_features=40,
            n_components=8,
            feature_mode="stream",
            chunk_size=16,
            delta=1e-4,
            max_iter=20,
            random_state=0,
        ),
    ]
)
def test_sklearn_contract(estimator, check):
    check(estimator)


# ----------------------------------------------------------------- streaming
def test_streamed_map_is_phi_times_psi():
    # Φψ̂(x) = Σ_c Φ_c ψ̂_c(x): rebuild the k × 2D matrix Φ and ψ̂ (eq. (2), scale
    # D^{−1/2}) from the chunk seeds and compare with the streamed product.
    X = np.random.default_rng(2).normal(size=(7, 3))
    D, k, chunk = 50, 6, 16
    st = _StreamedFeatures("rbf", 0.7, D, k, chunk, seed=11)
    assert sum(st.sizes) == D and min(st.sizes) >= chunk
    psi, phi = [], []
    for c, size in enumerate(st.sizes):
        rff = RandomFourierFeatures("rbf", 0.7, size, random_state=int(st.seeds[2 * c]))
        psi.append(rff.fit_transform(X) * math.sqrt(size / D))
        jl = RademacherJL(k, random_state=int(st.seeds[2 * c + 1]))
        phi.append(jl.fit(np.zeros((1, 2 * size))).components_)
    Psi, Phi = np.hstack(psi), np.hstack(phi)
    np.testing.assert_allclose(np.linalg.norm(Psi, axis=1), 1.0)  # ‖ψ̂(x)‖ = r = 1
    np.testing.assert_allclose(np.abs(Phi), 1 / math.sqrt(k))  # ±1/√k entries
    np.testing.assert_allclose(st.transform(X), Psi @ Phi.T, atol=1e-12)


def test_paper_dimension_is_streamed_and_predicts_like_training():
    X, y = _circle(20)
    clf = KernelMarginClassifier(
        n_random_features="paper",
        delta=1e-2,
        epsilon=1.0,
        max_iter=5,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    assert clf.n_random_features_ == rff_dimension(20, 0.05)
    assert clf.streamed_ and clf.feature_map_ is None
    # Prediction regenerates the same chunks: scores are a fixed function of x.
    np.testing.assert_allclose(clf.decision_function(X), clf.decision_function(X))


def test_materialized_and_utility():
    X, y = _circle(600)
    Xt, yt = _circle(600, seed=1)
    clf = KernelMarginClassifier(
        epsilon=2.0,
        delta=1e-4,
        gamma=8.0,
        n_random_features=200,
        margin=0.2,
        norm_bound=2.0,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    assert not clf.streamed_
    assert clf.score(Xt, yt) > 0.85  # the base rate is ≈ 0.62
    assert clf.inner_norm_bound_ == 4.0  # Algorithm 3 step 5 passes 2Λ
    ev = clf.privacy_event_
    assert ev.epsilon <= 2.0 and ev.delta == 1e-4
    assert ev.neighbouring == "replace-one"
    assert ev.children[0].mechanism == "jl-margin-erm"
    # No generator that drew noise is kept on the fitted object.
    assert not any(
        isinstance(v, np.random.Generator) for v in vars(clf.estimator_).values()
    )


def test_inflated_norm_and_penalty_follow_the_formulas():
    X, y = _circle(100)
    clf = KernelMarginClassifier(
        norm_scaling="inflated",
        n_random_features=50,
        norm_bound=1.5,
        margin=0.5,
        delta=1e-3,
        max_iter=5,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    # ‖ŵ‖ ≤ Λ√(1 + (m/2)√(ln(2m/β)/D)) (proof of Thm 4.2), never below 2Λ.
    infl = math.sqrt(1 + 50 * math.sqrt(math.log(2 * 100 / 0.05) / 50))
    assert clf.norm_inflation_ == pytest.approx(infl)
    assert clf.inner_norm_bound_ == pytest.approx(1.5 * max(2.0, infl))
    assert rff_norm_inflation(100, 0.05, 50) == pytest.approx(infl)
    # Λr√m·√(ln(2m/β)/D)/ρ with r = 1.
    pen = 1.5 * math.sqrt(100) * math.sqrt(math.log(4000) / 50) / 0.5
    assert clf.approximation_penalty_ == pytest.approx(pen)


def test_polynomial_kernel_uses_the_feature_radius():
    X, y = _circle(200)
    clf = KernelMarginClassifier(
        kernel="poly",
        degree=3,
        coef0=1.0,
        data_norm=0.8,
        delta=1e-3,
        max_iter=5,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    assert clf.kernel_radius_ == pytest.approx((0.8**2 + 1.0) ** 1.5)  # (R²+c)^{p/2}
    assert clf.estimator_.data_norm == pytest.approx(clf.kernel_radius_)
    assert clf.n_random_features_ == 0 and clf.approximation_penalty_ == 0.0


def test_refusals():
    X, y = _circle(100)
    with pytest.raises(ValueError, match=r"gamma"):
        KernelMarginClassifier(gamma="scale", classes=[-1, 1]).fit(X, y)
    with pytest.raises(
        ValueError, match=r"delta must be below 1/\(number of training rows\)"
    ):
        KernelMarginClassifier(delta=0.05, classes=[-1, 1]).fit(X, y)
    with pytest.raises(ValueError, match="fit_intercept=False"):
        KernelMarginClassifier(delta=1e-3, fit_intercept=True, classes=[-1, 1]).fit(
            X, y
        )
    with pytest.raises(ValueError, match="ln\\(1/delta\\)"):
        KernelMarginClassifier(
            epsilon=20.0, delta=1e-3, solver="boosted-phased-sgd", classes=[-1, 1]
        ).fit(X, y)


# ------------------------------------------------- empirical neighbouring test
def _scores(labels: np.ndarray, seed0: int, runs: int) -> np.ndarray:
    X = np.full((10, 1), 0.3)
    out = []
    for i in range(runs):
        clf = KernelMarginClassifier(
            epsilon=1.0,
            delta=1e-3,
            n_random_features=1,
            n_components=2,  # ≥ 2D: Algorithm 2 with Φ = I
            margin=0.5,
            max_iter=10,
            classes=[-1, 1],
            random_state=seed0 + i,
        ).fit(X, labels)
        out.append(clf.decision_function(X[:1])[0])
    return np.array(out)


def _pair() -> tuple[np.ndarray, np.ndarray]:
    # D: 10 identical rows, labels alternating ±1 (the mean ρ-hinge gradient is
    # 0 near w = 0); D′ replaces one +1 row by a −1 row (replace-one), which
    # moves the mean gradient by 2‖z₀‖/(ρm), the sensitivity the noise is for.
    y = np.where(np.arange(10) % 2 == 0, 1.0, -1.0)
    y2 = y.copy()
    y2[0] = -1.0
    return y, y2


@pytest.mark.slow
def test_replace_one_neighbours_privacy_loss_is_at_most_epsilon():
    # The released score at x₀ is thresholded; a Clopper–Pearson lower bound on
    # ε at δ (α = 1e-3) must not exceed the claimed ε.
    y, y2 = _pair()
    a, b = _scores(y, 0, 150), _scores(y2, 10**6, 150)
    bound = epsilon_lower_bound(a, b, delta=1e-3, confidence=0.999)
    assert bound.epsilon_lower <= 1.0


@pytest.mark.slow
def test_kernel_audit_catches_a_hundredth_of_the_noise(monkeypatch):
    # The harness has power: with σ/100 the same pair shows a loss well above ε.
    import dpsvm.margins.erm as erm

    real = erm.gaussian_gd_noise_multiplier
    monkeypatch.setattr(
        erm, "gaussian_gd_noise_multiplier", lambda *a: real(*a) / 100.0
    )
    # A calibration bug that still books the nominal ε (an honest event would
    # claim ε ≈ 700 and charge() would refuse to record it).
    monkeypatch.setattr(erm, "gaussian_gd_epsilon", lambda z, n, d: 1.0)
    y, y2 = _pair()
    a, b = _scores(y, 0, 100), _scores(y2, 10**6, 100)
    assert epsilon_lower_bound(a, b, delta=1e-3, confidence=0.999).epsilon_lower > 1.0
