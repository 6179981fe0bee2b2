# SPDX-License-Identifier: BSD-3-Clause
"""The model family's shared plumbing: written-out constructors and docstrings, tags."""

from __future__ import annotations

import inspect

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils import get_tags

import dpsvm.models
from dpsvm.models import (
    DPGaussianProcessRelease,
    DPKernelSVC,
    DPLinearSVC,
    DPLogisticRegression,
    DPOutputPerturbationRegressor,
    DPOutputPerturbationSVC,
    NonPrivateLinearClassifier,
    NonPrivateRandomFeatureSVC,
    PerQueryLaplacePredictor,
)


def _defaults(cls: type) -> dict[str, object]:
    params = inspect.signature(cls).parameters.values()
    assert all(p.kind is p.KEYWORD_ONLY for p in params)
    return {p.name: p.default for p in params}


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        # Defaults shared within a family, and each estimator's own.
        (
            DPLinearSVC,
            {"regularization": "auto", "fit_intercept": True, "loss": "huber"},
        ),
        (NonPrivateLinearClassifier, {"regularization": 0.01, "fit_intercept": False}),
        (DPKernelSVC, {"norm_handling": "clip", "huber_h": 1.0, "epsilon": 1.0}),
        (NonPrivateRandomFeatureSVC, {"norm_handling": "scale", "huber_h": 0.5}),
        (PerQueryLaplacePredictor, {"epsilon": 0.1, "kernel": "rbf", "degree": 3}),
        (DPGaussianProcessRelease, {"epsilon": 1.0, "delta": 1e-6, "jitter": 1e-10}),
        (DPOutputPerturbationRegressor, {"loss": "pinball", "noise": "gamma-norm"}),
    ],
)
def test_constructor_defaults_are_the_documented_ones(cls, expected):
    defaults = _defaults(cls)
    assert {k: defaults[k] for k in expected} == expected
    assert cls().get_params() == defaults


def test_estimators_of_one_family_differ_only_by_their_extras():
    assert "huber_h" not in _defaults(DPLogisticRegression)
    assert set(_defaults(DPLinearSVC)) - set(_defaults(DPLogisticRegression)) == {
        "loss",
        "huber_h",
    }
    assert "classes" not in _defaults(DPOutputPerturbationRegressor)
    assert "loss" not in _defaults(DPOutputPerturbationSVC)


@pytest.mark.parametrize(
    "est",
    [
        DPLinearSVC(),
        DPLogisticRegression(),
        DPKernelSVC(),
        DPOutputPerturbationSVC(),
        DPOutputPerturbationRegressor(),
    ],
)
def test_private_estimators_lift_the_contract_accuracy_bar(est):
    tags = get_tags(est)
    kind = tags.classifier_tags or tags.regressor_tags
    assert kind is not None and kind.poor_score
    assert tags.non_deterministic


def test_non_private_references_keep_the_accuracy_bar():
    assert not get_tags(NonPrivateLinearClassifier()).classifier_tags.poor_score


#: The public estimators of dpsvm.models.
PUBLIC_ESTIMATORS = [
    getattr(dpsvm.models, name)
    for name in dpsvm.models.__all__
    if isinstance(getattr(dpsvm.models, name), type)
    and issubclass(getattr(dpsvm.models, name), BaseEstimator)
]


@pytest.mark.parametrize("cls", PUBLIC_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_init_is_written_out_in_the_class_body(cls):
    # scikit-learn style: the class defines its own keyword-only __init__ (not
    # one built from a parameter table), which stores each argument unchanged.
    init = vars(cls).get("__init__")
    assert init is not None and init.__qualname__ == f"{cls.__qualname__}.__init__"
    params = list(inspect.signature(cls).parameters)
    assert params and all(
        p.kind is p.KEYWORD_ONLY for p in inspect.signature(cls).parameters.values()
    )
    given = {name: object() for name in params}
    est = cls(**given)
    assert all(getattr(est, name) is given[name] for name in params)
