# SPDX-License-Identifier: BSD-3-Clause
"""DPKernelSVC and NonPrivateRandomFeatureSVC: calibration, noise, release, budget."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.utils._param_validation import InvalidParameterError

import dpsvm.perturbation._output as noise_module
from dpsvm.accounting import BudgetAccountant, NonPrivateEvent, PureDpEvent
from dpsvm.bounds.rubinstein import rff_noise_scale
from dpsvm.exceptions import BudgetExceededError, NotPrivateWarning, PrivacyLeakWarning
from dpsvm.kernels import fourier_features
from dpsvm.models import DPKernelSVC, NonPrivateRandomFeatureSVC
from dpsvm.perturbation import CERTIFICATE_RTOL


def _data(n=300, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(np.linalg.norm(X, axis=1) < 1.5, 1, -1)
    return X, y


def _spy(monkeypatch, name):
    # Records (noise dimension, scale) of each call of a noise primitive of the
    # perturbation layer (every estimator's only noise source):
    # sample_gamma_norm(d, scale, rng) or laplace_release(value, scale, rng, ...).
    calls = []
    real = getattr(noise_module, name)

    def spy(first, scale, rng, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(
            (int(np.size(first)) if name == "laplace_release" else first, scale)
        )
        return real(first, scale, rng, **kwargs)

    monkeypatch.setattr(noise_module, name, spy)
    return calls


# ---------------------------------------- Rubinstein et al. Alg. 3 (PRIVATESVM)
def test_rubinstein_noise_scale_known_answer(monkeypatch):
    # Cor. 9: λ = 2^{2.5}·L·C·√d̂/(βn); n = 400, C = 1/Λ = 10, d̂ = 16, β = 1, L = 1:
    # 5.656854·10·4/400 = 0.5656854. The linear mechanism adds its public solver
    # cap: λ·(1 + 2·CERTIFICATE_RTOL).
    calls = _spy(monkeypatch, "laplace_release")
    X, y = _data(400)
    clf = DPKernelSVC(
        n_components=16,
        mechanism="rubinstein",
        regularization=0.1,
        epsilon=1.0,
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    assert rff_noise_scale(1.0, 400, 10.0, 1.0, 16) == pytest.approx(0.5656854, 1e-6)
    ((size, scale),) = calls
    assert size == 32  # 2·d̂ Laplace draws, not d̂ (Rubinstein et al. Alg. 3, step 4)
    assert scale == pytest.approx(0.5656854 * (1 + 2 * CERTIFICATE_RTOL), rel=1e-6)
    details = clf.privacy_event_.details
    assert details["laplace_scale_cor9"] == pytest.approx(0.5656854, rel=1e-6)
    assert details["n_laplace_draws"] == 32
    assert details["noise_scale_internal"] == pytest.approx(scale)
    assert clf.coef_.shape == (1, 32) and clf.feature_map_ == "cos-sin"


def test_rubinstein_released_noise_has_the_laplace_law():
    # The release minus the exact non-private solution on the same features is
    # the noise vector μ: 2·d̂ iid Laplace(0, λ) coordinates (the solver error is
    # at most 10⁻³ of the sensitivity, negligible against λ; the discretised
    # sampler's grid is far finer than λ). Alg. 3 allows any convex 1-Lipschitz
    # loss; the Huber loss keeps the exact solve fast.
    X, y = _data(300)
    dhat, lam, eps = 120, 0.05, 2.0
    common = dict(
        n_components=dhat, regularization=lam, loss="huber", feature_random_state=3
    )
    private = DPKernelSVC(
        mechanism="rubinstein", epsilon=eps, classes=[-1, 1], random_state=4, **common
    ).fit(X, y)
    exact = NonPrivateRandomFeatureSVC(**common).fit(X, y)
    np.testing.assert_array_equal(private.frequencies_, exact.frequencies_)
    mu = (private.coef_ - exact.coef_).ravel()
    assert mu.size == 2 * dhat
    scale = rff_noise_scale(eps, 300, 1 / lam, 1.0, dhat) * (1 + 2 * CERTIFICATE_RTOL)
    assert stats.kstest(mu / scale, "laplace").pvalue > 1e-3


# ---------------------------------------------------- Sarwate et al. Alg. 2 etc.
@pytest.mark.parametrize(
    "mechanism,feature_map,dim",
    [("objective", "auto", 24), ("objective", "cos-sin", 48), ("output", "auto", 48)],
)
def test_gamma_norm_noise_has_the_feature_dimension(
    monkeypatch, mechanism, feature_map, dim
):
    # Alg. 2 step 3: Algorithm 1 on the D features ⇒ a D-dimensional b.
    calls = _spy(monkeypatch, "sample_gamma_norm")
    X, y = _data()
    clf = DPKernelSVC(
        n_components=24,
        mechanism=mechanism,
        feature_map=feature_map,
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    # Objective perturbation draws b and then the noise Z that covers the
    # solver's certified residual; both are D-dimensional.
    assert [c[0] for c in calls] == ([dim, dim] if mechanism == "objective" else [dim])
    assert clf.coef_.shape == (1, dim)


def test_objective_uses_cos_phase_features_with_independent_phases():
    X, y = _data()
    clf = DPKernelSVC(
        n_components=30,
        norm_handling="scale",
        classes=[-1, 1],
        feature_random_state=1,
        random_state=0,
    ).fit(X, y)
    assert clf.feature_map_ == "cos-phase"
    assert clf.phases_.shape == (30,) and np.unique(clf.phases_).size == 30
    assert clf.feature_scale_ == pytest.approx(1 / math.sqrt(30))  # "scale"
    assert clf.data_norm_ == 1.0


def test_bound_with_lambda_equals_scale_with_half_lambda():
    # "bound": √(2/D) features, R = √2 ⇒ internal x̃ = v/√2, λ = Λ/2, i.e. exactly
    # "scale" (v/√2, R = 1) with Λ/2: same noise, same decision function.
    X, y = _data()
    common = dict(
        n_components=20, classes=[-1, 1], feature_random_state=2, random_state=5
    )
    a = DPKernelSVC(norm_handling="bound", regularization=0.02, **common).fit(X, y)
    b = DPKernelSVC(norm_handling="scale", regularization=0.01, **common).fit(X, y)
    assert a.data_norm_ == pytest.approx(math.sqrt(2)) and b.data_norm_ == 1.0
    np.testing.assert_allclose(
        a.decision_function(X), b.decision_function(X), rtol=1e-8, atol=1e-10
    )


def test_clip_projects_the_unscaled_features_onto_the_unit_ball():
    X, y = _data()
    clf = DPKernelSVC(
        n_components=4,
        norm_handling="clip",
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    assert clf.feature_scale_ == pytest.approx(math.sqrt(2 / 4))
    Z = clf.transform_features(X)
    assert np.max(np.linalg.norm(Z, axis=1)) <= 1.0 + 1e-15  # up to rounding
    raw = fourier_features(X, clf.frequencies_, clf.phases_, scale=clf.feature_scale_)
    assert np.max(np.linalg.norm(raw, axis=1)) > 1.05  # projection was needed
    assert isinstance(clf.privacy_event_, PureDpEvent)


def test_paper_norm_handling_warns_and_is_flagged_not_private():
    X, y = _data()
    clf = DPKernelSVC(
        n_components=4,
        norm_handling="paper",
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    )
    with pytest.warns(NotPrivateWarning, match="norm_handling='paper'") as caught:
        clf.fit(X, y)
    assert len(caught) == 1
    event = clf.privacy_event_
    assert isinstance(event, NonPrivateEvent)  # typed, not a name string
    assert event.epsilon == math.inf and event.details["nominal_epsilon"] == 1.0
    assert "(NOT DP" not in event.mechanism
    assert clf.projection_radius_ is None
    assert np.max(np.linalg.norm(clf.transform_features(X), axis=1)) > 1.05


def test_huge_epsilon_recovers_the_non_private_random_feature_svm():
    # Same features and problem: with ε = 10⁸ the noise is negligible.
    X, y = _data()
    common = dict(
        n_components=20,
        loss="huber",
        huber_h=0.5,
        regularization=0.01,
        feature_random_state=6,
    )
    for fm, nh in (("cos-phase", "scale"), ("cos-phase", "clip"), ("cos-sin", "scale")):
        dp = DPKernelSVC(
            epsilon=1e8,
            feature_map=fm,
            norm_handling=nh,
            classes=[-1, 1],
            random_state=0,
            **common,
        ).fit(X, y)
        ref = NonPrivateRandomFeatureSVC(
            feature_map=fm, norm_handling=nh, **common
        ).fit(X, y)
        np.testing.assert_allclose(dp.coef_, ref.coef_, atol=1e-5)


# ------------------------------------------------------------------ release
def test_predictions_depend_only_on_released_parameters():
    X, y = _data()
    for mechanism in ("objective", "rubinstein"):
        clf = DPKernelSVC(
            n_components=10,
            mechanism=mechanism,
            classes=[-1, 1],
            feature_random_state=7,
            random_state=0,
        ).fit(X, y)
        rebuilt = DPKernelSVC()
        for name in (
            "frequencies_",
            "phases_",
            "feature_scale_",
            "projection_radius_",
            "coef_",
            "classes_",
            "n_features_in_",
        ):
            setattr(rebuilt, name, getattr(clf, name))
        np.testing.assert_array_equal(rebuilt.predict(X), clf.predict(X))
        Z = fourier_features(X, clf.frequencies_, clf.phases_, scale=clf.feature_scale_)
        np.testing.assert_allclose(
            clf.decision_function(X),
            (np.minimum(1, 1 / np.linalg.norm(Z, axis=1))[:, None] * Z)
            @ clf.coef_.ravel(),
            atol=1e-12,
        )


def test_frequencies_are_data_independent_and_seeded_separately_from_noise():
    X, y = _data()
    X2, y2 = _data(seed=9)
    a = DPKernelSVC(
        n_components=8, classes=[-1, 1], feature_random_state=3, random_state=1
    ).fit(X, y)
    b = DPKernelSVC(
        n_components=8, classes=[-1, 1], feature_random_state=3, random_state=2
    ).fit(X2, y2)
    np.testing.assert_array_equal(a.frequencies_, b.frequencies_)
    np.testing.assert_array_equal(a.phases_, b.phases_)
    c = DPKernelSVC(
        n_components=8, classes=[-1, 1], feature_random_state=3, random_state=1
    ).fit(X, y)
    np.testing.assert_array_equal(a.coef_, c.coef_)  # seeded noise: tests only


def test_privacy_event_records_the_feature_map():
    X, y = _data()
    clf = DPKernelSVC(
        kernel="laplacian",
        gamma=0.3,
        n_components=12,
        mechanism="rubinstein",
        epsilon=0.5,
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert ev.epsilon == 0.5 and ev.delta == 0.0 and ev.neighbouring == "replace-one"
    assert (
        ev.mechanism == "random-fourier-features[cos-sin]+output-perturbation-laplace"
    )
    assert "Algorithm 3" in ev.reference and "Corollary 9" in ev.reference
    d = ev.details
    assert (d["kernel"], d["gamma"], d["n_components"]) == ("laplacian", 0.3, 12)
    assert d["feature_map"] == "cos-sin" and d["n_random_features"] == 24
    assert d["feature_norm_bound"] == 1.0 and d["calibrated_norm_bound"] == 1.0
    assert ev.to_dict()["details"]["loss"].startswith("HingeLoss")
    obj = (
        DPKernelSVC(
            n_components=5, classes=[-1, 1], feature_random_state=0, random_state=0
        )
        .fit(X, y)
        .privacy_event_
    )
    assert "Algorithm 2" in obj.reference and obj.details["feature_map"] == "cos-phase"


def test_one_vs_rest_splits_epsilon_and_keeps_children():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 2))
    y = np.digitize(np.linalg.norm(X, axis=1), [0.8, 1.4])
    clf = DPKernelSVC(
        n_components=10,
        mechanism="output",
        epsilon=0.9,
        classes=[0, 1, 2],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    ev = clf.privacy_event_
    assert ev.epsilon == pytest.approx(0.9) and len(ev.children) == 3
    assert all(c.epsilon == pytest.approx(0.3) for c in ev.children)
    assert clf.coef_.shape == (3, 20) and set(clf.predict(X)) <= {0, 1, 2}


# ------------------------------------------------------------------- budget
def test_budget_is_checked_before_reading_data_and_spent_after_success():
    X, y = _data()
    acc = BudgetAccountant(1.0)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(BudgetExceededError):
        DPKernelSVC(epsilon=2.0, accountant=acc, classes=[-1, 1]).fit(bad, y)
    with pytest.raises(ValueError, match="not in the public label set"):
        DPKernelSVC(epsilon=0.5, accountant=acc, classes=[0, 1], random_state=0).fit(
            X, y
        )
    assert len(acc) == 0  # failed fits spend nothing
    clf = DPKernelSVC(
        epsilon=0.5,
        accountant=acc,
        classes=[-1, 1],
        feature_random_state=0,
        random_state=0,
    ).fit(X, y)
    assert acc.ledger == (clf.privacy_event_,)
    assert acc.remaining()[0] == pytest.approx(0.5)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", [DPKernelSVC, NonPrivateRandomFeatureSVC])
@pytest.mark.parametrize("gamma", ["scale", "auto"])
def test_data_dependent_gamma_is_refused(cls, gamma):
    X, y = _data()
    with pytest.raises(ValueError, match="computed from the data"):
        cls(gamma=gamma).fit(X, y)


@pytest.mark.parametrize(
    "params,match",
    [
        ({"gamma": 0.0}, "'gamma' parameter"),
        ({"n_components": 0}, "'n_components' parameter"),
        ({"kernel": "poly"}, "'kernel' parameter"),
        ({"mechanism": "output-laplace"}, "'mechanism' parameter"),
        ({"norm_handling": "none"}, "'norm_handling' parameter"),
        ({"epsilon": 0.0}, "'epsilon' parameter"),
    ],
)
def test_bad_parameters_give_clear_errors(params, match):
    X, y = _data()
    with pytest.raises(InvalidParameterError, match=match):
        DPKernelSVC(classes=[-1, 1], **params).fit(X, y)


@pytest.mark.parametrize("mechanism", ["objective", "objective-2009"])
def test_hinge_is_refused_by_objective_perturbation(mechanism):
    X, y = _data()
    with pytest.raises(ValueError, match="counter-example"):
        DPKernelSVC(mechanism=mechanism, loss="hinge", classes=[-1, 1]).fit(X, y)


def test_inferred_label_set_warns():
    X, y = _data()
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        DPKernelSVC(n_components=5, random_state=0).fit(X, y)


@pytest.mark.parametrize("mechanism", ["rubinstein", "objective-2009"])
def test_event_is_the_linear_step_event_renamed(mechanism):
    # The released event keeps the linear step's ε, δ, sensitivity and
    # children; only the name, reference and details change, and a non-private
    # parameter choice turns it into a NonPrivateEvent with the full reason.
    X, y = _data()
    loss = "hinge" if mechanism == "rubinstein" else "huber"
    y3 = np.where(X[:, 0] > 0.5, 2, y)
    clf = DPKernelSVC(
        mechanism=mechanism,
        loss=loss,
        n_components=5,
        classes=[-1, 1, 2],
        feature_random_state=0,
        random_state=0,
    )
    if mechanism == "objective-2009":
        with pytest.warns(NotPrivateWarning):
            clf.fit(X, y3)
    else:
        clf.fit(X, y3)
    event = clf.privacy_event_
    assert event.mechanism.startswith("random-fourier-features[")
    assert "; linear step: " in event.reference
    assert len(event.children) == 3
    assert event.details["n_classes"] == 3
    if mechanism == "rubinstein":
        assert isinstance(event, PureDpEvent) and event.epsilon == 1.0
        assert all(isinstance(c, PureDpEvent) for c in event.children)
    else:
        assert isinstance(event, NonPrivateEvent)
        assert event.reason == clf._non_private_reason()
        for child in event.children:  # ε/K each, nominally
            assert child.details["nominal_epsilon"] == pytest.approx(1.0 / 3)
