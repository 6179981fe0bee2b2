# SPDX-License-Identifier: BSD-3-Clause
"""Releases built on Nie & Wang's Theorem 2: conventions, solvers, budget, API.

The statistical tests (noise laws and empirical neighbouring-dataset audits) are
in ``test_nie_wang_privacy.py``.
"""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_approximation import RBFSampler
from sklearn.kernel_ridge import KernelRidge
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpsvm.models._explicit_output as explicit_module
from dpsvm.accounting import BudgetAccountant, NonPrivateEvent
from dpsvm.exceptions import (
    BudgetExceededError,
    DPSVMConvergenceError,
    NotPrivateWarning,
    PrivacyLeakWarning,
)
from dpsvm.io import load_model, save_model
from dpsvm.kernels import (
    PolynomialFeatureMap,
    kernel_matrix,
    polynomial_feature_norm_bound,
)
from dpsvm.mechanisms import (
    AnalyticGaussian,
    discrete_gaussian_calibration,
    zcdp_noise_multiplier,
)
from dpsvm.models import (
    DPGaussianProcessRelease,
    DPOutputPerturbationRegressor,
    DPOutputPerturbationSVC,
    NonPrivateScalarOffsetRelease,
    PerQueryLaplacePredictor,
    ScalarOffsetNotPrivateWarning,
)
from dpsvm.models.kernel_erm import KernelSpec
from dpsvm.models.nie_wang import (
    nw_noise_scale,
    nw_param_rule_general,
    prediction_sensitivity,
    rkhs_sensitivity,
)
from dpsvm.perturbation import CERTIFICATE_RTOL
from dpsvm.prediction import PrivateInteractivePredictor
from dpsvm.solvers import (
    BoxSolution,
    box_loss,
    kernel_factor,
    solve_box_erm,
    solve_hinge,
    solve_squared_erm,
)

# Noise is calibrated to Δ_H + 2·cap with cap = CERTIFICATE_RTOL·Δ_H.
INFLATE = 1.0 + 2.0 * CERTIFICATE_RTOL


