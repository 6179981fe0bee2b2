# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the margin learners: JL maps, losses, selection, private ERM."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import optimize, stats

from dpsvm.margins.erm import (
    _bootstrap_group_size,
    boosted_phased_sgd,
    boosting_parameters,
    gaussian_gd_epsilon,
    gaussian_gd_noise_multiplier,
    noisy_projected_gd,
    phased_sgd,
)
from dpsvm.margins.losses import (
    RhoHingeLoss,
    SmoothedRhoHingeLoss,
    margin_error,
    zero_one_error,
)
from dpsvm.margins.projections import FastJL, RademacherJL, project_to_ball
from dpsvm.margins.selection import (
    GeneralizedExponentialMechanism,
    PermuteAndFlip,
    private_argmax,
)

JL = [RademacherJL, FastJL]


# -- JL projections ---------------------------------------------------------------
@pytest.mark.parametrize("cls", JL)
def test_jl_preserves_norms_and_inner_products(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 1000))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Z = cls(400, random_state=1).fit_transform(X)
    ratio = np.linalg.norm(Z, axis=1) ** 2
    # Unit rows: ‖Φx‖² concentrates around 1 with deviation O(sqrt(ln m / k)).
    assert np.all(np.abs(ratio - 1.0) < 0.35)
    gram_err = np.abs(Z @ Z.T - X @ X.T)
    assert gram_err.max() < 0.35


@pytest.mark.parametrize("cls", JL)
def test_jl_is_unbiased_in_squared_norm(cls):
    # E‖Φx‖² = ‖x‖²: average over independent draws of Φ (fixed x).
    x = np.linspace(-1.0, 2.0, 128)[None, :]
    vals = [
        float(np.sum(cls(8, random_state=s).fit_transform(x) ** 2)) for s in range(400)
    ]
    se = np.std(vals) / math.sqrt(len(vals))
    assert abs(np.mean(vals) - np.sum(x**2)) < 4 * se


@pytest.mark.parametrize("cls", JL)
def test_jl_fit_reads_only_the_width_and_sparse_matches_dense(cls):
    rng = np.random.default_rng(2)
    X = sp.random(20, 300, density=0.05, random_state=3, format="csr")
    a = cls(16, random_state=5).fit(np.zeros((1, 300)))
    b = cls(16, random_state=5).fit(rng.normal(size=(7, 300)))
    np.testing.assert_allclose(a.transform(X), b.transform(X.toarray()), atol=1e-12)


@pytest.mark.parametrize("cls", JL)
def test_jl_identity_when_k_at_least_d(cls):
    X = np.arange(12.0).reshape(3, 4)
    t = cls(10, random_state=0).fit(X)
    assert t.identity_ and t.n_components_ == 4
    np.testing.assert_array_equal(t.transform(X), X)


def test_rademacher_entries():
    t = RademacherJL(25, random_state=0).fit(np.zeros((1, 40)))
    np.testing.assert_array_equal(np.unique(t.components_), [-0.2, 0.2])


def test_project_to_ball_vector_and_rows():
    np.testing.assert_allclose(project_to_ball([6.0, 8.0], 5.0), [3.0, 4.0])
    rows = project_to_ball([[6.0, 8.0], [0.1, 0.0]], 5.0)
    np.testing.assert_allclose(rows, [[3.0, 4.0], [0.1, 0.0]])


# -- losses -----------------------------------------------------------------------
@pytest.mark.parametrize(("rho", "lam"), [(1.0, 0.5), (0.3, 0.01), (2.0, 3.0)])
def test_smoothed_hinge_is_the_moreau_envelope(rho, lam):
    loss = SmoothedRhoHingeLoss(rho=rho, smoothing=lam)
    hinge = RhoHingeLoss(rho)
    for t in np.linspace(-3 * rho, 2 * rho, 23):
        res = optimize.minimize_scalar(
            lambda u, t=t: float(hinge.value(u)) + (t - u) ** 2 / (2 * lam),
            bounds=(t - 10 * rho - 10 * lam, t + 10 * rho + 10 * lam),
            method="bounded",
            options={"xatol": 1e-12},
        )
        assert float(loss.value(t)) == pytest.approx(res.fun, abs=1e-7)
        gap = float(hinge.value(t) - loss.value(t))
        assert -1e-12 <= gap <= loss.max_gap + 1e-12
        h = 1e-6
        fd = (float(loss.value(t + h)) - float(loss.value(t - h))) / (2 * h)
        assert float(loss.derivative(t)) == pytest.approx(fd, abs=1e-4)
    assert loss.lipschitz == 1 / rho and loss.smoothness == 1 / lam


