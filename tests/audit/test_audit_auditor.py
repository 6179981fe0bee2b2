# SPDX-License-Identifier: BSD-3-Clause
"""The Auditor: pairs, seeds, statistics, result, progress, parallelism, power."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpsvm.audit import (
    Auditor,
    AuditResult,
    Coordinate,
    DecisionValue,
    FunctionDifference,
    NeighbouringPair,
    Projection,
    max_epsilon_lower_bound,
    released_vector,
)
from dpsvm.models import DPLinearSVC, NonPrivateLinearClassifier


def _count_pair() -> NeighbouringPair:
    X = np.zeros((5, 1))
    return NeighbouringPair(X, [0, 0, 0, 0, 0], X, [0, 0, 0, 0, 1], name="count")


def _laplace_count(X, y, seed):  # Laplace(scale 1) on a count: exactly ε = 1
    return [np.random.default_rng(seed).laplace(float(np.sum(y)), 1.0)]


def _deterministic(X, y, seed):
    return [float(np.sum(y))]


def _data_blind(X, y, seed):  # ignores the data: ε = 0
    return [np.random.default_rng(seed).normal()]


# ------------------------------------------------------------------- pairs
def test_pair_records_the_differing_row():
    X = np.arange(6.0).reshape(3, 2)
    X2 = X.copy()
    X2[1] = [9.0, 9.0]
    pair = NeighbouringPair(X, [1, -1, 1], X2, [1, 1, 1])
    assert pair.index == 1
    np.testing.assert_array_equal(pair.differing_point, [2.0, 3.0])
    assert not pair.X.flags.writeable  # frozen data


def test_pair_rejects_non_neighbours():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match=r"differ in rows \[1, 2\]"):
        NeighbouringPair(X, [1, 1, 1], X, [1, -1, -1])
    with pytest.raises(ValueError, match="same shape"):
        NeighbouringPair(X, [1, 1, 1], np.zeros((4, 1)), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="y and y_prime"):
        NeighbouringPair(X, [1, 1], X, [1, 1, 1])
    with pytest.raises(ValueError, match="finite"):
        NeighbouringPair(X + np.nan, [1, 1, 1], X, [1, 1, 1])


# ------------------------------------------------------------------- seeds
def test_seeds_are_distinct_disjoint_and_reproducible():
    aud = Auditor(_laplace_count, _count_pair(), epsilon=1.0, n_runs=500)
    a, b = aud.seeds()
    assert a.size == b.size == 500
    assert len(set(a.tolist()) | set(b.tolist())) == 1000
    a2, b2 = aud.seeds()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    a3, _ = Auditor(_laplace_count, _count_pair(), epsilon=1.0, random_state=1).seeds()
    assert not np.array_equal(a3[:500], a)


def test_every_run_gets_its_own_seed_and_dataset():
    seen: list[tuple[int, float]] = []

    def mech(X, y, seed):
        return [float(seed), float(np.sum(y))]

    def stat(v):
        seen.append((int(v[0]), float(v[1])))
        return float(v[1])

    aud = Auditor(mech, _count_pair(), epsilon=1.0, n_runs=40, statistic=stat)
    aud.run()
    seeds_d, seeds_dp = aud.seeds()
    assert sorted(s for s, total in seen if total == 0) == sorted(seeds_d.tolist())
    assert sorted(s for s, total in seen if total == 1) == sorted(seeds_dp.tolist())


# ------------------------------------------------------------------ bounds
@pytest.mark.slow
def test_bound_is_close_to_epsilon_on_the_laplace_mechanism():
    # Laplace noise of scale 1 on a count (Δ = 1) is exactly 1-DP and the pair
    # attains it: every threshold test has likelihood ratio e (a power check —
    # the auditor must certify most of the true ε with 10 000 evaluation runs;
    # the loss is the Clopper–Pearson slack of the test chosen on the other half).
    res = Auditor(_laplace_count, _count_pair(), epsilon=1.0, n_runs=20000).run()
    assert 0.8 < res.epsilon_lower <= 1.0
    assert not res.violated


def test_a_deterministic_release_hits_the_ceiling():
    res = Auditor(
        _deterministic, _count_pair(), epsilon=1.0, n_runs=200, confidence=0.999
    ).run()
    assert res.fpr == res.fnr == 0.0
    assert res.epsilon_point == math.inf
    assert res.epsilon_lower == pytest.approx(
        max_epsilon_lower_bound(100, confidence=0.999)
    )
    assert res.violated
    assert "CLAIM REFUTED" in res.summary()


def test_a_data_blind_mechanism_gets_no_bound():
    # True ε = 0: a positive bound at confidence 0.999 has probability ≤ 1e-3.
    res = Auditor(
        _data_blind, _count_pair(), epsilon=0.1, n_runs=2000, confidence=0.999
    ).run()
    assert res.epsilon_lower == 0.0


def test_delta_lowers_the_bound():
    def half_leaky(X, y, seed):  # reveals the data with probability 1/2
        rng = np.random.default_rng(seed)
        return [float(np.sum(y)) if rng.random() < 0.5 else 0.5]

    base = Auditor(half_leaky, _count_pair(), epsilon=1.0, n_runs=400).run()
    with_delta = Auditor(
        half_leaky, _count_pair(), epsilon=1.0, delta=0.4, n_runs=400
    ).run()
    assert with_delta.epsilon_lower < base.epsilon_lower
    assert with_delta.delta == 0.4


# -------------------------------------------------------------- statistics
def test_projection_finds_the_leaking_coordinate():
    def mech(X, y, seed):
        rng = np.random.default_rng(seed)
        v = rng.normal(size=4)
        v[2] += 10.0 * float(np.sum(y))  # the data only move coordinate 2
        return v

    res = Auditor(mech, _count_pair(), epsilon=1.0, n_runs=200).run()
    assert res.statistic == "projection on the mean difference"
    assert res.epsilon_lower > 3.0


def test_projection_direction_is_fitted_on_the_selection_runs():
    proj = Projection().fit(np.array([[2.0, 0.0], [4.0, 0.0]]), np.zeros((2, 2)))
    np.testing.assert_allclose(proj.direction_, [1.0, 0.0])
    assert proj([3.0, 7.0]) == 3.0
    flat = Projection().fit(np.ones((2, 3)), np.ones((2, 3)))  # equal means
    np.testing.assert_array_equal(flat.direction_, [1.0, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="fit"):
        Projection()([1.0])


def test_statistics_on_vectors():
    v = [2.0, -1.0, 0.5]  # (w, b) with f(x) = 2x₁ − x₂ + 0.5
    assert DecisionValue([1.0, 1.0])(v) == 1.5
    assert DecisionValue([1.0, 1.0, 1.0])(v) == 1.5  # plain wᵀx
    assert FunctionDifference([1.0, 1.0], [0.0, 0.0])(v) == 1.0  # b cancels
    assert Coordinate(1)(v) == -1.0
    with pytest.raises(ValueError, match="not a linear function"):
        DecisionValue([1.0])(v)


def test_statistics_on_estimators():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    y = np.array([1, -1, 1, -1])
    est = NonPrivateLinearClassifier(loss="hinge", classes=[-1, 1]).fit(X, y)
    x = np.array([0.3, 0.4])
    assert DecisionValue(x)(est) == pytest.approx(float(est.decision_function([x])[0]))
    np.testing.assert_array_equal(
        released_vector(est), np.r_[est.coef_.ravel(), est.intercept_]
    )

    class NoCoef:
        def fit(self, X, y):
            return self

    with pytest.raises(TypeError, match="no coef_"):
        released_vector(NoCoef())


def test_default_statistic_for_estimators_is_the_decision_value():
    X = np.ones((10, 1))
    y = np.ones(10)
    y2 = y.copy()
    y2[-1] = -1
    pair = NeighbouringPair(X, y, X, y2, name="flip")
    res = Auditor(
        lambda s: DPLinearSVC(
            epsilon=1.0,
            mechanism="output",
            loss="hinge",
            regularization=1.0,
            classes=[-1, 1],
            random_state=s,
        ),
        pair,
        epsilon=1.0,
        n_runs=8,
    ).run()
    assert res.statistic == "decision value at the differing point"
    assert res.n_runs == 8 and res.n_eval == 4 and res.pair == "flip"


# ------------------------------------------------------------------ result
def test_result_is_frozen_and_serialisable():
    res = Auditor(_laplace_count, _count_pair(), epsilon=1.0, n_runs=50).run()
    assert isinstance(res, AuditResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.epsilon_lower = 5.0  # type: ignore[misc]
    d = res.to_dict()
    assert {"epsilon", "delta", "epsilon_lower", "epsilon_point", "n_runs"} <= set(d)
    assert {"wall_time", "statistic", "threshold", "mechanism"} <= set(d)
    assert d["mechanism"] == "_laplace_count"
    assert res.wall_time > 0


# --------------------------------------------------------------- progress
def test_progress_is_silent_when_off(capsys):
    Auditor(_laplace_count, _count_pair(), epsilon=1.0, n_runs=20).run()
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_progress_line_on_stderr(capsys):
    Auditor(
        _laplace_count, _count_pair(), epsilon=1.0, n_runs=20, progress=True, name="lap"
    ).run()
    err = capsys.readouterr().err
    assert "[audit lap] 40/40 runs" in err
    assert err.endswith("\n")


# -------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"n_runs": 4}, ValueError, "at least 8"),
        ({"n_runs": 10.0}, TypeError, "n_runs must be an int"),
        ({"confidence": 1.0}, ValueError, "confidence"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"statistic": "median"}, ValueError, "Unknown statistic"),
        ({"kind": "model"}, ValueError, "kind must be"),
        ({"n_jobs": 0}, ValueError, "n_jobs"),
    ],
)
def test_invalid_parameters(kwargs, exc, match):
    params = {"epsilon": 1.0, "n_runs": 20, **kwargs}
    with pytest.raises(exc, match=match):
        Auditor(_laplace_count, _count_pair(), **params).run()


def test_factory_kind_is_inferred_or_refused():
    with pytest.raises(TypeError, match="2 required positional"):
        Auditor(lambda X, y: [0.0], _count_pair(), epsilon=1.0, n_runs=8).run()
    # kind= overrides the inference.
    res = Auditor(
        lambda X, y, seed=0: [float(np.sum(y))],
        _count_pair(),
        epsilon=1.0,
        n_runs=40,
        kind="mechanism",
    ).run()
    assert res.fpr == res.fnr == 0.0


def test_non_finite_statistic_is_refused():
    with pytest.raises(ValueError, match="not finite"):
        Auditor(lambda X, y, s: [math.inf], _count_pair(), epsilon=1.0, n_runs=8).run()


# ------------------------------------------------------------- parallelism
def test_parallel_runs_give_the_same_result():
    # The threading backend exercises the same chunking, dispatch and ordering
    # as the default (loky) process pool without the cost of starting worker
    # processes in the test suite; that registry factories survive pickling for
    # loky is checked in test_audit_registry.py.
    from joblib import parallel_config

    one = Auditor(_laplace_count, _count_pair(), epsilon=1.0, n_runs=200).run()
    with parallel_config(backend="threading"):
        two = Auditor(
            _laplace_count, _count_pair(), epsilon=1.0, n_runs=200, n_jobs=2
        ).run()
    fields = ("epsilon_lower", "epsilon_point", "threshold", "fpr", "fnr")
    assert [getattr(one, f) for f in fields] == [getattr(two, f) for f in fields]