def _clf_data(n=200, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / 2
    y = np.where(X @ np.arange(1, d + 1) > 0, 1, -1)
    return X, y


def _reg_data(n=200, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / 2
    y = X @ np.arange(1, d + 1) + 0.1 * rng.standard_normal(n)
    return X, y


# ------------------------------------------ conventions (Nie & Wang Thm 2)
def test_prediction_sensitivity_is_the_same_in_every_convention():
    kappa, C_L, n, Lam = 2.0, 0.9, 50, 0.1
    # S = 2κ²C_L/(nΛ) = 2·4·0.9/(50·0.1) = 1.44.
    expected = 2 * kappa**2 * C_L / (n * Lam)
    assert expected == pytest.approx(1.44)
    values = [
        prediction_sensitivity(kappa, C_L, Lam, n),  # dpsvm: (Λ/2)‖f‖²
        # NW: λ_NW = Λ/2 with Ω = ‖f‖², γ = 2.
        prediction_sensitivity(kappa, C_L, Lam / 2, n, convention="nie-wang"),
        # NW with Ω = ½‖f‖² (γ = 1): λ = Λ.
        prediction_sensitivity(kappa, C_L, Lam, n, convention="nie-wang", gamma=1.0),
        # JT: (λ_JT/2)‖w‖², λ_JT = Λ: S = 2LR²/(λ_JT n).
        prediction_sensitivity(kappa, C_L, Lam, n, convention="jain-thakurta"),
    ]
    assert values == pytest.approx([expected] * 4, rel=1e-14)
    # Δ_H = S/κ = 2κC_L/(nΛ) = 0.72.
    assert rkhs_sensitivity(kappa, C_L, Lam, n) == pytest.approx(0.72)


def test_convention_errors():
    with pytest.raises(ValueError, match="convention"):
        prediction_sensitivity(1.0, 1.0, 0.1, 10, convention="sklearn")
    with pytest.raises(ValueError, match="gamma"):
        rkhs_sensitivity(1.0, 1.0, 0.1, 10, gamma=1.0)
    with pytest.raises(ValueError):
        prediction_sensitivity(1.0, 1.0, -0.1, 10)


def test_worked_values_and_literal_scale():
    # Spec A.7 (hinge, κ = 1, β = 1, m = 10³): λ = ε = 0.1, Lemma-1 scale
    # κ²/(λmε) = 0.1, Prop-1 scale 0.05.
    lam_nw, eps = nw_param_rule_general(1000, 1.0)
    assert (lam_nw, eps) == pytest.approx((0.1, 0.1))
    assert nw_noise_scale(1.0, 1.0, lam_nw, 2.0, 1000, eps) == pytest.approx(0.1)
    # End to end: the literal estimator with Λ = 2λ_NW draws from the same scale.
    X, y = _clf_data(1000)
    for conv, scale in (("lemma1", 0.1), ("prop1", 0.05)):
        lit = NonPrivateScalarOffsetRelease(
            epsilon=eps,
            noise_convention=conv,
            kernel="linear",
            regularization=2 * lam_nw,
            classes=[-1, 1],
            random_state=0,
        )
        with pytest.warns(ScalarOffsetNotPrivateWarning):
            lit.fit(X, y)
        assert lit.noise_scale_ == pytest.approx(scale)


@pytest.mark.parametrize(
    ("kwargs", "C_L"),
    [
        ({}, 1.0),
        ({"loss": "absolute"}, 1.0),
        ({"loss": "pinball", "quantile": 0.2}, 0.8),  # max(τ, 1 − τ)
    ],
)
def test_vector_release_sensitivity_known_answer(kwargs, C_L):
    # n = 40, Λ = 0.5, R = κ = 2: Δ_H = 2κC_L/(nΛ) = 0.2·C_L, noise at Δ_H·INFLATE.
    X, y = _reg_data(40)
    est = (
        DPOutputPerturbationSVC(classes=[-1, 1])
        if not kwargs
        else DPOutputPerturbationRegressor(**kwargs)
    )
    est.set_params(regularization=0.5, data_norm=2.0, random_state=0)
    est.fit(X, np.sign(y) if not kwargs else y)
    event = est.privacy_event_
    assert event.details["rkhs_sensitivity"] == pytest.approx(0.2 * C_L)
    assert event.sensitivity == pytest.approx(0.2 * C_L * INFLATE)
    assert event.sensitivity_norm == "l2"
    assert event.epsilon == 1.0
    assert event.neighbouring == "replace-one"


def test_squared_loss_uses_nie_wang_ls_constant():
    # Nie & Wang Sec. 5.1: C_L = 2M(κ+1)/√λ_NW; M = 2, κ = 1, Λ = 0.5 ⇒ λ_NW = 0.25,
    # C_L = 2·2·2/0.5 = 16; Δ_H = 2κC_L/(nΛ) = 32/(40·0.5) = 1.6.
    X, y = _reg_data(40)
    reg = DPOutputPerturbationRegressor(
        loss="squared", y_bound=2.0, regularization=0.5, random_state=0
    ).fit(X, y)
    assert reg.privacy_event_.details["lipschitz"] == pytest.approx(16.0)
    assert reg.privacy_event_.details["rkhs_sensitivity"] == pytest.approx(1.6)


def test_laplace_and_gaussian_calibrations():
    X, y = _clf_data(40, d=3)
    kw = {"regularization": 0.5, "classes": [-1, 1], "random_state": 0}
    delta_h = 2 * 1.0 / (40 * 0.5) * INFLATE  # κ = 1, C_L = 1
    lap = DPOutputPerturbationSVC(noise="laplace", **kw).fit(X, y)
    # L1 sensitivity √D·Δ (‖·‖₁ ≤ √D‖·‖₂), D = 3.
    assert lap.privacy_event_.sensitivity == pytest.approx(math.sqrt(3) * delta_h)
    assert lap.privacy_event_.details["scale"] == pytest.approx(math.sqrt(3) * delta_h)
    gau = DPOutputPerturbationSVC(noise="gaussian", delta=1e-6, **kw).fit(X, y)
    sigma = AnalyticGaussian(epsilon=1.0, delta=1e-6, sensitivity=delta_h).sigma
    assert gau.privacy_event_.details["sigma"] == pytest.approx(sigma)
    assert gau.privacy_event_.delta == 1e-6


def test_l1_term_keeps_the_sensitivity():
    # Ω = ‖w‖² + (μ/λ)‖w‖₁ is still 2-strongly convex: the same Δ_H (Nie & Wang Thm 2).
    X, y = _clf_data(60)
    kw = {"classes": [-1, 1], "random_state": 0}
    a = DPOutputPerturbationSVC(**kw).fit(X, y).privacy_event_
    b = DPOutputPerturbationSVC(l1_regularization=0.05, **kw).fit(X, y).privacy_event_
    assert a.sensitivity == b.sensitivity


def test_kernel_bounds_and_prediction_sensitivity():
    X, y = _clf_data(60)
    acc = BudgetAccountant()
    cases = {
        "rbf": 1.0,  # K(x, x) = 1
        "linear": 2.0,  # R
        "poly": (4 + 1) ** 1.5,  # (R² + c₀)^{p/2}, p = 3, c₀ = 1
    }
    for kernel, kappa in cases.items():
        pp = PerQueryLaplacePredictor(
            kernel=kernel,
            gamma=0.5 if kernel == "rbf" else 1.0,
            data_norm=2.0,
            accountant=acc,
            epsilon=0.5,
            regularization=0.1,
            classes=[-1, 1],
        ).fit(X, y)
        assert pp.kappa_ == pytest.approx(kappa)
        # S = κ·Δ_H = 2κ²C_L/(nΛ) (C_L = 1), answers Lap(S·INFLATE/ε).
        S = 2 * kappa**2 / (60 * 0.1)
        assert pp.prediction_sensitivity_ == pytest.approx(S * INFLATE)
        assert pp.noise_scale_ == pytest.approx(S * INFLATE / 0.5)
    assert len(acc) == 0  # fitting spends nothing


def test_polynomial_kernel_is_the_one_of_dpsvm_kernels():
    # Regression (issue 11): KernelSpec computed (γ⟨x, y⟩ + c₀)^p while
    # dpsvm.kernels.kernel_matrix computes (⟨x, y⟩ + c₀)^p and ignores γ, so the
    # same input gave 1.5625 here and 2.25 there. One kernel now: (⟨x, y⟩ + c₀)^p.
    X = np.array([[0.5, 0.5], [1.0, 0.0]])  # ⟨x₁, x₂⟩ = 0.5
    spec = KernelSpec("poly", 1.0, 2, 1.0, 1.0)
    want = kernel_matrix(X, kernel="poly", gamma=0.5, degree=2, coef0=1.0)
    assert want[0, 1] == 2.25  # (0.5 + 1)²
    np.testing.assert_array_equal(spec.gram(X, X), want)
    Z = PolynomialFeatureMap(degree=2, coef0=1.0).fit(X).transform(X)
    np.testing.assert_allclose(spec.gram(X, X), Z @ Z.T, rtol=1e-12)
    # κ is the feature map's public bound (R² + c₀)^{p/2}.
    assert spec.kappa == polynomial_feature_norm_bound(2, 1.0, 1.0) == 2.0
    # A γ for the polynomial kernel is refused, not silently used or ignored.
    with pytest.raises(ValueError, match="has no gamma"):
        KernelSpec("poly", 0.5, 2, 1.0, 1.0)
    X2, y2 = _clf_data(30)
    for est in (
        PerQueryLaplacePredictor(accountant=BudgetAccountant(), classes=[-1, 1]),
        DPGaussianProcessRelease(classes=[-1, 1]),
        PrivateInteractivePredictor(epsilon=1.0, delta=1e-6, classes=[-1, 1]),
    ):
        with pytest.raises(ValueError, match="has no gamma"):
            est.set_params(kernel="poly", gamma=0.5).fit(X2, y2)


def test_gp_release_sigma():
    X, y = _clf_data(50)
    gp = DPGaussianProcessRelease(
        epsilon=0.5, delta=1e-5, regularization=0.2, classes=[-1, 1], random_state=0
    ).fit(X, y)
    # RKHS sensitivity Δ_H = 2κC_L/(nΛ) = 2/(50·0.2) = 0.2 (rbf: κ = 1). The
    # release is the exact discrete Gaussian on whitened coordinates: σ = z·Δ′
    # with z from the zCDP conversion (CKS20 Cor. 13) and Δ′ = Δ_H·INFLATE plus
    # the rounding term √q·2^k for q ≤ 2^16 points; the whitened clamp is
    # R = κC_L/Λ + cap = 1/0.2 + cap.
    z = zcdp_noise_multiplier(0.5, 1e-5)
    cap = 0.2 * (INFLATE - 1) / 2
    cal = discrete_gaussian_calibration(z, 0.2 * INFLATE, 2**16, 5.0 + cap)
    assert gp.sigma_ == pytest.approx(cal.sigma, rel=1e-12)
    assert cal.sigma == pytest.approx(z * 0.2 * INFLATE, rel=1e-3)
    # The price of exactness over the analytic σ of Balle & Wang (Thm 8).
    analytic = AnalyticGaussian(epsilon=0.5, delta=1e-5, sensitivity=0.2 * INFLATE)
    assert 1.0 < gp.sigma_ / analytic.sigma < 1.15
    assert gp.privacy_event_.delta == 1e-5
    assert gp.privacy_event_.details["release"] == "discrete"


# --------------------------------------------------------------------- solvers
def _unit_rows(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None], rng


def test_box_solver_matches_liblinear_on_the_hinge():
    X, rng = _unit_rows(200, 5, 0)
    y = np.where(X @ np.arange(1, 6) + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    lo, hi, r, _ = box_loss("hinge", y)
    a = solve_box_erm(X, lo, hi, r, 0.01)
    b = solve_hinge(X, y, 0.01, target_distance=1e-7)
    # Both are certified: ‖a − b‖ ≤ dist_a + dist_b.
    assert np.linalg.norm(a.coef - b.coef) <= a.distance_bound + b.distance_bound
    assert a.distance_bound < 1e-5


def test_kernel_path_agrees_with_explicit_features():
    # The linear kernel through a Gram factor and through the features are two
    # independent code paths of the same problem.
    X, rng = _unit_rows(80, 3, 1)
    y = X @ [1.0, -2.0, 0.5] + rng.standard_t(3, size=80)
    lo, hi, r, _ = box_loss("pinball", y, 0.7)
    expl = solve_box_erm(X, lo, hi, r, 0.05)
    K = X @ X.T
    kern = solve_box_erm(kernel_factor(K), lo, hi, r, 0.05, gram=K)
    assert kern.dual_coef is not None
    w_kernel = X.T @ kern.dual_coef  # f = Σ cᵢ⟨xᵢ, ·⟩
    gap = np.linalg.norm(w_kernel - expl.coef)
    assert gap <= expl.distance_bound + kern.distance_bound + 1e-12
    assert max(expl.distance_bound, kern.distance_bound) < 1e-5


@pytest.mark.parametrize(
    ("loss", "q", "y_last", "expected"),
    [
        # x = 1, n = 10, Λ = 1. Pinball τ, y = 10: w = τ/Λ; with y_n = −10:
        # (−9τ + (1 − τ))/n + w = 0 ⇒ w = (10τ − 1)/10.
        ("pinball", 0.3, 10.0, 0.3),
        ("pinball", 0.3, -10.0, 0.2),
        # Absolute: w = 1 and 0.8 (Δ_H = 2/(nΛ) = 0.2 attained).
        ("absolute", 0.5, 10.0, 1.0),
        ("absolute", 0.5, -10.0, 0.8),
        # Hinge with y = ±1 targets: w = 1 and 0.8.
        ("hinge", 0.5, 1.0, 1.0),
        ("hinge", 0.5, -1.0, 0.8),
    ],
)
def test_box_solver_known_answers(loss, q, y_last, expected):
    X = np.ones((10, 1))
    y = np.full(10, 10.0 if loss != "hinge" else 1.0)
    y[-1] = y_last
    lo, hi, r, _ = box_loss(loss, y, q)
    sol = solve_box_erm(X, lo, hi, r, 1.0)
    assert sol.coef[0] == pytest.approx(expected, abs=1e-9)
    assert abs(sol.coef[0] - expected) <= sol.distance_bound + 1e-12


def test_l1_known_answer():
    # min (1 − w)₊ + w²/2 + 0.1|w| on x = 1, y = 1: −1 + w + 0.1 = 0 ⇒ w = 0.9;
    # with μ = 2 the ℓ1 term wins: w = 0.
    X = np.ones((10, 1))
    lo, hi, r, _ = box_loss("hinge", np.ones(10))
    assert solve_box_erm(X, lo, hi, r, 1.0, l1=0.1).coef[0] == pytest.approx(0.9)
    assert solve_box_erm(X, lo, hi, r, 1.0, l1=2.0).coef[0] == 0.0


def test_squared_solver_is_kernel_ridge():
    # NW Sec. 5.1: c = (K + λ_NW·m·I)⁻¹y with λ_NW = Λ/2 = scikit-learn's
    # KernelRidge(alpha = nΛ/2).
    X, rng = _unit_rows(50, 2, 2)
    y = rng.normal(size=50)
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=2))
    sol = solve_squared_erm(None, y, 0.1, gram=K)
    ref = KernelRidge(alpha=50 * 0.1 / 2, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(sol.dual_coef, ref.dual_coef_, rtol=1e-8)
    assert sol.distance_bound < 1e-10


def test_solver_certificate_failure_refuses_and_spends_nothing(monkeypatch):
    def stalled(*a, **k):  # type: ignore[no-untyped-def]
        return BoxSolution(np.zeros(2), None, 1.0, 1.0, 0, "stalled")

    monkeypatch.setattr(explicit_module, "solve_features", stalled)
    X, y = _clf_data(30)
    acc = BudgetAccountant(1.0)
    clf = DPOutputPerturbationSVC(classes=[-1, 1], accountant=acc)
    with pytest.raises(DPSVMConvergenceError, match="cap"):
        clf.fit(X, y)
    assert len(acc) == 0
    assert not hasattr(clf, "coef_")


# ------------------------------------------- per-query Laplace accounting
def _predictor(acc, eps=0.25, **kw):
    X, y = _clf_data(80)
    pp = PerQueryLaplacePredictor(
        epsilon=eps, accountant=acc, classes=[-1, 1], random_state=0, **kw
    )
    return pp.fit(X, y), X


def test_predictor_spends_per_answer():
    acc = BudgetAccountant(epsilon=1.0)
    pp, X = _predictor(acc)
    assert len(acc) == 0
    pp.decision_function(X[:3])
    assert len(acc) == 3
    assert acc.total()[0] == pytest.approx(0.75)
    assert all(e.mechanism == "nw-private-prediction-laplace" for e in acc.ledger)
    assert all(e.epsilon == 0.25 for e in acc.ledger)
    pp.predict(X[:1])
    assert acc.total()[0] == pytest.approx(1.0)


def test_predictor_refuses_when_exhausted_and_spends_nothing():
    acc = BudgetAccountant(epsilon=1.0)
    pp, X = _predictor(acc)
    with pytest.raises(BudgetExceededError):
        pp.decision_function(X[:5])  # 1.25 > 1: the whole batch is refused
    assert len(acc) == 0
    pp.decision_function(X[:4])
    with pytest.raises(BudgetExceededError):
        pp.predict(X[:1])
    assert len(acc) == 4


def test_predictor_failed_query_spends_nothing():
    acc = BudgetAccountant(epsilon=1.0)
    pp, X = _predictor(acc)
    bad = X[:2].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pp.decision_function(bad)
    with pytest.raises(ValueError, match="features"):
        pp.decision_function(np.ones((1, 5)))
    assert len(acc) == 0


def test_predictor_requires_an_accountant():
    X, y = _clf_data(30)
    with pytest.raises(ValueError, match="accountant"):
        PerQueryLaplacePredictor(classes=[-1, 1]).fit(X, y)


def test_predictor_regression_and_clone_share_the_ledger():
    acc = BudgetAccountant(epsilon=2.0)
    X, y = _reg_data(60)
    pp = PerQueryLaplacePredictor(
        epsilon=0.5, accountant=acc, loss="pinball", quantile=0.8, kernel="linear"
    )
    twin = clone(pp)
    assert twin.accountant is acc
    twin.fit(X, y)
    out = twin.predict(X[:2])
    assert out.shape == (2,) and out.dtype == np.float64
    assert acc.total()[0] == pytest.approx(1.0)


# ------------------------------------------ output perturbation accounting
def test_vector_release_budget_order():
    X, y = _clf_data(40)
    X[0, 0] = np.nan  # would fail validation, but the budget check comes first
    acc = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        DPOutputPerturbationSVC(epsilon=0.6, classes=[-1, 1], accountant=acc).fit(X, y)
    X, y = _clf_data(40)
    DPOutputPerturbationSVC(
        epsilon=0.5, classes=[-1, 1], accountant=acc, random_state=0
    ).fit(X, y)
    assert acc.total() == pytest.approx((0.5, 0.0))


def test_gp_release_spends_epsilon_delta_once():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    X, y = _clf_data(40)
    gp = DPGaussianProcessRelease(
        epsilon=1.0, delta=1e-6, accountant=acc, classes=[-1, 1], random_state=0
    ).fit(X, y)
    gp.decision_function(X)
    gp.predict(X[:3])
    assert len(acc) == 1
    assert acc.total() == pytest.approx((1.0, 1e-6))


def test_one_vs_rest_splits_epsilon():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 2)) * 0.3
    y = np.argmax(X @ rng.normal(size=(2, 3)), axis=1)
    clf = DPOutputPerturbationSVC(epsilon=0.9, classes=[0, 1, 2], random_state=0).fit(
        X, y
    )
    assert clf.coef_.shape == (3, 2)
    assert clf.privacy_event_.epsilon == pytest.approx(0.9)
    assert [c.epsilon for c in clf.privacy_event_.children] == pytest.approx([0.3] * 3)


