# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the service tests (skipped without the [service] extra)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from _service_helpers import make_keys, make_ledger, make_served
from fastapi.testclient import TestClient

from dpsvm.serving import create_app


@pytest.fixture
def service(tmp_path):
    """(client, served, ledger path) for a fresh SQLite ledger."""
    served = make_served()
    path = str(tmp_path / "ledger.db")
    ledger = make_ledger(path, served)
    app = create_app(served, ledger, make_keys(), max_batch=64)
    with TestClient(app) as client:
        yield client, served, path
    ledger.dispose()
