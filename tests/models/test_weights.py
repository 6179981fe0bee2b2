# SPDX-License-Identifier: BSD-3-Clause
"""Public class and sample weights of the linear and random-feature estimators."""

from __future__ import annotations

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.io import load_model, save_model
from dpsvm.losses import HuberLoss, LogisticLoss
from dpsvm.models import (
    DPKernelSVC,
    DPLinearSVC,
    DPLogisticRegression,
    balanced_class_weight,
)
from dpsvm.models._weights import public_weight_bound, resolve_class_weight, row_weights
from dpsvm.perturbation import auto_regularization, output_l2_sensitivity
from dpsvm.solvers import solve_hinge, solve_smooth


def _data(n=300, seed=0, share=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * 0.5
    y = np.where(rng.random(n) < share, 1, 0)
    X[y == 1, 0] += 0.8
    return X, y


# ------------------------------------------------------------ the weights
def test_balanced_weights_use_the_public_priors():
    # scikit-learn's n/(k·n_c) with the public p_c = n_c/n: 1/(k·p_c).
    assert balanced_class_weight(["a", "b"], [0.8, 0.2]) == {"a": 0.625, "b": 2.5}
    got = balanced_class_weight([0, 1, 2], [0.5, 0.25, 0.25])
    assert got == pytest.approx({0: 2 / 3, 1: 4 / 3, 2: 4 / 3})


@pytest.mark.parametrize(
    "priors, match",
    [([0.5, 0.6], "sum to 1"), ([1.0], "one proportion per class"),
     ([1.0, 0.0], "> 0"), ([np.nan, 1.0], "> 0")],
)  # fmt: skip
def test_invalid_priors_are_refused(priors, match):
    with pytest.raises(ValueError, match=match):
        balanced_class_weight([0, 1], priors)


def test_weight_bound_is_public_max_class_weight_times_max_weight():
    assert public_weight_bound({0: 0.5, 1: 3.0}, 2.0, [0, 1]) == 6.0
    # A class the dict does not list weighs 1, which then counts.
    assert public_weight_bound({1: 0.5}, 1.0, [0, 1]) == 1.0
    assert public_weight_bound({1: 0.5}, 1.0, None) == 1.0
    assert public_weight_bound(None, 4.0, None) == 4.0
    with pytest.raises(ValueError, match="every class weight 0"):
        public_weight_bound({0: 0.0, 1: 0.0}, 1.0, [0, 1])


def test_sample_weights_are_clipped_never_refused():
    got = row_weights(
        np.array([0, 1, 1, 0, 1]), np.array([0, 1]), {1: 2.0},
        [0.5, 9.0, -1.0, np.nan, np.inf], 1.0,
    )  # fmt: skip
    assert got.tolist() == [0.5, 2.0, 0.0, 0.0, 2.0]
    assert row_weights(np.array([0, 1]), np.array([0, 1]), None, None, 1.0) is None
    with pytest.raises(ValueError, match="one weight per row"):
        row_weights(np.array([0, 1]), np.array([0, 1]), None, [1.0], 1.0)


def test_class_weight_keys_must_be_public_classes():
    assert resolve_class_weight({1: 2}, None, [0, 1]) == {1: 2.0}
    with pytest.raises(ValueError, match="not in the public label set"):
        resolve_class_weight({2: 2.0}, None, [0, 1])


def test_balanced_without_priors_is_refused_with_advice():
    with pytest.raises(ValueError, match="class_priors"):
        resolve_class_weight("balanced", None, [0, 1])
    with pytest.raises(ValueError, match="classes"):
        resolve_class_weight("balanced", [0.5, 0.5], None)


# ------------------------------------------------------------ the solvers
@pytest.mark.parametrize("loss", [LogisticLoss(), HuberLoss(0.5), "hinge"])
def test_weighted_objective_divides_by_n_not_by_the_weights(loss):
    # (1/n)Σωᵢℓᵢ with integer ω equals the unweighted problem on the rows
    # repeated ωᵢ times (n′ = Σω rows) at λ′ = λ·n/n′.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ [1.0, -1.0, 0.5] + 0.3 * rng.normal(size=60) > 0, 1.0, -1.0)
    w = rng.integers(0, 4, size=60).astype(float)
    Xr, yr = np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int))
    lam, lam_r = 0.05, 0.05 * 60 / w.sum()
    if loss == "hinge":
        a = solve_hinge(X, y, lam, sample_weight=w, target_distance=1e-8)
        b = solve_hinge(Xr, yr, lam_r, target_distance=1e-8)
        tol = a.distance_bound + b.distance_bound + 1e-9
    else:
        a = solve_smooth(X, y, loss, lam, sample_weight=w)
        b = solve_smooth(Xr, yr, loss, lam_r)
        tol = 1e-8
    assert np.linalg.norm(a.coef - b.coef) <= tol