# ------------------------------ Gaussian-process consistency, scalar offset
def test_gp_release_is_consistent():
    X, y = _clf_data(40)
    gp = DPGaussianProcessRelease(classes=[-1, 1], random_state=0).fit(X, y)
    a = gp.decision_function(X[:5])
    b = gp.decision_function(np.vstack([X[3:8], X[:2]]))
    np.testing.assert_array_equal(b[:2], a[3:5])  # re-queried points
    np.testing.assert_array_equal(b[-2:], a[:2])
    dup = gp.decision_function(np.vstack([X[10], X[10]]))
    assert dup[0] == dup[1]


def test_literal_mode_warns_and_is_flagged():
    X, y = _clf_data(40)
    lit = NonPrivateScalarOffsetRelease(classes=[-1, 1], random_state=0)
    with pytest.warns(ScalarOffsetNotPrivateWarning, match="NOT differential privacy"):
        lit.fit(X, y)
    assert issubclass(ScalarOffsetNotPrivateWarning, PrivacyLeakWarning)
    assert issubclass(ScalarOffsetNotPrivateWarning, NotPrivateWarning)
    event = lit.privacy_event_
    assert isinstance(event, NonPrivateEvent)
    assert "NOT DP" not in event.mechanism
    assert event.epsilon == math.inf and event.delta == 1.0
    assert "PerQueryLaplacePredictor" in event.reason
    assert event.details["privacy"] == "none (paper-literal, not standard DP)"
    assert event.details["claimed_epsilon"] == 1.0
    acc = BudgetAccountant(10.0)
    with pytest.raises(BudgetExceededError):
        acc.spend(event)  # no finite budget can pay for it


