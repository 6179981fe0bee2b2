# SPDX-License-Identifier: BSD-3-Clause
"""The input checks are written once, in dpsvm.validation (issue 11)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsvm import validation
from dpsvm.utils import _checks


def test_checks_module_reexports_the_public_checks():
    # One implementation per check: the calculators' module is a re-export.
    for name in _checks.__all__:
        assert getattr(_checks, name) is getattr(validation, name)


@pytest.mark.parametrize(
    ("check", "good", "expected"),
    [
        (lambda v: validation.check_int(v, "n"), np.int64(3), 3),
        (lambda v: validation.check_open_unit(v, "beta"), 0.25, 0.25),
        (lambda v: validation.check_nonnegative(v, "B0"), 0, 0.0),
        (lambda v: validation.check_positive(v, "lam"), 2, 2.0),
    ],
)
def test_checks_return_plain_python_numbers(check, good, expected):
    out = check(good)
    assert out == expected
    assert type(out) is type(expected)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: validation.check_int(True, "n"), TypeError, "integer"),
        (lambda: validation.check_int(0, "n"), ValueError, ">= 1"),
        (lambda: validation.check_int(1, "m", minimum=2), ValueError, ">= 2"),
        (lambda: validation.check_open_unit(1.0, "beta"), ValueError, "open interval"),
        (lambda: validation.check_open_unit(math.nan, "beta"), ValueError, "beta"),
        (lambda: validation.check_open_unit("x", "beta"), TypeError, "real number"),
        (lambda: validation.check_nonnegative(-1e-300, "G"), ValueError, ">= 0"),
        (lambda: validation.check_nonnegative(math.inf, "G"), ValueError, "finite"),
        (lambda: validation.check_nonnegative(False, "G"), TypeError, "real number"),
        (lambda: validation.check_positive(None, "lam"), TypeError, "real number"),
        (lambda: validation.check_delta(True), TypeError, "real number"),
    ],
)
def test_checks_refuse(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
