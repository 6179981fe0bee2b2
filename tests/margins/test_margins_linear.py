# SPDX-License-Identifier: BSD-3-Clause
"""Linear margin learners: Algorithm 1 (JL + EM) and Algorithm 2 (JL + DP-ERM)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpsvm.margins._base as base_module
from dpsvm.exceptions import PrivacyLeakWarning
from dpsvm.margins._base import ball_grid
from dpsvm.margins.linear import JLExponentialMarginClassifier, JLMarginClassifier
from dpsvm.mechanisms import ExponentialMechanism

ESTIMATORS = [
    JLExponentialMarginClassifier(n_components=2, random_state=0),
    JLExponentialMarginClassifier(
        candidates="random", n_candidates=500, random_state=0
    ),
    JLMarginClassifier(random_state=0, delta=1e-4),
    JLMarginClassifier(solver="phased-sgd", projection="rademacher", random_state=0),
]


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
# No expected failures: multiclass by one-vs-rest, poor_score declared.
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_contract(estimator, check):
    check(estimator)


def _data(m: int = 80, d: int = 6, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    # A planted margin: ⟨e₁, x⟩·y ≥ 0.5/‖x‖ with noise of norm ≈ 0.8.
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=m)
    X = 0.8 * rng.normal(size=(m, d)) / math.sqrt(d)
    X[:, 0] = 0.5 * y
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)), y


# -- Algorithm 1 -------------------------------------------------------------------
def test_alg1_refuses_intractable_cover_with_size_and_remedy():
    X, y = _data()
    clf = JLExponentialMarginClassifier(n_components="theory", classes=[-1, 1])
    with pytest.raises(
        ValueError, match=r"about 10\^[0-9.]+ points.*Lower n_components"
    ):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="max_candidates=100"):
        JLExponentialMarginClassifier(
            n_components=3, max_candidates=100, classes=[-1, 1]
        ).fit(X, y)


def test_alg1_grid_is_a_cover_of_the_ball():
    # Lattice spacing 2γ/√k inside B(2Λ + γ) covers B(2Λ) at scale γ.
    k, gamma, lam = 2, 0.1, 0.5
    grid = ball_grid(k, 2 * lam + gamma, 2 * gamma / math.sqrt(k))
    rng = np.random.default_rng(0)
    probes = rng.normal(size=(3000, k))
    probes *= (2 * lam * rng.random(3000) ** (1 / k) / np.linalg.norm(probes, axis=1))[
        :, None
    ]
    dist = np.min(np.linalg.norm(probes[:, None, :] - grid[None], axis=2), axis=1)
    assert dist.max() <= gamma + 1e-12


def test_alg1_attributes_event_and_learning():
    X, y = _data(200)
    clf = JLExponentialMarginClassifier(
        epsilon=50.0, n_components=2, classes=[-1, 1], random_state=1
    ).fit(X, y)
    ev = clf.privacy_event_
    assert (ev.epsilon, ev.delta, ev.sensitivity) == (50.0, 0.0, 1 / 200)
    assert ev.neighbouring == "replace-one"
    assert clf.covering_radius_ == pytest.approx(0.5 / 10)
    assert not clf.theorem_applies_ and clf.theory_n_components_ > 2
    np.testing.assert_allclose(
        clf.decision_function(X), clf.projection_.transform(X) @ clf.compressed_coef_
    )
    assert clf.score(X, y) > 0.8


@pytest.mark.slow
def test_alg1_selection_follows_the_exponential_mechanism():
    # d = 1 ⇒ Φ = I and a fixed grid; the index must follow
    # P(c) ∝ exp(−(ε/2)·#errors(c)) (Bassily, Mohri & Suresh 2022, Alg. 1 step 5).
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, size=(12, 1))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=12) > 0, 1, -1)
    grid = ball_grid(1, 2.0 + 0.05, 0.1)  # γ = ρ/(10r) = 0.05, spacing 2γ
    # #{i : yᵢ⟨c, xᵢ⟩ ≤ 0} per grid point c (a tie is an error), written out.
    errors = np.sum(y[None, :] * (grid @ X.T) <= 0, axis=1).astype(float)
    p = ExponentialMechanism(epsilon=0.8, sensitivity=1.0).probabilities(-errors)
    n = 1200
    counts = np.zeros(grid.shape[0])
    for s in range(n):
        fit = JLExponentialMarginClassifier(
            epsilon=0.8, classes=[-1, 1], random_state=s
        ).fit(X, y)
        assert fit.projection_.identity_
        counts[np.argmin(np.abs(grid[:, 0] - fit.compressed_coef_[0]))] += 1
    # Pool by error count (candidates with equal counts are exchangeable).
    values = np.unique(errors)
    exp = np.array([p[errors == v].sum() for v in values]) * n
    obs = np.array([counts[errors == v].sum() for v in values])
    keep = exp >= 5
    obs = np.append(obs[keep], obs[~keep].sum())
    exp = np.append(exp[keep], exp[~keep].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-3


@pytest.mark.slow
def test_alg1_empirical_neighbouring_privacy(neighbour_audit):
    def make(seed):
        return JLExponentialMarginClassifier(
            epsilon=1.0, classes=[-1, 1], random_state=seed
        )

    assert neighbour_audit(make, runs=800) <= 1.0


@pytest.mark.slow
def test_alg1_empirical_test_catches_a_too_small_sensitivity(
    monkeypatch, neighbour_audit
):
    # The same audit on a flawed variant (sensitivity 1/(10m)) finds ε > 1.
    real = base_module.private_argmax

    def flawed(u, *, epsilon, sensitivity, method, random_state):  # type: ignore[no-untyped-def]
        return real(
            u,
            epsilon=epsilon,
            sensitivity=sensitivity / 10,
            method=method,
            random_state=random_state,
        )

    monkeypatch.setattr(base_module, "private_argmax", flawed)

    def make(seed):
        return JLExponentialMarginClassifier(
            epsilon=1.0, classes=[-1, 1], random_state=seed
        )

    assert neighbour_audit(make, runs=600) > 1.0


# -- Algorithm 2 -------------------------------------------------------------------
def test_alg2_auto_dimension_and_identity():
    X, y = _data(100, 300)
    clf = JLMarginClassifier(epsilon=1.0, delta=1e-4, classes=[-1, 1], random_state=0)
    clf.fit(X, y)
    # k = ⌈εm ln(m/β)/(ln^{3/2}(1/δ) ln(1/β))⌉ = ⌈100 ln(2000)/(ln(1e4)^1.5 ln 20)⌉.
    k = math.ceil(100 * math.log(2000) / (math.log(1e4) ** 1.5 * math.log(20)))
    assert clf.n_components_ == k == 10
    big = JLMarginClassifier(n_components=500, delta=1e-4, classes=[-1, 1]).fit(X, y)
    assert big.projection_.identity_ and big.n_components_ == 300


def test_alg2_refusals():
    X, y = _data(50)
    with pytest.raises(ValueError, match=r"below 1/\(number of training rows\)"):
        JLMarginClassifier(delta=0.05, classes=[-1, 1]).fit(X, y)
    with pytest.raises(ValueError, match=r"ln\(1/delta\)"):
        JLMarginClassifier(
            epsilon=12.0, delta=1e-5, solver="boosted-phased-sgd", classes=[-1, 1]
        ).fit(X, y)


def test_alg2_sparse_input_and_leak_warning():
    X, y = _data(100, 40)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.1, X, 0.0))
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        clf = JLMarginClassifier(delta=1e-4, n_components=8, random_state=0).fit(Xs, y)
    np.testing.assert_allclose(
        clf.decision_function(Xs), clf.decision_function(Xs.toarray())
    )


@pytest.mark.parametrize("solver", ["noisy-gd", "phased-sgd", "boosted-phased-sgd"])
def test_alg2_solvers_label_their_guarantee(solver):
    X, y = _data(300, 20)
    clf = JLMarginClassifier(
        epsilon=2.0,
        delta=1e-4,
        solver=solver,
        n_components=8,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert ev.epsilon <= 2.0 + 1e-12 and ev.delta == 1e-4
    assert ("substitute" in clf.guarantee_) == (solver != "boosted-phased-sgd")
    assert np.linalg.norm(clf.compressed_coef_) <= 2.0 + 1e-9


def test_alg2_learns_a_planted_margin_at_moderate_epsilon():
    X, y = _data(2000, 200)
    clf = JLMarginClassifier(
        epsilon=1.0,
        delta=1e-5,
        margin=0.2,
        n_components=50,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    assert clf.score(X, y) > 0.85


@pytest.mark.slow
@pytest.mark.parametrize(
    ("solver", "runs"),
    [("noisy-gd", 500), ("phased-sgd", 400), ("boosted-phased-sgd", 200)],
)
def test_alg2_empirical_neighbouring_privacy(neighbour_audit, solver, runs):
    def make(seed):
        return JLMarginClassifier(
            epsilon=1.0,
            delta=1e-3,
            solver=solver,
            max_iter=5,
            classes=[-1, 1],
            random_state=seed,
        )

    assert neighbour_audit(make, runs=runs, delta=1e-3) <= 1.0


# -- budget ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda acc: JLExponentialMarginClassifier(
            n_components=1, classes=[-1, 1], accountant=acc, random_state=0
        ),
        lambda acc: JLMarginClassifier(
            delta=1e-4, n_components=2, classes=[-1, 1], accountant=acc, random_state=0
        ),
    ],
)
def test_budget_spent_on_success_only(make):
    from dpsvm.accounting import BudgetAccountant
    from dpsvm.exceptions import BudgetExceededError

    X, y = _data(60)
    acc = BudgetAccountant(1.5, 1e-3)
    make(acc).fit(X, y)
    assert len(acc) == 1 and acc.total()[0] <= 1.0 + 1e-12
    with pytest.raises(BudgetExceededError):
        make(acc).fit(X, y)  # checked before the data are read
    assert len(acc) == 1
    fresh = BudgetAccountant(5.0, 1e-3)
    with pytest.raises(ValueError):
        make(fresh).set_params(classes=[0, 1]).fit(X, y)  # bad labels: nothing spent
    assert len(fresh) == 0


def test_intercept_column_keeps_rows_in_the_public_ball():
    # fit_intercept: x ↦ [Π_{B(√(r² − s²))}(x), s] with s = intercept_scaling·r,
    # so ‖x̃‖ ≤ r (the calibrations' bound) whatever the rows.
    rng = np.random.default_rng(0)
    X = 5.0 * rng.normal(size=(50, 3))
    clf = JLMarginClassifier(data_norm=2.0, fit_intercept=True, intercept_scaling=0.3)
    Xa = clf._with_intercept_column(X)
    assert Xa.shape == (50, 4)
    np.testing.assert_allclose(Xa[:, -1], 0.6)
    assert np.linalg.norm(Xa, axis=1).max() <= 2.0 + 1e-12
    Xs = clf._with_intercept_column(sp.csr_matrix(X))
    assert sp.issparse(Xs)
    np.testing.assert_allclose(Xs.toarray(), Xa)


def test_jl_intercept_fits_a_shifted_boundary():
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(2000, 3))
    y = np.where(X[:, 0] > 0.2, 1, -1)
    kw = dict(epsilon=4.0, delta=1e-5, margin=0.05, classes=[-1, 1], random_state=0)
    with_b = JLMarginClassifier(fit_intercept=True, **kw).fit(X, y)
    without = JLMarginClassifier(**kw).fit(X, y)
    assert with_b.coef_.shape == (3,) and np.ndim(with_b.intercept_) == 0
    assert with_b.score(X, y) > without.score(X, y) + 0.05
    scores = X @ with_b.coef_ + with_b.intercept_
    inner = np.linalg.norm(X, axis=1) <= np.sqrt(0.75)  # rows not clipped
    np.testing.assert_allclose(with_b.decision_function(X)[inner], scores[inner])