def test_literal_mode_differences_are_deterministic_and_distinguish_neighbours():
    # Spec C.7: f_{z,A}(x₁) − f_{z,A}(x₂) does not depend on the noise, and
    # differs between neighbours: one query pair tells D from D′ with certainty.
    X = np.linspace(-0.5, 0.5, 20)[:, None]
    y = np.where(X[:, 0] > 0, 1, -1)
    y2 = y.copy()
    y2[-1] = -1
    probe = np.array([[0.5], [-0.5]])

    def diffs(labels):  # type: ignore[no-untyped-def]
        out = []
        for seed in range(5):
            lit = NonPrivateScalarOffsetRelease(
                kernel="linear", regularization=0.1, classes=[-1, 1], random_state=seed
            )
            with pytest.warns(ScalarOffsetNotPrivateWarning):
                lit.fit(X, labels)
            v = lit.decision_function(probe)
            out.append(v[0] - v[1])
        return np.array(out)

    d1, d2 = diffs(y), diffs(y2)
    np.testing.assert_allclose(d1, d1[0], atol=1e-12)
    np.testing.assert_allclose(d2, d2[0], atol=1e-12)
    assert abs(d1[0] - d2[0]) > 1e-3


@pytest.mark.parametrize("loss", ["pinball", "absolute", "squared"])
def test_kernel_releases_support_regression_losses(loss):
    X, y = _reg_data(50)
    kw = {"loss": loss, "quantile": 0.8, "y_bound": 2.0, "regularization": 0.5}
    gp = DPGaussianProcessRelease(random_state=0, **kw).fit(X, y)
    out = gp.predict(X[:4])
    assert out.shape == (4,) and out.dtype == np.float64
    with pytest.warns(ScalarOffsetNotPrivateWarning):
        lit = NonPrivateScalarOffsetRelease(random_state=0, **kw).fit(X, y)
    # The literal offset is one scalar: differences are those of f_z.
    diff = lit.predict(X[:2]) - gp._model.decision(X[:2])
    assert diff[0] == pytest.approx(diff[1], abs=1e-9)


