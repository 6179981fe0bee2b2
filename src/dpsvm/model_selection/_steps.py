# SPDX-License-Identifier: BSD-3-Clause
"""Pipelines in the private selectors: public steps, then one private estimator.

A selector tunes a :class:`~sklearn.pipeline.Pipeline` when every step before
the last reads nothing from the private rows, so that the only release that
touches them is the final step's (whose ε the selector accounts). Public steps
are :class:`~dpsvm.preprocessing.SchemaTransformer` (a fixed function of the
public schema), :class:`~dpsvm.preprocessing.PublicStep` (the user's
declaration) and ``"passthrough"``. Anything else (a ``StandardScaler``, a
``PCA``, an imputer) would be fitted on the private rows and is refused.

The privacy parameters (``epsilon``, ``delta``, ``accountant``,
``random_state``) are those of the final step; grid keys use scikit-learn's
``step__param`` form (``dplinearsvc__regularization``).
"""

from __future__ import annotations

from typing import Any

from sklearn.pipeline import Pipeline

__all__ = ["check_public_steps", "final_step", "param_prefix"]


def _public(step: Any) -> bool:
    from ..preprocessing import PublicStep, SchemaTransformer

    return (
        step is None
        or step == "passthrough"
        or isinstance(step, SchemaTransformer | PublicStep)
    )


def check_public_steps(estimator: Any) -> None:
    """Refuse a pipeline with a step that would be fitted on the private rows.

    Parameters
    ----------
    estimator : estimator or Pipeline
        The estimator given to a selector (nothing is checked unless it is a
        pipeline).

    Raises
    ------
    TypeError
        Naming the first step that is neither a ``SchemaTransformer``, a
        ``PublicStep`` nor ``"passthrough"``, and what to do instead.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from dpsvm.models import DPLinearSVC
    >>> check_public_steps(make_pipeline(StandardScaler(), DPLinearSVC()))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: pipeline step 'standardscaler' (StandardScaler) would be fitted ...
    """
    if not isinstance(estimator, Pipeline):
        return
    for name, step in estimator.steps[:-1]:
        if not _public(step):
            raise TypeError(
                f"pipeline step {name!r} ({type(step).__name__}) would be fitted on "
                "the private rows, and what it learns (means, scales, components) "
                "would be released through the model without privacy accounting. "
                "Encode by a public schema with SchemaTransformer, or fit the step "
                "on public data and wrap the fitted step as "
                "dpsvm.preprocessing.PublicStep(step), or remove it."
            )


def final_step(estimator: Any) -> Any:
    """The private estimator: the pipeline's last step, or ``estimator`` itself.

    Parameters
    ----------
    estimator : estimator or Pipeline
        The estimator given to a selector, or a candidate clone of it.

    Returns
    -------
    estimator
        The object whose ``epsilon``, ``accountant``, ``random_state`` and
        ``privacy_event_`` the selector uses.
    """
    if isinstance(estimator, Pipeline):
        return estimator.steps[-1][1]
    return estimator


def param_prefix(estimator: Any) -> str:
    """``"name__"`` of the pipeline's last step, or ``""`` for a plain estimator.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from dpsvm.models import DPLinearSVC
    >>> param_prefix(make_pipeline(DPLinearSVC())), param_prefix(DPLinearSVC())
    ('dplinearsvc__', '')
    """
    if isinstance(estimator, Pipeline):
        return f"{estimator.steps[-1][0]}__"
    return ""
