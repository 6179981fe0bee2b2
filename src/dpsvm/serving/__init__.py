# SPDX-License-Identifier: BSD-3-Clause
"""Private prediction over HTTP (Open Inference Protocol v2), optional extra.

Install with ``pip install 'dpsvm[service]'`` and start with ``dpsvm serve``
(see ``docs/serving.md``). The server trains (or loads) a model, keeps the
non-private parts in its own memory, and answers each query with a
differentially private mechanism; every answer's spend and the mechanism's
state are committed to a durable ledger (:class:`Ledger`, SQLite or any
SQLAlchemy database) before the answer is sent.
"""

from __future__ import annotations

from ._app import create_app
from ._keys import ApiKey, ApiKeys, KeyFileError
from ._ledger import Ledger, LedgerError, LedgerState
from ._models import (
    Answers,
    InputSpec,
    InteractivePredictor,
    ReleasedModel,
    ServedModel,
)

__all__ = [
    "Answers",
    "ApiKey",
    "ApiKeys",
    "InputSpec",
    "InteractivePredictor",
    "KeyFileError",
    "Ledger",
    "LedgerError",
    "LedgerState",
    "ReleasedModel",
    "ServedModel",
    "create_app",
]