# ------------------------------------------------------- domain enforcement
def test_queries_and_rows_are_projected_onto_the_domain():
    X, y = _clf_data(40)
    with pytest.warns(ScalarOffsetNotPrivateWarning):
        lit = NonPrivateScalarOffsetRelease(
            kernel="poly", gamma=1.0, data_norm=1.0, classes=[-1, 1], random_state=0
        ).fit(X, y)
    u = np.array([[0.6, 0.8]])
    np.testing.assert_allclose(
        lit.decision_function(10 * u), lit.decision_function(u), rtol=1e-12
    )
    svc_kw = {"classes": [-1, 1], "random_state": 3}
    a = DPOutputPerturbationSVC(**svc_kw).fit(10 * X, y)
    b = DPOutputPerturbationSVC(**svc_kw).fit(
        X * 10 / np.maximum(1, np.linalg.norm(10 * X, axis=1))[:, None], y
    )
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


def test_data_dependent_bounds_warn():
    X, y = _clf_data(40)
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        DPOutputPerturbationSVC(data_norm=None, classes=[-1, 1]).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="classes="):
        DPOutputPerturbationSVC().fit(X, y)
    acc = BudgetAccountant()
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        PerQueryLaplacePredictor(
            kernel="linear", data_norm=None, accountant=acc, classes=[-1, 1]
        ).fit(X, y)
    # The Gaussian kernel has κ = 1 on all of ℝ^d: no domain needed, no warning.
    PerQueryLaplacePredictor(data_norm=None, accountant=acc, classes=[-1, 1]).fit(X, y)