def test_margin_and_zero_one_error_count_ties():
    assert zero_one_error([0.0, -1.0, 2.0], [1, 1, 1]) == pytest.approx(2 / 3)
    assert margin_error([0.5, 0.5], [1, -1], 0.5) == 1.0


# -- generalized exponential mechanism ----------------------------------------------
def test_gem_scores_have_sensitivity_one():
    rng = np.random.default_rng(0)
    sens = np.array([0.1, 0.5, 2.0, 0.05])
    gem = GeneralizedExponentialMechanism(epsilon=1.0, sensitivities=sens)
    for _ in range(500):
        q = rng.normal(size=4)
        q2 = q + rng.uniform(-1, 1, size=4) * sens  # a neighbour: |Δqⱼ| ≤ Δⱼ
        diff = np.abs(gem.normalized_scores(q) - gem.normalized_scores(q2))
        assert diff.max() <= 1.0 + 1e-12
        assert gem.normalized_scores(q).min() >= 0.0


def test_gem_probabilities_known_answer():
    # K = 2, Δ = (1, 1), β = 0.5: t = 2 ln 4 / ε; s = (max(0, q1 − q2)/2, ...).
    gem = GeneralizedExponentialMechanism(
        epsilon=2.0, sensitivities=[1.0, 1.0], beta=0.5
    )
    assert gem.threshold == pytest.approx(math.log(4.0))
    p = gem.probabilities([0.0, 1.0])
    # s = (0, 0.5): P ∝ (1, e^{−ε·0.5/2}) = (1, e^{−0.5}).
    assert p[1] / p[0] == pytest.approx(math.exp(-0.5))


@pytest.mark.slow
def test_gem_sampling_distribution():
    gem = GeneralizedExponentialMechanism(
        epsilon=1.5, sensitivities=[0.2, 0.4, 1.0], beta=0.2
    )
    q = [0.3, 0.1, 0.5]
    p = gem.probabilities(q)
    gen = np.random.default_rng(11)
    counts = np.bincount([gem.select(q, gen) for _ in range(6000)], minlength=3)
    assert stats.chisquare(counts, 6000 * p).pvalue > 1e-3


@pytest.mark.slow
def test_gem_accuracy_guarantee_in_simulation():
    # With probability ≥ 1 − β the chosen q is ≤ min_l (q_l + 4Δ_l ln(K/β)/ε).
    gen = np.random.default_rng(3)
    eps, beta, K = 1.0, 0.1, 8
    sens = np.geomspace(0.01, 1.0, K)
    gem = GeneralizedExponentialMechanism(epsilon=eps, sensitivities=sens, beta=beta)
    failures = 0
    trials = 300
    for _ in range(trials):
        q = gen.uniform(0, 3, size=K)
        bound = np.min(q + gem.accuracy_bound())
        failures += q[gem.select(q, gen)] > bound
    # Binomial(300, 0.1) exceeds 45 with probability < 1e-3.
    assert failures <= 45


@pytest.mark.slow
def test_gem_neighbour_ratio_empirical():
    # Exact probabilities on neighbouring score vectors: the ratio is ≤ e^ε.
    sens = np.array([0.1, 0.3, 1.0])
    gem = GeneralizedExponentialMechanism(epsilon=0.7, sensitivities=sens)
    rng = np.random.default_rng(5)
    for _ in range(300):
        q = rng.normal(size=3)
        q2 = q + rng.choice([-1.0, 1.0], size=3) * sens
        ratio = gem.probabilities(q) / gem.probabilities(q2)
        assert ratio.max() <= math.exp(0.7) * (1 + 1e-9)


def test_gem_rejects_bad_input():
    with pytest.raises(ValueError, match="sensitivities"):
        GeneralizedExponentialMechanism(epsilon=1.0, sensitivities=[1.0, 0.0])
    gem = GeneralizedExponentialMechanism(epsilon=1.0, sensitivities=[1.0, 1.0])
    with pytest.raises(ValueError, match="Expected 2 scores"):
        gem.select([1.0, 2.0, 3.0])


