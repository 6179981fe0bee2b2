# SPDX-License-Identifier: BSD-3-Clause
"""API keys: read from a file, kept as SHA-256 digests, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass

__all__ = ["ApiKey", "ApiKeys", "KeyFileError"]

#: Shortest key accepted: 16 characters (e.g. ``secrets.token_urlsafe(16)`` gives 22).
MIN_KEY_LENGTH = 16


class KeyFileError(ValueError):
    """An API key file that cannot be used (the message names the line)."""


@dataclass(frozen=True)
class ApiKey:
    """One client key as the server keeps it: a digest, never the key itself.

    Attributes
    ----------
    key_id : str
        The first 16 hex digits of the key's SHA-256: the name under which the
        ledger counts this key's answers (not enough to recover the key).
    digest : bytes
        The full SHA-256 digest of the key.
    max_answers : int or None
        The most answers (query rows) this key may receive, or ``None``.
    """

    key_id: str
    digest: bytes
    max_answers: int | None


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


class ApiKeys:
    """The set of accepted API keys, stored hashed.

    Parameters
    ----------
    entries : list of (str, int or None)
        Each key with its optional limit on answered query rows.

    Notes
    -----
    The keys themselves are not kept: each is replaced by its SHA-256 digest,
    and a presented key is hashed and compared with every stored digest with
    :func:`hmac.compare_digest` (constant time per comparison, and all digests
    are compared, so the time does not say which key matched). Keys are random
    strings of at least 16 characters, so an unsalted hash does not help
    guessing them.
    """

    def __init__(self, entries: list[tuple[str, int | None]]) -> None:
        keys = []
        for key, limit in entries:
            d = _digest(key)
            keys.append(ApiKey(d.hex()[:16], d, limit))
        if len({k.digest for k in keys}) != len(keys):
            raise KeyFileError("the API key file lists the same key twice")
        self._keys = tuple(keys)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ApiKeys:
        """Read an API key file.

        Parameters
        ----------
        path : str or path-like
            One key per line, optionally followed by whitespace and the most
            query rows that key may have answered (``KEY 1000``). Blank lines
            and lines starting with ``#`` are skipped.

        Returns
        -------
        ApiKeys
            The hashed keys.

        Raises
        ------
        KeyFileError
            For an empty file, a key shorter than 16 characters, a bad limit or a
            repeated key (the message names the line, never the key).
        OSError
            If the file cannot be read.
        """
        name = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        entries: list[tuple[str, int | None]] = []
        for i, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) > 2:
                raise KeyFileError(
                    f"{name}, line {i}: expected 'KEY' or 'KEY MAX_ANSWERS'"
                )
            if len(parts[0]) < MIN_KEY_LENGTH:
                raise KeyFileError(
                    f"{name}, line {i}: API keys must have at least "
                    f"{MIN_KEY_LENGTH} characters (use e.g. "
                    "`python -c 'import secrets; print(secrets.token_urlsafe(24))'`)"
                )
            limit: int | None = None
            if len(parts) == 2:
                try:
                    limit = int(parts[1])
                except ValueError:
                    limit = -1
                if limit < 0:
                    raise KeyFileError(
                        f"{name}, line {i}: MAX_ANSWERS must be an integer >= 0"
                    )
            entries.append((parts[0], limit))
        if not entries:
            raise KeyFileError(f"{name}: no API key in the file")
        return cls(entries)

    def __len__(self) -> int:
        return len(self._keys)

    def authenticate(self, presented: str | None) -> ApiKey | None:
        """The stored key matching ``presented``, or ``None``.

        Parameters
        ----------
        presented : str or None
            The key sent by a client.

        Returns
        -------
        ApiKey or None
            The match, compared in constant time against every stored digest.
        """
        if not presented:
            return None
        d = _digest(presented)
        found = None
        for key in self._keys:
            if hmac.compare_digest(key.digest, d):
                found = key
        return found