# ------------------------------------------------------------- feature maps
def test_unfitted_feature_map_is_never_fitted_on_the_data():
    X, y = _clf_data(60)
    fmap = RBFSampler(n_components=30, random_state=0)
    clf = DPOutputPerturbationSVC(
        feature_map=fmap, feature_norm=math.sqrt(2), classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert not hasattr(fmap, "random_weights_")  # the parameter is untouched
    ref = RBFSampler(n_components=30, random_state=0).fit(np.zeros((1, 2)))
    np.testing.assert_array_equal(clf.feature_map_.random_weights_, ref.random_weights_)
    assert clf.coef_.shape == (1, 30)
    assert clf.privacy_event_.details["kappa"] == pytest.approx(math.sqrt(2))


def test_dpsvm_random_features_publish_their_bound():
    kernels = pytest.importorskip("dpsvm.kernels")
    rff_cls = getattr(kernels, "RandomFourierFeatures", None)
    if rff_cls is None:
        pytest.skip("dpsvm.kernels.RandomFourierFeatures is not available")
    X, y = _clf_data(60)
    clf = DPOutputPerturbationSVC(
        feature_map=rff_cls(n_components=20, random_state=0),
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    assert clf.feature_norm_ == clf.feature_map_.feature_norm_bound_


# ----------------------------------------------------------------- utility
@pytest.mark.slow
def test_quantile_regression_covers_its_quantile():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(4000, 1)) / 2
    y = X[:, 0] + 0.2 * rng.standard_normal(4000)
    reg = DPOutputPerturbationRegressor(
        quantile=0.9,
        epsilon=20.0,
        regularization=1e-3,
        fit_intercept=True,
        random_state=0,
    ).fit(X, y)
    coverage = np.mean(y <= reg.predict(X))
    assert 0.8 < coverage < 0.97


def test_private_svm_learns():
    X, y = _clf_data(3000)
    clf = DPOutputPerturbationSVC(
        epsilon=2.0, regularization=1e-3, classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert clf.score(X, y) > 0.9


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("make", "err", "match"),
    [
        (lambda: DPOutputPerturbationSVC(noise="gaussian"), ValueError, "delta > 0"),
        (lambda: DPOutputPerturbationSVC(delta=1e-6), ValueError, "delta=0"),
        (
            lambda: DPOutputPerturbationSVC(epsilon=0.0),
            InvalidParameterError,
            "epsilon",
        ),
        (
            lambda: DPOutputPerturbationSVC(noise="cauchy"),
            InvalidParameterError,
            "noise",
        ),
        (
            lambda: DPOutputPerturbationSVC(feature_map=RBFSampler()),
            ValueError,
            "feature_norm",
        ),
        (
            lambda: DPOutputPerturbationSVC(feature_map=object(), feature_norm=1.0),
            TypeError,
            "transform",
        ),
        (
            lambda: DPOutputPerturbationRegressor(loss="squared"),
            ValueError,
            "y_bound",
        ),
        (
            lambda: DPOutputPerturbationRegressor(
                loss="squared", y_bound=1.0, regularization=3.0
            ),
            ValueError,
            "<= 1",
        ),
        (
            lambda: DPOutputPerturbationRegressor(
                loss="squared", y_bound=1.0, l1_regularization=0.1
            ),
            ValueError,
            "l1",
        ),
        (
            lambda: DPOutputPerturbationRegressor(quantile=1.0),
            InvalidParameterError,
            "quantile",
        ),
        (lambda: DPGaussianProcessRelease(delta=0.0), InvalidParameterError, "delta"),
        (
            lambda: DPGaussianProcessRelease(gamma="scale"),
            InvalidParameterError,
            "gamma",
        ),
        (lambda: DPGaussianProcessRelease(coef0=-1.0), InvalidParameterError, "coef0"),
        (
            lambda: NonPrivateScalarOffsetRelease(noise_convention="x"),
            InvalidParameterError,
            "noise_convention",
        ),
    ],
)
def test_bad_parameters_are_refused(make, err, match):
    X, y = _clf_data(30)
    est = make()
    if isinstance(est, DPOutputPerturbationSVC):
        est.set_params(classes=[-1, 1])
    with pytest.raises(err, match=match):
        est.fit(X, y.astype(float))


def test_kernel_estimators_are_binary_and_check_labels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y3 = np.arange(30) % 3
    with pytest.raises(ValueError, match="binary"):
        DPGaussianProcessRelease(classes=[0, 1, 2]).fit(X, y3)
    with pytest.raises(ValueError, match="not in the public label set"):
        DPOutputPerturbationSVC(classes=[0, 1]).fit(X, y3)


# ------------------------------------------------------------ sklearn contract
ESTIMATORS = [
    DPOutputPerturbationSVC(random_state=0),
    DPOutputPerturbationSVC(
        noise="gaussian",
        delta=1e-6,
        fit_intercept=True,
        feature_map=RBFSampler(n_components=10, random_state=0),
        feature_norm=math.sqrt(2),
        random_state=0,
    ),
    DPOutputPerturbationRegressor(random_state=0),
    DPOutputPerturbationRegressor(
        loss="squared", y_bound=100.0, fit_intercept=True, random_state=0
    ),
]


#: The squared loss refuses sample weights (Nie & Wang Sec. 5.1's constant is
#: stated for unit weights), so every check that fits with weights fails.
SQUARED_WEIGHT_CHECKS = (
    "check_sample_weights_pandas_series",
    "check_sample_weights_not_an_array",
    "check_sample_weights_list",
    "check_sample_weights_shape",
    "check_sample_weights_not_overwritten",
)


def expected_failed_checks(estimator):
    """The sample-weight checks that cannot hold for a noisy weighted release."""
    from test_estimator_checks import NOISY_SAMPLE_WEIGHT_XFAILS

    out = {
        k: v
        for k, v in NOISY_SAMPLE_WEIGHT_XFAILS.items()
        if not k.endswith("sparse_data")  # dense input only here
    }
    if getattr(estimator, "loss", None) == "squared":
        reason = "loss='squared' refuses sample weights (unit-weight constant)"
        out.update(dict.fromkeys(SQUARED_WEIGHT_CHECKS, reason))
    return out


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.PrivacyLeakWarning")
# Expected failures: the sample-weight checks above (reasons in the dicts).
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_contract(estimator, check):
    check(estimator)


# ------------------------------------------------------------ former names
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("NWOutputPerturbationSVC", DPOutputPerturbationSVC),
        ("NWOutputPerturbationRegressor", DPOutputPerturbationRegressor),
        ("NWPrivatePredictor", PerQueryLaplacePredictor),
        ("NWGaussianProcessRelease", DPGaussianProcessRelease),
        ("NWScalarOffsetLiteral", NonPrivateScalarOffsetRelease),
        ("NWLiteralModeWarning", ScalarOffsetNotPrivateWarning),
    ],
)
@pytest.mark.parametrize("module", ["dpsvm.models", "dpsvm.models.nie_wang"])
def test_former_names_are_deprecated_aliases(old, new, module):
    mod = importlib.import_module(module)
    with pytest.warns(FutureWarning, match=f"{old} was renamed {new.__name__}"):
        cls = getattr(mod, old)
    assert cls is new
    with pytest.warns(FutureWarning):
        exec(f"from {module} import {old}", {})
    assert old not in mod.__all__  # star-imports and the docs list the new names


