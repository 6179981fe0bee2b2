# SPDX-License-Identifier: BSD-3-Clause
"""The private interactive predictor: calibration, answers, budget and state."""

from __future__ import annotations

import json
import math
import pickle
import warnings

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.bounds.prediction import interactive_parameters, noisy_label_scale
from dpsvm.exceptions import BudgetExceededError
from dpsvm.prediction import PrivateInteractivePredictor, VacuousCalibrationWarning


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    return X, y


def _fit(mechanism="laplace", **kw):
    X, y = _data()
    params = dict(
        mechanism=mechanism,
        epsilon=1.0,
        n_queries=40,
        classes=[-1, 1],
        regularization=0.1,
        random_state=0,
        on_vacuous="warn",
    )
    params.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        return PrivateInteractivePredictor(**params).fit(X, y), X


# Parameters with genuine updates: large n·λ·ε makes σ < C·R_φ.
USEFUL = dict(epsilon=1e5, regularization=1.0, B_rule=5)


# ------------------------------------------------------------ calibration
def test_pinp_calibration_matches_theorem9():
    p, _X = _fit("pinp")
    S = p.prediction_sensitivity_
    # S = 2LR²/(λn)(1 + 2·10⁻³) with L = R = 1 (rbf), λ = 0.1, n = 200.
    assert S == pytest.approx(2 / (0.1 * 200) * (1 + 2e-3))
    B = p.max_updates_
    # ε₀ = ε/(200·√B·S·ln(4/δ)) (Thm 9); the noise scale is 1/ε₀.
    eps0 = 1.0 / (200 * math.sqrt(B) * S * math.log(4 / 1e-6))
    assert p.noise_scale_ == pytest.approx(1 / eps0)
    # σ = (4/ε₀)ln(2T/β), η = σ/(4R²).
    assert p.threshold_ == pytest.approx(4 / eps0 * math.log(2 * 40 / 0.05))
    assert p.step_ == pytest.approx(p.threshold_ / 4)


def test_alg1_constants_halve_the_noise():
    a, _ = _fit("pinp", B_rule=3)
    b, _ = _fit("pinp", B_rule=3, constants="alg1")
    assert a.noise_scale_ == pytest.approx(2 * b.noise_scale_)


def test_vacuity_warning_when_threshold_exceeds_every_prediction():
    X, y = _data()
    with pytest.warns(VacuousCalibrationWarning, match="C·R_φ"):
        p = PrivateInteractivePredictor(
            mechanism="pinp", classes=[-1, 1], random_state=0, on_vacuous="warn"
        ).fit(X, y)
    assert p.vacuous_ and p.threshold_ >= p.w_norm_bound_ * p.kappa_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = PrivateInteractivePredictor(
            mechanism="pinp", classes=[-1, 1], random_state=0, **USEFUL
        ).fit(X, y)
    assert not q.vacuous_


def test_laplace_calibration_is_composition_over_T():
    p, _ = _fit("laplace", delta=1e-6)
    assert p.noise_scale_ == pytest.approx(
        noisy_label_scale(40, 1.0, 1e-6, p.prediction_sensitivity_)
    )
    q, _ = _fit("laplace", delta=0.0)
    # basic composition: ε_q = ε/T, scale = S·T/ε
    assert q.noise_scale_ == pytest.approx(q.prediction_sensitivity_ * 40)


def test_pinp_refuses_zero_delta():
    X, y = _data()
    with pytest.raises(ValueError, match="delta"):
        PrivateInteractivePredictor(mechanism="pinp", delta=0.0, classes=[-1, 1]).fit(
            X, y
        )


def test_interactive_parameters_potential_rule_closed_form():
    p = interactive_parameters(
        10**5, 1e-3, 1.0, 1e-6, 0.05, 10**4, 1.0, 1.0, 2000.0, B_rule="potential"
    )
    # B ≈ Cελn/(692.8·L·R·ln(2T/β)·ln(4/δ)) under Thm-9 constants.
    expect = (
        2000 * 1e-3 * 1e5 / (400 * math.sqrt(3) * math.log(2e4 / 0.05) * math.log(4e6))
    )
    assert p.max_updates == math.floor(expect)


