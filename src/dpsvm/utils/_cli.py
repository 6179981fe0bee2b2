# SPDX-License-Identifier: BSD-3-Clause
"""Command-line plumbing shared by ``dpsvm``, ``dpsvm audit`` and ``dpsvm reproduce``.

Option types that turn a bad value into an ``argparse`` error naming the
option, a parser whose errors are exceptions, and the standalone entry point of
a subcommand (one line ``dpsvm: error: <message>`` on standard error and an exit
status, never a traceback).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

__all__ = [
    "PROG",
    "SEED_MAX",
    "RaisingParser",
    "UsageError",
    "add_integer_argument",
    "add_positive_argument",
    "add_run_options",
    "add_seed_argument",
    "delta_option",
    "integer_option",
    "number",
    "open_interval_option",
    "positive_option",
    "run_subcommand",
]

PROG = "dpsvm"


class UsageError(Exception):
    """A bad option or option value (exit status 2)."""


class RaisingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are exceptions (printed by the caller)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _convert(text: str, what: str, kind: Callable[[str], Any], noun: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        message = f"{what} must be {noun}, got {text!r}"
        raise argparse.ArgumentTypeError(message) from None


def number(text: str, what: str) -> float:
    """``float(text)``, or an ``argparse`` error naming the option ``what``."""
    return float(_convert(text, what, float, "a number"))


def positive_option(what: str) -> Callable[[str], float]:
    """Option type of a finite number > 0 (ε, a width, a norm bound...)."""

    def parse(text: str) -> float:
        v = number(text, what)
        if not (math.isfinite(v) and v > 0):
            raise argparse.ArgumentTypeError(
                f"{what} must be a finite number > 0, got {text}"
            )
        return v

    return parse


def delta_option(what: str) -> Callable[[str], float | str]:
    """Option type of a privacy parameter δ ∈ [0, 1), or ``auto``.

    ``auto`` is resolved by the learner from the public row count n
    (:func:`dpsvm.validation.resolve_delta`: n^−1.5, or 0 for a pure-DP
    mechanism); a δ ≥ 1/n is refused there, as in the library.
    """

    def parse(text: str) -> float | str:
        if text.strip().lower() == "auto":
            return "auto"
        v = number(text, what)
        if not 0 <= v < 1:  # also refuses NaN
            raise argparse.ArgumentTypeError(f"{what} must be in [0, 1), got {text}")
        return v

    return parse


def open_interval_option(what: str, low: float, high: float) -> Callable[[str], float]:
    """Option type of a number in the open interval (low, high)."""

    def parse(text: str) -> float:
        v = number(text, what)
        if not low < v < high:  # also refuses NaN
            raise argparse.ArgumentTypeError(
                f"{what} must be in ({low:g}, {high:g}), got {text}"
            )
        return v

    return parse


def integer_option(
    what: str, low: int, high: int | None = None, *, nonzero: str | None = None
) -> Callable[[str], int]:
    """Option type of an integer ≥ ``low`` (and ≤ ``high`` when given).

    ``nonzero``, when given, is the message that refuses 0.
    """

    def parse(text: str) -> int:
        v = int(_convert(text, what, int, "an integer"))
        if high is not None and not low <= v <= high:
            raise argparse.ArgumentTypeError(
                f"{what} must be in [{low}, {high}], got {v}"
            )
        if v < low:
            raise argparse.ArgumentTypeError(f"{what} must be >= {low}, got {v}")
        if v == 0 and nonzero is not None:
            raise argparse.ArgumentTypeError(nonzero)
        return v

    return parse


#: The largest seed an option accepts (NumPy's seeds are any non-negative int;
#: the CLI keeps them to 63 bits so that a seed fits a signed 64-bit integer).
SEED_MAX = 2**63 - 1


def add_integer_argument(
    p: Any, flag: str, low: int, high: int | None = None, **kwargs: Any
) -> argparse.Action:
    """Add ``flag`` of type :func:`integer_option` ``(flag, low, high)``.

    ``p`` is a parser or an argument group; ``kwargs`` go to ``add_argument``
    (``default``, ``metavar``, ``help``, ...). The option names itself in its
    errors without being spelled twice.
    """
    action: argparse.Action = p.add_argument(
        flag, type=integer_option(flag, low, high), **kwargs
    )
    return action


def add_positive_argument(p: Any, flag: str, **kwargs: Any) -> argparse.Action:
    """Add ``flag`` of type :func:`positive_option` ``(flag)`` (a finite number > 0).

    ``p`` is a parser or an argument group; ``kwargs`` go to ``add_argument``.
    """
    action: argparse.Action = p.add_argument(flag, type=positive_option(flag), **kwargs)
    return action


def add_seed_argument(p: Any, flag: str, *, help: str) -> argparse.Action:
    """Add a seed option ``flag``: an integer in [0, :data:`SEED_MAX`], no default.

    ``p`` is a parser or an argument group; ``help`` says what the seed seeds.
    """
    return add_integer_argument(p, flag, 0, SEED_MAX, help=help)


def add_run_options(
    p: argparse.ArgumentParser,
    *,
    n_jobs: Callable[[str], int],
    n_jobs_help: str,
    seed_help: str,
    progress_help: str,
) -> None:
    """Add ``--n-jobs J`` (default 1), ``--seed S`` (default 0), ``--no-progress``."""
    p.add_argument("--n-jobs", type=n_jobs, default=1, metavar="J", help=n_jobs_help)
    p.add_argument(
        "--seed",
        type=integer_option("--seed", 0),
        default=0,
        metavar="S",
        help=seed_help,
    )
    p.add_argument("--no-progress", action="store_true", help=progress_help)


def run_subcommand(
    command: str,
    add_subparser: Callable[[Any], argparse.ArgumentParser],
    run: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None,
    errors: tuple[type[BaseException], ...],
) -> int:
    """Standalone entry point of ``dpsvm COMMAND``: parse ``argv``, run, report.

    Returns 0 (or ``run``'s status) on success, 1 for one of ``errors`` (its
    message on one line), 2 for a usage error and 130 when interrupted.
    """
    parser = RaisingParser(prog=PROG)
    sub = parser.add_subparsers(dest="command", required=True)
    add_subparser(sub)
    try:
        args = parser.parse_args([command, *(sys.argv[1:] if argv is None else argv)])
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 2
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return run(args)
    except errors as exc:
        sys.stderr.write(f"{PROG}: error: {' '.join(str(exc).split())}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: error: interrupted\n")
        return 130
