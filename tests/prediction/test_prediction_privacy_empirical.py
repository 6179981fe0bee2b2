# SPDX-License-Identifier: BSD-3-Clause
"""Empirical neighbouring-dataset tests of the private prediction answers.

For neighbouring datasets D, D′ (one record replaced), the answers must satisfy
P[M(D) ∈ E] ≤ e^ε·P[M(D′) ∈ E] + δ for every event E. We estimate both sides on
threshold events of the first answer, with a binomial slack, seeded and small.
A mechanism that released the exact score would fail (its answers on D and D′
are separated by the threshold between the two exact values).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpsvm.prediction import (
    PrivateInteractivePredictor,
    TestDataDependentLearner,
    VacuousCalibrationWarning,
)

N_TRIALS = 1500

# Small-n mechanics tests: the learners are vacuous at these sizes (refused by
# default); on_vacuous="warn" keeps them running.
pytestmark = pytest.mark.filterwarnings(
    "ignore::dpsvm.prediction.VacuousCalibrationWarning"
)


def _neighbours(n=20):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(n, 1))
    y = np.where(X[:, 0] > 0, 1, -1)
    X2, y2 = X.copy(), y.copy()
    # Replace one record by an extreme point with the opposite label.
    X2[0], y2[0] = [1.0], -1
    return (X, y), (X2, y2)


def _check_ratio(a, b, eps, delta):
    """P[a > t] ≤ e^ε P[b > t] + δ + slack for thresholds between the samples."""
    for t in np.quantile(np.concatenate([a, b]), [0.1, 0.3, 0.5, 0.7, 0.9]):
        for u, v in ((a, b), (b, a)):
            p, q = np.mean(u > t), np.mean(v > t)
            slack = 4 * math.sqrt(0.25 / min(a.size, b.size))
            assert p <= math.exp(eps) * q + delta + slack, (t, p, q)


def _answers(data, regularization=1.0, **kw):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        p = PrivateInteractivePredictor(
            classes=[-1, 1],
            kernel="linear",
            regularization=regularization,
            random_state=1,  # an int: each resumed answer takes the next stream
            on_vacuous="warn",
            **kw,
        ).fit(X, y)
    s0 = p.state_dict()
    z = np.array([[1.0]])
    out = np.empty(N_TRIALS)
    for i in range(N_TRIALS):
        # The same mechanism state; the noise-call counter never goes back, so
        # every answer draws a fresh stream.
        p.load_state_dict(s0)
        out[i] = p.answer(z).scores[0]
    return out, p


@pytest.mark.slow
def test_laplace_answers_neighbouring_ratio():
    D, D2 = _neighbours()
    a, p = _answers(D, mechanism="laplace", epsilon=1.0, delta=0.0, n_queries=1)
    b, _ = _answers(D2, mechanism="laplace", epsilon=1.0, delta=0.0, n_queries=1)
    # The exact scores differ by a sizeable fraction of the noise scale S/ε.
    _check_ratio(a, b, 1.0, 0.0)
    assert abs(np.median(a) - np.median(b)) > 0.1 * p.noise_scale_


@pytest.mark.slow
def test_pinp_answers_neighbouring_ratio():
    # n = 100 points at x = ±0.5 and λ = 0.25: w* = 2·E|x|... = 0.5/λ = 2, so
    # a(z = 1) = 2 lies above σ and the first answer is an update round. The
    # first answer is a function of â₁ = a₁ + Lap(1/ε₀) alone, hence
    # (ε₀·S)-DP; ε is chosen so that ε₀·S ≈ 1 (ε₀ = ε/(200·√B·S·ln(4/δ))).
    X = np.where(np.arange(100) % 2 == 0, 0.5, -0.5)[:, None]
    y = np.where(X[:, 0] > 0, 1, -1)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = [1.0], -1
    delta = 1e-3
    kw = dict(
        mechanism="pinp",
        epsilon=200 * math.log(4 / delta),
        delta=delta,
        n_queries=2,
        B_rule=1,
        regularization=0.25,
    )
    a, p = _answers((X, y), **kw)
    b, _ = _answers((X2, y2), **kw)
    eps_first = p.prediction_sensitivity_ / p.noise_scale_
    assert eps_first == pytest.approx(1.0, rel=0.01)
    assert np.mean(a != 0) > 0.9 and np.mean(b != 0) > 0.9  # update rounds
    _check_ratio(a, b, eps_first, 0.0)
    assert abs(np.median(a) - np.median(b)) > 0.1 * p.noise_scale_


@pytest.mark.slow
def test_tddl_noisy_labels_neighbouring_ratio():
    D, D2 = _neighbours()
    Z = np.array([[1.0]])
    out = []
    for X, y in (D, D2):
        labels = np.empty(N_TRIALS // 3)
        for i in range(labels.size):
            clf = TestDataDependentLearner(
                on_vacuous="warn",
                epsilon=1.0,
                delta=0.0,
                n_test_points=1,
                kernel="linear",
                regularization=1.0,
                classes=[-1, 1],
                random_state=i,  # the same seeds on both datasets (coupled)
            ).fit(X, y, test_points=Z)
            labels[i] = clf.noisy_labels_[0]
        out.append(labels)
    _check_ratio(out[0], out[1], 1.0, 0.0)
