# SPDX-License-Identifier: BSD-3-Clause
"""Shared docstring fragments and __init__ plumbing (dpsvm.utils._docs, _params)."""

from __future__ import annotations

import pytest
from sklearn.base import BaseEstimator, clone

from dpsvm.utils._docs import fill_doc
from dpsvm.utils._params import store_init_params


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
