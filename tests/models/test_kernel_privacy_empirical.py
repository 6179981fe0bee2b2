# SPDX-License-Identifier: BSD-3-Clause
"""Empirical neighbouring-dataset tests of the kernel mechanisms of DPKernelSVC.

The pattern of tests/models/test_privacy_empirical.py: many seeded fits on two
replace-one neighbours, one scalar statistic per released model, and a
Clopper–Pearson lower bound on ε (dpsvm.audit.epsilon_lower_bound, α = 10⁻³)
that a private mechanism must keep ≤ ε.

The pair: n = 10 identical rows x₀ labelled +1; D′ flips the last label. One
public frequency (n_components = 1, fixed across runs; only the noise is
redrawn) and x₀ placed from it so that every feature vector is the extreme
z(x₀): for cos-sin, ωx₀ = π/4 gives z₀ = (cos π/4, sin π/4), the direction of
largest ‖·‖₁/‖·‖₂ = √F; for cos-phase, ωx₀ + ψ = 0 gives z₀ = 1. The problem is
then one-dimensional along z₀ and the hinge minimisers are exactly 1·z₀ and
0.8·z₀ (Λ = 1, n = 10): the L2 sensitivity 2/(nΛ) is attained.

Statistics: for the output mechanisms the log-likelihood ratio of their noise
law between the two exact solutions (the most powerful test): the Gamma-norm
mechanism can then show up to ε, PRIVATESVM up to ε/2 (its constant 4LC/n is
twice the attained sensitivity). For objective perturbation, the released score
f(x₀) = ⟨w, z₀⟩, as in the linear test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpsvm.perturbation._output as noise_module
from dpsvm.audit import epsilon_lower_bound
from dpsvm.models import DPKernelSVC, NonPrivateRandomFeatureSVC

N = 10
RUNS = 150
CONFIDENCE = 0.999  # α = 1e-3
EPS = 1.0
LOSS = {"rubinstein": "hinge", "output": "hinge", "objective": "huber"}
FEATURE_MAP = {"rubinstein": "cos-sin", "output": "cos-sin", "objective": "cos-phase"}


def _common(mechanism: str) -> dict:
    return dict(
        n_components=1,
        regularization=1.0,
        loss=LOSS[mechanism],
        feature_map=FEATURE_MAP[mechanism],
        classes=[-1, 1],
        feature_random_state=0,
    )


def _pair(mechanism: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Place x₀ from the public frequency (and phase) alone.
    probe = NonPrivateRandomFeatureSVC(**_common(mechanism)).fit(
        np.array([[0.0], [1.0]]), [-1, 1]
    )
    omega = probe.frequencies_[0, 0]
    x0 = math.pi / 4 / omega if probe.phases_ is None else -probe.phases_[0] / omega
    X = np.full((N, 1), x0)
    y = np.ones(N)
    y2 = y.copy()
    y2[-1] = -1.0
    return X, y, y2


def _statistic(mechanism, coef, w_d, w_dp):  # type: ignore[no-untyped-def]
    if mechanism == "rubinstein":
        # Laplace: log p(w | D)/p(w | D′) ∝ Σ |w − w_D′| − |w − w_D|.
        return np.sum(np.abs(coef - w_dp) - np.abs(coef - w_d))
    # Gamma-norm (density ∝ exp(−‖b‖/s)): ∝ ‖w − w_D′‖ − ‖w − w_D‖.
    return np.linalg.norm(coef - w_dp) - np.linalg.norm(coef - w_d)


def _audit(mechanism: str) -> float:
    X, y, y2 = _pair(mechanism)
    exact = [
        NonPrivateRandomFeatureSVC(**_common(mechanism)).fit(X, t).coef_.ravel()
        for t in (y, y2)
    ]
    scores = []
    for labels, seed0 in ((y, 0), (y2, 10**6)):
        s = []
        for i in range(RUNS):
            clf = DPKernelSVC(
                mechanism=mechanism,
                epsilon=EPS,
                random_state=seed0 + i,
                **_common(mechanism),
            )
            clf.fit(X, labels)
            if mechanism == "objective":
                s.append(clf.decision_function(X[:1])[0])
            else:
                s.append(_statistic(mechanism, clf.coef_.ravel(), *exact))
        scores.append(np.array(s))
    return epsilon_lower_bound(*scores, confidence=CONFIDENCE).epsilon_lower


def test_pair_attains_the_sensitivity():
    # The construction is the worst case: hinge minimisers 1·z₀ and 0.8·z₀.
    X, y, y2 = _pair("output")
    w = [
        NonPrivateRandomFeatureSVC(**_common("output")).fit(X, t).coef_.ravel()
        for t in (y, y2)
    ]
    z0 = np.array([math.cos(math.pi / 4), math.sin(math.pi / 4)])
    np.testing.assert_allclose(w[0], z0, atol=1e-8)
    np.testing.assert_allclose(w[1], 0.8 * z0, atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["rubinstein", "objective", "output"])
def test_kernel_mechanism_privacy_loss_is_at_most_epsilon(mechanism):
    assert _audit(mechanism) <= EPS


@pytest.mark.slow
def test_rubinstein_with_a_tenth_of_the_noise_is_caught(monkeypatch):
    # The harness has power: with λ/10 the true loss of this pair is
    # 10·‖Δw‖₁/λ = 10·(0.2·√2)/(4·√2/10 · 1.002) ≈ 5 ≫ ε = 1.
    real = noise_module.laplace_release

    def tenth(value, scale, rng, **kwargs):  # type: ignore[no-untyped-def]
        return real(value, scale / 10, rng, sensitivity=kwargs["sensitivity"] / 10)

    monkeypatch.setattr(noise_module, "laplace_release", tenth)
    assert _audit("rubinstein") > EPS
