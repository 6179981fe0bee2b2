# SPDX-License-Identifier: BSD-3-Clause
"""Where dpsvm looks for data files.

dpsvm never ships or commits data. Loaders read files from a local directory
chosen, in this order, by:

1. the ``data_dir`` argument of the loader;
2. the environment variable ``DPSVM_DATA``;
3. ``../shared/datasets`` relative to the current working directory, if it exists;
4. a ``shared/datasets`` folder next to the repository checkout (computed from
   this file's location), if it exists.

Downloads (where a network exists and the caller asks for one) go to the chosen
directory, or to ``~/.cache/dpsvm`` when no directory was given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DATA_ENV_VAR",
    "data_dir_candidates",
    "default_cache_dir",
    "resolve_data_dir",
]

#: Name of the environment variable that points at the data directory.
DATA_ENV_VAR = "DPSVM_DATA"


def _repo_shared_dir() -> Path:
    # src/dpsvm/datasets/_paths.py: parents[0] = datasets, [1] = dpsvm, [2] = src,
    # [3] = the repository root; the shared folder sits next to the checkout.
    repo_root = Path(__file__).resolve().parents[3]
    return repo_root.parent / "shared" / "datasets"


def default_cache_dir() -> Path:
    """Return the download directory used when no data directory is given.

    Returns
    -------
    pathlib.Path
        ``~/.cache/dpsvm`` (it is not created here).

    Examples
    --------
    >>> default_cache_dir().name
    'dpsvm'
    """
    return Path.home() / ".cache" / "dpsvm"


def _fallback_dirs() -> list[tuple[Path, str]]:
    return [
        (
            (Path.cwd() / ".." / "shared" / "datasets").resolve(),
            "../shared/datasets from the working directory",
        ),
        (_repo_shared_dir(), "shared/datasets next to the repository"),
    ]


def data_dir_candidates(
    data_dir: str | os.PathLike[str] | None = None,
) -> list[tuple[Path, str]]:
    """List the directories :func:`resolve_data_dir` considers, in order.

    Parameters
    ----------
    data_dir : str or path-like, optional
        An explicit directory; when given it is the only candidate.

    Returns
    -------
    list of (pathlib.Path, str)
        Each candidate directory with a short note on where it came from. The
        explicit argument and the environment variable are listed whether or not
        they exist; the two ``shared/datasets`` fallbacks are listed always, and
        :func:`resolve_data_dir` uses them only when they exist.

    Examples
    --------
    >>> [note for _, note in data_dir_candidates("/data")]
    ['data_dir argument']
    """
    if data_dir is not None:
        return [(Path(data_dir).expanduser(), "data_dir argument")]
    out: list[tuple[Path, str]] = []
    env = os.environ.get(DATA_ENV_VAR, "")
    if env:
        out.append((Path(env).expanduser(), f"${DATA_ENV_VAR}"))
    return out + _fallback_dirs()


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Choose the directory that dataset loaders read from.

    Parameters
    ----------
    data_dir : str or path-like, optional
        An explicit directory. It is returned as given (after ``~`` expansion),
        whether or not it exists, so that a loader can report exactly where it
        looked.

    Returns
    -------
    pathlib.Path or None
        The argument if given; else ``$DPSVM_DATA`` if set and non-empty
        (whether or not it exists); else ``../shared/datasets`` relative to the
        working directory if it exists; else ``shared/datasets`` next to the
        repository checkout if it exists; else ``None``.

    Examples
    --------
    >>> resolve_data_dir("/some/where").as_posix()
    '/some/where'
    """
    if data_dir is not None:
        return Path(data_dir).expanduser()
    env = os.environ.get(DATA_ENV_VAR, "")
    if env:
        return Path(env).expanduser()
    for path, _ in _fallback_dirs():
        if path.is_dir():
            return path
    return None


def _candidates(directory: Path, subfolder: str, name: str) -> list[Path]:
    # A file may sit in the data set's subfolder or directly in the directory,
    # plain or gzipped.
    return [
        directory / subfolder / name,
        directory / subfolder / f"{name}.gz",
        directory / name,
        directory / f"{name}.gz",
    ]


