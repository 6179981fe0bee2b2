# SPDX-License-Identifier: BSD-3-Clause
"""Shared pieces of the private selectors: public grids, splits, candidates.

Every private selector here relies on two facts that this module enforces:

* the candidate set is **public**: it is given by the user as explicit values and
  never computed from the data (:func:`check_param_grid` refuses callables,
  iterators and the privacy parameters themselves);
* every split of the records is **data-independent**: a uniformly random
  permutation of the positions ``0..n-1`` cut into parts whose sizes depend only
  on n and the number of parts (:func:`partition_indices`). Under replace-one
  neighbours n is public, so replacing one record changes exactly one part, by
  a replacement, which is what parallel composition needs (McSherry 2009,
  Thm 4; see :func:`dpsvm.accounting.parallel_composition`).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import _safe_indexing

from .._compat import Interval, StrOptions
from ..accounting.accountant import BudgetAccountant
from ..accounting.charge import refuse_non_private
from ..accounting.events import NonPrivateEvent, PrivacyEvent
from ..utils._random import (
    check_random_state,
    child_generator,
    lend_generator,
    random_state_constraint,
    refuse_generator_object,
)
from ._scoring import SCORINGS
from ._steps import check_public_steps, final_step, param_prefix

__all__ = [
    "FORBIDDEN_GRID_KEYS",
    "check_param_grid",
    "partition_indices",
    "take_rows",
]

#: scikit-learn parameter constraints shared by every private selector.
SELECTOR_CONSTRAINTS: dict[str, list[Any]] = {
    "estimator": [object],
    "param_grid": [dict, list, object],
    "epsilon": [Interval(Real, 0, None, closed="neither")],
    "scoring": [StrOptions(set(SCORINGS))],
    "class_priors": [dict, "array-like", None],
    "accountant": [BudgetAccountant, None],
    "random_state": random_state_constraint(),
    "split_random_state": random_state_constraint("split_random_state"),
}

#: Parameters a selector sets itself; a grid over them would break accounting.
FORBIDDEN_GRID_KEYS = ("epsilon", "accountant", "random_state")

IntArray = NDArray[np.intp]


def _check_values(key: str, values: Any) -> list[Any]:
    if callable(values):
        raise TypeError(
            f"param_grid[{key!r}] is a callable; candidate values must be given "
            "explicitly (a function of the data would make the candidate set "
            "data-dependent and void the privacy guarantee)."
        )
    if isinstance(values, str | bytes) or isinstance(values, Iterator):
        raise TypeError(
            f"param_grid[{key!r}] must be a list, tuple or 1-D array of explicit "
            f"values, got {type(values).__name__}."
        )
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(
                f"param_grid[{key!r}] must be 1-D, got shape {values.shape}."
            )
        values = values.tolist()
    if not isinstance(values, Sequence):
        raise TypeError(
            f"param_grid[{key!r}] must be a list, tuple or 1-D array of explicit "
            f"values, got {type(values).__name__}."
        )
    out = list(values)
    if not out:
        raise ValueError(f"param_grid[{key!r}] is empty.")
    for v in out:
        if callable(v):
            raise TypeError(
                f"param_grid[{key!r}] contains the callable {v!r}; candidate "
                "values must be explicit constants, not functions (of the data)."
            )
    return out


def check_param_grid(param_grid: Any) -> list[dict[str, Any]]:
    """Validate a public candidate grid and expand it into a list of settings.

    Parameters
    ----------
    param_grid : dict or list of dict
        As in :class:`sklearn.model_selection.ParameterGrid`: a mapping from
        parameter names to explicit lists of values (every combination is a
        candidate), or a list of such mappings. A
        :class:`~sklearn.model_selection.ParameterGrid` is accepted too.

    Returns
    -------
    list of dict
        The candidates, in ``ParameterGrid`` order.

    Raises
    ------
    TypeError
        If the grid, or a list of values in it, is a callable, an iterator or a
        string, or if a value is a function.
    ValueError
        If the grid is empty, a list of values is empty, or a key is one the
        selector sets itself (``epsilon``, ``accountant``, ``random_state``).

    Notes
    -----
    **Privacy.** The selectors' guarantees (Sarwate et al. 2009, Thm 6; Liu &
    Talwar 2019) assume a candidate set fixed before the data are seen. No
    library can tell how a list of numbers was obtained; this check refuses the
    forms that are data-derived by construction (callables, lazily evaluated
    iterators) and leaves the rest to the caller: a grid computed from the
    private data is not covered by any guarantee.

    Examples
    --------
    >>> check_param_grid({"regularization": [1e-3, 1e-2]})
    [{'regularization': 0.001}, {'regularization': 0.01}]
    >>> check_param_grid(lambda X: {"C": [X.std()]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: param_grid must be given as explicit values ...
    """
    if isinstance(param_grid, ParameterGrid):
        param_grid = param_grid.param_grid
    if callable(param_grid):
        raise TypeError(
            "param_grid must be given as explicit values (a dict or a list of "
            "dicts), not as a callable: a grid computed from the data would make "
            "the candidate set data-dependent and void the privacy guarantee."
        )
    if isinstance(param_grid, Mapping):
        grids: list[Any] = [param_grid]
    elif isinstance(param_grid, Sequence) and not isinstance(param_grid, str):
        grids = list(param_grid)
    else:
        raise TypeError(
            "param_grid must be a dict or a list of dicts of explicit values, got "
            f"{type(param_grid).__name__}."
        )
    if not grids:
        raise ValueError("param_grid is empty: give at least one candidate.")
    checked: list[dict[str, list[Any]]] = []
    for grid in grids:
        if not isinstance(grid, Mapping):
            raise TypeError(
                "param_grid must be a dict or a list of dicts, got a list element "
                f"of type {type(grid).__name__}."
            )
        sub: dict[str, list[Any]] = {}
        for key, values in grid.items():
            if not isinstance(key, str):
                raise TypeError(f"param_grid keys must be strings, got {key!r}.")
            # Also a pipeline's "step__epsilon" (the final step's budget).
            if key.rsplit("__", 1)[-1] in FORBIDDEN_GRID_KEYS:
                raise ValueError(
                    f"param_grid may not contain {key!r}: the selector sets "
                    f"{', '.join(FORBIDDEN_GRID_KEYS)} of every candidate itself "
                    "(its own epsilon is the end-to-end budget)."
                )
            sub[key] = _check_values(key, values)
        checked.append(sub)
    candidates = [dict(c) for c in ParameterGrid(checked)]
    if not candidates:
        raise ValueError("param_grid is empty: give at least one candidate.")
    return candidates


def partition_indices(
    n_samples: int, n_parts: int, rng: np.random.Generator
) -> list[IntArray]:
    """Cut a random permutation of ``range(n_samples)`` into disjoint parts.

    Parameters
    ----------
    n_samples : int
        Number of records n (public under replace-one neighbours).
    n_parts : int
        Number of parts k, 1 ≤ k ≤ n.
    rng : numpy.random.Generator
        Source of the permutation. The split protects no secret, so a seeded
        generator is acceptable; it must not depend on the data.

    Returns
    -------
    list of ndarray
        k disjoint index arrays covering ``range(n_samples)``. Sizes follow
        :func:`numpy.array_split`: the first ``n mod k`` parts have
        ``n // k + 1`` records, the others ``n // k``; they depend only on n
        and k (the remainder is spread, never dropped).

    Raises
    ------
    ValueError
        If ``n_parts`` is not in [1, ``n_samples``].

    Examples
    --------
    >>> parts = partition_indices(10, 3, np.random.default_rng(0))
    >>> [len(p) for p in parts]
    [4, 3, 3]
    >>> sorted(np.concatenate(parts).tolist()) == list(range(10))
    True
    """
    for name, v in (("n_samples", n_samples), ("n_parts", n_parts)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must be an integer, got {type(v).__name__}.")
    if not 1 <= n_parts <= n_samples:
        raise ValueError(
            f"Cannot cut {n_samples} records into {n_parts} non-empty parts."
        )
    # A uniformly random permutation of the positions; it never reads a record.
    perm = rng.permutation(int(n_samples)).astype(np.intp)
    return [np.asarray(p, dtype=np.intp) for p in np.array_split(perm, n_parts)]


def prepare_candidates(
    estimator: Any, candidates: list[dict[str, Any]], epsilon: float
) -> list[Any]:
    """Unfitted clones of ``estimator`` with each candidate's parameters set.

    Each clone gets ``epsilon`` and ``accountant=None`` (the selector charges the
    budget once). Its ``random_state`` stays the estimator's own: the noise of
    its fit comes from :func:`fit_with_child_stream`. For a
    :class:`~sklearn.pipeline.Pipeline` these are the final step's parameters
    (``name__epsilon``), and every earlier step must be public
    (:func:`~dpsvm.model_selection._steps.check_public_steps`).
    """
    if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
        raise TypeError(
            f"estimator must be a scikit-learn style estimator, got {estimator!r}."
        )
    check_public_steps(estimator)
    for key, value in estimator.get_params(deep=True).items():
        if key.endswith("random_state"):
            # Kept on every fitted candidate (a child stream is only lent for
            # the fit): refused before the budget is checked or data are read.
            refuse_generator_object(value, f"estimator__{key}")
    private, prefix = final_step(estimator), param_prefix(estimator)
    params = private.get_params(deep=False)
    if "epsilon" not in params:
        where = f"The pipeline's final step {prefix[:-2]!r} ({type(private).__name__})"
        raise TypeError(
            f"{where if prefix else type(estimator).__name__} has no 'epsilon' "
            "parameter: the private selectors need a differentially private "
            "estimator (e.g. dpsvm.models.DPLinearSVC), as the last step of a "
            "pipeline. For a non-private estimator tune on public data instead "
            "(tune_on_public_data)."
        )
    if params.get("accountant") is not None:
        raise ValueError(
            "The estimator has its own accountant; pass the accountant to the "
            "selector instead (it charges the end-to-end budget once, as one "
            "event). Set the estimator's accountant to None."
        )
    out = []
    for cand in candidates:
        est = clone(estimator)
        unknown = sorted(set(cand) - set(est.get_params(deep=True)))
        if unknown:
            hint = (
                f" (a pipeline's parameters are named step__param, e.g. "
                f"{prefix}regularization)"
                if prefix
                else ""
            )
            raise ValueError(
                f"param_grid names {unknown} that {type(estimator).__name__} does "
                f"not have{hint}."
            )
        extra: dict[str, Any] = {f"{prefix}epsilon": epsilon}
        if "accountant" in params:
            extra[f"{prefix}accountant"] = None
        est.set_params(**cand, **extra)
        out.append(est)
    # Paper-literal modes, before any data are read.
    refuse_non_private([final_step(e) for e in out])
    return out


def fit_with_child_stream(
    estimator: Any, X: Any, y: Any, rng: np.random.Generator
) -> Any:
    """Fit ``estimator`` with noise from a fresh child stream of ``rng``.

    The child (:func:`dpsvm.utils._random.child_generator`) is lent as the
    estimator's ``random_state`` for this fit only
    (:func:`dpsvm.utils._random.lend_generator`); afterwards ``random_state`` is
    set back to the estimator's own value (None or an int) and the loan is
    voided, so the fitted object keeps no generator that produced its noise
    and ``get_params()`` shows what the caller configured. With an int
    ``random_state`` on the selector the children are drawn from its seeded
    stream, hence reproducible.
    """
    private = final_step(estimator)  # a pipeline's noise is its last step's
    params = private.get_params(deep=False)
    if "random_state" not in params:
        estimator.fit(X, y)
        return estimator
    with lend_generator(private, child_generator(rng)):
        estimator.fit(X, y)
    return estimator


def candidate_delta(estimator: Any) -> float:
    """The δ an (unfitted) candidate will spend: its ``delta`` parameter or 0."""
    delta = final_step(estimator).get_params(deep=False).get("delta", 0.0)
    if isinstance(delta, str):
        # "auto" resolves from the row count of each fit, which a selector
        # changes (it fits candidates on parts): the plan needs a fixed δ.
        raise ValueError(
            f"A candidate {type(final_step(estimator)).__name__} has delta={delta!r}; "
            "inside a "
            "selector give it an explicit delta (e.g. well below 1/n of the part "
            "it is fitted on), so that the selection's budget is fixed in advance."
        )
    return 0.0 if delta is None else float(delta)


def fitted_event(estimator: Any, epsilon: float) -> PrivacyEvent:
    """The ``privacy_event_`` of a fitted candidate, checked against ``epsilon``."""
    estimator = final_step(estimator)
    event = getattr(estimator, "privacy_event_", None)
    if not isinstance(event, PrivacyEvent):
        raise TypeError(
            f"{type(estimator).__name__} did not record a privacy_event_ after "
            "fit; the selectors can only compose estimators that do."
        )
    # Allow for rounding only; an estimator that spent more than it was given
    # cannot be composed under the selector's budget.
    # (A NonPrivateEvent gets here only inside accounting.allow_non_private.)
    if not isinstance(event, NonPrivateEvent) and event.epsilon > epsilon * (
        1.0 + 1e-12
    ):
        raise ValueError(
            f"A candidate recorded epsilon={event.epsilon!r} > the {epsilon!r} it "
            "was given; refusing to compose it."
        )
    return event


def split_generator(
    split_random_state: int | None, rng: np.random.Generator
) -> np.random.Generator:
    """The generator of the data split: its own seed if given, else ``rng``.

    The split protects no secret (it never reads a record), so a seeded,
    non-cryptographic generator is acceptable for it (STYLE.md, "Randomness").
    """
    if split_random_state is None:
        return rng
    return check_random_state(
        split_random_state, secure=False, name="split_random_state"
    )


def charge_candidates(
    accountant: Any,
    epsilon: float,
    delta: float,
    estimators: Sequence[Any],
    owner: Any = None,
) -> Any:
    """Check and reserve (ε, δ) for a selector before any data are read.

    The one place where the selectors call :func:`dpsvm.accounting.charge`;
    a grid that holds a non-private candidate is charged as non-private.
    """
    from ..accounting.accountant import resolve_accountant
    from ..accounting.charge import charge, first_non_private_reason

    return charge(
        resolve_accountant(accountant),
        epsilon,
        delta,
        non_private_reason=first_non_private_reason(
            [final_step(e) for e in estimators]
        ),
        owner=owner,
    )


def validated_rows(selector: Any, X: Any, y: Any) -> tuple[Any, np.ndarray]:
    """Validate (X, y) for a selector: CSR or dense rows, labels as an array.

    A pipeline's rows are passed on as given (a data frame keeps its named,
    text columns for a ``SchemaTransformer``); only their count and names
    are recorded here.
    """
    from sklearn.pipeline import Pipeline
    from sklearn.utils.validation import check_consistent_length

    from .._compat import validate_data

    if isinstance(selector.estimator, Pipeline):
        validate_data(selector, X, skip_check_array=True)
        yv = np.asarray(y)
        if yv.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {yv.shape}.")
        check_consistent_length(X, yv)
        return X, yv
    Xv, yv = validate_data(
        selector, X, y, accept_sparse="csr", dtype=None, ensure_all_finite=False
    )
    return Xv, np.asarray(yv)


def take_rows(X: Any, rows: Any) -> Any:
    """The rows ``rows`` of ``X`` (array, CSR matrix or data frame)."""
    return _safe_indexing(X, rows)


def holdout_split(
    n: int, fraction: float, name: str, split_random_state: Any, rng: Any
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Cut ``ceil(fraction·n)`` held-out rows from a data-independent permutation.

    Returns ``(held_out, rest)``; the sizes are a function of n only.
    """
    import math

    n_held = math.ceil(fraction * n)
    if not 1 <= n_held < n:
        raise ValueError(
            f"{name}={fraction} leaves an empty part (training or held-out) "
            f"with n = {n}."
        )
    perm = partition_indices(n, 1, split_generator(split_random_state, rng))[0]
    return perm[:n_held], perm[n_held:]