# ----------------------------------------------------------------- answers
def test_pinp_answers_in_order_and_state_rebuilds_from_answers():
    p, _X = _fit("pinp", **USEFUL)
    rng = np.random.default_rng(1)
    Q = rng.uniform(-0.5, 0.5, size=(30, 2))
    a1 = p.answer(Q[:10])
    a2 = p.answer(Q[10:])
    scores = np.concatenate([a1.scores, a2.scores])
    assert p.n_updates == int(a1.updates.sum() + a2.updates.sum()) > 0
    assert p.n_updates <= p.max_updates_
    pts, coef = p.state_from_answers(Q, scores)
    state = p.state_dict()
    np.testing.assert_array_equal(pts, np.asarray(state["update_points"]))
    np.testing.assert_array_equal(coef, np.asarray(state["update_coef"]))
    # Non-update answers equal the released state's prediction; after the cap
    # they are flagged as public-state answers.
    assert np.all(np.abs(coef) == p.step_)
    assert a2.public_state.any() == (p.n_updates == p.max_updates_)


def test_update_uses_sign_of_noisy_difference():
    p, _ = _fit("pinp", **{**USEFUL, "B_rule": 1})
    z = np.array([[0.5, 0.0]])
    ans = p.answer(z)
    assert ans.updates[0]
    # first update: p = 0, so α = η·sign(â)
    assert p.state_dict()["update_coef"][0] == pytest.approx(
        p.step_ * np.sign(ans.scores[0])
    )


def test_sparse_vector_variant_costs_and_updates():
    p, _ = _fit("sparse-vector", epsilon=1e4, regularization=1.0, B_rule=3)
    rng = np.random.default_rng(2)
    ans = p.answer(rng.uniform(-0.5, 0.5, size=(20, 2)))
    e1, e2, e3 = 0.25e4, 0.25e4, 0.5e4
    assert ans.spent_epsilon == pytest.approx(e1 + e2 + e3 * p.n_updates / 3)
    assert ans.spent_delta == 0.0
    assert p.state_dict()["threshold_noise"] is not None


def test_pinp_charges_whole_budget_at_first_answer():
    p, X = _fit("pinp")
    assert (p.spent_epsilon, p.spent_delta) == (0.0, 0.0)
    a = p.answer(X[:2])
    assert (a.epsilon, a.delta) == (1.0, 1e-6)
    b = p.answer(X[2:4])
    assert (b.epsilon, b.delta, b.spent_epsilon) == (0.0, 0.0, 1.0)


def test_laplace_spend_never_exceeds_total():
    p, X = _fit("laplace")
    spent = []
    for i in range(4):
        spent.append(p.answer(X[10 * i : 10 * (i + 1)]).spent_epsilon)
    assert spent == sorted(spent) and spent[-1] <= 1.0 + 1e-12
    assert p.budget_exhausted and p.remaining_budget()["answers"] == 0


# ------------------------------------------------ charges to an accountant
def test_pinp_charges_its_event_once_to_the_accountant():
    acc = BudgetAccountant(2.0, 1e-5)
    p, X = _fit("pinp", accountant=acc)
    assert len(acc) == 0  # fit charges nothing
    p.answer(X[:2])
    assert acc.ledger == (p.privacy_event_,)
    p.answer(X[2:5])
    assert len(acc) == 1 and acc.total() == (1.0, 1e-6)


def test_sparse_vector_charges_match_its_own_running_total():
    acc = BudgetAccountant(1e5)
    p, _ = _fit(
        "sparse-vector", epsilon=1e4, regularization=1.0, B_rule=3, accountant=acc
    )
    rng = np.random.default_rng(2)
    for _ in range(3):
        p.answer(rng.uniform(-0.5, 0.5, size=(5, 2)))
    assert p.n_updates > 0
    assert acc.total()[0] == pytest.approx(p.spent_epsilon, rel=1e-12)
    assert all(e.epsilon > 0 for e in acc.ledger)


