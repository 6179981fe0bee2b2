# SPDX-License-Identifier: BSD-3-Clause
"""CSV dialect options (``--delimiter``, ``--names``) and ``dpsvm schema draft``.

* ``--delimiter C`` reads files separated by another character than ``,``
  (``;``, ``tab``, ``|``, ...), for every command that reads CSV.
* ``--names A,B,...`` names the columns of a file without a header row, so
  that a public schema (which matches columns by name) can read it.
* ``dpsvm schema draft DATA.csv --label COLUMN --out SCHEMA.json`` writes the
  draft of :func:`dpsvm.preprocessing.draft_schema`: its ranges, categories
  and classes are **read from the private data**, so the command prints the
  privacy warning and the file is only a starting point the user reviews,
  replacing every value with public knowledge before training.
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path
from typing import Any, TextIO

from ..utils._cli import PROG, UsageError

__all__ = [
    "add_dialect_options",
    "add_schema_subparser",
    "delimiter_option",
    "names_option",
    "run_schema_command",
]

#: Names ``--delimiter`` accepts for characters that are awkward on a shell.
_NAMED_DELIMITERS = {
    "tab": "\t",
    "\\t": "\t",
    "comma": ",",
    "semicolon": ";",
    "space": " ",
    "pipe": "|",
}


def delimiter_option(text: str) -> str:
    """The ``--delimiter`` value: one character, or a name such as ``tab``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    str
        The separator character.

    Examples
    --------
    >>> delimiter_option(";"), delimiter_option("tab")
    (';', '\\t')
    """
    value = _NAMED_DELIMITERS.get(text.lower(), text)
    if len(value) != 1 or value in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"--delimiter takes one character such as ';' or '|', or one of "
            f"{', '.join(_NAMED_DELIMITERS)}; got {text!r}"
        )
    return value


def names_option(text: str) -> list[str]:
    """The ``--names`` value: the comma-separated column names of a header-less file.

    Parameters
    ----------
    text : str
        The option's text, e.g. ``"age,job,income"``.

    Returns
    -------
    list of str
        The names (blanks around each stripped).

    Examples
    --------
    >>> names_option("age, job,income")
    ['age', 'job', 'income']
    """
    names = [n.strip() for n in next(csv.reader([text]), [])]
    if not names or any(not n for n in names):
        raise argparse.ArgumentTypeError(
            f"--names takes the column names separated by commas, none empty, such "
            f"as age,job,income; got {text!r}"
        )
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(
            f"--names repeats {', '.join(map(repr, repeated))}; every column needs "
            "its own name"
        )
    return names


def add_dialect_options(p: argparse.ArgumentParser) -> None:
    """Add ``--delimiter`` and ``--names`` to a command that reads CSV.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The (sub)parser.
    """
    p.add_argument(
        "--delimiter",
        type=delimiter_option,
        default=",",
        metavar="C",
        help="CSV field separator: one character, or tab, semicolon, space, pipe "
        "(default ',')",
    )
    p.add_argument(
        "--names",
        type=names_option,
        metavar="A,B,...",
        help="the column names of a CSV file without a header row (its first row "
        "is data), comma-separated: lets a --schema (or a model trained with one) "
        "match the columns by name",
    )


# ------------------------------------------------------------ schema draft
def add_schema_subparser(sub: Any) -> None:
    """Add ``dpsvm schema draft``.

    Parameters
    ----------
    sub : argparse subparsers action
        The ``dpsvm`` subparsers.
    """
    schema = sub.add_parser(
        "schema",
        help="draft a public schema from a CSV file (to be reviewed)",
        description="Tools for the public schema (docs/schema.md).",
    )
    actions = schema.add_subparsers(
        dest="schema_command", metavar="ACTION", required=True
    )
    draft = actions.add_parser(
        "draft",
        help="write a draft schema read from the data: REVIEW IT before training",
        description="Write a draft public schema for DATA.csv: numeric columns get "
        "their observed minimum and maximum as range, other columns their observed "
        "values as categories, the label column its observed values as classes "
        "(dpsvm.preprocessing.draft_schema). Every one of these values is READ FROM "
        "THE PRIVATE DATA: a model trained with the draft as it is has no privacy "
        "guarantee for them (they can reveal single records, such as the oldest "
        "person's age or a rare category). Use the draft to see the format, then "
        "replace every range, category and class with public knowledge (a "
        "codebook, the survey's answer options, legal ranges) before training.",
    )
    draft.add_argument("data", metavar="DATA.csv", help="CSV file (- reads stdin)")
    draft.add_argument(
        "--label", required=True, metavar="COLUMN", help="name of the label column"
    )
    draft.add_argument(
        "--out", required=True, metavar="SCHEMA.json", help="the draft schema file"
    )
    draft.add_argument(
        "--force",
        action="store_true",
        help="replace --out if it exists (by default an existing file is kept and "
        "the command refused, so that a reviewed schema is never overwritten)",
    )
    add_dialect_options(draft)


def run_schema_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dpsvm schema draft``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    out, err : text streams
        Standard output and error.

    Returns
    -------
    int
        The exit status (0).
    """
    from ..io import atomic_write_text
    from ..preprocessing import draft_schema
    from ._data import DataError, read_table

    target = Path(args.out)
    if args.out == "-":
        raise UsageError("--out needs a file name: the draft is a file to review")
    if target.is_dir():
        raise UsageError(f"--out {args.out!r} is a directory")
    if target.exists() and not args.force:
        raise UsageError(
            f"--out {args.out!r} exists; it may be a reviewed schema, so it is not "
            "replaced: choose another name, or pass --force to replace it"
        )
    if args.data != "-" and target.resolve() == Path(args.data).resolve():
        raise UsageError("--out would overwrite the data file")
    table, names, where = read_table(
        args.data,
        header=args.names is None,
        delimiter=args.delimiter,
        column_names=args.names,
    )
    if table.num_rows == 0:
        raise DataError(f"{where}: no data rows (only a header)")
    frame = table.to_pandas()
    frame.columns = names
    if args.label not in frame.columns:
        raise DataError(
            f"{where}: no column {args.label!r} (--label); the columns are named "
            "by the header row, or by --names"
        )
    try:
        draft = draft_schema(frame, label=args.label)
    except ValueError as exc:
        raise DataError(f"{where}: {exc}") from None
    atomic_write_text(os.fspath(target), draft.to_json())
    out.write(
        f"{PROG}: wrote a DRAFT schema -> {target}: its ranges, categories and "
        "classes were read from the private data; review it and replace every "
        "value with public knowledge before training (docs/schema.md)\n"
    )
    del err  # the privacy warning is printed by the caller, from the warning
    return 0
