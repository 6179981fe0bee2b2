# SPDX-License-Identifier: BSD-3-Clause
"""Parse Open Inference Protocol v2 input tensors into query rows (or a 422)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._models import InputSpec

__all__ = ["InputError", "parse_inputs"]

_NUMERIC = {
    "FP64",
    "FP32",
    "FP16",
    "INT64",
    "INT32",
    "INT16",
    "INT8",
    "UINT64",
    "UINT32",
    "UINT16",
    "UINT8",
}
DATATYPES = (*sorted(_NUMERIC), "BYTES")
#: The name of the single ``[B, d]`` input tensor (as the metadata advertises).
INPUT_NAME = "input"
#: Deepest nesting of a tensor's ``data`` lists (deeper: HTTP 422).
MAX_NESTING = 32


class InputError(ValueError):
    """A request whose inputs cannot be answered (HTTP 422; nothing is spent)."""


def _flat(data: list[Any], n: int, where: str) -> list[Any]:
    """``data`` flattened row-major (nested lists allowed), with n values."""
    if len(data) == n and not any(isinstance(v, list) for v in data):
        return data
    out: list[Any] = []
    stack = [iter(data)]
    while stack:
        for v in stack[-1]:
            if isinstance(v, list):
                if len(stack) >= MAX_NESTING:
                    raise InputError(
                        f"{where}: data is nested more than {MAX_NESTING} lists "
                        "deep; send it flat (row-major)"
                    )
                stack.append(iter(v))
                break
            out.append(v)
            if len(out) > n:
                break
        else:
            stack.pop()
            continue
        if len(out) > n:
            break
    if len(out) != n:
        raise InputError(
            f"{where}: the declared shape holds {n} values but data has "
            f"{'more' if len(out) > n else len(out)}"
        )
    return out


def _numbers(values: list[Any], where: str) -> np.ndarray:
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise InputError(f"{where}: data must be numbers (found a {_kind(v)})")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except OverflowError:  # an integer beyond the float range (> 308 digits)
        raise InputError(f"{where}: a number is out of range (|x| > 1.8e308)") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{where}: data must be finite numbers (found NaN or ±inf)")
    return arr


def _kind(v: Any) -> str:
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    return type(v).__name__


def _cell(v: Any, categorical: bool, where: str) -> Any:
    if categorical:
        if isinstance(v, str):
            return v
        if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
            try:
                return str(v)
            except ValueError:  # more digits than Python converts
                raise InputError(f"{where}: a number is out of range") from None
        raise InputError(f"{where}: categorical values must be strings")
    if isinstance(v, str):
        try:
            x = float(v.strip())
        except ValueError:
            raise InputError(
                f"{where}: a numeric column got a non-numeric string"
            ) from None
    elif isinstance(v, int | float) and not isinstance(v, bool):
        try:
            x = float(v)
        except OverflowError:  # an integer beyond the float range (> 308 digits)
            raise InputError(
                f"{where}: a number is out of range (|x| > 1.8e308)"
            ) from None
    else:
        raise InputError(f"{where}: data must be numbers (found a {_kind(v)})")
    if not math.isfinite(x):
        raise InputError(f"{where}: data must be finite numbers (found NaN or ±inf)")
    return x


def _shape(shape: Any, where: str) -> list[int]:
    if not isinstance(shape, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape
    ):
        raise InputError(f"{where}: shape must be a list of integers >= 0")
    return shape


def _batch(b: int, max_batch: int) -> None:
    if b < 1:
        raise InputError("the batch is empty (shape [0, ...])")
    if b > max_batch:
        raise InputError(
            f"the batch has {b} rows; this server answers at most {max_batch} per "
            "request (split it)"
        )


def parse_inputs(
    inputs: list[dict[str, Any]], spec: InputSpec, max_batch: int
) -> np.ndarray:
    """Query rows ``[B, spec.width]`` from the request's input tensors.

    Parameters
    ----------
    inputs : list of dict
        The ``inputs`` of an OIP v2 infer request: one tensor named ``input``
        of shape ``[B, width]`` (numbers, or ``BYTES`` when some column is
        categorical), or one tensor per column named by the column, each of
        shape ``[B]`` or ``[B, 1]``.
    spec : InputSpec
        The input columns.
    max_batch : int
        The most rows a request may have.

    Returns
    -------
    ndarray of shape (B, width)
        Floats, or objects when some column is categorical.

    Raises
    ------
    InputError
        For an unknown datatype, a shape that is not ``[B, width]``, data that
        disagree with the declared shape, non-numeric, NaN, infinite or
        out-of-range values, data nested deeper than ``MAX_NESTING`` lists, an
        unknown input name, or more than ``max_batch`` rows.
    """
    if not inputs:
        raise InputError("the request has no inputs")
    width = spec.width
    if len(inputs) == 1 and inputs[0]["name"] == INPUT_NAME:
        t = inputs[0]
        where = f"input {t['name']!r}"
        dt = t["datatype"]
        shape = _shape(t["shape"], where)
        if len(shape) != 2 or shape[1] != width:
            raise InputError(
                f"{where}: expected shape [B, {width}] ({width} input columns), got "
                f"{shape}"
            )
        b = shape[0]
        _batch(b, max_batch)
        values = _flat(t["data"], b * width, where)
        if dt in _NUMERIC:
            arr = _numbers(values, where).reshape(b, width)
            if spec.has_categorical:
                raise InputError(
                    f"{where}: some input columns are categorical; send a BYTES "
                    "tensor (numbers as strings or numbers) or one tensor per column"
                )
            return arr
        if dt != "BYTES":
            raise InputError(
                f"{where}: datatype {dt!r} is not supported; use one of "
                f"{', '.join(DATATYPES)}"
            )
        cat = spec.categorical or [False] * width
        rows = np.empty((b, width), dtype=object)
        for i in range(b):
            for j in range(width):
                rows[i, j] = _cell(values[i * width + j], cat[j], where)
        if not spec.has_categorical:
            return rows.astype(np.float64)
        return rows

    by_name = {}
    for t in inputs:
        if t["name"] in by_name:
            raise InputError(f"input {t['name']!r} is given twice")
        by_name[t["name"]] = t
    missing = [c for c in spec.columns if c not in by_name]
    extra = [n for n in by_name if n not in spec.columns]
    if missing or extra:
        raise InputError(
            f"send one tensor named {INPUT_NAME!r} of shape [B, {width}], or one "
            "tensor per input column named by the column; "
            + (f"unknown input names {extra[:5]}" if extra else "")
            + ("; " if missing and extra else "")
            + (f"missing columns {missing[:5]}" if missing else "")
        )
    b = -1
    cols = []
    cat = spec.categorical or [False] * width
    for j, c in enumerate(spec.columns):
        t = by_name[c]
        where = f"input {c!r}"
        shape = _shape(t["shape"], where)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            raise InputError(f"{where}: expected shape [B] or [B, 1], got {shape}")
        if b < 0:
            b = shape[0]
            _batch(b, max_batch)
        elif shape[0] != b:
            raise InputError(f"{where}: {shape[0]} rows, the other inputs have {b}")
        values = _flat(t["data"], b, where)
        if t["datatype"] not in _NUMERIC and t["datatype"] != "BYTES":
            raise InputError(f"{where}: datatype {t['datatype']!r} is not supported")
        cols.append([_cell(v, cat[j], where) for v in values])
    rows = np.empty((b, width), dtype=object)
    for j, col in enumerate(cols):
        rows[:, j] = col
    return rows if spec.has_categorical else rows.astype(np.float64)
