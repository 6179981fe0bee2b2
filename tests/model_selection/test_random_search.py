# SPDX-License-Identifier: BSD-3-Clause
"""Random-stopping selection (Liu & Talwar; Papernot & Steinke): costs and fits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsvm.accounting import BudgetAccountant
from dpsvm.exceptions import BudgetExceededError
from dpsvm.model_selection import (
    PrivateRandomSearch,
    repeated_selection_epsilon,
    sample_repetitions,
)
from dpsvm.models import DPLinearSVC


def _data(n=500, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.arange(1, d + 1) > 0, 1, -1)
    return X, y


# ------------------------------------------------------------- closed forms
@pytest.mark.parametrize("eps0", [0.01, 0.1, 0.5, 2.0])
def test_pure_dp_closed_forms(eps0):
    # Liu & Talwar (2019): geometric K gives 3ε₀. Papernot & Steinke (2022),
    # Thm 2 with λ, λ̂ → ∞: (2 + η)ε₀; logarithmic is η = 0.
    assert repeated_selection_epsilon(eps0) == pytest.approx(3 * eps0, rel=1e-15)
    assert repeated_selection_epsilon(eps0, repetitions="logarithmic") == 2 * eps0
    nb = repeated_selection_epsilon(eps0, repetitions="negative-binomial", shape=0.5)
    assert nb == pytest.approx(2.5 * eps0, rel=1e-15)


def test_pure_cost_does_not_depend_on_the_mean():
    costs = {
        repeated_selection_epsilon(0.2, mean_repetitions=m) for m in (1, 5, 100, 1e4)
    }
    assert costs == {repeated_selection_epsilon(0.2)}


def test_poisson_needs_delta_and_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="no pure-DP bound"):
        repeated_selection_epsilon(0.1, repetitions="poisson")
    with pytest.raises(ValueError, match="repetitions must be one of"):
        repeated_selection_epsilon(0.1, repetitions="uniform")
    with pytest.raises(TypeError, match="shape"):
        repeated_selection_epsilon(0.1, repetitions="negative-binomial")
    with pytest.raises(ValueError, match="shape"):
        repeated_selection_epsilon(0.1, repetitions="negative-binomial", shape=-1.0)
    with pytest.raises(ValueError):
        repeated_selection_epsilon(0.0)
    with pytest.raises(ValueError, match="mean_repetitions"):
        repeated_selection_epsilon(0.1, delta=1e-6)


def test_rdp_accounting_is_valid_and_monotone():
    pytest.importorskip("dp_accounting")
    eps0, mean = 1.0, 2.0
    vals = [
        repeated_selection_epsilon(eps0, delta=d, mean_repetitions=mean)
        for d in (1e-9, 1e-6, 1e-3)
    ]
    # Never above the pure bound (the smaller of two valid bounds), and
    # non-increasing in δ.
    assert all(v <= 3 * eps0 for v in vals)
    assert vals[0] >= vals[1] >= vals[2]
    # With few repetitions and a large ε₀ the RDP route beats 3ε₀ (≈ 2.33 at
    # E[K] = 2, ε₀ = 1, δ = 1e-3); the worst-case RR curve of a pure ε₀-DP
    # run leaves little room for larger E[K].
    assert vals[2] < 0.8 * 3 * eps0
    poisson = repeated_selection_epsilon(
        eps0, repetitions="poisson", delta=1e-6, mean_repetitions=mean
    )
    assert eps0 < poisson < math.inf
    # A larger mean costs more under RDP accounting.
    assert repeated_selection_epsilon(
        eps0, delta=1e-6, mean_repetitions=100.0
    ) >= repeated_selection_epsilon(eps0, delta=1e-6, mean_repetitions=2.0)


# ------------------------------------------------------------- the law of K
@pytest.mark.parametrize(
    ("repetitions", "shape"),
    [("geometric", None), ("logarithmic", None), ("negative-binomial", 2.0)],
)
def test_repetitions_have_the_requested_mean(repetitions, shape):
    rng = np.random.default_rng(0)
    ks = np.array(
        [sample_repetitions(repetitions, 5.0, rng, shape=shape) for _ in range(6000)]
    )
    assert ks.min() >= 1
    # Mean within 4 standard errors of E[K] = 5.
    assert abs(ks.mean() - 5.0) < 4 * ks.std() / math.sqrt(ks.size)


def test_logarithmic_law_matches_its_pmf():
    # P(K = k) ∝ (1 − γ)^k / k (Papernot & Steinke 2022, Def. 1 with η = 0).
    rng = np.random.default_rng(1)
    ks = np.array([sample_repetitions("logarithmic", 3.0, rng) for _ in range(5000)])
    from dpsvm.model_selection._repeated import _gamma_for_mean

    q = 1.0 - _gamma_for_mean(3.0, 0.0)
    support = np.arange(1, 8)
    pmf = q**support / support / -math.log(1.0 - q)
    observed = np.array([np.sum(ks == k) for k in support] + [np.sum(ks >= 8)])
    expected = np.append(pmf, 1.0 - pmf.sum()) * ks.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_poisson_repetitions_are_refused_by_the_sampler():
    with pytest.raises(ValueError, match="K = 0"):
        sample_repetitions("poisson", 3.0, np.random.default_rng(0))


# ------------------------------------------------------------- the selector
def test_search_spends_one_event_of_the_total_budget():
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0)
    search = PrivateRandomSearch(
        DPLinearSVC(classes=[-1, 1]),
        {"regularization": [1e-2, 1e-1]},
        epsilon=0.9,
        mean_repetitions=3,
        accountant=acc,
        random_state=0,
    ).fit(X, y)
    assert len(acc) == 1 and acc.total() == (0.9, 0.0)
    assert search.base_epsilon_ == pytest.approx(0.3)  # ε/3 (Liu & Talwar)
    event = search.privacy_event_
    run = event.children[0]
    fit, score = run.children
    assert fit.epsilon == pytest.approx(0.3) and score.epsilon == pytest.approx(0.3)
    assert score.mechanism == "laplace" and score.sensitivity == 1.0
    train, val = search.partition_
    assert val.size == math.ceil(0.2 * 500)
    assert np.array_equal(np.sort(np.concatenate([train, val])), np.arange(500))
    assert fit.details["n_samples"] == train.size
    assert search.best_params_["regularization"] in (1e-2, 1e-1)
    assert np.array_equal(search.predict(X), search.best_estimator_.predict(X))


def test_logarithmic_search_uses_half_the_budget_per_run():
    X, y = _data(300)
    search = PrivateRandomSearch(
        DPLinearSVC(classes=[-1, 1]),
        {"regularization": [0.1]},
        epsilon=1.0,
        repetitions="logarithmic",
        mean_repetitions=2,
        random_state=0,
    ).fit(X, y)
    assert search.base_epsilon_ == 0.5
    assert (
        repeated_selection_epsilon(search.base_epsilon_, repetitions="logarithmic")
        <= 1.0
    )


def test_approximate_dp_calibration_stays_within_budget():
    pytest.importorskip("dp_accounting")
    X, y = _data(300)
    search = PrivateRandomSearch(
        DPLinearSVC(classes=[-1, 1]),
        {"regularization": [0.1]},
        epsilon=6.0,
        delta=1e-5,
        mean_repetitions=2,
        random_state=0,
    ).fit(X, y)
    eps0 = search.base_epsilon_
    assert eps0 >= 2.0  # never worse than the pure calibration ε/3
    cost = repeated_selection_epsilon(eps0, delta=1e-5, mean_repetitions=2)
    assert cost <= 6.0
    assert search.privacy_event_.delta == 1e-5


def test_search_budget_and_failure_spend_nothing():
    X, y = _data(200)
    acc = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        PrivateRandomSearch(
            DPLinearSVC(classes=[-1, 1]), {"regularization": [0.1]}, accountant=acc
        ).fit(X, y)
    acc2 = BudgetAccountant(epsilon=2.0)
    with pytest.raises(ValueError, match="counter-example"):
        PrivateRandomSearch(
            DPLinearSVC(classes=[-1, 1]),
            {"loss": ["hinge"]},
            mean_repetitions=1,
            accountant=acc2,
            random_state=0,
        ).fit(X, y)
    assert len(acc) == 0 and len(acc2) == 0
    with pytest.raises(TypeError, match="explicit values"):
        PrivateRandomSearch(DPLinearSVC(), lambda X: {}).fit(X, y)
    with pytest.raises(ValueError, match="only used with"):
        PrivateRandomSearch(DPLinearSVC(), {"regularization": [0.1]}, shape=2.0).fit(
            X, y
        )
