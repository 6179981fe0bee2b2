# SPDX-License-Identifier: BSD-3-Clause
"""Objective perturbation with Gaussian b (KST12 Thm 2) or Laplace b (L1 bound).

Known-answer calibrations, the tail lemma and the exact δ the Gaussian
calibration rests on (integrated numerically), the draws of the noise step,
the typed (ε, δ) event and the estimator option
``mechanism="objective-gaussian"``.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad
from scipy.optimize import brentq

from dpsvm.accounting import ApproximateDpEvent, BudgetAccountant
from dpsvm.exceptions import DPSVMConvergenceError
from dpsvm.mechanisms import sample_gamma_norm
from dpsvm.models import DPLinearSVC, DPLogisticRegression
from dpsvm.perturbation import (
    GaussianObjectivePerturbation,
    approximate_minimiser_calibration,
    gaussian_objective_calibration,
)


def _balle_wang_delta(eps: float, u: float) -> float:
    """δ of the Gaussian mechanism of sensitivity ratio u at ε (B&W 2018, Thm 8)."""
    phi = stats.norm.cdf
    return float(phi(u / 2 - eps / u) - math.exp(eps) * phi(-u / 2 - eps / u))


def _tail_of_s(s: float, rho: float) -> float:
    """P(|g₁| + |g₂| > s) for unit-variance g₁, g₂ of correlation ρ (exact).

    |g₁| + |g₂| = max(|g₁ + g₂|, |g₁ − g₂|) and g₁ ± g₂ are independent (equal
    variances) with variances 2 ± 2ρ.
    """
    inside = 1.0
    for var in (2 + 2 * rho, 2 - 2 * rho):
        inside *= 1.0 if var <= 0 else 1 - 2 * stats.norm.sf(s / math.sqrt(var))
    return 1.0 - inside


def test_known_answer_calibration():
    # ε = 0.5, δ = 1e-5, n = 1000, λ = 0.01, c = 1: c/(nλ) = 0.1.
    cal = gaussian_objective_calibration(0.5, 1e-5, 1000, 0.01, 1.0)
    # Rank-one Jacobian bound: ln(1 + c/(nλ)) = ln 1.1 (CMS11's would be ln 1.21).
    assert cal.epsilon_jacobian == pytest.approx(math.log(1.1), rel=1e-12)
    assert cal.extra_regularization == 0.0 and cal.delta == 1e-5
    eps_g = 0.5 - math.log(1.1)
    assert cal.epsilon_noise == pytest.approx(eps_g, rel=1e-12)
    # σ = 2L/u with 2·δ_BW(ε_G, u) = δ (Balle & Wang at δ/2, sensitivity 2L).
    assert cal.method == "analytic"
    u = 2.0 / cal.sigma
    assert 2 * _balle_wang_delta(eps_g, u) == pytest.approx(1e-5, rel=1e-6)
    assert 2 * _balle_wang_delta(eps_g, u * (1 + 1e-6)) > 1e-5
    # The same root found independently (scipy's brentq on the plain formula).
    root = brentq(lambda x: 2 * _balle_wang_delta(eps_g, x) - 1e-5, 1e-3, 1.0)
    assert u == pytest.approx(root, rel=1e-8)
    assert u == pytest.approx(0.111897, rel=1e-5)
    # The threshold of the S-tail lemma holds: (ε_G − u²/2)/u ≥ √3.
    assert (eps_g - u * u / 2) / u >= math.sqrt(3)
    # Smaller than the χ²₂ tail calibration of KST12 (σ = L(t + √(t² + 2ε_G))/ε_G).
    t = math.sqrt(2.0 * math.log(1e5))
    assert cal.sigma < 0.8 * (t + math.sqrt(t * t + 2 * eps_g)) / eps_g
    # The Lipschitz constant scales σ linearly.
    cal2 = gaussian_objective_calibration(0.5, 1e-5, 1000, 0.01, 1.0, lipschitz=2.0)
    assert cal2.sigma == pytest.approx(2.0 * cal.sigma, rel=1e-9)


def test_tiny_epsilon_against_delta_falls_back_to_the_tail_bound():
    # ε_G ≪ δ: the analytic σ would put the threshold below √3, where the
    # S-tail lemma does not hold; KST12's χ²₂ tail calibration is used.
    cal = gaussian_objective_calibration(0.001, 0.01, 10**9, 1.0, 1e-12)
    assert cal.method == "tail"
    eps_g = cal.epsilon_noise
    t = math.sqrt(2.0 * math.log(100.0))
    assert cal.sigma == pytest.approx((t + math.sqrt(t * t + 2 * eps_g)) / eps_g)
    u = 2.0 / cal.sigma
    assert t * u + u * u / 2 == pytest.approx(eps_g, rel=1e-9)


def test_small_epsilon_adds_regularisation_so_the_jacobian_takes_half():
    # ε = 0.05, n = 100, λ = 1e-3, c = 1: ln(1 + 10) > ε/2 ⇒ Δ > 0.
    cal = gaussian_objective_calibration(0.05, 1e-6, 100, 1e-3, 1.0)
    assert cal.extra_regularization > 0
    assert cal.epsilon_jacobian == 0.025 and cal.epsilon_noise == 0.025
    ratio = 1.0 / (100 * (1e-3 + cal.extra_regularization))
    assert math.log1p(ratio) == pytest.approx(0.025, rel=1e-9)


@pytest.mark.parametrize("s", [2 * math.sqrt(3), 5.0, 8.0, 10.5])
def test_s_tail_lemma_worst_case_is_the_collinear_pair(s):
    # P(|g₁| + |g₂| > s) ≤ 2Φ̄(s/2) for s ≥ 2√3, with equality at ρ = ±1.
    bound = 2 * stats.norm.sf(s / 2)
    tails = [_tail_of_s(s, rho) for rho in np.linspace(-1, 1, 41)]
    assert max(tails) <= bound * (1 + 1e-9)
    assert _tail_of_s(s, 1.0) == pytest.approx(bound, rel=1e-9)
    # For small s it fails (which is why the calibration checks s₀ ≥ 2√3).
    assert _tail_of_s(1.0, 0.0) > 2 * stats.norm.sf(0.5)


@pytest.mark.parametrize(
    "epsilon, delta", [(0.1, 1e-6), (0.5, 1e-5), (2.0, 1e-3), (4.0, 0.1)]
)
def test_delta_of_the_noise_term_is_at_most_delta_for_every_pair(epsilon, delta):
    # The proof's last step, integrated numerically: for unit rows of every
    # correlation ρ, E[(1 − exp(ε_G − u²/2 − u·S/2))₊] ≤ δ, tight at ρ = ±1.
    cal = gaussian_objective_calibration(epsilon, delta, 10_000, 1.0, 0.25)
    eps_g, u = cal.epsilon_noise, 2.0 / cal.sigma
    r0 = (eps_g - u * u / 2) / u

    def delta_of(rho: float) -> float:
        # E[H(S/2)] = ∫ H′(r) P(S/2 > r) dr, H(r) = 1 − exp(ε_G − u²/2 − u·r).
        def integrand(r: float) -> float:
            return u * math.exp(eps_g - u * u / 2 - u * r) * _tail_of_s(2 * r, rho)

        # P(S/2 > r) ≤ 2Φ̄(r): nothing left beyond r0 + 40.
        return float(quad(integrand, r0, r0 + 40.0, limit=400, epsabs=0)[0])

    worst = max(delta_of(rho) for rho in np.linspace(-1, 1, 9))
    assert worst <= delta * (1 + 1e-6)
    if cal.method == "analytic":
        assert worst == pytest.approx(delta, rel=1e-4)


def test_sigma_falls_with_epsilon_and_delta():
    sig = [gaussian_objective_calibration(e, 1e-6, 1000, 1.0, 1.0).sigma
           for e in (0.1, 0.5, 2.0)]  # fmt: skip
    assert sig[0] > sig[1] > sig[2]
    assert (
        gaussian_objective_calibration(1.0, 1e-3, 1000, 1.0, 1.0).sigma
        < gaussian_objective_calibration(1.0, 1e-9, 1000, 1.0, 1.0).sigma
    )


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-6])
def test_delta_outside_the_open_interval_is_refused(delta):
    with pytest.raises(ValueError, match="0 < delta < 1"):
        gaussian_objective_calibration(1.0, delta, 100, 0.1, 1.0)


def test_perturb_draws_gaussian_b_then_the_residual_and_records_eps_delta():
    eps, delta, n, lam, c, tau = 1.0, 1e-5, 400, 0.01, 0.25, 1e-6
    op = GaussianObjectivePerturbation.calibrate(
        eps, delta, n=n, dim=3, regularization=lam, smoothness=c, tol=tau
    )
    assert op.epsilon_objective == 0.99 and op.epsilon_residual == 0.01
    # δ of the exact step, so that the residual step's e^{ε_r/2} factor gives δ.
    assert op.calibration.delta == pytest.approx(delta * math.exp(-0.005))
    assert op.calibration == gaussian_objective_calibration(
        0.99, delta * math.exp(-0.005), n, lam, c
    )
    assert op.residual == approximate_minimiser_calibration(0.01, tau, lam)
    received = []

    def solve(strong, linear):  # type: ignore[no-untyped-def]
        received.append((strong, linear))
        return SimpleNamespace(coef=np.zeros(3), grad_norm=tau)

    out = op.perturb(solve, rng=np.random.default_rng(5))
    gen = np.random.default_rng(5)
    b = gen.normal(0.0, op.calibration.sigma, size=3)
    z = sample_gamma_norm(3, op.residual.noise_scale, gen)
    ((strong, linear),) = received
    assert strong == lam
    np.testing.assert_array_equal(linear, b / n)
    np.testing.assert_array_equal(out.value, z)
    event = op.event("objective-perturbation-gaussian", reference="KST12")
    assert isinstance(event, ApproximateDpEvent)
    assert (event.epsilon, event.delta) == (eps, delta)
    assert event.sensitivity == 2.0 and event.sensitivity_norm == "gradient-l2"
    assert op.details(2.0)["residual_sensitivity"] == op.residual.sensitivity / 2
    stalled = SimpleNamespace(coef=np.zeros(3), grad_norm=2 * tau)
    with pytest.raises(DPSVMConvergenceError, match="max_iter = 9"):
        op.perturb(lambda s, lin: stalled, rng=0, max_iter=9)


def test_b_is_normal_with_the_calibrated_sigma():
    op = GaussianObjectivePerturbation.calibrate(
        0.5, 1e-6, n=50, dim=4000, regularization=0.1, smoothness=1.0, tol=1e-10
    )
    seen = []

    def solve(strong, linear):  # type: ignore[no-untyped-def]
        seen.append(linear * 50)
        return SimpleNamespace(coef=np.zeros(4000), grad_norm=0.0)

    op.perturb(solve, rng=np.random.default_rng(11))
    res = stats.kstest(seen[0] / op.calibration.sigma, "norm")
    assert res.pvalue > 1e-3


def _blobs(n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.5, -1, 1)
    X = rng.normal(size=(n, d)) * 0.3 + 0.4 * y[:, None]
    return X, y


@pytest.mark.parametrize("cls", [DPLinearSVC, DPLogisticRegression])
def test_estimator_records_and_rechecks_the_approximate_event(cls):
    X, y = _blobs()
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    clf = cls(
        epsilon=1.0,
        delta=1e-6,
        mechanism="objective-gaussian",
        classes=[-1, 1],
        data_norm=2.0,
        accountant=acc,
        random_state=0,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert isinstance(ev, ApproximateDpEvent)
    assert (ev.epsilon, ev.delta) == (1.0, 1e-6)
    assert ev.mechanism == "objective-perturbation-gaussian"
    assert acc.total()[1] == pytest.approx(1e-6)
    clf._check_privacy_event(ev, clf.data_norm_)  # recomputed calibration agrees
    with pytest.raises(ValueError, match="delta"):
        clf.set_params(delta=2e-6)._check_privacy_event(ev, clf.data_norm_)


def test_estimator_multiclass_splits_delta_and_model_file_round_trips(tmp_path):
    from dpsvm.io import load_model, save_model

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 240)
    X = rng.normal(size=(240, 3)) * 0.3 + np.eye(3)[y]
    clf = DPLinearSVC(
        epsilon=3.0,
        delta=3e-6,
        mechanism="objective-gaussian",
        classes=[0, 1, 2],
        random_state=1,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert [c.delta for c in ev.children] == pytest.approx([1e-6] * 3)
    assert ev.delta == pytest.approx(3e-6)
    path = tmp_path / "m.json"
    save_model(clf, path)
    back = load_model(path)
    np.testing.assert_array_equal(back.predict(X), clf.predict(X))


def test_estimator_refuses_zero_delta_before_spending():
    X, y = _blobs(60)
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    clf = DPLinearSVC(
        epsilon=0.5, mechanism="objective-gaussian", classes=[-1, 1], accountant=acc
    )
    with pytest.raises(ValueError, match="needs delta > 0"):
        clf.fit(X, y)
    assert acc.total() == (0.0, 0.0)


def test_hinge_loss_is_refused_by_the_gaussian_objective():
    X, y = _blobs(60)
    clf = DPLinearSVC(
        epsilon=0.5,
        delta=1e-6,
        loss="hinge",
        mechanism="objective-gaussian",
        classes=[-1, 1],
    )
    with pytest.raises(ValueError, match="twice-differentiable"):
        clf.fit(X, y)


# ---------------------------------------------- Laplace b, public L1 bound
def test_laplace_known_answer_calibration_shares_cms11_steps_1_and_2():
    from dpsvm.perturbation import (
        LaplaceObjectivePerturbation,
        laplace_objective_scale,
        rank_one_jacobian_calibration,
    )

    op = LaplaceObjectivePerturbation.calibrate(
        0.5, n=1000, dim=3, regularization=0.01, smoothness=1.0, tol=1e-10,
        l1_bound=2.5,
    )  # fmt: skip
    cal = rank_one_jacobian_calibration(0.495, 1000, 0.01, 1.0)
    assert op.calibration == cal and cal.extra_regularization == 0.0
    # ε′ = 0.495 − ln(1 + c/(nλ)) = 0.495 − ln 1.1; scale Δ₁/ε′, Δ₁ = 2·L·B₁ = 5.
    assert cal.epsilon_prime == pytest.approx(0.495 - math.log(1.1), rel=1e-12)
    assert op.laplace_scale == pytest.approx(5.0 / cal.epsilon_prime, rel=1e-12)
    assert laplace_objective_scale(0.25, 3.0, lipschitz=0.5) == 12.0
    det = op.details(2.0)
    assert det["variant"] == "laplace" and det["l1_bound"] == 2.5
    assert "noise_norm_scale" not in det
    event = op.event("objective-perturbation-laplace", reference="CMS11")
    assert type(event).__name__ == "PureDpEvent" and event.delta == 0.0
    assert event.sensitivity == 5.0 and event.sensitivity_norm == "gradient-l1"
    with pytest.raises(ValueError, match="l1_bound"):
        LaplaceObjectivePerturbation.calibrate(
            0.5, n=10, dim=1, regularization=1.0, smoothness=1.0, tol=1e-10,
            l1_bound=0.0,
        )  # fmt: skip


def test_laplace_perturb_draws_laplace_b_then_the_residual():
    from dpsvm.mechanisms import sample_laplace
    from dpsvm.perturbation import LaplaceObjectivePerturbation

    op = LaplaceObjectivePerturbation.calibrate(
        1.0, n=400, dim=3, regularization=0.01, smoothness=0.25, tol=1e-6,
        l1_bound=1.5,
    )  # fmt: skip
    received = []

    def solve(strong, linear):  # type: ignore[no-untyped-def]
        received.append(linear)
        return SimpleNamespace(coef=np.zeros(3), grad_norm=1e-6)

    out = op.perturb(solve, rng=np.random.default_rng(2))
    gen = np.random.default_rng(2)
    b = sample_laplace(3, op.laplace_scale, gen)
    z = sample_gamma_norm(3, op.residual.noise_scale, gen)
    np.testing.assert_array_equal(received[0], b / 400)
    np.testing.assert_array_equal(out.value, z)


def test_laplace_b_has_the_laplace_law():
    from dpsvm.perturbation import LaplaceObjectivePerturbation

    op = LaplaceObjectivePerturbation.calibrate(
        0.5, n=50, dim=4000, regularization=0.1, smoothness=1.0, tol=1e-10,
        l1_bound=2.0,
    )  # fmt: skip
    seen = []

    def solve(strong, linear):  # type: ignore[no-untyped-def]
        seen.append(linear * 50)
        return SimpleNamespace(coef=np.zeros(4000), grad_norm=0.0)

    op.perturb(solve, rng=np.random.default_rng(4))
    assert stats.kstest(seen[0], "laplace", args=(0, op.laplace_scale)).pvalue > 1e-3


def test_laplace_estimator_clips_rows_to_the_public_l1_bound():
    X = np.array([[3.0, 4.0, 0.0], [0.1, 0.1, 0.1], [-1.0, 1.0, -1.0]])
    y = np.array([1, -1, 1])
    clf = DPLinearSVC(
        epsilon=1.0,
        mechanism="objective-laplace",
        data_norm=5.0,
        data_norm_l1=2.0,
        classes=[-1, 1],
        random_state=0,
    )
    Xt, _, _ = clf._prepare_fit(X, y)
    clipped = clf._clip_l1(Xt).toarray()
    x_part = clipped[:, :3] * 5.0  # back to the caller's scale
    # L2 projection first (radius √(25 − 2.5²)), then the L1 clip to 2.
    np.testing.assert_allclose(np.abs(x_part).sum(axis=1), [2.0, 0.3, 2.0])
    np.testing.assert_allclose(x_part[0], [6 / 7, 8 / 7, 0.0])  # ‖(3, 4)‖₁ = 7
    np.testing.assert_allclose(clipped[:, 3], 0.5)  # the constant is kept
    # The unit-ball bound of the calibration: 2/5 + 0.5.
    assert clf._internal_l1_bound(4) == pytest.approx(0.9)
    # Without data_norm_l1: Cauchy–Schwarz, √3·√(1 − 0.25) + 0.5; nothing clipped.
    clf.set_params(data_norm_l1=None)
    assert clf._internal_l1_bound(4) == pytest.approx(1.5 + 0.5)
    assert clf._clip_l1(Xt) is Xt


def test_laplace_clip_never_leaves_a_row_above_the_bound_by_rounding():
    # Regression: bound/‖x‖₁ alone left rows one ulp above the bound.
    rng = np.random.default_rng(7)
    X = rng.uniform(-3.0, 3.0, size=(400, 40))
    y = np.where(rng.random(400) < 0.5, -1, 1)
    clf = DPLinearSVC(
        epsilon=1.0,
        mechanism="objective-laplace",
        data_norm=20.0,
        data_norm_l1=3.0,
        fit_intercept=False,
        classes=[-1, 1],
        random_state=0,
    )
    Xt, _, _ = clf._prepare_fit(X, y)
    clipped = clf._clip_l1(Xt)
    internal = np.abs(clipped.toarray()).sum(axis=1)
    assert np.all(internal <= 3.0 / 20.0)
    assert np.all(internal >= (3.0 / 20.0) * (1 - 1e-11))  # clipped, not shrunk


def test_laplace_estimator_sparse_rows_clip_like_dense_ones():
    import scipy.sparse

    X, y = _blobs(80, 3)
    kw = dict(
        epsilon=1.0,
        mechanism="objective-laplace",
        data_norm=2.0,
        data_norm_l1=1.5,
        classes=[-1, 1],
        random_state=3,
    )
    dense = DPLinearSVC(**kw).fit(X, y)
    sparse = DPLinearSVC(**kw).fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)


def test_laplace_estimator_records_a_pure_event_and_round_trips(tmp_path):
    from dpsvm.io import load_model, save_model

    X, y = _blobs()
    clf = DPLogisticRegression(
        epsilon=0.5,
        mechanism="objective-laplace",
        data_norm=2.0,
        data_norm_l1=3.0,
        classes=[-1, 1],
        random_state=0,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert type(ev).__name__ == "PureDpEvent"
    assert ev.mechanism == "objective-perturbation-laplace"
    assert ev.details["l1_bound"] == pytest.approx(3.0 / 2.0 + 0.5)
    clf._check_privacy_event(ev, clf.data_norm_)
    save_model(clf, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.get_params()["data_norm_l1"] == 3.0
    np.testing.assert_array_equal(back.decision_function(X), clf.decision_function(X))
    with pytest.raises(ValueError, match="l1_bound"):
        clf.set_params(data_norm_l1=4.0)._check_privacy_event(ev, clf.data_norm_)


def test_auto_regularization_share_of_the_coordinate_noises():
    from dpsvm.perturbation import (
        AUTO_CORRECTION_SHARE_COORDINATE_NOISE,
        auto_regularization,
    )

    X, y = _blobs(200)
    for mech, extra in (
        ("objective-laplace", {}),
        ("objective-gaussian", {"delta": 1e-6}),
    ):
        clf = DPLinearSVC(
            epsilon=0.3, mechanism=mech, classes=[-1, 1], random_state=0, **extra
        ).fit(X, y)
        want = auto_regularization(
            0.3, 200, 1.0, AUTO_CORRECTION_SHARE_COORDINATE_NOISE
        )
        assert clf.regularization_ == pytest.approx(want)
    base = DPLinearSVC(epsilon=0.3, classes=[-1, 1], random_state=0).fit(X, y)
    assert base.regularization_ == pytest.approx(auto_regularization(0.3, 200, 1.0))


def _log_det(X, w_lam):  # type: ignore[no-untyped-def]
    """ln det(Σ ℓ″ᵢ x̃ᵢx̃ᵢᵀ + nλI) for given curvatures (the Jacobian of b ↦ w)."""
    curv, lam = w_lam
    n = len(X)
    A = (X * curv[:, None]).T @ X + n * lam * np.eye(X.shape[1])
    return np.linalg.slogdet(A)[1]


def test_rank_one_jacobian_bound_holds_for_random_replace_one_pairs():
    from dpsvm.perturbation import rank_one_jacobian_calibration

    rng = np.random.default_rng(8)
    n, d, lam, c = 20, 4, 0.2, 1.0
    eps_j = 1.0 - rank_one_jacobian_calibration(1.0, n, lam, c).epsilon_prime
    assert eps_j == pytest.approx(math.log1p(c / (n * lam)))
    worst = 0.0
    for _ in range(300):
        X = rng.normal(size=(n, d))
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
        curv = rng.uniform(0, c, n)
        X2, curv2 = X.copy(), curv.copy()
        X2[-1] = rng.normal(size=d)
        X2[-1] /= max(1.0, float(np.linalg.norm(X2[-1])))
        # Extreme curvatures make the bound tight: c on one side, 0 on the other.
        curv[-1], curv2[-1] = c, 0.0
        X[-1] /= np.linalg.norm(X[-1])  # on the sphere
        gap = abs(_log_det(X, (curv, lam)) - _log_det(X2, (curv2, lam)))
        worst = max(worst, gap)
        assert gap <= eps_j + 1e-12
    # Attained when the shared rows are orthogonal to x̃ (here: close to it).
    assert worst > 0.5 * eps_j


def test_sparse_rows_l1_bound_known_answers_and_refusals():
    from dpsvm.perturbation import sparse_rows_l1_bound

    # min(m, √m·R·√(1 − (s/R)²)): Adult (m = 14, R = √14, s/R = 1/2) → 14·√0.75.
    assert sparse_rows_l1_bound(14, math.sqrt(14), 0.5) == pytest.approx(
        14 * math.sqrt(0.75)
    )
    assert sparse_rows_l1_bound(14, math.sqrt(14)) == 14.0  # no intercept: m
    assert sparse_rows_l1_bound(4, 1.0, 0.0) == 2.0  # √4·1 < 4
    for bad in ((0, 1.0), (3, 0.0), (3, math.inf)):
        with pytest.raises(ValueError, match="max_nonzeros"):
            sparse_rows_l1_bound(*bad)
