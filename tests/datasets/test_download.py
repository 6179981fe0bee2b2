# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the checksum-verified atomic downloader (never uses the network)."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest

from dpsvm.datasets._download import (
    ChecksumMismatchError,
    download_file,
    file_digests,
)

PAYLOAD = b"39, State-gov, 77516\n" * 5000  # 105 kB: more than one 64 KiB chunk


def _source(tmp_path: Path, data: bytes = PAYLOAD) -> Path:
    src = tmp_path / "src" / "remote.bin"
    src.parent.mkdir()
    src.write_bytes(data)
    return src


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def test_good_checksums_write_file(tmp_path: Path) -> None:
    src = _source(tmp_path)
    dest = tmp_path / "out" / "sub" / "adult.data"
    got = download_file(
        src.as_uri(),
        dest,
        md5=hashlib.md5(PAYLOAD).hexdigest(),
        sha256=hashlib.sha256(PAYLOAD).hexdigest().upper(),  # case-insensitive
    )
    assert got == dest
    assert dest.read_bytes() == PAYLOAD
    assert _leftovers(dest.parent) == ["adult.data"]  # no temporary file left


@pytest.mark.parametrize("which", ["md5", "sha256"])
def test_checksum_mismatch_leaves_nothing(tmp_path: Path, which: str) -> None:
    src = _source(tmp_path)
    dest = tmp_path / "out" / "adult.data"
    good = {
        "md5": hashlib.md5(PAYLOAD).hexdigest(),
        "sha256": hashlib.sha256(PAYLOAD).hexdigest(),
    }
    good[which] = "0" * len(good[which])
    with pytest.raises(ChecksumMismatchError, match=f"{which}: expected 0+, got"):
        download_file(src.as_uri(), dest, md5=good["md5"], sha256=good["sha256"])
    assert _leftovers(dest.parent) == []


def test_mismatch_keeps_previous_file(tmp_path: Path) -> None:
    # Atomicity: a failed download never replaces (or truncates) an existing file.
    src = _source(tmp_path)
    dest = tmp_path / "out" / "adult.data"
    dest.parent.mkdir()
    dest.write_bytes(b"old")
    with pytest.raises(ChecksumMismatchError):
        download_file(src.as_uri(), dest, md5="f" * 32)
    assert dest.read_bytes() == b"old"
    assert _leftovers(dest.parent) == ["adult.data"]


class _Broken(io.BytesIO):
    """A response that fails after the first chunk."""

    def read(self, size: int | None = -1) -> bytes:
        if self.tell() > 0:
            raise ConnectionResetError("connection dropped")
        return super().read(10)


def test_transfer_error_cleans_up(tmp_path: Path) -> None:
    dest = tmp_path / "out" / "adult.data"
    with pytest.raises(ConnectionResetError):
        download_file(
            "https://example.invalid/adult.data",
            dest,
            opener=lambda url, timeout: _Broken(PAYLOAD),
        )
    assert _leftovers(dest.parent) == []


def test_monkeypatched_opener_receives_url_and_timeout(tmp_path: Path) -> None:
    seen: list[tuple[str, float]] = []

    def opener(url: str, timeout: float) -> io.BytesIO:
        seen.append((url, timeout))
        return io.BytesIO(PAYLOAD)

    dest = download_file(
        "https://example.invalid/a",
        tmp_path / "a",
        sha256=hashlib.sha256(PAYLOAD).hexdigest(),
        timeout=5.0,
        opener=opener,
    )
    assert seen == [("https://example.invalid/a", 5.0)]
    assert dest.read_bytes() == PAYLOAD


@pytest.mark.parametrize("url", ["ftp://host/x", "javascript:alert(1)", "/just/path"])
def test_rejects_other_schemes(tmp_path: Path, url: str) -> None:
    with pytest.raises(ValueError, match="only https, http and file"):
        download_file(url, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_file_digests_known_answer(tmp_path: Path) -> None:
    p = tmp_path / "f"
    p.write_bytes(b"")
    # Digests of the empty string (RFC 1321 test suite; FIPS 180-2 example).
    assert file_digests(p) == {
        "md5": "d41d8cd98f00b204e9800998ecf8427e",
        "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    }