def locate_files(
    data_dir: str | os.PathLike[str] | None,
    names: Sequence[str],
    subfolder: str,
) -> tuple[dict[str, Path | None], list[Path], Path]:
    """Find each named file; return them, the paths tried and the download dir.

    Looks in ``data_dir`` (or the resolved default) and, when no directory was
    named, in the download cache; below each directory a file may be in
    ``subfolder`` or directly in the directory, plain or gzipped.
    """
    resolved = resolve_data_dir(data_dir)
    dirs: list[Path] = [] if resolved is None else [resolved]
    explicit = data_dir is not None or bool(os.environ.get(DATA_ENV_VAR))
    cache = default_cache_dir()
    if not explicit and cache not in dirs:
        # Where download=True puts the files when no directory was named.
        dirs.append(cache)
    tried: list[Path] = []
    found: dict[str, Path | None] = {}
    for name in names:
        found[name] = None
        for d in dirs:
            for p in _candidates(d, subfolder, name):
                tried.append(p)
                if found[name] is None and p.is_file():
                    found[name] = p
    target = (resolved if explicit and resolved is not None else cache) / subfolder
    return found, tried, target


@dataclass(frozen=True)
class DataFiles:
    """The files of one data set and how a loader finds or downloads them.

    Attributes
    ----------
    title : str
        The data set's name in error messages (``"UCI Adult"``).
    names : tuple of str
        The file names, plain (a ``.gz`` copy is accepted too).
    subfolder : str
        The data set's folder below a data directory; downloads go there.
    loader : str
        The public loader's name, for the message on missing files.
    download_note : str
        Where a download comes from and how it is verified, for that message.
    fetch : callable
        ``fetch(name, target_dir)`` downloads one file, verifies it and returns
        its path.
    """

    title: str
    names: tuple[str, ...]
    subfolder: str
    loader: str
    download_note: str
    fetch: Callable[[str, Path], Path]

    def missing_message(
        self,
        data_dir: str | os.PathLike[str] | None,
        missing: list[str],
        tried: list[Path],
    ) -> str:
        """The error text for files that were not found: where, and what to do."""
        searched = "\n".join(f"  - {p}" for p in tried)
        order = "\n".join(
            f"  - {p} ({note})" for p, note in data_dir_candidates(data_dir)
        )
        article = "an" if self.subfolder[:1] in tuple("aeiou") else "a"
        return (
            f"{self.title} file(s) not found: {', '.join(missing)}.\n"
            f"Searched:\n{searched}\n"
            f"Data-directory candidates, in order of preference:\n{order}\n"
            "To fix this, do one of:\n"
            f"  - pass data_dir=<directory containing {' and '.join(self.names)} "
            f"(plain or .gz, directly or in {article} '{self.subfolder}/' "
            "subfolder)>;\n"
            f"  - set the environment variable {DATA_ENV_VAR} to such a directory;\n"
            f"  - call {self.loader}(download=True) where a network is available "
            f"({self.download_note})."
        )

    def resolve(
        self, data_dir: str | os.PathLike[str] | None, download: bool
    ) -> dict[str, Path]:
        """Every file's path, downloading the missing ones if ``download``.

        Raises :class:`FileNotFoundError` (naming the places searched and the
        remedies) when a file is missing and ``download`` is false.
        """
        found, tried, target = locate_files(data_dir, self.names, self.subfolder)
        missing = [name for name, p in found.items() if p is None]
        if missing and not download:
            raise FileNotFoundError(self.missing_message(data_dir, missing, tried))
        return {
            name: self.fetch(name, target) if p is None else p
            for name, p in found.items()
        }


def merge_unknown_categories(
    parts: Iterable[dict[str, dict[str, int]]],
) -> dict[str, dict[str, int]]:
    """Sum per-column counts of unknown category values over several files."""
    unknown: dict[str, dict[str, int]] = {}
    for part in parts:
        for col, vals in part.items():
            dst = unknown.setdefault(col, {})
            for v, k in vals.items():
                dst[v] = dst.get(v, 0) + k
    return unknown
