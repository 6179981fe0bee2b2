# SPDX-License-Identifier: BSD-3-Clause
"""Every docstring of dpsvm is written out in the source.

No class, function or method docstring is assembled or rewritten at import
time (from fragments, placeholders or parameter tables), so what ``help()``
and an editor show is what a reader of the source sees.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest

import dpsvm
from dpsvm.models import DPLinearSVC, DPLogisticRegression


def _modules() -> list[str]:
    return ["dpsvm"] + [
        info.name for info in pkgutil.walk_packages(dpsvm.__path__, "dpsvm.")
    ]


def _documented(module_name: str) -> Iterator[tuple[str, str, Any]]:
    """(name, docstring literal of the source, runtime object) of the module's
    classes, functions and methods that have a docstring in the source."""
    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if not isinstance(node, ast.ClassDef | ast.FunctionDef):
            continue
        literal = ast.get_docstring(node)
        if literal is None or not hasattr(module, node.name):
            continue
        obj = getattr(module, node.name)
        yield node.name, literal, obj
        if isinstance(node, ast.ClassDef):
            for sub in node.body:
                sub_literal = (
                    ast.get_docstring(sub) if isinstance(sub, ast.FunctionDef) else None
                )
                if sub_literal is None:
                    continue
                attr = inspect.getattr_static(obj, sub.name)
                if isinstance(attr, property):
                    attr = attr.fget
                elif isinstance(attr, staticmethod | classmethod):
                    attr = attr.__func__
                yield f"{node.name}.{sub.name}", sub_literal, attr


def _rewritten(module_name: str) -> list[str]:
    """The objects of the module whose ``__doc__`` is not their source text."""
    return [
        name
        for name, literal, obj in _documented(module_name)
        if inspect.cleandoc(getattr(obj, "__doc__", None) or "") != literal
    ]


@pytest.mark.parametrize("module_name", _modules())
def test_docstrings_are_the_source_text(module_name):
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


def _exported_estimators() -> list[type]:
    from sklearn.base import BaseEstimator

    found: dict[str, type] = {}
    for module_name in _modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[key] for key in sorted(found)]


@pytest.mark.parametrize("cls", _exported_estimators(), ids=lambda c: c.__name__)
def test_every_estimator_writes_its_init_out(cls):
    # scikit-learn style: a class with parameters declares __init__ in its own
    # body (never built from a table, never inherited from a parameterised
    # base), and stores every argument unchanged.
    own = vars(cls).get("__init__")
    inherited = [
        base
        for base in cls.__mro__[1:]
        if "__init__" in vars(base) and base.__module__.startswith("dpsvm")
    ]
    if own is None:
        assert inherited == [], f"{cls.__name__} inherits __init__ from {inherited}"
        return
    assert own.__qualname__ == f"{cls.__qualname__}.__init__"
    params = inspect.signature(cls).parameters
    given = {name: object() for name in params}
    est = cls(**given)
    assert all(getattr(est, name) is given[name] for name in params)
