# SPDX-License-Identifier: BSD-3-Clause
"""Private prediction over HTTP (Open Inference Protocol v2), optional extra.

Install with ``pip install 'dpsvm[service]'`` and start with ``dpsvm serve``
(see ``docs/serving.md``). By default the server releases one private model,
charged once to a durable ledger together with the model
(:func:`release_once`), and answers for free. The interactive mechanisms keep
the non-private parts in the server's own memory and answer each query with a
differentially private mechanism; every answer's spend and the mechanism's
state are committed to the ledger (:class:`Ledger`, SQLite or any SQLAlchemy
database) before the answer is sent.
"""

from __future__ import annotations

from ._app import create_app
from ._keys import ApiKey, ApiKeys, KeyFileError
from ._ledger import Ledger, LedgerError, LedgerState
from ._logging import configure_logging
from ._models import (
    Answers,
    InputSpec,
    InteractivePredictor,
    ReleasedModel,
    ServedModel,
)
from ._release import model_from_json, model_to_json, release_once

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
    "configure_logging",
    "create_app",
    "model_from_json",
    "model_to_json",
    "release_once",
]
