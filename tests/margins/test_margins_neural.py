# SPDX-License-Identifier: BSD-3-Clause
"""Pure-DP network learner of §5 (JL-compressed weights + exponential mechanism)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from dpsvm.margins import NeuralMarginClassifier
from dpsvm.margins.neural import _activation

ESTIMATORS = [
    NeuralMarginClassifier(candidates="random", n_candidates=300, random_state=0),
    NeuralMarginClassifier(
        n_layers=3, width=2, candidates="random", n_candidates=100, random_state=0
    ),
]


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
# No expected failures: multiclass by one-vs-rest, poor_score declared.
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_contract(estimator, check):
    check(estimator)


def _data(m=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1, -1)


def test_activation_is_the_papers_sigmoid():
    a = np.linspace(-5, 5, 11)
    eta = 1.7
    paper = (1 - np.exp(-eta * a / 2)) / (1 + np.exp(-eta * a / 2))
    np.testing.assert_allclose(_activation(a, eta), paper)


def test_refuses_intractable_cover_stating_size_and_parameters():
    X, y = _data()
    clf = NeuralMarginClassifier(width=3, n_components=2, classes=[-1, 1])
    # P = (L − 1)kN + k = 3·2 + 2 = 8 parameters.
    with pytest.raises(ValueError, match=r"\(8 parameters.*about 10\^[0-9.]+ points"):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="theory k="):
        NeuralMarginClassifier(n_components="theory", classes=[-1, 1]).fit(X, y)


def test_grid_cover_of_a_tiny_network():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(40, 1))  # d = 1 ⇒ Φ₀ = I
    y = np.where(X[:, 0] > 0, 1, -1)
    clf = NeuralMarginClassifier(
        epsilon=20.0, margin=1.0, classes=[-1, 1], random_state=0
    ).fit(X, y)
    # γ = ρ/(10r(4ηΛ)^{L−1}) = 1/40; P = 2; grid spacing 2γ/√2 per axis.
    assert clf.covering_radius_ == pytest.approx(1 / 40)
    assert clf.n_parameters_ == 2
    half = math.floor((2 + 1 / 40) / (2 * (1 / 40) / math.sqrt(2)))
    assert clf.n_candidates_ == (2 * half + 1) ** 2
    assert clf.privacy_event_.sensitivity == 1 / 40
    assert clf.score(X, y) >= 0.75


def test_decision_function_is_the_uncompressed_network():
    X, y = _data(30, 6)
    clf = NeuralMarginClassifier(
        n_layers=3,
        width=3,
        n_components=2,
        activation_scale=2.0,
        candidates="random",
        n_candidates=50,
        classes=[-1, 1],
        random_state=3,
    ).fit(X, y)
    p0, p1, p2 = (p.components_ for p in clf.projections_)
    w1, w2, w3 = clf.compressed_weights_
    # W_j = Φ_{j−1}ᵀ W̃_j; h(x) = W_3ᵀ ψ(W_2ᵀ ψ(W_1ᵀ x)), ψ(a) = tanh(ηa/4).
    full1, full2, full3 = p0.T @ w1, p1.T @ w2, p2.T @ w3
    psi = lambda a: np.tanh(2.0 * a / 4)  # noqa: E731
    expected = psi(psi(X @ full1) @ full2) @ full3
    np.testing.assert_allclose(clf.decision_function(X), expected, atol=1e-12)
    assert [w.shape for w in clf.compressed_weights_] == [(2, 3), (2, 3), (2,)]


@pytest.mark.slow
def test_empirical_neighbouring_privacy(neighbour_audit):
    def make(seed):
        return NeuralMarginClassifier(
            epsilon=1.0,
            candidates="random",
            n_candidates=50,
            classes=[-1, 1],
            random_state=seed,
        )

    assert neighbour_audit(make, runs=500) <= 1.0