# -- permute-and-flip ----------------------------------------------------------------
@pytest.mark.slow
def test_permute_and_flip_two_candidate_distribution():
    # u = (0, −a): the loser is chosen iff it comes first and its coin,
    # exp(−ε a/(2Δ)), is heads: P = ½·exp(−ε a/(2Δ)).
    eps, a = 2.0, 1.0
    pf = PermuteAndFlip(epsilon=eps, sensitivity=1.0)
    gen = np.random.default_rng(7)
    n = 8000
    hits = sum(pf.select([0.0, -a], gen) for _ in range(n))
    p = 0.5 * math.exp(-eps * a / 2)
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_private_argmax_dispatch_and_errors():
    for method in ("exponential", "permute-and-flip"):
        idx, event = private_argmax(
            [0.0, 100.0], epsilon=10.0, sensitivity=1.0, method=method, random_state=0
        )
        assert idx == 1 and event.epsilon == 10.0 and event.delta == 0.0
    with pytest.raises(ValueError, match="method"):
        private_argmax([0.0], epsilon=1.0, sensitivity=1.0, method="gumbel")


# -- private ERM ---------------------------------------------------------------------
def _separable(m: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    X[:, 0] += 0.5 * y
    return X / np.linalg.norm(X, axis=1, keepdims=True), y


def test_gd_noise_multiplier_calibrates_and_is_monotone():
    z1 = gaussian_gd_noise_multiplier(1.0, 1e-5, 100)
    z2 = gaussian_gd_noise_multiplier(2.0, 1e-5, 100)
    z3 = gaussian_gd_noise_multiplier(1.0, 1e-5, 400)
    assert gaussian_gd_epsilon(z1, 100, 1e-5) <= 1.0
    assert gaussian_gd_epsilon(0.99 * z1, 100, 1e-5) > 1.0
    assert z2 < z1 < z3


def test_noisy_gd_records_replace_one_sensitivity_and_learns():
    X, y = _separable()
    res = noisy_projected_gd(
        X,
        y,
        loss=RhoHingeLoss(0.25),
        radius=4.0,
        data_norm=1.0,
        epsilon=50.0,
        delta=1e-5,
        n_steps=100,
        random_state=0,
    )
    ev = res.privacy_event
    # Δ₂ = 2·(1/ρ)·r/m = 2·4·1/200.
    assert ev.sensitivity == pytest.approx(2 * 4 / 200)
    assert ev.epsilon <= 50.0 and ev.delta == 1e-5
    assert np.linalg.norm(res.coef) <= 4.0 + 1e-9
    assert zero_one_error(X @ res.coef, y) < 0.1


def test_phased_sgd_learns_at_large_epsilon():
    X, y = _separable(512)
    res = phased_sgd(
        X,
        y,
        rho=0.25,
        radius=2.0,
        data_norm=1.0,
        epsilon=1e4,
        delta=1e-5,
        random_state=0,
    )
    assert res.privacy_event.epsilon == 1e4
    assert zero_one_error(X @ res.coef, y) < 0.15


def test_boosting_parameters_worked_example():
    # M = ⌈ln(2/0.05)⌉ = 4; ε′ = 1/(16 ln(8e5)) ≈ 0.0046; δ′ = 1e-10/(16 ln 8e5).
    M, e, d = boosting_parameters(1.0, 1e-5, 0.05)
    assert M == 4
    assert e == pytest.approx(1 / (16 * math.log(8e5)))
    assert d == pytest.approx(1e-10 / (16 * math.log(8e5)))
    assert round(e, 4) == 0.0046 and f"{d:.2g}" == "4.6e-13"


def test_bootstrap_group_size_is_the_binomial_quantile():
    g = _bootstrap_group_size(1000, 1e-6)
    assert stats.binom.sf(g, 1000, 1e-3) <= 1e-6 < stats.binom.sf(g - 1, 1000, 1e-3)
    # Smaller than the paper's Chernoff value 2 ln(2/δ̂) with δ̂/2 = 1e-6.
    assert g <= 2 * math.log(2 / 2e-6)


def test_boosted_refuses_outside_lemma_conditions():
    X, y = _separable(100)
    kw = dict(rho=0.5, radius=1.0, data_norm=1.0, random_state=0)
    with pytest.raises(ValueError, match=r"below 1/\(number of training rows\)"):
        boosted_phased_sgd(X, y, epsilon=1.0, delta=0.02, **kw)
    with pytest.raises(ValueError, match=r"ln\(1/delta\)"):
        boosted_phased_sgd(X, y, epsilon=8.0, delta=1e-3, **kw)


def test_boosted_event_composes_to_epsilon_delta():
    X, y = _separable(300)
    res = boosted_phased_sgd(
        X,
        y,
        rho=0.5,
        radius=2.0,
        data_norm=1.0,
        epsilon=2.0,
        delta=1e-4,
        random_state=0,
    )
    ev = res.privacy_event
    assert sum(c.epsilon for c in ev.children) == pytest.approx(ev.epsilon)
    assert sum(c.delta for c in ev.children) == pytest.approx(ev.delta)
    # The selection sensitivity uses the corrected (1 + Λ_W r̃/ρ)/m.
    assert ev.details["selection_sensitivity"] == pytest.approx((1 + 2 / 0.5) / 300)


def test_boosted_runs_are_phased_sgd_on_bootstraps_at_the_run_budget():
    # Algorithm 5 steps 4-6: run t is phased SGD on the t-th bootstrap of the
    # projected rows at (ε′, δ′); rows longer than r̃ are projected once.
    X, y = _separable(300)
    X = 1.7 * X  # every row outside B(r̃)
    kw = dict(rho=0.5, radius=2.0, data_norm=1.5)
    res = boosted_phased_sgd(X, y, epsilon=1.0, delta=1e-3, random_state=3, **kw)
    n_runs, eps_run, delta_run = boosting_parameters(1.0, 1e-3, 0.05)
    gen = np.random.default_rng(3)
    Xp = project_to_ball(X, 1.5)
    runs = []
    for _ in range(n_runs):
        idx = gen.integers(0, 300, size=300)
        run = phased_sgd(
            Xp[idx], y[idx], epsilon=eps_run, delta=delta_run, random_state=gen, **kw
        )
        runs.append(run.coef)
    assert any(np.array_equal(res.coef, w) for w in runs)
    assert [c.details["run_epsilon"] for c in res.privacy_event.children[:-1]] == [
        eps_run
    ] * n_runs


@pytest.mark.parametrize("cls", JL)
@pytest.mark.parametrize("k", [5, 40])
def test_jl_adjoint_matches_inner_products(cls, k):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(6, 30))
    t = cls(k, random_state=0).fit(X)
    w = rng.normal(size=t.n_components_)
    np.testing.assert_allclose(X @ t.adjoint_transform(w), t.transform(X) @ w)
    assert t.adjoint_transform(np.vstack([w, w])).shape == (2, 30)