def test_unknown_names_still_raise_attribute_error():
    import dpsvm.models

    with pytest.raises(AttributeError, match="NWNothing"):
        dpsvm.models.NWNothing  # noqa: B018
    assert not hasattr(dpsvm.models, "NWNothing")


# ------------------------------------------------------------ model files
@pytest.mark.parametrize(
    ("make", "labels"),
    [
        (
            lambda: DPOutputPerturbationSVC(
                classes=[-1, 1], fit_intercept=True, random_state=0
            ),
            "binary",
        ),
        (
            lambda: DPOutputPerturbationSVC(
                noise="gaussian", delta=1e-6, classes=[0, 1, 2], random_state=0
            ),
            "three",
        ),
        (
            lambda: DPOutputPerturbationRegressor(
                noise="laplace", quantile=0.8, fit_intercept=True, random_state=0
            ),
            "real",
        ),
    ],
)
def test_output_perturbation_models_save_and_load(tmp_path, make, labels):
    X, y = _clf_data(80)
    if labels == "three":
        y = np.digitize(X[:, 0], [-0.2, 0.2])
    elif labels == "real":
        y = X[:, 0] - X[:, 1]
    est = make().fit(X, y)
    path = tmp_path / "model.json"
    save_model(est, path)
    back = load_model(path)
    assert type(back) is type(est)
    assert back.privacy_event_.to_dict() == est.privacy_event_.to_dict()
    np.testing.assert_array_equal(back.coef_, est.coef_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    doc = json.loads(path.read_text())
    assert "random_state" not in doc["params"]  # the noise seed is never written
    assert "solver_info" not in json.dumps(doc)  # diagnostics read the data
    # An edited calibration is refused: the event must match the parameters.
    doc["params"]["regularization"] = 2 * doc["params"]["regularization"]
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="privacy_event does not match"):
        load_model(path)


