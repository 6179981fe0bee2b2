# SPDX-License-Identifier: BSD-3-Clause
"""Property-based conformance of the service to its own OpenAPI document.

schemathesis generates requests from ``/openapi.json`` (with the API key) and
drives the ASGI app in process: no answer may be a 5xx, and every answer must
agree with the document (status code documented, content type, body schema,
headers; a 405 carries ``Allow``; no key is a 401). Both schema-valid
(positive) and schema-invalid (negative) requests are generated; a negative one
must be refused. Only ``positive_data_acceptance`` is left out: a JSON schema
cannot say that a query row has exactly the model's ``d`` finite values, so a
schema-valid request may still be a 422 (documented) — never a 5xx.
``DPSVM_SCHEMATHESIS_EXAMPLES`` sets the examples per operation and mode
(default 8: a few seconds).
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
schemathesis = pytest.importorskip("schemathesis")

from _service_helpers import (  # noqa: E402
    KEY,
    StatefulDouble,
    make_keys,
    make_ledger,
    make_served,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.generation.modes import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402

from dpsvm.serving import create_app  # noqa: E402

EXAMPLES = int(os.environ.get("DPSVM_SCHEMATHESIS_EXAMPLES", "8"))


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_5xx_and_no_answer_contradicts_the_schema(tmp_path, mode):
    # A large budget so that most generated infer requests are answered (200).
    served = make_served(StatefulDouble(total=1e9, eps_q=0.01))
    ledger = make_ledger(str(tmp_path / "ledger.db"), served)
    app = create_app(served, ledger, make_keys(), max_batch=64)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    statuses: dict[int, int] = {}
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        # The served model's name and version in most requests (a random name
        # is a 404 and never reaches the body's validation), any in the rest.
        fixed = {
            k: v
            for k, v in (("name", "dpsvm"), ("version", "1"))
            if f"{{{k}}}" in operation.path
        }
        strategy = operation.as_strategy(generation_mode=mode)
        if fixed:
            strategy = st.one_of(
                strategy,
                operation.as_strategy(generation_mode=mode, path_parameters=fixed),
                operation.as_strategy(generation_mode=mode, path_parameters=fixed),
                operation.as_strategy(generation_mode=mode, path_parameters=fixed),
            )

        @given(case=strategy)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        def check(case):
            response = case.call_and_validate(
                headers={"Authorization": f"Bearer {KEY}"},
                excluded_checks=[positive_data_acceptance],
            )
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

        try:
            check()
        except Unsatisfiable:
            # No schema-invalid request exists (no parameters, or only
            # string path parameters): nothing to check in negative mode.
            assert mode is GenerationMode.NEGATIVE
    ledger.dispose()
    n = sum(statuses.values())
    print(f"{mode}: {operations} operations, {n} requests, statuses {statuses}")
    assert operations >= 12
    assert all(s < 500 for s in statuses)
