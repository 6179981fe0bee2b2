# SPDX-License-Identifier: BSD-3-Clause
"""Subsample-and-aggregate with the sparse vector: calibration, answers, budget."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

from dpsvm.accounting import BudgetAccountant
from dpsvm.accounting.composition import advanced_composition
from dpsvm.exceptions import BudgetExceededError
from dpsvm.mechanisms import sample_discrete_laplace
from dpsvm.prediction import (
    SubsampleAggregatePredictor,
    VacuousCalibrationError,
    VacuousCalibrationWarning,
    subsample_aggregate_calibration,
)
from dpsvm.prediction._subsample_calibration import (
    default_max_charged,
    default_n_teachers,
    discrete_laplace_difference_tail,
)


def _data(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2)) / 2
    y = np.where(X[:, 0] > 0, 1, -1)
    return X, y


def _fit(**kw):
    X, y = _data()
    params = dict(epsilon=2.0, n_queries=100, classes=[-1, 1], random_state=0)
    params.update(kw)
    return SubsampleAggregatePredictor(**params).fit(X, y)


# ------------------------------------------------------------ calibration
def _continuous_laplace_difference_tail(t: float, a: float, b: float) -> float:
    """P[X − Y > t], t ≥ 0, X ~ Lap(a), Y ~ Lap(b): the continuum limit."""
    hi, lo = max(a, b), min(a, b)
    return (hi * hi * math.exp(-t / hi) - lo * lo * math.exp(-t / lo)) / (
        2.0 * (hi * hi - lo * lo)
    )


def test_one_round_calibration_known_answer():
    cal = subsample_aggregate_calibration(1000, 1.0, 1e-6, 100, 1, 0.0)
    # Basic composition of c = 1 round: ε_r = ε; δ_fail = δ.
    assert cal.composition == "basic" and cal.round_epsilon == 1.0
    assert cal.failure_delta == 1e-6
    # Lyu, Su & Li split ε₁ : ε₂ = 1 : 2^{2/3}; ρ ~ DLap(⌈g/ε₁⌉), ν ~ DLap(⌈2g/ε₂⌉)
    # on the grid (1/g)ℤ: the real scales 1/ε₁, 2/ε₂ up to a factor 1 + 2⁻²⁰.
    eps1 = 1.0 / (1.0 + 2 ** (2 / 3))
    g = cal.grid
    assert g & (g - 1) == 0 and g * min(1 / eps1, 2 / (1 - eps1)) >= 2**20
    assert cal.threshold_noise_units == math.ceil(g / eps1)
    assert cal.comparison_noise_units == math.ceil(2 * g / (1 - eps1))
    assert cal.threshold_scale == pytest.approx(1 / eps1, rel=2**-20)
    assert cal.comparison_scale == pytest.approx(2 / (1 - eps1), rel=2**-20)
    # W is the smallest integer with m·P[ν − ρ > W] ≤ δ_fail (exact discrete tail).
    t_nu, t_rho = cal.comparison_noise_units, cal.threshold_noise_units
    W = cal.threshold_units
    assert cal.threshold == W / g
    assert 100 * discrete_laplace_difference_tail(W, t_nu, t_rho) <= 1e-6
    assert 100 * discrete_laplace_difference_tail(W - 1, t_nu, t_rho) > 1e-6
    # The continuous calibration's w is its limit.
    tail = _continuous_laplace_difference_tail(
        cal.threshold, cal.comparison_scale, cal.threshold_scale
    )
    assert 100 * tail == pytest.approx(1e-6, rel=1e-4)
    assert cal.max_distance == 499  # ⌈1000/2⌉ − 1


def test_many_rounds_compose_within_the_budget():
    cal = subsample_aggregate_calibration(10**5, 1.0, 1e-6, 1000, 400, 0.1)
    assert cal.composition == "advanced"
    eps, delta = advanced_composition(
        [(cal.round_epsilon, 0.0)] * 400, cal.composition_slack
    )
    assert eps <= 1.0 + 1e-9
    assert delta + cal.failure_delta <= 1e-6 * (1 + 1e-12)
    # The round's ε splits into threshold, comparisons and vote.
    total = cal.threshold_epsilon + cal.comparison_epsilon + cal.vote_epsilon
    assert total == pytest.approx(cal.round_epsilon)
    assert cal.vote_epsilon == pytest.approx(0.1 * cal.round_epsilon)
    assert cal.vote_scale == pytest.approx(2 / cal.vote_epsilon)


def test_threshold_grows_with_the_cutoff_and_shrinks_with_epsilon():
    ws = [
        subsample_aggregate_calibration(10**4, 1.0, 1e-8, 10**4, c, 0.1).threshold
        for c in (1, 4, 16, 64)
    ]
    assert ws == sorted(ws) and ws[-1] > 8 * ws[0]
    w2 = subsample_aggregate_calibration(10**4, 2.0, 1e-8, 10**4, 4, 0.1).threshold
    assert w2 == pytest.approx(ws[1] / 2, rel=1e-6)


def test_default_teachers_and_cutoff_are_public_rules():
    # √n/2 rows per teacher (scaled by ε below 1, at least 16).
    assert default_n_teachers(1_000_000, 1.0) == 2000
    assert default_n_teachers(1_000_000, 0.5) == 1_000_000 // 250
    assert default_n_teachers(400, 1.0) == 400 // 16
    c = default_max_charged(10_000, 1.0, 1e-8, 10_000, 0.1)
    cal = subsample_aggregate_calibration(10_000, 1.0, 1e-8, 10_000, c, 0.1)
    nxt = subsample_aggregate_calibration(10_000, 1.0, 1e-8, 10_000, c + 1, 0.1)
    # q of a 90%-agreeing vote: ⌈⌈0.8k⌉/2⌉ − 1.
    assert cal.free_probability(3999) >= 0.95 > nxt.free_probability(3999)


# ------------------------------------------------------------ answers
def test_free_answers_are_the_teachers_majority():
    sa = _fit()
    assert sa.n_teachers_ == 125 and sa.answers_guaranteed_ == sa.max_charged_
    Q = np.array([[0.4, 0.1], [-0.4, -0.2], [0.3, -0.3]])
    ans = sa.answer(Q)
    assert ans.labels.tolist() == [1, -1, 1]
    assert not ans.charged.any() and ans.answered.all()
    # The first answer opens a round: ε_r and δ_fail are charged once.
    cal = sa.calibration_
    assert (ans.epsilon, ans.delta) == (cal.round_epsilon, cal.failure_delta)
    again = sa.answer(Q)
    assert (again.epsilon, again.delta) == (0.0, 0.0)  # free inside the round


def test_charged_answers_stop_at_the_cutoff_and_spend_the_theorem():
    acc = BudgetAccountant(10.0, 1e-3)
    sa = _fit(max_charged=3, epsilon=4.0, accountant=acc)
    cal = sa.calibration_
    # On the boundary the teachers split: q ≈ 0, so answers are charged.
    Z = np.zeros((1, 2))
    charged = 0
    while not sa.budget_exhausted:
        charged += int(sa.answer(Z).charged[0])
    assert charged == sa.n_charged == 3
    # The whole (ε, δ) was charged as one event with the first answer.
    assert (sa.spent_epsilon, sa.spent_delta) == (4.0, cal.delta)
    assert [e.mechanism for e in acc.ledger] == ["subsample-aggregate"]
    assert acc.total()[0] == pytest.approx(sa.spent_epsilon)
    assert acc.total()[1] == pytest.approx(sa.spent_delta)
    spent = acc.total()
    with pytest.raises(BudgetExceededError, match="exhausted"):
        sa.answer(Z)
    assert acc.total() == spent and sa.answers_remaining == 0


def test_rows_after_the_cutoff_are_flagged_unanswered():
    sa = _fit(max_charged=1, epsilon=4.0)
    ans = sa.answer(np.zeros((6, 2)))
    first = int(np.argmax(ans.charged))
    assert ans.answered[: first + 1].all() and not ans.answered[first + 1 :].any()
    assert sa.n_answers == first + 1 and sa.budget_exhausted


def test_batch_beyond_n_queries_is_refused_before_anything_is_spent():
    sa = _fit(n_queries=3)
    with pytest.raises(BudgetExceededError, match="exceeds the remaining 3"):
        sa.answer(np.zeros((4, 2)))
    assert sa.n_answers == 0 and sa.spent_epsilon == 0.0


def test_callable_kernel_needs_no_bound():
    def cosine(A, B):
        return (A @ B.T) / 0.25

    sa = _fit(kernel=cosine, data_norm=None)
    ans = sa.answer(np.array([[0.4, 0.0], [-0.4, 0.0]]))
    assert ans.labels.tolist() == [1, -1]


def test_fit_does_not_fail_on_one_class_chunks():
    X, y = _data(400)
    y = np.full(400, -1)
    y[0] = 1  # every chunk but one has a single class: constant teachers
    sa = SubsampleAggregatePredictor(
        epsilon=50.0, n_queries=5, n_teachers=200, classes=[-1, 1], random_state=0
    ).fit(X, y)
    assert sa.answer(np.zeros((1, 2))).labels.tolist() == [-1]


# ------------------------------------------------------------ state
def test_state_round_trip_carries_every_counter():
    sa = _fit(max_charged=3, epsilon=4.0)
    sa.answer(np.array([[0.4, 0.0], [0.0, 0.0], [0.0, 0.1]]))
    state = sa.state_dict()
    assert json.loads(json.dumps(state)) == state
    other = _fit(max_charged=3, epsilon=4.0).load_state_dict(state)
    for name in ("n_answers", "n_charged", "spent_epsilon", "spent_delta"):
        assert getattr(other, name) == getattr(sa, name)
    # The noise-call counter resumes where it was: no stream is drawn twice.
    assert other._n_noise_calls == state["noise_calls"] > 0
    assert other.answers_remaining == sa.answers_remaining
    bad = {**state, "config": {**state["config"], "max_charged": 2}}
    with pytest.raises(ValueError, match="different configuration"):
        other.load_state_dict(bad)


def test_state_holds_nothing_about_the_data():
    sa = _fit()
    text = json.dumps(sa.state_dict())
    X, _ = _data()
    assert f"{X[0, 0]!r}" not in text and "support" not in text


# ------------------------------------------------------------ vacuity
def test_vacuous_configuration_is_refused_with_what_would_work():
    X, y = _data(2000)
    with pytest.raises(VacuousCalibrationError) as info:
        SubsampleAggregatePredictor(n_teachers=20, classes=[-1, 1], random_state=0).fit(
            X, y
        )
    msg = str(info.value)
    assert "\n" not in msg and "n_teachers >= " in msg and "epsilon >= " in msg
    k_min = int(msg.split("n_teachers >= ")[1].split(" ")[0])
    # The named k works and k − 1 does not (public calibration).
    cal = subsample_aggregate_calibration(k_min, 1.0, 1e-6, 10_000, 1, 0.1)
    assert not cal.vacuous
    assert subsample_aggregate_calibration(k_min - 1, 1.0, 1e-6, 10_000, 1, 0.1).vacuous
    with pytest.warns(VacuousCalibrationWarning):
        sa = SubsampleAggregatePredictor(
            n_teachers=20, classes=[-1, 1], random_state=0, on_vacuous="warn"
        ).fit(X, y)
    assert sa.vacuous_


def test_too_many_teachers_is_a_plain_error():
    X, y = _data(50)
    with pytest.raises(ValueError, match="exceeds the 50 training rows"):
        SubsampleAggregatePredictor(n_teachers=60, classes=[-1, 1]).fit(X, y)


# --------------------------------------------- empirical neighbouring test
def _one_row_teachers(labels, **kw):
    """k = n single-row chunks: each teacher is the constant of its row."""
    k = len(labels)
    X = np.zeros((k, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VacuousCalibrationWarning)
        return SubsampleAggregatePredictor(
            n_teachers=k,
            n_queries=1,
            max_charged=1,
            classes=[-1, 1],
            on_vacuous="warn",
            random_state=0,
            **kw,
        ).fit(X, np.asarray(labels))


@pytest.mark.slow
def test_neighbouring_datasets_satisfy_the_guarantee():
    # D: 5 of 8 teachers vote +1 (q = 0); D′ replaces one −1 row: 6 of 8 (q = 1).
    # Most of the privacy loss is in the charged vote (vote gap 2 vs 4).
    eps, delta, n_trials = 1.0, 1e-3, 4000
    kw = dict(epsilon=eps, delta=delta, vote_share=0.9)
    runs = []
    rng = np.random.default_rng(0)
    for labels in ([1] * 5 + [-1] * 3, [1] * 6 + [-1] * 2):
        p = _one_row_teachers(labels, **kw)
        s0 = p.state_dict()
        t_rho = p.calibration_.threshold_noise_units
        out = np.empty((n_trials, 2), dtype=int)
        for i in range(n_trials):
            # A fresh ρ each trial, as drawn at fit; fresh streams after it.
            rho = int(sample_discrete_laplace(1, t_rho, rng)[0])
            p.load_state_dict({**s0, "threshold_noise": rho})
            a = p.answer(np.zeros((1, 1)))
            out[i] = (a.labels[0], a.charged[0])
        runs.append(out)

    def slack(p0: float, p1: float) -> float:
        # Four binomial standard errors of the difference (α ≈ 1e-4 each).
        return 4 * math.sqrt((p0 * (1 - p0) + p1 * (1 - p1)) / n_trials) + 1e-3

    for label in (-1, 1):
        for chg in (0, 1):
            p0 = np.mean((runs[0][:, 0] == label) & (runs[0][:, 1] == chg))
            p1 = np.mean((runs[1][:, 0] == label) & (runs[1][:, 1] == chg))
            s = slack(p0, p1)
            assert p0 <= math.exp(eps) * p1 + delta + s, (label, chg, p0, p1)
            assert p1 <= math.exp(eps) * p0 + delta + s, (label, chg, p0, p1)
    # The vote is informative: a −1 label is likelier on D (gap 2) than on D′
    # (a vote with sensitivity-1 noise would break the bound above).
    q0, q1 = np.mean(runs[0][:, 0] == -1), np.mean(runs[1][:, 0] == -1)
    assert q0 > q1 + slack(q0, q1)


def _all_ties(n):
    # n one-row (constant) teachers, half +1: every vote is a tie (q = 0), so
    # every answer is charged.
    return np.zeros((n, 1)), np.where(np.arange(n) % 2 == 0, 1, -1)


def test_whole_budget_is_charged_once_with_the_first_answer():
    X, y = _all_ties(4000)
    acc = BudgetAccountant(10.0, 1e-5, slack=1e-6)
    sa = SubsampleAggregatePredictor(
        epsilon=3.0,
        delta=1e-6,
        n_queries=200,
        n_teachers=4000,
        max_charged=100,
        classes=[-1, 1],
        random_state=0,
        accountant=acc,
    ).fit(X, y)
    assert sa.calibration_.composition == "advanced"
    first = sa.answer(np.zeros((1, 1)))
    assert (first.epsilon, first.delta) == (3.0, 1e-6)
    while not sa.budget_exhausted:
        ans = sa.answer(np.zeros((1, 1)))
        assert ans.charged[0] and (ans.epsilon, ans.delta) == (0.0, 0.0)
    assert (sa.spent_epsilon, sa.spent_delta) == (3.0, 1e-6)
    assert acc.ledger == (sa.privacy_event_,)


def test_advanced_composition_accountant_is_not_undercharged():
    # Regression (fails before the fix): the predictor charged the growth of
    # its own advanced-composition bound per batch; an accountant with slack > 0
    # composed those small increments again and recorded ε ≈ 0.23 for a run
    # worth ε = 1, so three runs fitted into ε = 1.
    X, y = _all_ties(4000)
    acc = BudgetAccountant(1.0, 1e-5, slack=1e-6)

    def run(seed):
        with pytest.warns(VacuousCalibrationWarning):
            sa = SubsampleAggregatePredictor(
                epsilon=1.0,
                delta=1e-6,
                n_queries=1000,
                n_teachers=4000,
                max_charged=1000,
                on_vacuous="warn",
                classes=[-1, 1],
                random_state=seed,
                accountant=acc,
            ).fit(X, y)
        assert sa.calibration_.composition == "advanced"
        for _ in range(1000):
            sa.answer(np.zeros((1, 1)))
        return sa

    sa = run(0)
    assert sa.n_charged == 1000
    assert acc.total()[0] == pytest.approx(1.0)
    with pytest.raises(BudgetExceededError):
        run(1)


def test_delta_at_least_one_over_n_is_refused():
    # Regression (fails before the fix): δ = 0.5 with n = 200 was accepted.
    X, y = _data(n=200)
    sa = SubsampleAggregatePredictor(
        epsilon=2.0, delta=0.5, n_queries=10, classes=[-1, 1], on_vacuous="warn"
    )
    with pytest.raises(ValueError, match="below 1/"):
        sa.fit(X, y)


def test_delta_auto_is_the_public_rule():
    # Regression (fails before the fix): delta="auto" raised.
    from dpsvm.validation import auto_delta

    sa = _fit(delta="auto")
    assert sa.privacy_event_.delta == sa.calibration_.delta == auto_delta(4000)