# ------------------------------------------------------------ the estimators
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: DPLinearSVC(**kw),
        lambda **kw: DPLinearSVC(mechanism="output", loss="hinge", **kw),
        lambda **kw: DPLinearSVC(mechanism="output-laplace", **kw),
        lambda **kw: DPLogisticRegression(**kw),
        lambda **kw: DPKernelSVC(n_components=10, feature_random_state=0, **kw),
    ],
)
def test_unit_weights_release_the_unweighted_model(make):
    X, y = _data()
    base = make(classes=[0, 1], random_state=3).fit(X, y)
    ones = make(classes=[0, 1], random_state=3).fit(X, y, sample_weight=np.ones(300))
    np.testing.assert_array_equal(base.coef_, ones.coef_)
    assert base.privacy_event_ == ones.privacy_event_
    assert "weight_bound" not in base.privacy_event_.details


def test_a_weight_above_the_bound_is_clipped_to_it():
    X, y = _data()
    sw = np.ones(300)
    big, at_bound = sw.copy(), sw.copy()
    big[7], at_bound[7] = 1e12, 2.0
    kw = {"classes": [0, 1], "max_weight": 2.0, "random_state": 0}
    a = DPLinearSVC(**kw).fit(X, y, sample_weight=big)
    b = DPLinearSVC(**kw).fit(X, y, sample_weight=at_bound)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    nan = sw.copy()
    nan[7], zero = np.nan, sw.copy()
    zero[7] = 0.0
    c = DPLinearSVC(**kw).fit(X, y, sample_weight=nan)
    d = DPLinearSVC(**kw).fit(X, y, sample_weight=zero)
    np.testing.assert_array_equal(c.coef_, d.coef_)


def test_noise_and_auto_lambda_scale_with_the_public_weight_bound():
    X, y = _data()
    cw = {0: 0.5, 1: 4.0}  # W = 4 × max_weight 1.5 = 6
    clf = DPLinearSVC(
        mechanism="output", loss="hinge", classes=[0, 1], class_weight=cw,
        max_weight=1.5, random_state=0,
    ).fit(X, y, sample_weight=np.full(300, 1.5))  # fmt: skip
    event = clf.privacy_event_
    assert event.details["weight_bound"] == 6.0
    # regularization="auto": λ = max(W·c/(n(e^{fε/2} − 1)), 1/n), Λ = λR².
    lam = auto_regularization(1.0, 300, 1.0, max_weight=6.0)
    assert clf.regularization_ == pytest.approx(lam)
    # CMS11 Cor. 8 for the weighted loss, released w/R (R = 1): 2W/(nλ),
    # plus twice the public certificate cap (1e-3 of it).
    want = output_l2_sensitivity(300, lam, 1.0, 6.0) * (1 + 2e-3)
    assert event.sensitivity == pytest.approx(want)
    fixed = DPLinearSVC(
        mechanism="output", loss="hinge", classes=[0, 1], class_weight=cw,
        regularization=0.1, random_state=0,
    ).fit(X, y)  # fmt: skip
    unweighted = DPLinearSVC(
        mechanism="output", loss="hinge", classes=[0, 1], regularization=0.1,
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert fixed.privacy_event_.sensitivity == pytest.approx(
        4.0 * unweighted.privacy_event_.sensitivity
    )


def test_balanced_weights_raise_balanced_accuracy_on_imbalanced_data():
    from sklearn.metrics import balanced_accuracy_score

    X, y = _data(4000, seed=2, share=0.08)
    kw = {"classes": [0, 1], "epsilon": 5.0, "random_state": 0}
    plain = DPLogisticRegression(**kw).fit(X, y)
    weighted = DPLogisticRegression(
        class_weight="balanced", class_priors=[0.92, 0.08], **kw
    ).fit(X, y)
    assert balanced_accuracy_score(y, weighted.predict(X)) > 0.6
    assert balanced_accuracy_score(y, weighted.predict(X)) > balanced_accuracy_score(
        y, plain.predict(X)
    )


def test_invalid_weights_are_refused_before_any_budget_is_spent():
    X, y = _data()
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ValueError, match="class_priors"):
        DPLinearSVC(classes=[0, 1], class_weight="balanced", accountant=acc).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        DPLinearSVC(classes=[0, 1], class_weight={1: -2}, accountant=acc).fit(X, y)
    assert len(acc) == 0


def test_weighted_models_round_trip_through_model_files(tmp_path):
    X, y = _data()
    for clf in (
        DPLogisticRegression(classes=[0, 1], class_weight="balanced",
                             class_priors=[0.8, 0.2], random_state=0),
        DPKernelSVC(mechanism="output", classes=[0, 1], class_weight={1: 3.0},
                    n_components=10, feature_random_state=0, random_state=0),
    ):  # fmt: skip
        clf.fit(X, y)
        path = tmp_path / "m.json"
        save_model(clf, path)
        back = load_model(path)
        np.testing.assert_array_equal(back.coef_, clf.coef_)
        assert back.privacy_event_ == clf.privacy_event_


