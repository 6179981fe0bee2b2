# SPDX-License-Identifier: BSD-3-Clause
"""``python -m dpsvm.cli``: the same as the ``dpsvm`` console script."""

from __future__ import annotations

from ._main import main

if __name__ == "__main__":
    raise SystemExit(main())
