# SPDX-License-Identifier: BSD-3-Clause
"""Messages and output files shared by the ``dpsvm`` subcommands.

One-line error descriptions, warnings, and the checks that refuse an
unwritable output before any work is done (and remove a partial one).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from ..utils._cli import PROG


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        name = exc.filename2 if exc.filename2 is not None else exc.filename
        if name is not None:
            return _one_line(f"{os.fsdecode(name)}: {exc.strerror}")
        return _one_line(exc.strerror)
    return _one_line(str(exc)) or type(exc).__name__


def _fmt(value: float) -> str:
    return f"{value:g}"


class OutputError(ValueError):
    """An output file that cannot be written (a runtime error, exit status 1)."""


def _check_output(path: str, option: str) -> Path:
    """Refuse an output path that cannot be written, before any work is done.

    ``-`` (standard output), character devices and FIFOs are written through;
    a symbolic link is followed (see :func:`dpsvm.io.atomic_write_text`).
    """
    p = Path(path)
    if path == "-":
        return p
    if p.is_dir():
        raise OutputError(f"{option} {path!r} is a directory")
    if p.exists():
        mode = os.stat(p).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            if not os.access(p, os.W_OK):
                raise OutputError(f"{option} {path!r} is not writable")
            return p
        if not stat.S_ISREG(mode):
            raise OutputError(
                f"{option} {path!r} is not a regular file, character device or FIFO"
            )
    parent = Path(os.path.realpath(p)).parent
    if not parent.is_dir():
        raise OutputError(
            f"{option} {path!r}: directory {str(parent)!r} does not exist"
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"{option} {path!r}: directory {str(parent)!r} is not writable"
        )
    return p


def _is_regular_output(path: Path) -> bool:
    """Whether ``path`` names a regular file (after links): safe to remove."""
    return str(path) != "-" and Path(os.path.realpath(path)).is_file()


@contextlib.contextmanager
def _removed_on_failure(path: Path, err: TextIO) -> Iterator[None]:
    """Remove the already written ``path`` when the block fails: no partial output.

    Only a regular file is removed: never a device, a FIFO or standard output.
    """
    try:
        yield
    except BaseException:
        if _is_regular_output(path):
            try:
                os.unlink(os.path.realpath(path))
            except OSError:  # pragma: no cover - the file stays; say so
                err.write(f"{PROG}: warning: could not remove {path}\n")
        raise


def _same_file(a: str | Path, b: str | Path) -> bool:
    if "-" in (str(a), str(b)):
        return False  # standard input or output
    return Path(a).resolve() == Path(b).resolve()


def _warn(message: str, err: TextIO) -> None:
    err.write(f"{PROG}: warning: {_one_line(message)}\n")
