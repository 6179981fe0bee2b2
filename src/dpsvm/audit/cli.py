# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm audit`` subcommand (wired into :mod:`dpsvm.cli` by the lead).

::

    dpsvm audit --list
    dpsvm audit --mechanism NAME [--runs N] [--epsilon E] [--delta D]
                [--confidence C] [--n-jobs J] [--seed S] [--no-progress]
                [--json] [--check]
    dpsvm audit --mechanism all ...

:func:`add_audit_subparser` adds the subcommand to an ``argparse``
sub-parser set and :func:`run_audit_command` runs it. Unknown mechanism names
and other bad requests raise :class:`ValueError` with a one-line message, which
the ``dpsvm`` wrapper prints as ``dpsvm: error: <message>``; :func:`main` is a
standalone entry point that does the same.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from ..utils._cli import run_subcommand
from ..utils._subcommands import add_audit_subparser
from ._auditor import AuditResult
from .registry import get_entry, list_entries

__all__ = [
    "add_audit_subparser",
    "format_entries",
    "format_results",
    "main",
    "run_audit_command",
]


# ---------------------------------------------------------------- formatting
def format_results(
    results: Sequence[AuditResult],
    *,
    expected_violation: Mapping[str, bool] | None = None,
    markdown: bool = False,
) -> str:
    """A table of audit results.

    Columns: mechanism, claimed ε, δ, lower bound, point estimate, runs per
    dataset, time, verdict (and whether it matches ``expected_violation``).

    Parameters
    ----------
    results : sequence of AuditResult
        The results.
    expected_violation : mapping of str to bool, optional
        Per mechanism name, whether the audit is expected to refute the claim
        (flawed mechanisms).
    markdown : bool, default=False
        A Markdown table instead of aligned text.

    Returns
    -------
    str
        The table (no trailing newline).

    Examples
    --------
    >>> from dpsvm.audit._auditor import _example_result
    >>> table = format_results([_example_result()], markdown=True)
    >>> print(table.splitlines()[2])
    | m | 1 | 0 | 0.500 | 0.600 | 1000 | 2.0 | consistent |
    """
    conf = {r.confidence for r in results}
    label = (
        f"lower bound ({100 * next(iter(conf)):.10g}%)" if len(conf) == 1 else "lower"
    )
    header = [
        "mechanism",
        "claimed ε",
        "δ",
        label,
        "point estimate",
        "runs",
        "time (s)",
        "verdict",
    ]
    rows = []
    for r in results:
        verdict = "REFUTED" if r.violated else "consistent"
        if expected_violation is not None and r.mechanism in expected_violation:
            ok = r.violated == expected_violation[r.mechanism]
            verdict += " (as expected)" if ok else " (UNEXPECTED)"
        rows.append(
            [
                r.mechanism,
                f"{r.epsilon:g}",
                f"{r.delta:g}",
                f"{r.epsilon_lower:.3f}",
                "inf" if math.isinf(r.epsilon_point) else f"{r.epsilon_point:.3f}",
                str(r.n_runs),
                f"{r.wall_time:.1f}",
                verdict,
            ]
        )
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    return _aligned(header, rows)


def _aligned(header: list[str], rows: list[list[str]]) -> str:
    """``header`` and ``rows`` as left-aligned text columns, two spaces apart."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def format_entries() -> str:
    """The registered mechanisms as an aligned text table.

    Returns
    -------
    str
        One line per entry: name, family, claimed (ε, δ), fast and full runs,
        description.

    Examples
    --------
    >>> print(format_entries().splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
    name  family  eps  delta  fast runs  full runs  description
    """
    header = ["name", "family", "eps", "delta", "fast runs", "full runs", "description"]
    rows = [
        [
            e.name,
            e.family,
            f"{e.epsilon:g}",
            f"{e.delta:g}",
            str(e.fast_runs),
            str(e.n_runs),
            e.description,
        ]
        for e in list_entries()
    ]
    return _aligned(header, rows)


# ------------------------------------------------------------------- running
def run_audit_command(
    args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run ``dpsvm audit`` with parsed arguments.

    Parameters
    ----------
    args : argparse.Namespace
        From a parser built with :func:`add_audit_subparser`.
    out : text stream, optional
        Where the results go (default: standard output).
    err : text stream, optional
        Where the progress line goes (default: standard error).

    Returns
    -------
    int
        0, or 3 with ``--check`` when a verdict is not the expected one.

    Raises
    ------
    ValueError
        For an unknown mechanism name or a missing ``--mechanism``.

    Examples
    --------
    >>> ns = argparse.Namespace(list=True)
    >>> run_audit_command(ns) == 0  # doctest: +ELLIPSIS
    name ...
    True
    """
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if getattr(args, "list", False):
        out.write(format_entries() + "\n")
        return 0
    name = getattr(args, "mechanism", None)
    if not name:
        raise ValueError("audit needs --mechanism NAME (or --list)")
    entries = list_entries() if name == "all" else [get_entry(name)]
    progress = not getattr(args, "no_progress", False)
    results: list[AuditResult] = []
    for entry in entries:
        auditor = entry.auditor(
            n_runs=getattr(args, "runs", None),
            epsilon=getattr(args, "epsilon", None),
            delta=getattr(args, "delta", None),
            confidence=getattr(args, "confidence", 0.95),
            n_jobs=getattr(args, "n_jobs", 1),
            random_state=getattr(args, "seed", 0),
            progress=err if progress else False,
        )
        res = auditor.run()
        results.append(res)
        if getattr(args, "json", False):
            out.write(
                json.dumps({**res.to_dict(), "flawed": entry.flawed}, allow_nan=True)
                + "\n"
            )
        elif len(entries) == 1:
            out.write(res.summary() + "\n")
        out.flush()
    expected = {e.name: e.flawed for e in entries}
    if len(entries) > 1 and not getattr(args, "json", False):
        out.write(format_results(results, expected_violation=expected) + "\n")
    if getattr(args, "check", False) and any(
        r.violated != expected[r.mechanism] for r in results
    ):
        return 3
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone ``dpsvm audit`` (the same options, without the word ``audit``).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 for a failed request (one line ``dpsvm: error: ...`` on
        standard error), 2 for a usage error, 3 for ``--check`` failures.

    Examples
    --------
    The error line goes to standard error; the status is returned:

    >>> main(["--mechanism", "no-such"])
    1
    """
    return run_subcommand(
        "audit", add_audit_subparser, run_audit_command, argv, (ValueError, TypeError)
    )
