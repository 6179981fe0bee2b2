# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm`` command: its top-level parser and the dispatch to subcommands.

Each subcommand's parser and command function live in their own module
(``_demo``, ``_train``, ``_predict``, ``_sweep``, ``_serve``, ``_tabular``,
``_workflow``; ``audit`` and ``reproduce`` in :mod:`dpsvm.utils._subcommands`),
the shared option types in ``_args`` and the data reading in ``_reading``.

Errors are reported as one line ``dpsvm: error: <message>`` on standard error,
with exit status 2 for a usage error (bad option or option value) and 1 for a
failure while running (unreadable or malformed data, unwritable output, ...);
an interrupt exits with 130. No traceback is printed and no output file is left
behind: every file is written atomically (:func:`dpsvm.io.atomic_write_text`),
and ``train`` removes its model file when writing the report fails.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from .. import __version__
from ..exceptions import DPSVMConvergenceError
from ..utils._cli import PROG, UsageError
from ..utils._cli import RaisingParser as _Parser
from ._args import _DASH_VALUE_OPTIONS
from ._common import _describe, _warn
from ._demo import add_demo_subparser, run_demo_command
from ._predict import add_predict_subparsers, run_evaluate_command, run_predict_command
from ._sweep import add_sweep_subparser, run_sweep_command
from ._tabular import add_schema_subparser, run_schema_command
from ._train import add_train_subparser, run_train_command
from ._workflow import add_report_subparser, render_report

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``dpsvm`` command.

    Returns
    -------
    argparse.ArgumentParser
        The parser; its ``error`` raises :class:`UsageError` instead of exiting.
    """
    parser = _Parser(
        prog=PROG,
        description="Differentially private linear and kernel SVMs from the "
        "command line.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    add_demo_subparser(sub)
    add_train_subparser(sub)
    add_predict_subparsers(sub)

    # Defined outside dpsvm.audit and dpsvm.reproduce: importing those packages
    # costs seconds, which every command (and --help) would pay.
    from ..utils._subcommands import add_audit_subparser, add_reproduce_subparser

    add_audit_subparser(sub)
    add_reproduce_subparser(sub)
    from ._serve import add_serve_subparser

    add_serve_subparser(sub)
    add_report_subparser(sub)
    add_schema_subparser(sub)
    add_sweep_subparser(sub)
    return parser


def _cmd_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..audit.cli import run_audit_command

    return run_audit_command(args, out, err)


def _cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..reproduce.cli import run_reproduce_command

    return run_reproduce_command(args, out, err)


def _cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ._serve import run_serve_command

    return run_serve_command(args, out, err)


def _cmd_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..io import load_model

    out.write(render_report(load_model(args.model), args.model))
    return 0


_COMMANDS = {
    "demo": run_demo_command,
    "train": run_train_command,
    "predict": run_predict_command,
    "evaluate": run_evaluate_command,
    "audit": _cmd_audit,
    "reproduce": _cmd_reproduce,
    "serve": _cmd_serve,
    "report": _cmd_report,
    "sweep": run_sweep_command,
    "schema": run_schema_command,
}


def _safe_stream(stream: TextIO) -> TextIO:
    # ε, Λ and ± must not crash a terminal with a non-UTF-8 encoding.
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8" and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # pragma: no cover - stream already in use
            pass
    return stream


def _glue_option_values(argv: Sequence[str]) -> list[str]:
    """Let ``--classes -1,1`` through: argparse would read ``-1,1`` as an option."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if arg in _DASH_VALUE_OPTIONS and nxt is not None and nxt.startswith("-"):
            if not nxt.startswith("--"):
                out.append(f"{arg}={nxt}")
                i += 2
                continue
        out.append(arg)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``dpsvm`` command.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success, 1 for a runtime error, 2 for a usage
        error, 130 when interrupted.

    Examples
    --------
    >>> main(["--version"])
    dpsvm 0.1.0
    0
    """
    out = _safe_stream(sys.stdout)
    err = _safe_stream(sys.stderr)
    parser = build_parser()
    try:
        args = parser.parse_args(
            _glue_option_values(sys.argv[1:] if argv is None else list(argv))
        )
    except UsageError as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 2
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            status = _COMMANDS[args.command](args, out, err)
        for w in caught:
            _warn(str(w.message), err)
        out.flush()
        return status
    except UsageError as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 2
    except KeyboardInterrupt:
        err.write(f"{PROG}: error: interrupted\n")
        return 130
    except DPSVMConvergenceError:
        # The estimators' message names max_iter/tol, which the command line
        # does not expose: name the option that helps instead.
        err.write(
            f"{PROG}: error: the solver did not reach the accuracy the privacy "
            "proof needs, so nothing was written; use a larger --regularization "
            "(it makes the problem better conditioned) or another --mechanism\n"
        )
        return 1
    except (
        ValueError,  # includes BudgetExceededError, JSON and Unicode errors
        TypeError,
        OSError,  # FileNotFoundError, PermissionError, IsADirectoryError, ...
        OverflowError,
    ) as exc:
        err.write(f"{PROG}: error: {_describe(exc)}\n")
        return 1