def test_a_tampered_weight_bound_is_refused_on_load(tmp_path):
    import json

    X, y = _data()
    clf = DPLinearSVC(classes=[0, 1], class_weight={1: 3.0}, random_state=0)
    path = tmp_path / "m.json"
    save_model(clf.fit(X, y), path)
    doc = json.loads(path.read_text())
    text = json.dumps(doc).replace('"weight_bound": 3.0', '"weight_bound": 1.5')
    assert text != json.dumps(doc)
    path.write_text(text)
    with pytest.raises(ValueError):
        load_model(path)


def test_one_vs_rest_uses_each_rows_own_class_weight():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 3, 200)
    cw = {0: 1.0, 1: 2.0, 2: 0.5}
    clf = DPLinearSVC(classes=[0, 1, 2], class_weight=cw, random_state=0).fit(X, y)
    assert all(c.details["weight_bound"] == 2.0 for c in clf.privacy_event_.children)


# ------------------------------------------------ Nie–Wang explicit features
@pytest.mark.parametrize("loss", ["pinball", "absolute", "hinge"])
def test_box_losses_weighted_by_scaling_the_box(loss):
    # ωℓ(t) = max over a ∈ [ω·lo, ω·hi] of a(r − t): the same certified box
    # solver; integer weights equal repeated rows at λ′ = λ·n/Σω.
    from dpsvm.models.kernel_erm import solve_features

    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3)) * 0.5
    r = np.sign(X[:, 0] + 0.1) if loss == "hinge" else X[:, 0] + 0.1 * X[:, 1]
    w = rng.integers(0, 3, size=40).astype(float)
    k = w.astype(int)
    kw = {"quantile": 0.7, "l1": 0.0 if loss == "hinge" else 0.01}
    a = solve_features(X, r, loss, lam=0.1, sample_weight=w, target_distance=1e-8, **kw)
    b = solve_features(
        np.repeat(X, k, axis=0), np.repeat(r, k), loss, lam=0.1 * 40 / w.sum(),
        target_distance=1e-8, **kw,
    )  # fmt: skip
    assert np.linalg.norm(a.coef - b.coef) <= a.distance_bound + b.distance_bound + 1e-9


def test_nie_wang_output_perturbation_scales_delta_h_by_w(tmp_path):
    from dpsvm.models import DPOutputPerturbationRegressor, DPOutputPerturbationSVC

    X, y = _data()
    plain = DPOutputPerturbationSVC(classes=[0, 1], random_state=0).fit(X, y)
    ones = DPOutputPerturbationSVC(classes=[0, 1], random_state=0)
    ones.fit(X, y, sample_weight=np.ones(300))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    weighted = DPOutputPerturbationSVC(
        classes=[0, 1], class_weight={1: 2.5}, max_weight=2.0, random_state=0
    ).fit(X, y, sample_weight=np.full(300, 2.0))
    # Nie & Wang Thm 2 with C_L → W·C_L, W = 2.5 × 2.
    assert weighted.privacy_event_.details["weight_bound"] == 5.0
    assert weighted.privacy_event_.sensitivity == pytest.approx(
        5.0 * plain.privacy_event_.sensitivity
    )
    save_model(weighted, tmp_path / "m.json")
    back = load_model(tmp_path / "m.json")
    assert back.privacy_event_ == weighted.privacy_event_
    yr = X[:, 0]
    with pytest.raises(ValueError, match="squared' takes no sample weights"):
        DPOutputPerturbationRegressor(loss="squared", y_bound=2.0).fit(
            X, yr, sample_weight=np.ones(300)
        )
    reg = DPOutputPerturbationRegressor(max_weight=3.0, random_state=0)
    reg.fit(X, yr, sample_weight=np.full(300, 7.0))  # clipped to 3
    assert reg.privacy_event_.details["weight_bound"] == 3.0


def test_kernel_releases_refuse_weights_clearly_and_spend_nothing():
    from dpsvm.models import DPGaussianProcessRelease, PerQueryLaplacePredictor

    X, y = _data(50)
    y = np.where(y == 1, 1, -1)
    acc = BudgetAccountant(epsilon=1.0)
    for est in (
        DPGaussianProcessRelease(classes=[-1, 1], accountant=acc),
        PerQueryLaplacePredictor(classes=[-1, 1], accountant=acc),
    ):
        with pytest.raises(ValueError, match="takes no sample weights"):
            est.fit(X, y, sample_weight=np.ones(50))
    assert len(acc) == 0