def test_phased_sgd_noise_known_answer():
    from dpsvm.mechanisms import AnalyticGaussian, zcdp_noise_multiplier

    X, y = _separable(64)
    res = phased_sgd(
        X[:, :2],
        y,
        rho=0.5,
        radius=1.0,
        data_norm=1.0,
        epsilon=2.0,
        delta=1e-3,
        random_state=0,
    )
    # L = r̃/ρ = 2, D = 2Λ_W = 2: η = (D/L)·min(4/√64, ε/√(k ln(1/δ))) = 0.5;
    # phases i = 1..6 (nᵢ = 32, …, 1), σᵢ of the exact Gaussian release at
    # Δ = 2Lη/4ⁱ (issue 26: zCDP calibration, z = zcdp_noise_multiplier(2, 1e-3),
    # σ ≥ z(Δ + √k 2^g)): a little above the analytic σ of Balle & Wang.
    eta = min(0.5, 2.0 / math.sqrt(2 * math.log(1e3)))
    assert res.details["step_size"] == pytest.approx(eta) == 0.5
    z = zcdp_noise_multiplier(2.0, 1e-3)
    expected = [z * 2 * 2 * eta / 4**i for i in range(1, 7)]
    np.testing.assert_allclose(res.details["sigmas"], expected, rtol=1e-5)
    analytic = [
        AnalyticGaussian(epsilon=2.0, delta=1e-3, sensitivity=2 * 2 * eta / 4**i).sigma
        for i in range(1, 7)
    ]
    assert np.all(np.array(res.details["sigmas"]) > np.array(analytic))
    assert res.privacy_event.details["smoothing"] == pytest.approx(eta)  # λ = r̃²η
