# SPDX-License-Identifier: BSD-3-Clause
"""Behaviour of the private linear estimators: validation, bounds, budget, noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

import dpsvm.models._linear_mechanisms as mechanisms_module
import dpsvm.models.linear as linear_module
from dpsvm.accounting import BudgetAccountant, NonPrivateEvent
from dpsvm.exceptions import (
    BudgetExceededError,
    DPSVMConvergenceError,
    PrivacyLeakWarning,
)
from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.models import DPLinearSVC, DPLogisticRegression, NonPrivateLinearClassifier
from dpsvm.perturbation import objective_perturbation_calibration


def _data(n=200, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.arange(1, d + 1) > 0, 1, -1)
    return X, y


# ----------------------------------------------------------------- validation
@pytest.mark.parametrize("mechanism", ["objective", "objective-2009"])
def test_hinge_is_refused_by_objective_perturbation(mechanism):
    X, y = _data()
    clf = DPLinearSVC(mechanism=mechanism, loss="hinge", classes=[-1, 1])
    with pytest.raises(ValueError, match="counter-example"):
        clf.fit(X, y)


@pytest.mark.parametrize("eps", [0, -1.0, math.nan, math.inf])
def test_bad_epsilon_is_refused(eps):
    X, y = _data()
    with pytest.raises((ValueError, InvalidParameterError)):
        DPLinearSVC(epsilon=eps, classes=[-1, 1]).fit(X, y)


@pytest.mark.parametrize("delta", [-0.1, 1.0, math.nan])
def test_bad_delta_is_refused(delta):
    X, y = _data()
    with pytest.raises((ValueError, InvalidParameterError)):
        DPLinearSVC(delta=delta, classes=[-1, 1]).fit(X, y)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_refused(bad):
    X, y = _data()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        DPLinearSVC(classes=[-1, 1]).fit(X, y)


def test_labels_outside_public_set_are_refused():
    X, y = _data()
    with pytest.raises(ValueError, match="not in the public label set"):
        DPLinearSVC(classes=[0, 1]).fit(X, y)


def test_single_class_without_public_set_is_refused():
    X, _ = _data()
    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError, match="2 classes"):
        DPLinearSVC().fit(X, np.ones(len(X)))


def test_single_class_with_public_set_is_fitted():
    # A public label set makes an all-positive training set legitimate.
    X, _ = _data()
    clf = DPLinearSVC(classes=[-1, 1], random_state=0).fit(X, np.ones(len(X)))
    assert clf.classes_.tolist() == [-1, 1]


# ------------------------------------------------------------- public bounds
def test_inferred_label_set_warns_and_names_the_parameter():
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="classes="):
        DPLinearSVC(random_state=0).fit(X, y)


def test_data_derived_norm_warns_and_keeps_the_parameter():
    X, y = _data()
    X = X * 5
    clf = DPLinearSVC(data_norm=None, classes=[-1, 1], random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="data_norm"):
        clf.fit(X, y)
    assert clf.data_norm is None
    assert clf.data_norm_ == pytest.approx(np.max(np.linalg.norm(X, axis=1)))


@pytest.mark.parametrize("mechanism", ["objective", "output", "output-laplace"])
def test_rows_beyond_the_bound_are_projected(mechanism):
    # Fitting on rows scaled far outside the ball equals fitting on their
    # projections: the norm bound is enforced, never rescaled from the data.
    X, y = _data()
    big = X * 10
    proj = big / np.linalg.norm(big, axis=1)[:, None]
    kw = {"mechanism": mechanism, "classes": [-1, 1], "random_state": 3}
    a = DPLinearSVC(**kw).fit(big, y)
    b = DPLinearSVC(**kw).fit(proj, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


def test_data_norm_rescales_the_problem_consistently():
    # With R = 2 and Λ = 4Λ′, rows x ↦ 2x give the same separating direction
    # (x̃ = x/R, λ = Λ/R²) and coef scaled by 1/2.
    X, y = _data()
    a = NonPrivateLinearClassifier(regularization=0.01).fit(X, y)
    b = NonPrivateLinearClassifier(regularization=0.04, data_norm=2.0).fit(2 * X, y)
    np.testing.assert_allclose(b.coef_, a.coef_ / 2, rtol=1e-8)


def test_string_labels_round_trip():
    X, y = _data()
    ys = np.where(y > 0, "yes", "no")
    clf = DPLinearSVC(classes=["no", "yes"], epsilon=50, random_state=0).fit(X, ys)
    assert set(clf.predict(X)) <= {"no", "yes"}
    assert clf.score(X, ys) > 0.8


def test_intercept_is_learned_inside_the_norm_bound():
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(2000, 1))
    y = np.where(X[:, 0] > 0.2, 1, -1)  # needs a bias
    no_b = NonPrivateLinearClassifier(regularization=1e-4).fit(X, y)
    with_b = NonPrivateLinearClassifier(regularization=1e-4, fit_intercept=True)
    with_b.fit(X, y)
    assert with_b.score(X, y) > 0.95 > no_b.score(X, y)
    assert with_b.intercept_[0] < 0


# ---------------------------------------------------------------- multiclass
def test_one_vs_rest_splits_epsilon():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) * 0.3
    y = np.argmax(X @ rng.normal(size=(2, 3)), axis=1)
    clf = DPLinearSVC(epsilon=0.9, classes=[0, 1, 2], random_state=0).fit(X, y)
    event = clf.privacy_event_
    assert clf.coef_.shape == (3, 2)
    assert event.epsilon == pytest.approx(0.9)
    assert [c.epsilon for c in event.children] == pytest.approx([0.3] * 3)


@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.NotPrivateWarning")
def test_one_vs_rest_of_the_non_private_variant_records_a_non_private_event():
    # Regression: the composed event summed the children's δ = 1 to δ = 3 and
    # raised ValueError instead of recording the non-private release.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) * 0.3
    y = np.argmax(X @ rng.normal(size=(2, 3)), axis=1)
    clf = DPLinearSVC(
        mechanism="objective-2009", classes=[0, 1, 2], random_state=0
    ).fit(X, y)
    event = clf.privacy_event_
    assert isinstance(event, NonPrivateEvent) and event.delta == 1.0
    assert all(isinstance(c, NonPrivateEvent) for c in event.children)


# -------------------------------------------------------------- accounting
def test_budget_is_spent_after_success():
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0)
    DPLinearSVC(epsilon=0.4, classes=[-1, 1], accountant=acc, random_state=0).fit(X, y)
    assert acc.total() == pytest.approx((0.4, 0.0))
    assert acc.ledger[0].mechanism == "objective-perturbation"


def test_budget_is_checked_before_reading_data():
    X, y = _data()
    X[0, 0] = np.nan  # would fail validation, but the budget check comes first
    acc = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        DPLinearSVC(epsilon=0.6, classes=[-1, 1], accountant=acc).fit(X, y)
    assert len(acc) == 0


@pytest.mark.parametrize(
    "breaker",
    ["nan", "labels", "convergence"],
)
def test_failed_fit_spends_nothing(monkeypatch, breaker):
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0)
    clf = DPLinearSVC(epsilon=0.5, classes=[-1, 1], accountant=acc, random_state=0)
    if breaker == "nan":
        X[0, 0] = np.nan
        err: type[Exception] = ValueError
    elif breaker == "labels":
        y = y.copy()
        y[0] = 7
        err = ValueError
    else:
        # The private linear release solves through _linear_mechanisms._solve.
        real = mechanisms_module.solve_smooth

        def stalled(*a, **k):  # type: ignore[no-untyped-def]
            res = real(*a, **k)
            return type(res)(res.coef, 1.0, 1.0, res.gap, res.n_iter, res.method)

        monkeypatch.setattr(mechanisms_module, "solve_smooth", stalled)
        err = DPSVMConvergenceError
    with pytest.raises(err):
        clf.fit(X, y)
    assert len(acc) == 0
    assert not hasattr(clf, "coef_")


def test_accountant_survives_clone_and_each_refit_spends():
    X, y = _data()
    acc = BudgetAccountant(epsilon=10.0)
    est = DPLinearSVC(epsilon=0.5, classes=[-1, 1], accountant=acc, random_state=0)
    twin = clone(est)
    assert twin.accountant is acc
    est.fit(X, y)
    twin.fit(X, y)
    est.fit(X, y)
    assert acc.total()[0] == pytest.approx(1.5)


def test_grid_search_spends_once_per_fit():
    X, y = _data(n=240)
    acc = BudgetAccountant(epsilon=100.0)
    est = DPLinearSVC(epsilon=0.25, classes=[-1, 1], accountant=acc, random_state=0)
    grid = GridSearchCV(est, {"regularization": [0.01, 0.1]}, cv=3, n_jobs=1)
    grid.fit(X, y)
    # 2 candidates × 3 folds + 1 refit, each charged exactly once.
    assert len(acc) == 7
    assert acc.total()[0] == pytest.approx(7 * 0.25)


def test_over_budget_grid_search_stops_without_overspending():
    X, y = _data(n=240)
    acc = BudgetAccountant(epsilon=1.0)
    est = DPLinearSVC(epsilon=0.25, classes=[-1, 1], accountant=acc, random_state=0)
    grid = GridSearchCV(est, {"regularization": [0.01, 0.1]}, cv=3, error_score="raise")
    with pytest.raises(BudgetExceededError):
        grid.fit(X, y)
    assert acc.total()[0] <= 1.0


# -------------------------------------------------------------- randomness
def test_seeded_noise_is_reproducible_and_default_noise_is_fresh():
    X, y = _data()
    a = DPLinearSVC(classes=[-1, 1], random_state=5).fit(X, y).coef_
    b = DPLinearSVC(classes=[-1, 1], random_state=5).fit(X, y).coef_
    c = DPLinearSVC(classes=[-1, 1]).fit(X, y).coef_
    d = DPLinearSVC(classes=[-1, 1]).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(c, d)


# ------------------------------------------------------------ known answers
def _internal_gradient(clf, X, y, loss, lam):  # type: ignore[no-untyped-def]
    """n·∇[(1/n)Σℓ + (λ/2)‖w‖²] at the released unit-ball weights."""
    w = clf.coef_[0] * clf.data_norm_
    Xt = X / clf.data_norm_
    yy = np.where(y == clf.classes_[1], 1.0, -1.0)
    z = yy * (Xt @ w)
    n = len(y)
    return Xt.T @ (yy * loss.derivative(z)) + n * lam * w


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpsvm.exceptions.NotPrivateWarning")
@pytest.mark.parametrize(
    ("cls", "loss", "variant"),
    [
        (DPLinearSVC, HuberLoss(0.5), "objective"),
        (DPLinearSVC, HuberLoss(0.5), "objective-2009"),
        (DPLogisticRegression, LogisticLoss(), "objective"),
    ],
)
def test_objective_noise_has_the_calibrated_law(cls, loss, variant):
    # Stationarity of J_priv gives b = −n∇[(1/n)Σℓ + ((Λ+Δ)/2)‖w‖²](w_priv), so
    # the noise can be read back from the released model. Its norm must follow
    # Gamma(d, 2/ε′) (CMS11 Alg. 2) and its direction must be uniform.
    X, y = _data(n=150, d=3)
    eps, lam = 0.7, 0.05
    jmlr = variant == "objective"
    cal = objective_perturbation_calibration(
        eps, len(y), lam, loss.smoothness, variant="jmlr2011" if jmlr else "sarwate2009"
    )
    norms, first = [], []
    for s in range(300):
        clf = cls(
            epsilon=eps,
            regularization=lam,
            fit_intercept=False,  # the bias-free problem of _internal_gradient
            mechanism=variant,
            classes=[-1, 1],
            random_state=s,
        ).fit(X, y)
        b = -_internal_gradient(clf, X, y, loss, lam + cal.extra_regularization)
        norms.append(np.linalg.norm(b))
        first.append(b[0] / np.linalg.norm(b))
    # E‖b‖ = d·2/ε′ and ‖b‖ ~ Gamma(3, 2/ε′)
    assert stats.kstest(norms, stats.gamma(3, scale=cal.noise_scale).cdf).pvalue > 1e-3
    # For a uniform direction in ℝ³, u₁ is uniform on [−1, 1] (Archimedes).
    assert stats.kstest(first, stats.uniform(-1, 2).cdf).pvalue > 1e-3


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", ["output", "output-laplace"])
def test_output_noise_has_the_calibrated_law(mechanism):
    X, y = _data(n=150, d=3)
    eps, lam, n = 0.8, 0.05, 150
    base = NonPrivateLinearClassifier(loss="hinge", regularization=lam).fit(X, y)
    noise = np.array(
        [
            DPLinearSVC(
                epsilon=eps,
                regularization=lam,
                fit_intercept=False,  # the problem of the bias-free base
                loss="hinge",
                mechanism=mechanism,
                classes=[-1, 1],
                random_state=s,
            )
            .fit(X, y)
            .coef_[0]
            - base.coef_[0]
            for s in range(300)
        ]
    )
    cap = linear_module.CERTIFICATE_RTOL
    if mechanism == "output":
        # CMS11 Cor. 8: Δ₂ = 2L/(nΛ); ‖b‖ ~ Gamma(d, (Δ₂ + 2·cap)/ε).
        scale = 2.0 / (n * lam) * (1 + 2 * cap) / eps
        law = stats.gamma(3, scale=scale)
        assert stats.kstest(np.linalg.norm(noise, axis=1), law.cdf).pvalue > 1e-3
    else:
        # Rubinstein et al. Thm 7: λ = 4LC√F/(βn), C = 1/Λ, F = 3.
        scale = 4.0 / (n * lam) * (1 + 2 * cap) * math.sqrt(3) / eps
        law = stats.laplace(scale=scale)
        assert stats.kstest(noise.ravel(), law.cdf).pvalue > 1e-3


def test_objective_calibration_known_values():
    # ε′ = ε − ln(1 + 2c/(nΛ) + c²/(n²Λ²)) with ε = 0.2, n = 30162, Λ = 1e-3, c = 1:
    # 2c/(nΛ) = 0.0663086, (c/(nΛ))² = 0.0010992 ⇒ ε′ = 0.2 − ln(1.0674078) = 0.134767
    cal = objective_perturbation_calibration(0.2, 30162, 1e-3, 1.0)
    assert cal.epsilon_prime == pytest.approx(0.2 - math.log(1.0674078), abs=1e-6)
    assert cal.noise_scale == pytest.approx(2 / cal.epsilon_prime)
    # Fallback: ε = 0.05, n = 100, Λ = 1e-3, c = 1 ⇒ ln(1 + 20 + 100) > ε, so
    # Δ = c/(n(e^{ε/4} − 1)) − Λ = 1/(100·0.0125785) − 0.001 = 0.794013 and ε′ = ε/2.
    fb = objective_perturbation_calibration(0.05, 100, 1e-3, 1.0)
    assert fb.epsilon_prime == 0.025
    assert fb.extra_regularization == pytest.approx(
        1 / (100 * math.expm1(0.0125)) - 1e-3
    )


def test_privacy_event_records_the_release():
    X, y = _data()
    clf = DPLinearSVC(epsilon=0.3, classes=[-1, 1], random_state=0).fit(X, y)
    e = clf.privacy_event_
    assert (e.epsilon, e.delta, e.neighbouring) == (0.3, 0.0, "replace-one")
    assert "JMLR" in e.reference and "Theorem 9" in e.reference
    assert e.details["solver_tol"] == clf.tol
    with pytest.raises(AttributeError):
        e.epsilon = 1.0  # type: ignore[misc]
