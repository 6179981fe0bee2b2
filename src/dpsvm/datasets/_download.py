# SPDX-License-Identifier: BSD-3-Clause
"""Checksum-verified, atomic file download (standard library only).

A download is streamed into a temporary file in the destination directory while
its MD5 and SHA-256 digests are computed. Only when every expected digest matches
is the temporary file moved into place with :func:`os.replace` (atomic on POSIX
and Windows for paths on the same file system); otherwise it is deleted and
:class:`ChecksumMismatchError` is raised. A reader therefore never sees a partial
or corrupt file under the final name.

The test suite never calls the network: it exercises this module with ``file://``
URLs and a substituted ``opener``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["ChecksumMismatchError", "download_file", "file_digests"]

_CHUNK = 1 << 16
_ALLOWED_SCHEMES = frozenset({"https", "http", "file"})

Opener = Callable[[str, float], IO[bytes]]


class ChecksumMismatchError(OSError):
    """A downloaded file did not have the published checksum; it was deleted."""


def file_digests(path: str | os.PathLike[str]) -> dict[str, str]:
    """Return the MD5 and SHA-256 hex digests of a local file.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    dict
        ``{"md5": ..., "sha256": ...}``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "x"
    ...     _ = p.write_bytes(b"abc")
    ...     file_digests(p)["md5"]
    '900150983cd24fb0d6963f7d28e17f72'
    """
    md5, sha = hashlib.md5(usedforsecurity=False), hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            md5.update(chunk)
            sha.update(chunk)
    return {"md5": md5.hexdigest(), "sha256": sha.hexdigest()}


def _default_opener(url: str, timeout: float) -> IO[bytes]:
    # The scheme is checked by the caller (https, http or file only).
    return urllib.request.urlopen(url, timeout=timeout)


def download_file(
    url: str,
    dest: str | os.PathLike[str],
    *,
    md5: str | None = None,
    sha256: str | None = None,
    timeout: float = 60.0,
    opener: Opener | None = None,
) -> Path:
    """Download ``url`` to ``dest``, verifying checksums, writing atomically.

    Parameters
    ----------
    url : str
        An ``https``, ``http`` or ``file`` URL.
    dest : str or path-like
        The final path. Its parent directory is created if needed.
    md5, sha256 : str, optional
        Expected hex digests (case-insensitive). Every digest given must match.
    timeout : float, default=60.0
        Network timeout in seconds, passed to the opener.
    opener : callable, optional
        ``opener(url, timeout)`` returning a binary file-like object; defaults to
        :func:`urllib.request.urlopen`. Tests substitute it.

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    ValueError
        If the URL scheme is not https, http or file.
    ChecksumMismatchError
        If a digest does not match; nothing is left at ``dest`` or in the
        temporary file.
    OSError
        If the transfer fails (the temporary file is removed).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     src = pathlib.Path(d) / "src.txt"
    ...     _ = src.write_bytes(b"abc")
    ...     out = download_file(src.as_uri(), pathlib.Path(d) / "out" / "x.txt",
    ...                         md5="900150983cd24fb0d6963f7d28e17f72")
    ...     out.read_bytes()
    b'abc'
    """
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in _ALLOWED_SCHEMES:
        raise ValueError(
            f"Refusing to download from {url!r}: only https, http and file URLs "
            "are supported."
        )
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    open_url = _default_opener if opener is None else opener
    h_md5, h_sha = hashlib.md5(usedforsecurity=False), hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{dest.name}.", suffix=".part", dir=dest.parent
    )
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, open_url(url, timeout) as response:
            while chunk := response.read(_CHUNK):
                h_md5.update(chunk)
                h_sha.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        got = {"md5": h_md5.hexdigest(), "sha256": h_sha.hexdigest()}
        expected = {"md5": md5, "sha256": sha256}
        bad = [
            f"{name}: expected {want.lower()}, got {got[name]}"
            for name, want in expected.items()
            if want is not None and want.lower() != got[name]
        ]
        if bad:
            raise ChecksumMismatchError(
                f"Checksum mismatch for {url} (the download was deleted; the file "
                "may be corrupt or the source may have changed): " + "; ".join(bad)
            )
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest
