# SPDX-License-Identifier: BSD-3-Clause
"""Shared fixtures of the CLI tests."""

from __future__ import annotations

import pytest

from dpsvm.cli import main


@pytest.fixture
def run(capsys):
    """Run ``dpsvm ARGV...`` in-process; return (exit code, stdout, stderr)."""

    def _run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run
