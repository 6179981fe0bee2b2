# SPDX-License-Identifier: BSD-3-Clause
"""The ``dpsvm`` command-line tool (``dpsvm demo|train|predict|evaluate``).

Run ``dpsvm --help`` (or ``python -m dpsvm.cli --help``) for the options. Models
are written in the JSON format of :mod:`dpsvm.io`.
"""

from __future__ import annotations

from ._main import main

__all__ = ["main"]
