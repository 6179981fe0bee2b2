# SPDX-License-Identifier: BSD-3-Clause
"""The option types and standalone runner shared by dpsvm, audit and reproduce."""

from __future__ import annotations

import argparse

import pytest

from dpsvm.audit.cli import main as audit_main
from dpsvm.reproduce.cli import main as reproduce_main
from dpsvm.utils._cli import (
    delta_option,
    integer_option,
    open_interval_option,
    positive_option,
)


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (positive_option("--epsilon"), "0", "--epsilon must be a finite number > 0"),
        (positive_option("--epsilon"), "inf", "--epsilon must be a finite number > 0"),
        (positive_option("--epsilon"), "x", "--epsilon must be a number, got 'x'"),
        (delta_option("--delta"), "1", r"--delta must be in \[0, 1\)"),
        (delta_option("--delta"), "nan", r"--delta must be in \[0, 1\)"),
        (open_interval_option("--confidence", 0, 1), "1", r"in \(0, 1\), got 1"),
        (integer_option("--runs", 8), "7", "--runs must be >= 8, got 7"),
        (integer_option("--runs", 8), "8.5", "--runs must be an integer, got '8.5'"),
        (integer_option("--draws", 1, 1000), "1001", r"in \[1, 1000\], got 1001"),
        (integer_option("--n-jobs", -1, nonzero="no zero"), "0", "no zero"),
    ],
)
def test_option_types_refuse_bad_values_naming_the_option(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


def test_option_types_accept_good_values():
    assert positive_option("e")("0.5") == 0.5
    assert delta_option("d")("0") == 0.0
    assert open_interval_option("c", 0, 1)("0.95") == 0.95
    assert integer_option("n", -1, nonzero="no zero")("-1") == -1
    assert integer_option("n", 1, 3)("3") == 3


@pytest.mark.parametrize("main", [audit_main, reproduce_main])
def test_standalone_usage_error_is_status_2_with_one_line(main, capsys):
    assert main(["--n-jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpsvm: error: ") and err.count("\n") == 1
