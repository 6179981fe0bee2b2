# SPDX-License-Identifier: BSD-3-Clause
"""The fast audit: real mechanisms stay below ε, flawed ones are caught.

Every audit is seeded (random_state=0 of the registry) and uses the entry's
``fast_runs``. The "≤ ε" assertions use confidence 0.999, so a correct
mechanism fails them with probability at most 1e-3; the flawed variants are
caught at the same confidence.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import dpsvm.audit as audit
from dpsvm.audit import registry
from dpsvm.audit.flawed import (
    JainThakurtaTDILPrinted,
    LiteralBetaObjectivePerturbation,
    NieWangScalarOffset,
)
from dpsvm.bounds.rubinstein import lemma17_solutions
from dpsvm.exceptions import NotPrivateWarning
from dpsvm.models import (
    DPLinearSVC,
    NonPrivateLinearClassifier,
    NonPrivateScalarOffsetRelease,
)

CONFIDENCE = 0.999

#: One real mechanism per family (the cheapest), audited in the fast suite.
REAL = [
    "objective-huber",
    "objective-gaussian-huber",
    "objective-laplace-huber",
    "output-hinge",
    "laplace",
    "gamma-norm",
    "analytic-gaussian",
    "exponential",
    "kernel-rff-objective",
    "nie-wang-output",
    "margin-noisy-gd",
    "margin-phased-sgd",
    "subsample-aggregate",
]
FLAWED = [e.name for e in registry.list_entries(flawed=True)]


def _audit(name: str) -> audit.AuditResult:
    return registry.get_entry(name).auditor(confidence=CONFIDENCE).run()


# ------------------------------------------------------------------ audits
@pytest.mark.slow
@pytest.mark.parametrize("name", REAL)
def test_real_mechanism_stays_below_its_epsilon(name):
    res = _audit(name)
    assert not res.violated, res.summary()
    assert res.epsilon_lower <= res.epsilon


@pytest.mark.slow
@pytest.mark.parametrize("name", FLAWED)
def test_flawed_mechanism_is_caught(name):
    res = _audit(name)
    assert res.violated, res.summary()
    assert res.epsilon_lower > res.epsilon


def test_every_family_has_a_real_mechanism_in_the_fast_audit():
    families = {e.family for e in registry.list_entries(flawed=False)}
    assert families == {registry.get_entry(n).family for n in REAL}
    assert set(FLAWED) >= {
        "flawed-literal-beta",
        "flawed-nie-wang-offset",
        "flawed-tdil-printed",
        "flawed-non-private",
    }


# ------------------------------------------------------------------- pairs
def _hinge_w(pair, which):
    X, y = (pair.X, pair.y) if which == 0 else (pair.X_prime, pair.y_prime)
    est = NonPrivateLinearClassifier(loss="hinge", regularization=1.0, classes=[-1, 1])
    return est.fit(X, y).coef_.ravel()


def test_flipped_label_pair_attains_the_output_sensitivity():
    # Hinge, Λ = 1, n = 10: w = 1 on D and 0.8 on D′, |Δw| = 2/(nΛ) = 0.2.
    pair = registry.flipped_label_pair(10)
    w, w2 = _hinge_w(pair, 0), _hinge_w(pair, 1)
    np.testing.assert_allclose([w[0], w2[0]], [1.0, 0.8], atol=1e-6)


def test_canary_pair_attains_the_output_sensitivity_on_the_canary_axis():
    # The canary is alone on axis d with margin < 1, so w_d = ±1/(nΛ) = ±0.02.
    pair = registry.canary_pair(50, 5)
    w, w2 = _hinge_w(pair, 0), _hinge_w(pair, 1)
    assert np.linalg.norm(w - w2) == pytest.approx(2.0 / 50, rel=1e-5)
    np.testing.assert_allclose((w - w2)[:4], 0.0, atol=1e-6)
    assert np.all(np.linalg.norm(pair.X, axis=1) <= 1.0 + 1e-12)


def test_lemma17_pair_matches_the_closed_form():
    # Rubinstein et al. Lemma 17, C = 1 (Λ = 1), n = 10, ε = 0.05: minimisers 2ε apart.
    pair = registry.lemma17_pair(10, 1.0, 0.05)
    w1, w2 = lemma17_solutions(10, 1.0, 0.05)
    np.testing.assert_allclose(
        [_hinge_w(pair, 0)[0], _hinge_w(pair, 1)[0]], [w1, w2], atol=1e-6
    )
    assert abs(w1 - w2) == pytest.approx(0.1)


def test_balanced_and_tdil_pairs_are_replace_one_neighbours():
    for pair in (registry.balanced_pair(), registry.tdil_pair(7)):
        diff = np.flatnonzero(pair.y != pair.y_prime)
        assert diff.tolist() == [pair.n_samples - 1]
        np.testing.assert_array_equal(pair.X, pair.X_prime)
    with pytest.raises(ValueError, match="odd"):
        registry.tdil_pair(8)


# ------------------------------------------------------- flawed internals
def test_flawed_mechanisms_are_labelled_and_not_exported():
    for cls in (
        LiteralBetaObjectivePerturbation,
        NieWangScalarOffset,
        JainThakurtaTDILPrinted,
    ):
        assert cls.NOT_PRIVATE is True
        assert cls.__name__ not in audit.__all__
        assert "NOT PRIVATE" in (cls.__doc__ or "")


def test_literal_beta_adds_n_times_too_little_noise():
    # Huber (h = 0.5), Λ = 1, rows x = 1, y = +1: J(w) = (1.5 − w)²/2 + w²/2 + bw/n
    # in the quadratic zone, so w = (1.5 − b/n)/2 and b = n(1.5 − 2w). As printed
    # (β = εn), ‖b‖ ~ Gamma(1, 2/(nε)): E|b| = 2/(nε) = 0.2, not 2/ε = 2.
    X, y = np.ones((10, 1)), np.ones(10)
    mech = LiteralBetaObjectivePerturbation(epsilon=1.0)
    w = np.array([mech(X, y, s)[0] for s in range(400)])
    b = 10 * (1.5 - 2 * w)
    # |b| ~ Exp(mean 0.2): the sample mean of 400 has sd 0.01.
    assert np.mean(np.abs(b)) == pytest.approx(0.2, abs=0.05)


def test_literal_beta_is_objective_2009_at_n_times_epsilon():
    # The flawed variant is the estimator's code path with ε·n, draw for draw.
    pair = registry.canary_pair(20, 3)
    mech = LiteralBetaObjectivePerturbation(epsilon=0.5, huber_h=0.25)
    est = DPLinearSVC(
        epsilon=0.5 * 20,
        mechanism="objective-2009",
        huber_h=0.25,
        regularization=1.0,
        fit_intercept=False,
        classes=[-1, 1],
        random_state=7,
    )
    with pytest.warns(NotPrivateWarning):
        est.fit(pair.X, pair.y)
    np.testing.assert_array_equal(mech(pair.X, pair.y, 7), est.coef_.ravel())


def test_nie_wang_offset_releases_the_exact_function_differences():
    X, y = np.ones((10, 1)), np.ones(10)
    mech = NieWangScalarOffset(epsilon=1.0, regularization=1.0)
    # B_Δ = 2κ²C_L/(λ_NW·γ·m) = 2/(0.5·2·10) = 0.2; Lemma 1: scale B_Δ/ε.
    assert mech.noise_scale(10) == pytest.approx(0.2)
    assert NieWangScalarOffset(noise_convention="prop1").noise_scale(10) == 0.1
    models = [mech(X, y, s) for s in range(20)]
    # The release is the library's NonPrivateScalarOffsetRelease (linear kernel),
    # drawing b at the scale noise_scale() states.
    assert all(isinstance(m, NonPrivateScalarOffsetRelease) for m in models)
    assert {m.noise_scale_ for m in models} == {mech.noise_scale(10)}
    f1 = np.array([m.decision_function(np.ones((1, 1)))[0] for m in models])
    f0 = np.array([m.decision_function(np.zeros((1, 1)))[0] for m in models])
    # f(1) − f(0) = w is the exact hinge minimiser (λ_NW = Λ/2 ⇔ Λ = 1: w = 1)
    # on every run; f(0) = b is the random offset.
    np.testing.assert_allclose(f1 - f0, 1.0, atol=1e-8)
    assert np.std(f0) > 0.05
    with pytest.raises(ValueError, match="noise_convention"):
        NieWangScalarOffset(noise_convention="paper").noise_scale(10)


def test_tdil_printed_parameters_and_step_cost():
    mech = JainThakurtaTDILPrinted(epsilon=1.0, delta=1e-5, regularization=4.0)
    p = mech.parameters(1301)
    log4d = math.log(4e5)
    # B = ⌊nε/(100 L R ln(4/δ))⌋ = 1; ε₀ = nελ/(10 L R² √B ln(4/δ)).
    assert p["B"] == 1
    assert p["epsilon_0"] == pytest.approx(1301 * 4.0 / (10 * log4d))
    # σ = (4/ε₀) ln(2B/β), η = σ/4, Λ = ε₀nλ/8, S = 2/(λn).
    assert p["sigma"] == pytest.approx(4 / p["epsilon_0"] * math.log(2 / 0.8))
    assert p["eta"] == pytest.approx(p["sigma"] / 4)
    assert p["sensitivity"] == pytest.approx(2 / (4.0 * 1301))
    # One exponential-mechanism step costs 2ΛS = ε₀/2 ≫ the claimed ε = 1.
    assert p["step_cost"] == pytest.approx(p["epsilon_0"] / 2)
    assert p["step_cost"] > 20
    with pytest.raises(ValueError, match="max_candidates"):
        JainThakurtaTDILPrinted(max_candidates=10)(
            registry.tdil_pair(1301).X, registry.tdil_pair(1301).y, 0
        )


# ---------------------------------------------------------------- registry
@pytest.mark.parametrize("entry", registry.list_entries(), ids=lambda e: e.name)
def test_factories_pickle_for_process_workers(entry):
    # n_jobs != 1 ships the factory to joblib's worker processes.
    factory = entry.build(entry.epsilon, entry.delta)
    clone = pickle.loads(pickle.dumps(factory))
    assert clone == factory


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown mechanism 'nope'; known: .*laplace"):
        registry.get_entry("nope")


def test_register_refuses_duplicates_and_can_replace():
    entry = registry.get_entry("laplace")
    with pytest.raises(ValueError, match="already exists"):
        registry.register(entry)
    assert registry.register(entry, replace=True) is entry
    with pytest.raises(TypeError, match="AuditEntry"):
        registry.register("laplace")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        registry.REGISTRY["x"] = entry  # type: ignore[index]


def test_register_a_new_mechanism_and_run_it():
    name = "test-only-randomised-response"

    def build(eps, delta):
        def mech(X, y, seed):  # randomised response on the last label: exactly ε
            rng = np.random.default_rng(seed)
            keep = rng.random() < math.exp(eps) / (1 + math.exp(eps))
            return [float(y[-1] if keep else -y[-1])]

        return mech

    entry = registry.AuditEntry(
        name, "test", "randomised response", build, registry.flipped_label_pair,
        "mechanism", fast_runs=1000,
    )  # fmt: skip
    registry.register(entry)
    try:
        assert entry in registry.list_entries(family="test")
        res = registry.run_audit(name, confidence=CONFIDENCE)
        assert 0.0 < res.epsilon_lower <= 1.0
        refuted = registry.run_audit(name, epsilon=3.0, confidence=CONFIDENCE)
        assert refuted.epsilon == 3.0 and not refuted.violated
    finally:
        registry._REGISTRY.pop(name)
