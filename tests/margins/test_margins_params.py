# SPDX-License-Identifier: BSD-3-Clause
"""The margin learners' parameters (keyword-only records) and events."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone

from dpsvm.accounting import PrivacyEvent
from dpsvm.margins import (
    JLExponentialMarginClassifier,
    JLMarginClassifier,
    KernelMarginClassifier,
    LabelPrivateMarginClassifier,
    NeuralMarginClassifier,
    PrivateMarginSelection,
)
from dpsvm.margins._base import post_processed_event

_COMMON = {
    "epsilon": 1.0,
    "margin": 0.5,
    "norm_bound": 1.0,
    "data_norm": 1.0,
    "classes": None,
    "random_state": None,
    "fit_intercept": False,
    "intercept_scaling": 0.5,
}
_SELECTION = {
    **_COMMON,
    "jl_constant": 1.0,
    "candidates": "grid",
    "max_candidates": 200_000,
    "selection": "exponential",
    "beta": 0.05,
    "accountant": None,
}
_JL_ERM = {
    **_COMMON,
    "delta": "auto",
    "n_components": "auto",
    "projection": "fast",
    "solver": "noisy-gd",
    "max_iter": 200,
    "beta": 0.05,
}

#: Every learner's parameters and defaults, as its hand-written ``__init__``
#: declared them before the shared records.
DEFAULTS = {
    JLExponentialMarginClassifier: {
        **_SELECTION,
        "n_components": 2,
        "n_candidates": 10_000,
    },
    NeuralMarginClassifier: {
        **_SELECTION,
        "n_components": 1,
        "n_candidates": 2000,
        "n_layers": 2,
        "width": 1,
        "activation_scale": 1.0,
    },
    JLMarginClassifier: {**_JL_ERM, "accountant": None},
    KernelMarginClassifier: {
        **_JL_ERM,
        "kernel": "rbf",
        "gamma": 1.0,
        "degree": 2,
        "coef0": 1.0,
        "n_random_features": 1000,
        "norm_scaling": "paper",
        "feature_mode": "auto",
        "chunk_size": 4096,
    },
    LabelPrivateMarginClassifier: {
        **_COMMON,
        "margin": "auto",
        "candidates": "subspace",
        "n_candidates": 2000,
        "n_directions": "auto",
        "cover": "auto",
        "n_rounds": "auto",
    },
}


@pytest.mark.parametrize("cls", list(DEFAULTS), ids=lambda c: c.__name__)
def test_parameters_and_defaults_are_unchanged(cls):
    assert cls().get_params(deep=False) == DEFAULTS[cls]


@pytest.mark.parametrize("cls", list(DEFAULTS), ids=lambda c: c.__name__)
def test_parameters_are_keyword_only_and_stored_unchanged(cls):
    kinds = {p.kind for p in inspect.signature(cls).parameters.values()}
    assert kinds == {inspect.Parameter.KEYWORD_ONLY}
    with pytest.raises(TypeError):
        cls(1.0)
    classes = [-1, 1]
    est = cls(epsilon=2.5, classes=classes)
    assert est.epsilon == 2.5 and est.classes is classes
    # scikit-learn's repr (non-default parameters only) and identity equality.
    assert repr(est).startswith(f"{cls.__name__}(")
    assert "norm_bound" not in repr(est)
    assert est != clone(est)


def test_post_processed_event_keeps_the_inner_guarantee():
    inner = PrivacyEvent("inner", 0.7, 1e-6, reference="r")
    event = post_processed_event("outer", inner, reference="ref", details={"a": 1})
    assert (event.mechanism, event.epsilon, event.delta) == ("outer", 0.7, 1e-6)
    assert event.children == (inner,)
    assert event.details["a"] == 1


@pytest.mark.parametrize(
    ("cls", "kw", "mechanism", "source", "keys"),
    [
        (
            JLMarginClassifier,
            {"n_components": 4},
            "jl-margin-erm",
            "Alg. 2 and Thm 3.2",
            ["solver", "guarantee", "n_components", "projection"],
        ),
        (
            KernelMarginClassifier,
            {"n_random_features": 20, "gamma": 2.0},
            "kernel-margin-erm",
            "Alg. 3 and Thm 4.2",
            ["kernel", "gamma", "n_random_features", "streamed"],
        ),
    ],
)
def test_jl_erm_learners_release_a_post_processed_event(
    cls, kw, mechanism, source, keys
):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 6)) * 0.4
    y = np.where(X[:, 0] > 0, 1, -1)
    clf = cls(epsilon=1.5, delta=1e-3, classes=[-1, 1], random_state=0, **kw)
    event = clf.fit(X, y).privacy_event_
    (inner,) = event.children
    assert event.mechanism == mechanism
    assert (event.epsilon, event.delta) == (inner.epsilon, inner.delta)
    assert event.reference.startswith("Bassily, Mohri & Suresh (2022)")
    assert event.reference.endswith(source)
    assert list(event.details)[: len(keys)] == keys


def test_margin_selection_event_is_the_basic_composition_of_its_parts():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    X /= np.linalg.norm(X, axis=1)[:, None]
    y = np.where(X[:, 0] > 0, 1, -1)
    sel = PrivateMarginSelection(
        epsilon=2.0,
        delta=1e-4,
        classes=[-1, 1],
        solver_max_iter=50,
        random_state=0,
    ).fit(X, y)
    event = sel.privacy_event_
    gem_event, base_event = event.children  # the margin choice, then the learner
    assert gem_event.epsilon > 0 and base_event.epsilon > 0
    # Bassily, Mohri & Suresh 2022, Lemma F.1 (Dwork & Roth 2014, Thm 3.16):
    # ε = ε_GEM + ε_base, δ = δ_GEM + δ_base.
    assert event.epsilon == pytest.approx(
        gem_event.epsilon + base_event.epsilon, rel=1e-12
    )
    assert event.delta == pytest.approx(
        gem_event.delta + base_event.delta, rel=1e-12, abs=0.0
    )
    assert event.epsilon <= 2.0 + 1e-12 and event.delta <= 1e-4


@pytest.mark.parametrize(
    ("params", "match"),
    [
        (
            {"delta": 0.02},
            r"delta must be below 1/\(number of training rows\) .*Lemma 3\.1\)",
        ),
        (
            {"solver": "boosted-phased-sgd", "epsilon": 12.0, "delta": 1e-5},
            r"epsilon must be <= ln\(1/delta\)",
        ),
    ],
)
def test_jl_erm_refuses_the_preconditions_of_lemma_3_1(params, match):
    # One check each (dpsvm.margins.erm), shared by the learner and its solvers.
    X = np.eye(100, 4)
    y = np.where(np.arange(100) % 2 == 0, 1, -1)
    with pytest.raises(ValueError, match=match):
        JLMarginClassifier(classes=[-1, 1], random_state=0, **params).fit(X, y)
    with pytest.raises(ValueError, match=r"Lemma 3\.1"):
        KernelMarginClassifier(delta=0.02, classes=[-1, 1], random_state=0).fit(X, y)
