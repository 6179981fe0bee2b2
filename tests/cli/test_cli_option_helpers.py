# SPDX-License-Identifier: BSD-3-Clause
"""The shared option helpers of ``dpsvm.utils._cli`` (flag written once)."""

from __future__ import annotations

import pytest

from dpsvm.cli import main
from dpsvm.utils._cli import (
    SEED_MAX,
    RaisingParser,
    UsageError,
    add_integer_argument,
    add_positive_argument,
    add_seed_argument,
)


def _parser():
    p = RaisingParser(prog="t")
    add_integer_argument(p, "--count", 1, 10, default=3)
    add_positive_argument(p, "--width", default=1.0)
    group = p.add_argument_group("g")
    add_seed_argument(group, "--seed", help="seed")
    return p


def test_defaults_and_values_pass_through():
    p = _parser()
    args = p.parse_args([])
    assert (args.count, args.width, args.seed) == (3, 1.0, None)
    args = p.parse_args(["--count", "10", "--width", "0.25", "--seed", str(SEED_MAX)])
    assert (args.count, args.width, args.seed) == (10, 0.25, 2**63 - 1)
    assert isinstance(args.count, int) and isinstance(args.seed, int)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--count", "11"], "--count must be in [1, 10], got 11"),
        (["--count", "0"], "--count must be in [1, 10], got 0"),
        (["--count", "x"], "--count must be an integer, got 'x'"),
        (["--width", "0"], "--width must be a finite number > 0, got 0"),
        (["--width", "inf"], "--width must be a finite number > 0, got inf"),
        (["--width", "nan"], "--width must be a finite number > 0, got nan"),
        (["--seed", "-1"], f"--seed must be in [0, {SEED_MAX}], got -1"),
        (["--seed", str(SEED_MAX + 1)], f"--seed must be in [0, {SEED_MAX}]"),
    ],
)
def test_errors_name_the_option(argv, message):
    with pytest.raises(UsageError, match="argument") as info:
        _parser().parse_args(argv)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--draws", "0"], "--draws must be in [1, 1000], got 0"),
        (["demo", "--random-state", "-1"], "--random-state must be in [0, "),
        (["train", "--feature-seed", "-2"], "--feature-seed must be in [0, "),
        (["train", "--n-components", "0"], "--n-components must be in [1, "),
        (["train", "--huber-h", "0"], "--huber-h must be a finite number > 0"),
        (["train", "--gamma", "-1"], "--gamma must be a finite number > 0"),
        (["train", "--gamma", "scale"], "--gamma 'scale' would be computed"),
        (["serve", "--port", "65536"], "--port must be in [0, 65535], got 65536"),
        (["serve", "--regularization", "0"], "--regularization must be a finite"),
    ],
)
def test_dpsvm_options_use_the_helpers(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dpsvm: error: argument {argv[1]}: ")
    assert message in err
