# SPDX-License-Identifier: BSD-3-Clause
"""Strict JSON reading for the files dpsvm loads (model files, public schemas).

Python's :func:`json.loads` accepts ``NaN``/``Infinity`` and keeps the last of
repeated keys. A file that relies on either is malformed for dpsvm (a bound of
``NaN``, or a key given twice with two values, is ambiguous), so both are
refused here, each through the caller's own error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["strict_json_loads"]


def strict_json_loads(
    text: str,
    *,
    constant_error: Callable[[str], Exception],
    duplicate_key_error: Callable[[str], Exception],
    parse_float: Callable[[str], float] | None = None,
) -> Any:
    """Parse JSON text, refusing ``NaN``/``Infinity`` and repeated object keys.

    ``constant_error(token)`` and ``duplicate_key_error(key)`` build the
    exception raised for a non-finite constant and for a key repeated within
    one object; :class:`json.JSONDecodeError` and :class:`RecursionError`
    propagate to the caller.
    """

    def no_constants(token: str) -> NoReturn:
        raise constant_error(token)

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise duplicate_key_error(key)
            out[key] = value
        return out

    return json.loads(
        text,
        parse_constant=no_constants,
        parse_float=parse_float,
        object_pairs_hook=no_duplicates,
    )
