# SPDX-License-Identifier: BSD-3-Clause
"""The model family's shared plumbing: parameter tables and scikit-learn tags."""

from __future__ import annotations

import inspect

import pytest
from sklearn.utils import get_tags

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
        # A family table with per-estimator overrides of its defaults.
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
def test_constructor_defaults_come_from_the_family_tables(cls, expected):
    defaults = _defaults(cls)
    assert {k: defaults[k] for k in expected} == expected
    assert cls().get_params() == defaults


def test_estimators_of_one_family_share_their_table_but_not_their_extras():
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
