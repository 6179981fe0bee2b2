# SPDX-License-Identifier: BSD-3-Clause
"""The model family's shared plumbing: written-out constructors and docstrings, tags."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

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


def _models_modules() -> list[str]:
    return ["dpsvm.models"] + [
        info.name
        for info in pkgutil.walk_packages(dpsvm.models.__path__, "dpsvm.models.")
    ]


def _documented(module_name: str):  # type: ignore[no-untyped-def]
    """(name, docstring literal of the source, runtime object) of the module's
    classes, functions and methods that have a docstring in the source."""
    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    kinds = (ast.ClassDef, ast.FunctionDef)
    for node in tree.body:
        if not isinstance(node, kinds) or ast.get_docstring(node) is None:
            continue
        obj = getattr(module, node.name)
        yield node.name, ast.get_docstring(node), obj
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and ast.get_docstring(sub):
                    attr = inspect.getattr_static(obj, sub.name)
                    func = attr.fget if isinstance(attr, property) else attr
                    name = f"{node.name}.{sub.name}"
                    yield name, ast.get_docstring(sub), func


def _rewritten(module_name: str) -> list[str]:
    """The objects of the module whose ``__doc__`` is not their source text."""
    return [
        name
        for name, literal, obj in _documented(module_name)
        if inspect.cleandoc(getattr(obj, "__doc__", None) or "") != literal
    ]


@pytest.mark.parametrize("module_name", _models_modules())
def test_docstrings_are_the_source_text(module_name):
    # Written out in full: no docstring of dpsvm.models is assembled or
    # rewritten at import time (from fragments, placeholders or tables), so
    # what help() shows is what a reader of the source sees.
    assert _rewritten(module_name) == []


def test_a_rewritten_docstring_is_found(monkeypatch):
    assert len(list(_documented("dpsvm.models.linear"))) >= 5
    monkeypatch.setattr(DPLinearSVC, "__doc__", DPLinearSVC.__doc__ + "\n    More.")
    monkeypatch.setattr(
        DPLogisticRegression.predict_proba,
        "__doc__",
        DPLogisticRegression.predict_proba.__doc__.replace("σ", "sigma"),
    )
    assert _rewritten("dpsvm.models.linear") == [
        "DPLinearSVC",
        "DPLogisticRegression.predict_proba",
    ]
