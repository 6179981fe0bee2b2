# SPDX-License-Identifier: BSD-3-Clause
"""``dpsvm train`` options for public weights.

``--class-weight``, ``--weight-column`` and ``--max-weight``.

Weights multiply the per-example loss; the noise scales with their *public* bound
W = (largest class weight) × (sample-weight bound), never with anything read from
the data (docs/privacy.md, "Public weights"). ``--class-weight balanced`` uses
the public class proportions of the schema (``label.priors``); a sample weight
above ``--max-weight`` (or the schema's ``weight.upper``) is clipped, and a
missing or non-numeric one counts as 0, so no row can make the fit fail.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..utils._cli import UsageError, add_positive_argument

__all__ = [
    "add_weight_options",
    "configure_weights",
    "parse_class_weight",
    "weight_column_name",
]


def add_weight_options(p: argparse.ArgumentParser) -> None:
    """Add --class-weight, --weight-column and --max-weight to ``p``."""
    group = p.add_argument_group(
        "public weights",
        "weights multiply each row's loss; the noise scales with their public "
        "maximum (docs/privacy.md)",
    )
    group.add_argument(
        "--class-weight",
        metavar="balanced|A=W,B=W",
        help="public class weights: 'balanced' (1/(k·p) from the schema's public "
        "label.priors, never from the data's class counts) or class=weight pairs "
        "(a class not listed weighs 1)",
    )
    group.add_argument(
        "--weight-column",
        metavar="NAME",
        help="header name of a column of per-row sample weights (not a feature); "
        "needs --max-weight, or a schema's weight.upper",
    )
    add_positive_argument(
        group,
        "--max-weight",
        help="public upper bound on the sample weights: larger ones are clipped "
        "to it, negative or missing ones count as 0",
    )


def parse_class_weight(text: str, classes: list[Any] | None) -> dict[Any, float]:
    """``A=W,B=W`` as {class: weight}, the classes matched to the public set.

    Parameters
    ----------
    text : str
        The option value.
    classes : list or None
        The public label set (from --classes, the schema or the data set).

    Returns
    -------
    dict
        {class: weight}.

    Examples
    --------
    >>> parse_class_weight("-1=0.5,1=4", [-1, 1])
    {-1: 0.5, 1: 4.0}
    """
    if classes is None:
        raise UsageError(
            "--class-weight A=W,... needs the public label set: give --classes "
            "A,B or a --schema"
        )
    by_text = {str(c): c for c in classes}
    for c in classes:
        key = _number_text(c)
        if key is not None:
            by_text[key] = c
    out: dict[Any, float] = {}
    for item in text.split(","):
        name, sep, value = item.rpartition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(
                f"--class-weight: {item.strip()!r} is not class=weight (e.g. "
                "--class-weight '<=50K=0.53,>50K=8.3', or balanced)"
            )
        label = by_text.get(name, by_text.get(_number_text(name) or name))
        if label is None:
            raise UsageError(
                f"--class-weight: {name!r} is not a class of the public label set "
                f"{', '.join(map(str, classes))}"
            )
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not (math.isfinite(weight) and weight >= 0):
            raise UsageError(
                f"--class-weight: the weight of {name!r} must be a number >= 0"
            )
        out[label] = weight
    return out


def _number_text(value: Any) -> str | None:
    """A canonical text for a number (``"1"``, ``"1.0"`` and ``1`` alike)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return repr(number) if math.isfinite(number) else None


def weight_column_name(args: argparse.Namespace, schema: Any) -> str | None:
    """The sample-weight column: --weight-column, else the schema's ``weight``."""
    column = getattr(args, "weight_column", None)
    declared = None if schema is None else schema.weight
    if column is None and declared is not None:
        column = declared.column
    if column is not None and getattr(args, "max_weight", None) is None:
        if declared is not None and declared.column == column:
            args.max_weight = declared.upper
        else:
            raise UsageError(
                "--weight-column needs --max-weight, the public upper bound on a "
                "weight (never read from the data)"
            )
    if column is None and getattr(args, "max_weight", None) is not None:
        raise UsageError("--max-weight applies with --weight-column only")
    return column


def sample_weights(values: Any) -> Any:
    """A weight column as float64: missing or non-numeric entries count as 0."""
    import numpy as np
    import pandas as pd

    out = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)), errors="coerce")
    return np.nan_to_num(out.to_numpy(dtype=np.float64), nan=0.0)


def configure_weights(
    args: argparse.Namespace, estimator: Any, schema: Any, classes: list[Any] | None
) -> dict[str, Any] | None:
    """Set the estimator's weight parameters from the options; a summary or None.

    Returns the public facts for the report (class weights, the sample-weight
    bound, the weight column), or ``None`` for an unweighted fit.
    """
    text = getattr(args, "class_weight", None)
    column = getattr(args, "weight_column", None)
    if text is None and column is None:
        return None
    if getattr(args, "tune", False):
        raise UsageError(
            "--tune does not take weights yet: leave out --tune, or the weight options"
        )
    params: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    if text is not None:
        if text.strip() == "balanced":
            priors = None if schema is None else schema.label.priors
            if priors is None:
                raise UsageError(
                    "--class-weight balanced needs the public class proportions: "
                    "declare label.priors in the --schema (scikit-learn's "
                    "'balanced' reads the private class counts; dpsvm never does), "
                    "or give class=weight pairs"
                )
            params.update(class_weight="balanced", class_priors=list(priors))
            summary["class_priors"] = list(priors)
            k = len(priors)
            weights = {
                c: 1.0 / (k * p) for c, p in zip(schema.classes, priors, strict=True)
            }
        else:
            weights = parse_class_weight(text, classes)
            params["class_weight"] = weights
        summary["class_weight"] = {str(c): w for c, w in weights.items()}
    if column is not None:
        params["max_weight"] = float(args.max_weight)
        summary.update(weight_column=column, max_weight=float(args.max_weight))
    estimator.set_params(**params)
    summary["weight_bound"] = float(estimator._weight_bound())
    return summary
