# SPDX-License-Identifier: BSD-3-Clause
"""The options of ``dpsvm audit`` and ``dpsvm reproduce``, without their machinery.

Building the ``dpsvm`` parser (``dpsvm --help``, and every subcommand) must not
import the auditor, scikit-learn or :mod:`scipy.stats`: importing anything in
:mod:`dpsvm.audit` or :mod:`dpsvm.reproduce` runs those packages' ``__init__``,
which imports them all (about 1.6 s). The two parsers are therefore defined
here, with the standard library and :mod:`dpsvm.utils._cli` only;
:mod:`dpsvm.audit.cli` and :mod:`dpsvm.reproduce.cli` re-export them and run the
commands. ``tests/cli/test_cli_imports.py`` checks what ``dpsvm --help``
imports.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._cli import (
    add_integer_argument,
    add_run_options,
    delta_option,
    integer_option,
    open_interval_option,
    positive_option,
)

__all__ = [
    "DEFAULT_OUT",
    "PAPERS",
    "add_audit_subparser",
    "add_reproduce_subparser",
]


# ------------------------------------------------------------------- audit
_audit_epsilon = positive_option("--epsilon")
_audit_delta = delta_option("--delta")
_audit_confidence = open_interval_option("--confidence", 0.0, 1.0)
_audit_n_jobs = integer_option(
    "--n-jobs", -(2**31), nonzero="--n-jobs must be a non-zero integer"
)


def add_audit_subparser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``audit`` subcommand to an ``argparse`` sub-parser set.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The object returned by ``parser.add_subparsers(...)``. The new parser
        inherits its class (so a parser whose ``error`` raises keeps doing so).

    Returns
    -------
    argparse.ArgumentParser
        The ``audit`` parser (its defaults set ``command="audit"``).

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="dpsvm")
    >>> _ = add_audit_subparser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["audit", "--mechanism", "laplace", "--runs", "50"])
    >>> args.command, args.mechanism, args.runs, args.confidence
    ('audit', 'laplace', 50, 0.95)
    """
    p = subparsers.add_parser(
        "audit",
        help="empirically lower-bound the privacy loss of a mechanism",
        description=(
            "Run a mechanism many times on two neighbouring datasets and report a "
            "Clopper-Pearson lower bound on its epsilon (Jagielski et al. 2020, "
            "Nasr et al. 2021). A bound above the claimed epsilon refutes the "
            "claim; a bound below it is evidence, not a proof, of privacy."
        ),
    )
    p.add_argument(
        "--mechanism",
        "-m",
        metavar="NAME",
        help="registered mechanism to audit (see --list), or 'all'",
    )
    p.add_argument(
        "--list", action="store_true", help="list the registered mechanisms and exit"
    )
    add_integer_argument(
        p,
        "--runs",
        8,
        metavar="N",
        help="runs per dataset (default: the mechanism's fast setting)",
    )
    p.add_argument(
        "--epsilon",
        type=_audit_epsilon,
        metavar="E",
        help="claimed epsilon (default: 1)",
    )
    p.add_argument(
        "--delta",
        type=_audit_delta,
        metavar="D",
        help="claimed delta (default: per entry)",
    )
    p.add_argument(
        "--confidence",
        type=_audit_confidence,
        default=0.95,
        metavar="C",
        help="confidence of the lower bound (default: 0.95)",
    )
    add_run_options(
        p,
        n_jobs=_audit_n_jobs,
        n_jobs_help="parallel workers (joblib; -1: all cores; default: 1)",
        seed_help="seed of the run seeds (default: 0)",
        progress_help="no progress line on standard error",
    )
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.add_argument(
        "--check",
        action="store_true",
        help=(
            "exit with status 3 when a real mechanism's claim is refuted or a "
            "flawed one's is not"
        ),
    )
    p.set_defaults(command="audit")
    return p


# --------------------------------------------------------------- reproduce
PAPERS = ("sarwate2009",)
DEFAULT_OUT = "./reproduction-sarwate2009"


_reproduce_n_jobs = integer_option(
    "--n-jobs", -1, nonzero="--n-jobs must be >= 1, or -1 for all CPUs"
)


def add_reproduce_subparser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``reproduce`` subcommand to an ``argparse`` sub-parser set.

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        The object returned by ``parser.add_subparsers(...)``; the new parser
        inherits its class (so a parser whose ``error`` raises keeps doing so).

    Returns
    -------
    argparse.ArgumentParser
        The ``reproduce`` parser (its defaults set ``command="reproduce"``).

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="dpsvm")
    >>> _ = add_reproduce_subparser(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["reproduce", "sarwate2009", "--quick"])
    >>> args.command, args.paper, args.quick, args.out, args.n_jobs
    ('reproduce', 'sarwate2009', True, './reproduction-sarwate2009', 1)
    """
    p = subparsers.add_parser(
        "reproduce",
        help="rerun a paper's experiments and write a report with tables and plots",
        description=(
            "Rerun the experiments of a paper and write a Markdown report (each "
            "table next to the paper's numbers and the difference), PNG plots and "
            "a JSON file of all numbers. sarwate2009: Sarwate, Chaudhuri & "
            "Monteleoni, 'Differentially private support vector machines' "
            "(arXiv:0912.0071): Figures 1-4 on UCI Adult, nested balls and (when "
            "its files are present) KDD Cup 99. The full run follows the paper "
            "(10-fold cross-validation x 50 noise draws) and takes hours; it "
            "prints its expected time first. --quick takes minutes."
        ),
    )
    p.add_argument("paper", choices=PAPERS, help="which paper's experiments")
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="directory with adult.data and adult.test (plain or .gz, directly or "
        "in adult/), and optionally the KDD Cup 99 files (kddcup.data_10_percent, "
        "corrected; directly or in kddcup99/). Default: $DPSVM_DATA, then the "
        "loaders' search path",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="2 of 10 folds x 2 draws, 24,000 nested-balls points, fewer "
        "learning-curve points (under 10 minutes on 2 cores)",
    )
    p.add_argument("--tiny", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"output directory (default {DEFAULT_OUT})",
    )
    for flag, metavar, text in (
        (
            "--draws",
            "N",
            "noise draws per private fit, and repetitions per learning-curve "
            "point (default 50 and 10; --quick 2 and 1)",
        ),
        (
            "--folds",
            "K",
            "cross-validation folds evaluated, of a 10-fold split (default 10; "
            "--quick 2); K > 10 uses a K-fold split",
        ),
    ):
        add_integer_argument(p, flag, 1, metavar=metavar, help=text)
    add_run_options(
        p,
        n_jobs=_reproduce_n_jobs,
        n_jobs_help="worker processes (-1: all CPUs; default 1)",
        seed_help="seed of all splits, projections and noise draws (default 0)",
        progress_help="no progress line on stderr",
    )
    p.set_defaults(command="reproduce")
    return p
