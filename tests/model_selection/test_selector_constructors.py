# SPDX-License-Identifier: BSD-3-Clause
"""The selectors' ``__init__`` is written out in the class body.

The signatures are a public contract: ``estimator`` and ``param_grid`` first
(positional), then keyword-only ``epsilon``, the selector's own parameters and
the shared ``scoring``, ``class_priors``, ``accountant``, ``random_state``,
``split_random_state``; each ``__init__`` stores its arguments unchanged.
"""

from __future__ import annotations

import inspect

import pytest

from dpsvm.model_selection import (
    PrivateParameterTuning,
    PrivateRandomSearch,
    PrivateSelectThenFit,
)

_TAIL = (
    "scoring='accuracy', class_priors=None, accountant=None, random_state=None, "
    "split_random_state=None)"
)

SIGNATURES = {
    PrivateParameterTuning: f"(estimator, param_grid, *, epsilon=1.0, {_TAIL}",
    PrivateRandomSearch: (
        "(estimator, param_grid, *, epsilon=1.0, delta=0.0, "
        "repetitions='geometric', mean_repetitions=10.0, shape=None, "
        f"validation_fraction=0.2, {_TAIL}"
    ),
    PrivateSelectThenFit: (
        "(estimator, param_grid, *, epsilon=1.0, selection_fraction=0.25, "
        "selector='parameter-tuning', transfer='noise-matched', "
        f"mean_repetitions=10.0, {_TAIL}"
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
    estimator, grid = values.pop("estimator"), values.pop("param_grid")
    selector = cls(estimator, grid, **values)
    params = selector.get_params(deep=False)
    assert list(params) == sorted(names)
    assert params["estimator"] is estimator and params["param_grid"] is grid
    assert all(params[name] is value for name, value in values.items())
    with pytest.raises(TypeError):
        cls(estimator, grid, 1.0)  # epsilon and later are keyword-only


@pytest.mark.parametrize("cls", list(SIGNATURES), ids=lambda c: c.__name__)
def test_docstrings_carry_no_fragment_markers(cls):
    docs = [cls.__doc__ or ""] + [
        getattr(cls, name).__doc__ or "" for name in ("fit", "predict", "score")
    ]
    assert all("%(" not in doc for doc in docs)
    assert "Privacy" in (cls.__doc__ or "")
