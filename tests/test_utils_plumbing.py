# SPDX-License-Identifier: BSD-3-Clause
"""Shared docstring fragments and __init__ plumbing (dpsvm.utils._docs, _params)."""

from __future__ import annotations

import inspect

import pytest
from sklearn.base import BaseEstimator, clone

from dpsvm.utils._docs import fill_doc
from dpsvm.utils._params import (
    estimator_init,
    store_init_params,
)


def test_fill_doc_indents_each_fragment_like_its_marker():
    doc = fill_doc({"p": "a : int\n    The a.\n\nb : str\n    The b."})

    @doc
    def f() -> None:
        """Summary.

        Parameters
        ----------
        %(p)s
        """

    assert f.__doc__ is not None
    lines = f.__doc__.splitlines()
    assert "        a : int" in lines and "            The a." in lines
    assert "        b : str" in lines and "" in lines  # blank lines stay blank
    assert "%(" not in f.__doc__


def test_fill_doc_refuses_an_unknown_fragment():
    with pytest.raises(KeyError):

        @fill_doc({})
        def f() -> None:
            """Summary.

            %(missing)s
            """


class _Est(BaseEstimator):
    def __init__(self, *, alpha: float = 1.0, beta: object = None) -> None:
        store_init_params(self, locals())


def test_store_init_params_keeps_arguments_unchanged():
    marker = object()
    est = _Est(alpha=2.5, beta=marker)
    assert est.alpha == 2.5 and est.beta is marker
    assert est.get_params() == {"alpha": 2.5, "beta": marker}
    assert clone(est).get_params()["alpha"] == 2.5
    assert not hasattr(est, "self")


_SHARED = {"alpha": 1.0, "beta": None}


class _TableEst(BaseEstimator):
    __init__ = estimator_init(_SHARED, {"gamma": "x", "alpha": 3.0})


def test_estimator_init_declares_a_keyword_only_signature_in_table_order():
    params = inspect.signature(_TableEst).parameters
    assert list(params) == ["alpha", "beta", "gamma"]
    assert all(p.kind is p.KEYWORD_ONLY for p in params.values())
    # A later group overrides an earlier default, keeping its position.
    assert params["alpha"].default == 3.0 and params["gamma"].default == "x"


def test_estimator_init_stores_arguments_unchanged_for_sklearn():
    marker = object()
    est = _TableEst(beta=marker)
    assert est.get_params() == {"alpha": 3.0, "beta": marker, "gamma": "x"}
    assert clone(_TableEst(alpha=0.5)).get_params()["alpha"] == 0.5
    assert repr(_TableEst(gamma="y")) == "_TableEst(gamma='y')"
    assert not hasattr(est, "self")


@pytest.mark.parametrize(
    ("args", "kwargs"), [((1.0,), {}), ((), {"delta": 1.0}), ((), {"self": 1})]
)
def test_estimator_init_rejects_positional_and_unknown_arguments(args, kwargs):
    with pytest.raises(TypeError):
        _TableEst(*args, **kwargs)


class _MetaEst(BaseEstimator):
    __init__ = estimator_init(_SHARED, required=("estimator", "grid"))


def test_estimator_init_puts_required_parameters_first():
    params = inspect.signature(_MetaEst).parameters
    assert list(params) == ["estimator", "grid", "alpha", "beta"]
    assert params["estimator"].kind is params["estimator"].POSITIONAL_OR_KEYWORD
    assert params["grid"].default is params["grid"].empty
    assert params["alpha"].kind is params["alpha"].KEYWORD_ONLY
    est = _MetaEst("e", grid={"a": [1]}, beta=2)
    assert est.get_params(deep=False) == {
        "estimator": "e",
        "grid": {"a": [1]},
        "alpha": 1.0,
        "beta": 2,
    }
    assert clone(est).get_params(deep=False)["grid"] == {"a": [1]}
    with pytest.raises(TypeError):
        _MetaEst("e")  # grid is required
    with pytest.raises(TypeError):
        _MetaEst("e", {}, 0.5)  # the table's parameters stay keyword-only
