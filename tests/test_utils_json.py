# SPDX-License-Identifier: BSD-3-Clause
"""The strict JSON reader shared by model files and public schemas."""

from __future__ import annotations

import json

import pytest

from dpsvm.utils._json import strict_json_loads


class _Refused(ValueError):
    pass


def _loads(text: str):  # type: ignore[no-untyped-def]
    return strict_json_loads(
        text,
        constant_error=lambda token: _Refused(f"constant {token}"),
        duplicate_key_error=lambda key: _Refused(f"duplicate {key}"),
    )


def test_plain_json_is_read_as_json_loads_reads_it() -> None:
    text = '{"a": [1, 2.5, {"b": null}], "c": {"a": true}}'
    assert _loads(text) == json.loads(text)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_constants_raise_the_callers_error(token: str) -> None:
    with pytest.raises(_Refused, match=f"constant {token}"):
        _loads(f'{{"x": [1, {token}]}}')


def test_a_repeated_key_in_a_nested_object_raises_the_callers_error() -> None:
    with pytest.raises(_Refused, match="duplicate k"):
        _loads('{"outer": [{"k": 1, "k": 1}]}')


def test_parse_float_is_applied() -> None:
    out = strict_json_loads(
        '{"x": 0.5}',
        constant_error=_Refused,
        duplicate_key_error=_Refused,
        parse_float=lambda s: -float(s),
    )
    assert out == {"x": -0.5}


def test_syntax_errors_propagate() -> None:
    with pytest.raises(json.JSONDecodeError):
        _loads("{")