def test_laplace_charges_one_event_per_answer():
    acc = BudgetAccountant(10.0)
    p, X = _fit("laplace", delta=0.0, accountant=acc)
    p.answer(X[:3])
    p.answer(X[3:7])
    assert len(acc) == 7
    assert acc.total()[0] == pytest.approx(
        7 * p.noise_scale_**-1 * p.prediction_sensitivity_
    )


class _PrivateModelGuard:
    """Stands in for the private w*: its public kernel works, reading w* fails."""

    def __init__(self, model):
        self.spec = model.spec  # the kernel and domain are public

    def decision(self, Z):
        raise AssertionError("the private model was read before the budget check")


def test_accountant_refusal_answers_nothing_and_spends_nothing(monkeypatch):
    p0, X = _fit("laplace", delta=0.0)
    eps_q = p0.prediction_sensitivity_ / p0.noise_scale_
    acc = BudgetAccountant(2.5 * eps_q)  # affords two answers, not three
    p, _ = _fit("laplace", delta=0.0, accountant=acc)
    before = p.state_dict()
    # ⟨w*, φ(z)⟩ is the only read of the private model: the refusal comes first.
    monkeypatch.setattr(p, "_model", _PrivateModelGuard(p._model))
    with pytest.raises(BudgetExceededError):
        p.answer(X[:3])
    assert p.state_dict() == before and len(acc) == 0
    monkeypatch.undo()
    assert p.answer(X[:2]).n_answers == 2 and len(acc) == 2


@pytest.mark.parametrize("mechanism", ["pinp", "sparse-vector"])
def test_update_mechanisms_refused_by_the_accountant_read_nothing(
    monkeypatch, mechanism
):
    p0, X = _fit(mechanism, **USEFUL)
    acc = BudgetAccountant(p0.total_epsilon / 2, 1e-3)  # less than the worst case
    p, _ = _fit(mechanism, **USEFUL, accountant=acc)
    before = p.state_dict()
    monkeypatch.setattr(p, "_model", _PrivateModelGuard(p._model))
    with pytest.raises(BudgetExceededError):
        p.answer(X[:10])
    assert p.state_dict() == before and len(acc) == 0


def test_accountant_does_not_change_the_answers():
    answers = []
    for acc in (None, BudgetAccountant(1e6, 1e-5)):
        p, X = _fit("pinp", **USEFUL, accountant=acc)
        answers.append(p.answer(X[:10]).scores)
    np.testing.assert_array_equal(answers[0], answers[1])


def test_failed_charge_rolls_the_state_back(monkeypatch):
    p, X = _fit("pinp", **USEFUL)
    before = p.state_dict()

    def fail(*args, **kwargs):
        raise BudgetExceededError("concurrent spend")

    monkeypatch.setattr(p, "_charge_batch", fail)
    with pytest.raises(BudgetExceededError, match="concurrent"):
        p.answer(X[:10])
    after = p.state_dict()
    # The public state is rolled back; the noise-call counter is not (the
    # discarded batch's streams are never handed out again).
    assert after["noise_calls"] > before["noise_calls"]
    assert {**after, "noise_calls": before["noise_calls"]} == before
    monkeypatch.undo()
    assert p.answer(X[:10]).n_answers == 10


# ------------------------------------------------------------------ refusals
def test_batch_over_n_queries_is_refused_and_spends_nothing():
    p, X = _fit("laplace")
    p.answer(X[:35])
    before = p.state_dict()
    with pytest.raises(BudgetExceededError, match="exceeds the remaining 5"):
        p.answer(X[:6])
    assert p.state_dict() == before
    p.answer(X[:5])
    with pytest.raises(BudgetExceededError, match="exhausted"):
        p.answer(X[:1])


def test_refuse_after_cap():
    p, _ = _fit("pinp", **{**USEFUL, "B_rule": 1}, after_cap="refuse")
    ans = p.answer(np.array([[0.5, 0.0], [0.4, 0.1]]))
    assert ans.updates[0] and ans.public_state[1] and ans.budget_exhausted
    with pytest.raises(BudgetExceededError):
        p.answer(np.array([[0.1, 0.1]]))


@pytest.mark.parametrize(
    "bad", [[[np.nan, 0.0]], [[0.0, 0.0, 0.0]], [["a", "b"]]], ids=str
)
def test_bad_queries_spend_nothing(bad):
    p, _ = _fit("pinp")
    with pytest.raises(ValueError):
        p.answer(bad)
    assert p.n_answers == 0 and p.spent_epsilon == 0.0


def test_threshold_only_for_sparse_vector():
    X, y = _data()
    with pytest.raises(ValueError, match="sparse-vector"):
        PrivateInteractivePredictor(threshold=1.0, classes=[-1, 1]).fit(X, y)


# -------------------------------------------------------------------- state
@pytest.mark.parametrize("mechanism", ["pinp", "sparse-vector", "laplace"])
def test_state_round_trip_resumes_consistently(mechanism):
    kw = USEFUL if mechanism != "laplace" else {}
    p, X = _fit(mechanism, **kw)
    p.answer(X[:12])
    state = json.loads(json.dumps(p.state_dict()))
    # A "restarted" server: same data and parameters, fresh generator.
    q, _ = _fit(mechanism, **{**kw, "random_state": None})
    q.load_state_dict(state)
    assert q.state_dict() == state
    assert (q.n_answers, q.spent_epsilon, q.n_updates) == (
        p.n_answers,
        p.spent_epsilon,
        p.n_updates,
    )
    a = q.answer(X[12:20])
    assert a.n_answers == 20 and a.spent_epsilon >= state["spent_epsilon"]
    assert q.remaining_budget()["answers"] == 20


@pytest.mark.parametrize("mechanism", ["laplace", "pinp", "sparse-vector"])
def test_resumed_seeded_predictor_never_replays_noise(mechanism):
    # Regression (issue 20, item 4): state_dict() did not carry the noise-call
    # counter, so with an int random_state fit -> answer -> state_dict -> new
    # fit -> load_state_dict -> answer reused the first answer's noise, and
    # the difference of the two answers was the exact difference (7e-10).
    kw = USEFUL if mechanism != "laplace" else {}
    p, X = _fit(mechanism, **kw)
    x1, x2 = X[:4], X[4:8]
    first = p.answer(x1).scores
    state = json.loads(json.dumps(p.state_dict()))
    assert state["noise_calls"] >= 1

    def restarted():
        q, _ = _fit(mechanism, **kw)  # same data, parameters and seed
        q.load_state_dict(state)
        return q

    resumed = restarted().answer(x2).scores
    # The resumed predictor answers exactly as one that never restarted.
    np.testing.assert_array_equal(resumed, p.answer(x2).scores)
    if mechanism == "laplace":
        exact = p._model.decision(p._project(np.vstack([x1, x2])))
        exact_diff = exact[:4] - exact[4:]
        # The attack on the old behaviour (counter back at 0 after the load):
        # the same noise cancels in the difference.
        old = restarted()
        old._n_noise_calls = 0
        replayed = old.answer(x2).scores
        np.testing.assert_allclose(first - replayed, exact_diff, atol=1e-6)
        # Now the noise differs: the difference is off by noise of scale S/ε_q.
        assert np.min(np.abs((first - resumed) - exact_diff)) > 1e-6
    # A state saved without the counter cannot resume a seeded predictor.
    legacy = {k: v for k, v in state.items() if k != "noise_calls"}
    q, _ = _fit(mechanism, **kw)
    before = q.state_dict()
    with pytest.raises(ValueError, match="noise_calls"):
        q.load_state_dict(legacy)
    assert q.state_dict() == before  # nothing changed
    unseeded, _ = _fit(mechanism, **{**kw, "random_state": None})
    unseeded.load_state_dict(legacy)  # fresh CSPRNG streams: nothing to replay
    assert unseeded.n_answers == 4


