# SPDX-License-Identifier: BSD-3-Clause
"""scikit-learn estimator plumbing shared by the learner packages."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def store_init_params(estimator: Any, values: dict[str, Any]) -> None:
    """Store the ``__init__`` arguments unchanged (scikit-learn's convention).

    Called as ``store_init_params(self, locals())`` from ``__init__``: every
    name of the signature becomes an attribute; nothing is validated, copied
    or derived (that happens in ``fit``).
    """
    for name in type(estimator)._get_param_names():
        setattr(estimator, name, values[name])


def estimator_init(
    *groups: Mapping[str, Any], required: Sequence[str] = ()
) -> Callable[..., None]:
    """Return a scikit-learn ``__init__`` whose parameters are declared in a table.

    The keyword-only parameters are the keys of ``groups`` in order, with their
    values as defaults; a later group overrides the default of a name an earlier
    group declared (keeping its position). The returned function carries that
    signature (``inspect.signature``, hence ``get_params``, ``clone``, ``repr``
    and ``help`` see it), rejects unknown or positional arguments with a
    :class:`TypeError`, and stores every argument unchanged (scikit-learn's
    convention: nothing validated, copied or derived before ``fit``). Families
    of estimators declare their shared parameters once as one group.

    Parameters
    ----------
    *groups : mapping of str to object
        Parameter names and their defaults.
    required : sequence of str, default=()
        Names of parameters without a default that come first, in order, and
        may be given by position (a meta-estimator's wrapped ``estimator`` and
        its ``param_grid``).

    Returns
    -------
    callable
        The ``__init__`` to assign in the class body.

    Examples
    --------
    >>> class Est:
    ...     __init__ = estimator_init({"epsilon": 1.0, "classes": None})
    >>> Est(epsilon=0.5).epsilon, Est().classes
    (0.5, None)
    >>> class Meta:
    ...     __init__ = estimator_init({"epsilon": 1.0}, required=("estimator",))
    >>> Meta("svc").estimator, Meta(estimator="svc", epsilon=0.5).epsilon
    ('svc', 0.5)
    """
    merged: dict[str, Any] = {}
    for group in groups:
        merged.update(group)
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for name in required
        ]
        + [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
            for name, default in merged.items()
        ]
    )
    names = [*required, *merged]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name in names:
            setattr(self, name, bound.arguments[name])

    __init__.__signature__ = signature  # type: ignore[attr-defined]
    return __init__
