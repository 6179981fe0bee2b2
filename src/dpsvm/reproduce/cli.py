# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm reproduce`` subcommand (wired into :mod:`dpsvm.cli` by the lead).

::

    dpsvm reproduce sarwate2009 --data-dir DIR [--quick] [--out DIR]
                    [--draws N] [--folds K] [--n-jobs J] [--seed S]
                    [--no-progress]

:func:`add_reproduce_subparser` adds the subcommand to an ``argparse``
sub-parser set and :func:`run_reproduce_command` runs it. A run that cannot
proceed (missing data directory or Adult files, unwritable ``--out``, no
matplotlib) raises :class:`~dpsvm.reproduce.ReproductionError`, a
:class:`ValueError` with a one-line message, before any experiment starts; the
``dpsvm`` wrapper prints it as ``dpsvm: error: <message>`` (exit status 1).
:func:`main` is a standalone entry point that does the same.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from typing import TextIO

from ..utils._cli import PROG, run_subcommand
from ..utils._subcommands import DEFAULT_OUT, PAPERS, add_reproduce_subparser
from ._config import make_config
from ._data import ReproductionError
from ._sarwate2009 import run_sarwate2009

__all__ = ["add_reproduce_subparser", "main", "run_reproduce_command"]


def _command_line(args: argparse.Namespace) -> str:
    parts = [PROG, "reproduce", str(args.paper)]
    if getattr(args, "data_dir", None) is not None:
        parts += ["--data-dir", str(args.data_dir)]
    if getattr(args, "quick", False):
        parts.append("--quick")
    if getattr(args, "tiny", False):
        parts.append("--tiny")
    if getattr(args, "out", DEFAULT_OUT) != DEFAULT_OUT:
        parts += ["--out", str(args.out)]
    for opt in ("draws", "folds"):
        if getattr(args, opt, None) is not None:
            parts += [f"--{opt}", str(getattr(args, opt))]
    if getattr(args, "n_jobs", 1) != 1:
        parts += ["--n-jobs", str(args.n_jobs)]
    if getattr(args, "seed", 0) != 0:
        parts += ["--seed", str(args.seed)]
    return shlex.join(parts)


def run_reproduce_command(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``dpsvm reproduce`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From a parser built with :func:`add_reproduce_subparser`.
    out : text stream, optional
        Where the final summary line goes (default: standard output).
    err : text stream, optional
        Where the time estimate and the progress line go (default: standard
        error).

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    ReproductionError
        (a :class:`ValueError`) when the run cannot proceed: missing data
        directory or Adult files, unwritable ``--out``, no matplotlib. Nothing
        is written.

    Examples
    --------
    >>> ns = argparse.Namespace(paper="sarwate2009", data_dir="/nope",
    ...                         tiny=True, out="/tmp/x")
    >>> run_reproduce_command(ns)
    Traceback (most recent call last):
    ...
    dpsvm.reproduce._data.ReproductionError: --data-dir /nope: no such directory
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    paper = getattr(args, "paper", "sarwate2009")
    if paper not in PAPERS:
        raise ReproductionError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    if getattr(args, "tiny", False):
        mode = "tiny"
    elif getattr(args, "quick", False):
        mode = "quick"
    else:
        mode = "full"
    config = make_config(
        mode,
        folds=getattr(args, "folds", None),
        draws=getattr(args, "draws", None),
        seed=getattr(args, "seed", 0),
    )
    report = run_sarwate2009(
        getattr(args, "data_dir", None),
        getattr(args, "out", DEFAULT_OUT),
        config=config,
        n_jobs=getattr(args, "n_jobs", 1),
        command=_command_line(args),
        log=err,
        progress=None if getattr(args, "no_progress", False) else err,
    )
    out.write(
        f"{PROG}: wrote {report} (and {report.with_suffix('.json').name}, "
        f"plots) in {report.parent}\n"
    )
    out.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone ``dpsvm reproduce`` (the same options, after the word).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments after ``reproduce`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for a run that cannot proceed (one line ``dpsvm:
        error: ...`` on standard error, nothing written), 2 for a usage error,
        130 when interrupted.

    Examples
    --------
    >>> main(["sarwate2009", "--data-dir", "/nope", "--tiny"])
    1
    """
    return run_subcommand(
        "reproduce",
        add_reproduce_subparser,
        run_reproduce_command,
        argv,
        (ValueError, OSError),
    )