def test_state_dict_has_no_secret_state():
    p, X = _fit("sparse-vector", **USEFUL)
    p.answer(X[:5])
    text = json.dumps(p.state_dict())
    # No generator state, no training rows, no exact model.
    for word in ("bit_generator", "rng", "seed", "dual_coef", "support"):
        assert word not in text
    for row in np.round(X, 6).tolist():
        assert json.dumps(row)[1:-1] not in text
    keys = set(p.state_dict())
    assert keys == {
        "format",
        "config",
        "n_answers",
        "update_points",
        "update_coef",
        "threshold_noise",
        "noise_calls",
        "spent_epsilon",
        "spent_delta",
    }


def test_load_state_dict_rejects_other_configuration():
    p, X = _fit("laplace")
    p.answer(X[:3])
    q, _ = _fit("laplace", epsilon=2.0)
    with pytest.raises(ValueError, match="different configuration"):
        q.load_state_dict(p.state_dict())
    with pytest.raises(ValueError, match="state dict"):
        q.load_state_dict({"format": "x"})
    assert q.n_answers == 0


def test_answers_to_dict_is_json():
    p, X = _fit("pinp")
    d = p.answer(X[:2]).to_dict()
    assert json.loads(json.dumps(d))["n_answers"] == 2


def test_pickle_keeps_working_object_but_is_documented_private():
    # The object holds w*; pickling works (for the server's own use only).
    p, _X = _fit("laplace")
    assert pickle.loads(pickle.dumps(p)).n_answers == 0


def test_callable_kernel_needs_declared_bound():
    X, y = _data()

    def k(A, B):
        return (A @ B.T + 1.0) ** 2

    with pytest.raises(ValueError, match="kernel_bound"):
        PrivateInteractivePredictor(kernel=k, classes=[-1, 1]).fit(X, y)
    p = PrivateInteractivePredictor(
        kernel=k, kernel_bound=2.0, mechanism="laplace", classes=[-1, 1]
    ).fit(X, y)
    assert p.kappa_ == 2.0
    with pytest.raises(ValueError, match="only for a callable"):
        PrivateInteractivePredictor(kernel_bound=2.0, classes=[-1, 1]).fit(X, y)


def test_no_access_to_private_model_after_cap():
    p, _ = _fit("pinp", **{**USEFUL, "B_rule": 1})
    p.answer(np.array([[0.5, 0.0]]))
    assert p.n_updates == 1

    class Boom:
        spec = p._model.spec

        def decision(self, Z):
            raise AssertionError("the private model was read after the cap")

    p._model = Boom()
    ans = p.answer(np.array([[0.1, 0.2], [0.3, -0.1]]))
    assert ans.public_state.all() and ans.epsilon == 0.0


@pytest.mark.slow
def test_laplace_answer_noise_distribution():
    # answers − exact score ~ Lap(S/ε_q) (discretised: KS on a fine grid).
    from scipy import stats

    p, X = _fit("laplace", n_queries=1, epsilon=0.5, delta=0.0)
    z = X[:1]
    exact = float(p._model.decision(p._project(z))[0])
    s0 = p.state_dict()
    draws = []
    for _ in range(2000):
        p.load_state_dict(s0)
        draws.append(p.answer(z).scores[0] - exact)
    # scale = T·S/ε for δ = 0
    assert p.noise_scale_ == pytest.approx(p.prediction_sensitivity_ / 0.5)
    res = stats.kstest(draws, "laplace", args=(0.0, p.noise_scale_))
    assert res.pvalue > 1e-3


def test_no_generator_kept_and_fresh_stream_per_call():
    # None: nothing random kept on the object; int: reproducible per call.
    p, X = _fit("sparse-vector", random_state=None)
    p.answer(X[:2])
    kept = [
        v
        for v in vars(p).values()
        if isinstance(v, np.random.Generator | np.random.BitGenerator)
    ]
    assert kept == []

    def run():
        q, _ = _fit("laplace", random_state=0)
        return [q.answer(X[i : i + 4]).scores for i in (0, 0)]

    a, b = run(), run()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])


def test_predict_is_answer_labels():
    p, X = _fit("laplace")
    assert p.predict(X[:3]).shape == (3,) and p.n_answers == 3