def _edit_top(doc, key, value):
    doc["privacy_event"][key] = value


def _edit_child_n(doc, key, value):
    child = doc["privacy_event"]["children"][0]
    child["details"]["n_samples"] = value


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda d: _edit_top(d, "epsilon", 0.01), id="top-epsilon"),
        pytest.param(lambda d: _edit_top(d, "delta", 0.5), id="top-delta"),
        pytest.param(
            lambda d: d["privacy_event"]["details"].update(n_classes=7),
            id="n_classes",
        ),
        pytest.param(lambda d: _edit_child_n(d, "n_samples", 10**6), id="child-n"),
    ],
)
def test_one_vs_rest_model_file_cannot_under_report_its_epsilon(tmp_path, edit):
    # Regression: a three-class DPOutputPerturbationSVC file whose top-level
    # one-vs-rest event was edited (ε 1 → 0.01, δ, n_classes) loaded with the
    # edited, smaller ε; each child was checked but not their composition.
    X, _ = _clf_data(80)
    y = np.digitize(X[:, 0], [-0.2, 0.2])
    est = DPOutputPerturbationSVC(classes=[0, 1, 2], random_state=0).fit(X, y)
    path = tmp_path / "model.json"
    save_model(est, path)
    assert load_model(path).privacy_event_.epsilon == pytest.approx(1.0)
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="privacy_event"):
        load_model(path)


def test_output_perturbation_model_with_a_feature_map_is_not_written(tmp_path):
    X, y = _clf_data(40)
    est = DPOutputPerturbationSVC(
        feature_map=RBFSampler(n_components=8, random_state=0),
        feature_norm=math.sqrt(2),
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    with pytest.raises(TypeError, match="feature_map"):
        save_model(est, tmp_path / "model.json")
    assert not (tmp_path / "model.json").exists()


def test_convention_sensitivities_are_named_functions_of_one_signature():
    # Both public sensitivities keep their own name (doctests, numpydoc, help)
    # and the documented signature.
    import inspect

    for func in (rkhs_sensitivity, prediction_sensitivity):
        assert func.__module__ == "dpsvm.models.nie_wang"
        assert func.__qualname__ == func.__name__
        assert list(inspect.signature(func).parameters) == [
            "kappa",
            "lipschitz",
            "regularization",
            "n_samples",
            "convention",
            "gamma",
        ]
        assert "n_samples : int" in (func.__doc__ or "")
        with pytest.raises(ValueError, match="gamma is only meaningful"):
            func(1.0, 1.0, 0.1, 10, gamma=3.0)
    # S = κ·Δ_H (Nie & Wang, Definition 2 and the proof of Proposition 1).
    assert prediction_sensitivity(2.0, 1.0, 0.2, 100) == pytest.approx(
        2.0 * rkhs_sensitivity(2.0, 1.0, 0.2, 100)
    )
