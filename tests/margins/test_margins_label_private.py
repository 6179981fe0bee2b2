# SPDX-License-Identifier: BSD-3-Clause
"""Tests of LabelPrivateMarginClassifier (Bassily, Mohri & Suresh, Algorithm 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpsvm.margins.label_private as label_module
from dpsvm.accounting import BudgetAccountant
from dpsvm.audit import epsilon_lower_bound
from dpsvm.exceptions import PrivacyLeakWarning
from dpsvm.margins import LabelPrivateMarginClassifier, greedy_linf_net

CONFIDENCE = 0.999  # α = 1e-3


def _data(n: int = 300, d: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] > 0, 1, -1)
    return X, y


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
@parametrize_with_checks(
    [LabelPrivateMarginClassifier(n_candidates=50, random_state=0)],
)
def test_sklearn_contract(estimator, check):
    check(estimator)


# ------------------------------------------------------------ selection law
def test_selection_distribution_matches_the_exponential_mechanism():
    # Known answer (Algorithm 4 step 2): P(w) ∝ exp(−(ε/2)·#{i : yᵢ⟨w,xᵢ⟩ ≤ ρ/2}).
    X = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0], [-0.6, 0.8], [0.6, -0.8]])
    y = np.array([1, 1, -1, -1, 1])
    C = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.6, -0.8]])
    rho, eps = 0.2, 1.5
    errors = np.sum(y[:, None] * (X @ C.T) <= rho / 2, axis=0)
    expected = np.exp(-eps / 2 * errors)
    expected /= expected.sum()
    counts = np.zeros(len(C))
    runs = 1500
    for run in range(runs):
        clf = LabelPrivateMarginClassifier(
            epsilon=eps,
            margin=rho,
            candidates=C,
            cover="none",
            classes=[-1, 1],
            random_state=run,  # an int per run (generator objects are refused)
        ).fit(X, y)
        hit = np.flatnonzero(np.all(np.isclose(C, clf.coef_), axis=1))
        counts[hit[0]] += 1
    assert stats.chisquare(counts, runs * expected).pvalue > 1e-3


# ----------------------------------------------------- empirical label DP
def _audit(eps_factor: float = 1.0, monkeypatch=None, runs: int = 1500) -> float:
    # One row x = e₁ with label +1 (D) or −1 (D′); candidates: 20 copies of +e₁
    # and one −e₁ (cover="none" keeps the copies). Flipping the label lowers the
    # error count of −e₁ by 1 and raises the other 20 by 1, so the event
    # "−e₁ chosen" has P_D = e^{−ε/2}/(20 + e^{−ε/2}), P_D′ = 1/(1 + 20e^{−ε/2}):
    # a loss ln 2.59 ≈ 0.95 at ε = 1, close to ε itself.
    X = np.array([[1.0, 0.0]])
    C = np.vstack([np.tile([1.0, 0.0], (20, 1)), [[-1.0, 0.0]]])
    if monkeypatch is not None:
        real = label_module.ExponentialMechanism

        def loose(*, epsilon, sensitivity):  # type: ignore[no-untyped-def]
            return real(epsilon=eps_factor * epsilon, sensitivity=sensitivity)

        monkeypatch.setattr(label_module, "ExponentialMechanism", loose)
    scores = []
    for label, seed0 in ((1, 0), (-1, 10**6)):
        s = []
        for i in range(runs):
            clf = LabelPrivateMarginClassifier(
                epsilon=1.0,
                margin=0.2,
                candidates=C,
                cover="none",
                classes=[-1, 1],
                random_state=seed0 + i,
            ).fit(X, [label])
            s.append(clf.coef_[0])
        scores.append(np.array(s))
    return epsilon_lower_bound(*scores, confidence=CONFIDENCE).epsilon_lower


@pytest.mark.slow
def test_label_neighbours_privacy_loss_is_at_most_epsilon():
    assert _audit() <= 1.0


@pytest.mark.slow
def test_label_audit_catches_a_thrice_too_large_epsilon(monkeypatch):
    # With 3ε the same event has P_D ≈ 0.011, P_D′ ≈ 0.18: a loss ≈ 2.8 > 1.
    assert _audit(3.0, monkeypatch) > 1.0


# ---------------------------------------------------------- greedy ℓ∞ net
def test_greedy_net_covers_and_separates():
    rng = np.random.default_rng(1)
    G = np.clip(rng.normal(size=(30, 200)), -1, 1)
    radius = 1.2
    net, achieved = greedy_linf_net(G, radius)
    dist = np.max(np.abs(G[:, :, None] - G[:, None, net]), axis=0)  # (N, |net|)
    assert np.all(dist.min(axis=1) <= radius)  # a cover of every candidate
    assert achieved <= radius
    inner = dist[net]
    np.fill_diagonal(inner, np.inf)
    assert np.all(inner > radius)  # net members are radius-separated
    with pytest.raises(ValueError, match="radius"):
        greedy_linf_net(G, 0.0)


def test_cover_never_reads_labels(monkeypatch):
    # The net (step 1) is the same whatever the labels.
    X, y = _data()
    seen = []
    real = label_module.greedy_linf_net

    def spy(outputs, radius):  # type: ignore[no-untyped-def]
        net, r = real(outputs, radius)
        seen.append(net.tolist())
        return net, r

    monkeypatch.setattr(label_module, "greedy_linf_net", spy)
    for labels in (y, -y, np.ones_like(y)):
        LabelPrivateMarginClassifier(
            n_candidates=100, cover="greedy", classes=[-1, 1], random_state=3
        ).fit(X, labels)
    assert seen[0] == seen[1] == seen[2]


# ----------------------------------------------------------------- utility
def test_learns_a_separable_problem_and_rounds_compose():
    X, y = _data(800)
    one = LabelPrivateMarginClassifier(
        epsilon=1.0, margin=0.05, classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert one.score(X, y) > 0.85
    three = LabelPrivateMarginClassifier(
        epsilon=1.0, margin=0.05, n_rounds=3, classes=[-1, 1], random_state=0
    ).fit(X, y)
    event = three.privacy_event_
    assert event.epsilon == 1.0 and event.delta == 0.0
    assert [c.epsilon for c in event.children] == pytest.approx([1 / 3] * 3)
    assert all(c.neighbouring == "replace-one-label" for c in event.children)
    assert three.score(X, y) > 0.85
    np.testing.assert_allclose(np.linalg.norm(three.coef_), 1.0)


def test_sparse_input_gives_the_same_model():
    X, y = _data(200)
    kw = dict(n_candidates=100, classes=[-1, 1], random_state=5, candidates="sphere")
    dense = LabelPrivateMarginClassifier(**kw).fit(X, y)
    sparse = LabelPrivateMarginClassifier(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_)


# -------------------------------------------------- refusals and accounting
def test_event_states_label_privacy_only():
    X, y = _data()
    clf = LabelPrivateMarginClassifier(
        n_candidates=100, classes=[-1, 1], random_state=0
    ).fit(X, y)
    ev = clf.privacy_event_
    assert ev.neighbouring == "replace-one-label"
    assert "NOT protected" in ev.details["protected"]
    assert "features are NOT protected" in (LabelPrivateMarginClassifier.__doc__ or "")


def test_refusals():
    X, y = _data()
    with pytest.raises(ValueError, match="not in the public label set"):
        LabelPrivateMarginClassifier(classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="shape"):
        LabelPrivateMarginClassifier(candidates=np.ones((3, 7)), classes=[-1, 1]).fit(
            X, y
        )
    with pytest.raises(ValueError, match="zero vector"):
        LabelPrivateMarginClassifier(candidates=np.zeros((2, 4)), classes=[-1, 1]).fit(
            X, y
        )
    with pytest.warns(PrivacyLeakWarning, match="classes="):
        LabelPrivateMarginClassifier(n_candidates=50, random_state=0).fit(X, y)


def test_replace_one_accountant_refuses_the_label_event():
    # Label DP does not compose with replace-one budgets: the accountant fails
    # closed rather than adding ε to the wrong ledger.
    X, y = _data()
    clf = LabelPrivateMarginClassifier(
        n_candidates=100, classes=[-1, 1], random_state=0
    ).fit(X, y)
    acc = BudgetAccountant(epsilon=10.0)
    with pytest.raises(ValueError, match="replace-one"):
        acc.spend(clf.privacy_event_)
    assert len(acc) == 0


def test_auto_rules_follow_public_m_d_and_epsilon():
    # Issue 22: Algorithm 4's defaults are chosen from public n, d, ε.
    clf = LabelPrivateMarginClassifier(data_norm=2.0, norm_bound=1.5)
    assert clf._resolved_margin(400) == pytest.approx(1.5 * 2.0 / 20.0)
    assert clf._resolved_directions(105) == 21
    assert clf._resolved_directions(4) == 4
    assert clf._resolved_directions(30) == 11
    # 2(ln N + ln 20)/((ε/T)m) ≤ 0.01: T = ⌊0.01·εm/(2(ln N + ln 20))⌋ in [1, 5].
    assert clf._resolved_rounds(400, 2042) == 1
    assert clf._resolved_rounds(32_561, 2042) == 5
    per = 2 * (math.log(2042) + math.log(20))
    m = 3000
    assert clf._resolved_rounds(m, 2042) == math.floor(0.01 * m / per)
    clf.set_params(n_rounds=3, margin=0.2, n_directions=7)
    assert (clf._resolved_rounds(10, 5), clf._resolved_margin(10)) == (3, 0.2)
    assert clf._resolved_directions(100) == 7


def test_auto_defaults_record_the_rounds_and_margin():
    X, y = _data()
    clf = LabelPrivateMarginClassifier(classes=[-1, 1], random_state=0).fit(X, y)
    details = clf.privacy_event_.details
    assert details["margin"] == pytest.approx(1.0 / math.sqrt(X.shape[0]))
    assert details["n_rounds"] == 1


def test_intercept_recovers_a_shifted_boundary():
    # fit_intercept: rows in B(√(r² − s²)) plus the constant s = r/2, so an
    # affine boundary x₀ > 0.15 is reachable (without it, only x₀ > 0 is).
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(3000, 2))
    y = np.where(X[:, 0] > 0.15, 1, -1)
    kw = dict(epsilon=2.0, classes=[-1, 1], random_state=0)
    with_b = LabelPrivateMarginClassifier(fit_intercept=True, **kw).fit(X, y)
    without = LabelPrivateMarginClassifier(**kw).fit(X, y)
    assert with_b.score(X, y) > 0.95 > without.score(X, y) + 0.05
    assert np.ndim(with_b.intercept_) == 0 and with_b.intercept_ < 0
