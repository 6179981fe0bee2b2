# SPDX-License-Identifier: BSD-3-Clause
"""The prediction learners' ``__init__`` is written out in the class body.

The signatures are a public contract (parameter order, names, defaults); each
``__init__`` stores its arguments unchanged, and no docstring is assembled
from fragments at import time.
"""

from __future__ import annotations

import inspect

import pytest

from dpsvm.prediction import (
    PrivateInteractivePredictor,
    SubsampleAggregatePredictor,
    TestDataDependentLearner,
    TestDataIndependentLearner,
)

_KERNEL = "gamma=1.0, degree=3, coef0=1.0, data_norm=1.0"
_TAIL = "regularization=0.01, classes=None, random_state=None"

SIGNATURES = {
    PrivateInteractivePredictor: (
        "(*, epsilon=1.0, delta=1e-06, n_queries=1000, mechanism='pinp', "
        "beta=0.05, constants='thm9', B_rule='paper', w_norm_bound=None, "
        "threshold=None, svt_split=(0.25, 0.25, 0.5), after_cap='public-state', "
        f"on_vacuous='raise', accountant=None, kernel='rbf', {_KERNEL}, "
        "kernel_bound=None, loss='hinge', quantile=0.5, y_bound=None, "
        f"{_TAIL})"
    ),
    SubsampleAggregatePredictor: (
        "(*, epsilon=1.0, delta=1e-06, n_queries=10000, n_teachers=None, "
        "max_charged=None, vote_share=0.1, on_vacuous='raise', accountant=None, "
        f"kernel='rbf', {_KERNEL}, {_TAIL})"
    ),
    TestDataDependentLearner: (
        "(*, epsilon=1.0, delta=1e-06, n_test_points=200, constraint_radius=None, "
        "radius_fraction=0.1, on_vacuous='raise', accountant=None, "
        f"kernel='poly', {_KERNEL}, kernel_bound=None, {_TAIL})"
    ),
    TestDataIndependentLearner: (
        "(*, epsilon=1.0, delta=1e-06, n_rounds=None, beta=0.05, em_fraction=0.5, "
        "candidates='auto', n_candidates=1000, on_vacuous='raise', "
        f"accountant=None, kernel='linear', {_KERNEL}, kernel_bound=None, {_TAIL})"
    ),
}


def _untyped(sig: inspect.Signature) -> str:
    params = [
        p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()
    ]
    return str(sig.replace(parameters=params, return_annotation=sig.empty))


@pytest.mark.parametrize("cls", list(SIGNATURES), ids=lambda c: c.__name__)
def test_signature_is_the_documented_contract(cls):
    assert _untyped(inspect.signature(cls)) == SIGNATURES[cls]


@pytest.mark.parametrize("cls", list(SIGNATURES), ids=lambda c: c.__name__)
def test_init_is_written_out_in_the_class_body(cls):
    init = vars(cls).get("__init__")
    assert init is not None
    assert init.__qualname__ == f"{cls.__name__}.__init__"
    assert init.__module__ == cls.__module__
    assert "def __init__(" in inspect.getsource(init)


@pytest.mark.parametrize("cls", list(SIGNATURES), ids=lambda c: c.__name__)
def test_init_stores_every_argument_unchanged(cls):
    names = list(inspect.signature(cls).parameters)
    values = {name: object() for name in names}
    params = cls(**values).get_params(deep=False)
    assert list(params) == sorted(names)
    assert all(params[name] is values[name] for name in names)


@pytest.mark.parametrize("cls", list(SIGNATURES), ids=lambda c: c.__name__)
def test_docstrings_carry_no_fragment_markers(cls):
    docs = [cls.__doc__ or ""] + [
        getattr(cls, name).__doc__ or ""
        for name in dir(cls)
        if not name.startswith("_") and callable(getattr(cls, name, None))
    ]
    assert all("%(" not in doc for doc in docs)
    assert "Privacy" in (cls.__doc__ or "")
