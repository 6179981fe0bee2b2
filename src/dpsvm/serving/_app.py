# SPDX-License-Identifier: BSD-3-Clause
"""The FastAPI application: Open Inference Protocol v2 over a private predictor."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

import numpy as np
from fastapi import Depends, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from .. import __version__
from ..exceptions import BudgetExceededError
from ._fastpath import compile_schema_transform
from ._inputs import INPUT_NAME, MAX_NESTING, InputError, parse_inputs
from ._keys import ApiKey, ApiKeys
from ._ledger import Ledger, LedgerState
from ._logging import request_record
from ._metrics import instrument, ready_response
from ._models import ReleasedModel, ServedModel
from ._protocol import (
    HEADER_LENGTH,
    OUTPUT_NAME,
    ErrorBody,
    InferRequest,
    ParsedRequest,
    decode_request,
    encode_response,
    request_hash,
)

__all__ = ["create_app"]

#: Default limits of one request.
MAX_BATCH = 1024
MAX_BODY_BYTES = 8 * 1024 * 1024


class ServiceError(Exception):
    """An error answered as ``{"error": message}`` with an HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ------------------------------------------------------------ request bodies
async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, or a 413 when it is larger than ``limit`` bytes.

    Called only after the API key is checked, so an unauthenticated request
    never has its body read. An oversized body is drained (up to a bound) so
    that the client reads the 413 instead of a connection reset.
    """
    message = (
        f"the request body is larger than {limit} bytes; send fewer rows per request"
    )
    declared = request.headers.get("content-length")
    too_big = declared is not None and (
        not declared.strip().isdigit() or int(declared) > limit
    )
    chunks: list[bytes] = []
    seen = 0
    more = True
    while more and not too_big:
        msg = await request.receive()
        if msg["type"] == "http.disconnect":
            raise ServiceError(400, "the client closed the connection")
        chunk = msg.get("body", b"")
        seen += len(chunk)
        too_big = seen > limit
        chunks.append(chunk)
        more = bool(msg.get("more_body", False))
    if too_big:
        while more and seen <= 8 * limit + (1 << 20):
            msg = await request.receive()
            seen += len(msg.get("body", b""))
            more = msg["type"] != "http.disconnect" and msg.get("more_body", False)
        raise ServiceError(413, message)
    return b"".join(chunks)


def _datatype(labels: np.ndarray) -> tuple[str, list[Any]]:
    kind = labels.dtype.kind
    if kind == "b":
        return "BOOL", [bool(v) for v in labels]
    if kind in "iu":
        return "INT64", [int(v) for v in labels]
    if kind == "f":
        return "FP64", [float(v) for v in labels]
    return "BYTES", [str(v) for v in labels]


#: Most charges committed in one transaction.
_GROUP = 256


@dataclasses.dataclass(eq=False)
class _Job:
    """One validated infer request waiting for its charge."""

    key: ApiKey
    X: np.ndarray
    rows: int
    request_id: str
    retry: bool
    request_hash: str
    #: Its access-log record (rows, ε charged, refusal reason).
    record: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: time.monotonic() after which it is refused (503), unless its mechanism
    #: has already run: then its charge commits whatever the client does.
    deadline: float | None = None
    #: A post-processing model's labels and output tensor, computed before
    #: the lock (the answering lock then only counts and records them).
    labels: np.ndarray | None = None
    output: tuple[str, list[Any]] | None = None
    #: Set when the job is answered (``answered``), or when its thread is
    #: asked to lead the next group.
    wake: threading.Event = dataclasses.field(default_factory=threading.Event)
    answered: bool = False
    response: dict[str, Any] | None = None
    error: BaseException | None = None


class _Service:
    """The served model, its ledger and the lock that serialises answers."""

    def __init__(
        self,
        served: ServedModel,
        ledger: Ledger,
        keys: ApiKeys,
        max_batch: int,
        request_timeout: float | None = None,
    ) -> None:
        self.request_timeout = request_timeout
        #: Whether the budget was exhausted at the last readiness check.
        self.last_exhausted: bool | None = None
        self.served = served
        self.ledger = ledger
        self.keys = keys
        self.max_batch = max_batch
        self.lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Job] = []
        #: Whether a thread is leading (answering the queue); see _submit.
        self._leading = False
        state = ledger.open(served.predictor.state_dict())
        self.version = state.version
        if state.version > 0:
            # A restart: the ledger's spend and (server-secret) state are the truth.
            served.predictor.load_state_dict(state.state)
        classes = np.asarray(served.classes)
        self.label_datatype = _datatype(classes)[0]
        # The schema transform as numpy operations on the parsed rows (checked
        # bit for bit against the transformer at compile time), or None.
        spec = served.inputs
        compiled = compile_schema_transform(spec.transform)
        if compiled is not None and compiled.width != spec.width:
            compiled = None
        self._features = compiled if compiled is not None else spec.features

    # ----------------------------------------------------------- answering
    def infer(self, body: ParsedRequest, key: ApiKey) -> dict[str, Any]:
        try:
            raw = parse_inputs(body.inputs, self.served.inputs, self.max_batch)
            X = self._features(raw)
        except InputError as exc:
            raise ServiceError(422, str(exc)) from None
        except (ValueError, TypeError, OverflowError) as exc:  # the transform refused
            raise ServiceError(422, f"input: {exc}") from None
        record = request_record()
        job = _Job(
            key=key,
            X=X,
            rows=int(X.shape[0]),
            # The access record's fresh id (one random draw per request).
            request_id=body.id
            if body.id is not None
            else record.get("request_id") or uuid.uuid4().hex,
            retry=body.id is not None,
            request_hash=request_hash(body, raw),
            record=record,
            deadline=None
            if self.request_timeout is None
            else time.monotonic() + self.request_timeout,
        )
        record["request_id"] = job.request_id
        predictor = self.served.predictor
        if self.served.free and isinstance(predictor, ReleasedModel):
            # Post-processing of a released model: nothing private depends on
            # when it runs, so its prediction is made here, outside the lock.
            job.labels = np.asarray(predictor.labels(X))
            job.output = _datatype(job.labels)
        return self._submit(job)

    def _submit(self, job: _Job) -> dict[str, Any]:
        """Queue a charge; one leader thread at a time commits the queue as one.

        Group commit: the leader takes ``self.lock`` and answers every queued
        job (up to ``_GROUP``) in order inside ONE ledger transaction and
        commits once (one fsync for the group), then wakes each job's thread
        with its answer. No answer is handed out before the commit, so the
        guarantees are those of one charge per transaction; only the cost of
        the fsync is shared.

        Leader and followers: the thread that finds no leader leads; the
        others sleep on their job's event. After its group a leader hands
        the lead to the thread of the oldest job still queued (whose job is
        then in the next group) and returns with its own answer. Waiting
        threads are woken once, together, instead of queueing on the lock one
        after another.
        """
        with self._queue_lock:
            self._queue.append(job)
            lead = not self._leading
            self._leading = True
        if not lead:
            job.wake.wait()
            lead = not job.answered  # woken to lead the next group
        if lead:
            self._lead()
        if job.error is not None:
            raise job.error
        assert job.response is not None
        return job.response

    def _lead(self) -> None:
        """Answer one group, then hand the lead on (or give it up)."""
        try:
            with self._queue_lock:
                group, self._queue = self._queue[:_GROUP], self._queue[_GROUP:]
            with self.lock:
                self._charge(group)
        finally:
            with self._queue_lock:
                if self._queue:
                    self._queue[0].wake.set()  # not answered: it leads next
                else:
                    self._leading = False

    def _charge(self, group: list[_Job]) -> None:
        predictor = self.served.predictor
        before: dict[str, Any] | None = None
        try:
            with self.ledger.transaction() as txn:
                state = txn.state()
                self._sync(state)
                before = predictor.state_dict()
                for job in group:
                    try:
                        job.response, state = self._answer(txn, state, job)
                    except ServiceError as exc:  # raised before any change
                        job.error = exc
            # Committed: only now may the answers leave the process.
            self.version = state.version
        except BaseException as exc:
            if before is not None:
                # Not committed: no answer is sent, so the mechanism goes back
                # to its committed state.
                predictor.load_state_dict(before)
            for job in group:
                job.response, job.error = None, exc
        finally:
            for job in group:
                job.answered = True
                job.wake.set()

    def _answer(
        self, txn: Any, state: LedgerState, job: _Job
    ) -> tuple[dict[str, Any], LedgerState]:
        """Answer one job inside the group's transaction; (response, new row)."""
        predictor = self.served.predictor
        key = job.key
        if job.deadline is not None and time.monotonic() > job.deadline:
            # Before its mechanism runs, so the refusal depends on timing only.
            job.record["reason"] = "deadline"
            raise ServiceError(
                503,
                f"not answered within {self.request_timeout:g} s (server busy); "
                "nothing was spent; retry",
            )
        if job.retry:
            stored = txn.lookup(key.key_id, job.request_id)
            if stored is not None:
                if stored.request_hash != job.request_hash:
                    raise ServiceError(
                        409,
                        f"request id {job.request_id!r} was already used with "
                        "other inputs; use a new id",
                    )
                job.record.update(rows=job.rows, epsilon=0.0, delta=0.0, replay=True)
                return stored.response, state
        if key.max_answers is not None:
            used = txn.key_answers(key.key_id)
            if used + job.rows > key.max_answers:
                job.record["reason"] = "key_limit"
                raise ServiceError(
                    429,
                    f"this API key may receive {key.max_answers} answers and has "
                    f"{key.max_answers - used} left; the batch has {job.rows} rows",
                )
        if predictor.budget_exhausted:
            raise ServiceError(429, self._exhausted_message(state))
        if job.labels is not None and job.output is not None:  # made outside
            assert isinstance(predictor, ReleasedModel)
            labels = job.labels
            predictor.count_answers(job.rows)
            datatype, data = job.output
        else:
            try:
                answers = predictor.answer(job.X)
            except BudgetExceededError as exc:  # refused before answering
                raise ServiceError(429, f"privacy budget exhausted: {exc}") from None
            labels = np.asarray(answers.labels)
            datatype, data = _datatype(labels)
        response = {
            "id": job.request_id,
            "model_name": self.served.name,
            "outputs": [
                {
                    "name": OUTPUT_NAME,
                    "shape": [int(labels.shape[0])],
                    "datatype": datatype,
                    "data": data,
                }
            ],
            "parameters": {"budget_exhausted": bool(predictor.budget_exhausted)},
        }
        new = txn.record(
            state,
            key_id=key.key_id,
            request_id=job.request_id,
            request_hash=job.request_hash,
            response=response,
            rows=job.rows,
            epsilon_spent=predictor.spent_epsilon,
            delta_spent=predictor.spent_delta,
            state=predictor.state_dict(),
        )
        job.record.update(
            rows=job.rows,
            epsilon=new.epsilon_spent - state.epsilon_spent,
            delta=new.delta_spent - state.delta_spent,
        )
        return response, new

    def _sync(self, state: LedgerState) -> None:
        """Load the ledger's state if another replica answered since."""
        if state.version != self.version:
            self.served.predictor.load_state_dict(state.state)
            self.version = state.version

    def _exhausted_message(self, state: LedgerState) -> str:
        return (
            "privacy budget exhausted: this model has spent epsilon = "
            f"{state.epsilon_spent:g} of {self.ledger.epsilon_total:g} (delta = "
            f"{state.delta_spent:g} of {self.ledger.delta_total:g}) on "
            f"{state.answers} answers and answers no more queries"
        )

    # -------------------------------------------------------------- reading
    def budget(self, key: ApiKey) -> dict[str, Any]:
        served = self.served
        predictor = served.predictor
        out: dict[str, Any] = {
            "model_name": served.name,
            "mechanism": served.mechanism,
            "epsilon_total": self.ledger.epsilon_total,
            "delta_total": self.ledger.delta_total,
        }
        if served.free:
            state = self.ledger.snapshot()
            out.update(
                # What the release spent (once, when the model was trained).
                epsilon_spent=float(predictor.spent_epsilon),
                delta_spent=float(predictor.spent_delta),
                answers=state.answers,
                answers_remaining=None,  # unlimited: post-processing
                post_processing=True,
                exhausted=False,
                note=self._free_note(),
            )
        else:
            with self.lock:
                # The mechanism in the ledger's committed state (another
                # replica may have answered since): its own rule says whether
                # it can answer more, never a comparison of ε alone (PINP
                # charges its whole ε at the first answer and then answers T).
                state = self.ledger.snapshot()
                self._sync(state)
                exhausted = bool(predictor.budget_exhausted)
            eps_left = max(0.0, self.ledger.epsilon_total - state.epsilon_spent)
            delta_left = max(0.0, self.ledger.delta_total - state.delta_spent)
            # T, the number of answers the budget was planned for (if declared).
            limit = getattr(predictor, "n_queries", None)
            remaining = getattr(predictor, "answers_remaining", None)
            if exhausted:
                out["answers_remaining"] = 0
            elif isinstance(remaining, int):  # a mechanism that states its reach
                out["answers_remaining"] = remaining
            elif isinstance(limit, int):
                out["answers_remaining"] = max(0, limit - state.answers)
            out.update(
                epsilon_spent=state.epsilon_spent,
                delta_spent=state.delta_spent,
                epsilon_remaining=eps_left,
                delta_remaining=delta_left,
                answers=state.answers,
                post_processing=False,
                exhausted=exhausted,
            )
        out["key_answers"] = self.ledger.key_answers(key.key_id)
        out["key_max_answers"] = key.max_answers
        return out

    def _free_note(self) -> str:
        if self.served.mechanism == "model":
            return (
                "this service released one model with differential privacy at its "
                "first start (epsilon_spent, delta_spent: that release, charged "
                "once to the ledger together with the model); every answer is "
                "post-processing of it: free and unlimited"
            )
        return (
            "this model was released with differential privacy when it was "
            "trained (the totals are that release's budget, spent once); its "
            "answers are post-processing and cost no privacy budget"
        )

    def metadata(self) -> dict[str, Any]:
        served = self.served
        spec = served.inputs
        classes = _datatype(np.asarray(served.classes))[1]
        return {
            "name": served.name,
            "versions": ["1"],
            "platform": "dpsvm",
            "inputs": [
                {
                    "name": INPUT_NAME,
                    "datatype": "BYTES" if spec.has_categorical else "FP64",
                    "shape": [-1, spec.width],
                }
            ],
            "outputs": [
                {"name": OUTPUT_NAME, "datatype": self.label_datatype, "shape": [-1]}
            ],
            "parameters": {
                "columns": list(spec.columns),
                "categorical_columns": [
                    c for c, k in zip(spec.columns, spec.categorical, strict=False) if k
                ],
                "classes": classes,
                "mechanism": served.mechanism,
                "post_processing": served.free,
                "max_batch": self.max_batch,
                **served.details,
            },
        }


#: The one version of the served model (as the metadata advertises).
MODEL_VERSION = "1"

_bearer = HTTPBearer(
    auto_error=False,
    scheme_name="bearer",
    bearerFormat="API key",
    description="An API key from the server's key file: "
    "'Authorization: Bearer <key>'. Health and the OpenAPI schema need none.",
)

_ERRORS = {
    401: "Missing or invalid API key (checked before the body is read).",
    404: "Unknown model or model version.",
    409: "A request id reused with other inputs (nothing spent).",
    413: "The request body is larger than the limit (nothing spent).",
    422: "Bad input: malformed or out-of-range values, a shape, datatype, input "
    "or output name that the model does not take, too many rows, data nested "
    f"deeper than {MAX_NESTING} lists (nothing spent).",
    429: "Privacy budget exhausted, or the API key's answer limit reached.",
    503: "The ledger is unavailable; nothing was answered.",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {c: {"model": ErrorBody, "description": _ERRORS[c]} for c in codes}


async def _authenticate(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> ApiKey:
    """The API key of a request (``Authorization: Bearer KEY``), or a 401.

    ``async``: it only hashes and compares (microseconds), so it runs on the
    event loop; FastAPI would run a plain ``def`` dependency in a worker
    thread, one more thread hand-off per request.
    """
    keys: ApiKeys = request.app.state.service.keys
    key = keys.authenticate(credentials.credentials) if credentials else None
    if key is None:
        raise ServiceError(
            401,
            "missing or invalid API key: send the header 'Authorization: Bearer <key>'",
        )
    request_record()["key_id"] = key.key_id  # the id, never the key
    return key


Authed = Annotated[ApiKey, Depends(_authenticate)]

_INFER_BODY = {
    "requestBody": {
        "required": True,
        "description": "JSON; with the binary tensor data extension, a JSON header "
        "of Inference-Header-Content-Length bytes followed by the raw tensors.",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/InferRequest"}
            }
        },
    }
}
_INFER_OK: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The answer (charged before it is sent). With binary "
        "outputs: a JSON header of Inference-Header-Content-Length bytes, then "
        "the raw tensors.",
        "content": {
            "application/octet-stream": {
                "schema": {"type": "string", "format": "binary"}
            }
        },
    }
}


def create_app(
    served: ServedModel,
    ledger: Ledger,
    keys: ApiKeys,
    *,
    max_batch: int = MAX_BATCH,
    max_body_bytes: int = MAX_BODY_BYTES,
    request_timeout: float | None = None,
) -> FastAPI:
    """Build the prediction service (Open Inference Protocol v2).

    Parameters
    ----------
    served : ServedModel
        The model and its mechanism (holds the non-private model in memory).
    ledger : Ledger
        The durable ledger bound to this model and total budget; opened here
        (a restart loads the spend and state from it).
    keys : ApiKeys
        Accepted API keys (``Authorization: Bearer KEY``).
    max_batch : int, default=1024
        The most query rows one request may have.
    max_body_bytes : int, default=8 MiB
        The largest request body (larger: HTTP 413).
    request_timeout : float, optional
        Seconds: a request whose mechanism has not started by then is refused
        (503, nothing spent). Once its mechanism has run, its charge commits
        even if the client has gone (docs/serving.md, "Operations").

    Returns
    -------
    fastapi.FastAPI
        The application; serve it with uvicorn.

    Raises
    ------
    LedgerError
        If the ledger belongs to another model, data or total budget.
    """
    service = _Service(served, ledger, keys, max_batch, request_timeout)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        ledger.dispose()  # close the database connections at shutdown

    app = FastAPI(
        lifespan=lifespan,
        title="dpsvm private prediction service",
        version=__version__,
        description="Open Inference Protocol v2 endpoints answering with "
        "differential privacy; every answer is charged to a durable ledger "
        'before it is sent. Errors are {"error": "..."}.',
    )
    app.state.service = service

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": exc.message}, exc.status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(
        request: Request, exc: StarletteHTTPException
    ) -> JSONResponse:
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            # Every method of every route at this path (GET and HEAD of health).
            methods: set[str] = set()
            for route in app.router.routes:
                match, _ = route.matches(request.scope)
                if match != Match.NONE:
                    methods |= set(getattr(route, "methods", None) or ())
            headers["Allow"] = ", ".join(sorted(methods))
        return JSONResponse({"error": str(exc.detail)}, exc.status_code, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:3]:
            loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{loc}: {e.get('msg', 'invalid')}" if loc else e["msg"])
        return JSONResponse({"error": "invalid request body: " + "; ".join(parts)}, 422)

    def model(name: str, version: str | None = None) -> None:
        if name != served.name:
            raise ServiceError(
                404, f"unknown model {name!r}; this server serves {served.name!r}"
            )
        if version is not None and version != MODEL_VERSION:
            raise ServiceError(
                404,
                f"unknown version {version!r} of model {name!r}; its only version "
                f"is {MODEL_VERSION!r}",
            )

    # ------------------------------------------------------------ health
    @app.get("/v2/health/live", tags=["health"])
    def live() -> dict[str, bool]:
        """Liveness (no API key needed)."""
        return {"live": True}

    @app.head("/v2/health/live", tags=["health"], response_class=Response)
    def live_head() -> Response:
        """Liveness, status only (the GET's status)."""
        result: Any = live()
        return Response(status_code=getattr(result, "status_code", 200))

    @app.get("/v2/health/ready", tags=["health"])
    def ready() -> JSONResponse:
        """Readiness (no key): 503 when the ledger is unreachable or the
        budget is exhausted."""
        return ready_response(service, {"ready": True})

    @app.head("/v2/health/ready", tags=["health"], response_class=Response)
    def ready_head() -> Response:
        """Readiness, status only (the GET's status)."""
        result: Any = ready()
        return Response(status_code=getattr(result, "status_code", 200))

    @app.get("/v2/models/{name}/ready", tags=["health"], responses=_errors(404, 503))
    def model_ready(name: str) -> JSONResponse:
        """Readiness of one model (no key; 503 as /v2/health/ready)."""
        model(name)
        return ready_response(service, {"name": name, "ready": True})

    @app.get(
        "/v2/models/{name}/versions/{version}/ready",
        tags=["health"],
        responses=_errors(404, 503),
    )
    def model_version_ready(name: str, version: str) -> JSONResponse:
        """Readiness of one model version (no key; the only version is "1")."""
        model(name, version)
        return ready_response(service, {"name": name, "ready": True})

    # ----------------------------------------------------------- metadata
    @app.get("/v2", tags=["metadata"], responses=_errors(401))
    def server_metadata(key: Authed) -> dict[str, Any]:
        """Server metadata."""
        return {
            "name": "dpsvm",
            "version": __version__,
            "extensions": ["binary_tensor_data", "budget"],
        }

    @app.get("/v2/models/{name}", tags=["metadata"], responses=_errors(401, 404))
    def model_metadata(name: str, key: Authed) -> dict[str, Any]:
        """Model metadata: input shape, columns, classes and mechanism."""
        model(name)
        return service.metadata()

    @app.get(
        "/v2/models/{name}/versions/{version}",
        tags=["metadata"],
        responses=_errors(401, 404),
    )
    def model_version_metadata(name: str, version: str, key: Authed) -> dict[str, Any]:
        """Model metadata of one version (the only version is "1")."""
        model(name, version)
        return service.metadata()

    @app.get(
        "/v2/models/{name}/budget", tags=["budget"], responses=_errors(401, 404, 503)
    )
    def budget(name: str, key: Authed) -> dict[str, Any]:
        """The committed privacy spend: totals, spent, remaining, answers."""
        model(name)
        return service.budget(key)

    # ----------------------------------------------------------- inference
    async def answer(request: Request, key: ApiKey) -> Response:
        body = await _read_body(request, max_body_bytes)
        try:
            parsed = decode_request(body, request.headers.get(HEADER_LENGTH))
        except InputError as exc:
            raise ServiceError(422, str(exc)) from None
        response = await run_in_threadpool(service.infer, parsed, key)
        content, header_length = encode_response(response, parsed)
        if header_length is None:
            return Response(content, 200, media_type="application/json")
        return Response(
            content,
            200,
            headers={"Inference-Header-Content-Length": str(header_length)},
            media_type="application/octet-stream",
        )

    infer_responses: dict[int | str, dict[str, Any]] = {
        **_INFER_OK,
        **_errors(401, 404, 409, 413, 422, 429, 503),
    }

    @app.post(
        "/v2/models/{name}/infer",
        tags=["inference"],
        responses=infer_responses,
        openapi_extra=_INFER_BODY,
    )
    async def infer(name: str, request: Request, key: Authed) -> dict[str, Any]:
        """Answer a batch of queries privately (charged before it is sent).

        Errors: 401 bad key (checked before the body is read), 404 unknown
        model, 409 request id reused with other inputs, 413 body too large,
        422 bad input (nothing spent), 429 budget exhausted.
        """
        model(name)
        return await answer(request, key)  # type: ignore[return-value]

    @app.post(
        "/v2/models/{name}/versions/{version}/infer",
        tags=["inference"],
        responses=infer_responses,
        openapi_extra=_INFER_BODY,
    )
    async def infer_version(
        name: str, version: str, request: Request, key: Authed
    ) -> dict[str, Any]:
        """Answer a batch of queries with one model version (the only one: "1")."""
        model(name, version)
        return await answer(request, key)  # type: ignore[return-value]

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            defs = InferRequest.model_json_schema(
                ref_template="#/components/schemas/{model}"
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            # FastAPI documents a {"detail": ...} 422 for every path parameter;
            # string path parameters never fail, and errors are {"error": ...}.
            for operations in schema["paths"].values():
                for op in operations.values():
                    if "HTTPValidationError" in str(op["responses"].get("422")):
                        del op["responses"]["422"]
            components.pop("HTTPValidationError", None)
            components.pop("ValidationError", None)
            components.update(defs.pop("$defs", {}))
            components["InferRequest"] = defs
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    # /metrics (401 without a key, like /budget) and the access log (outermost).
    instrument(app, service, _authenticate, responses=_errors(401))
    return app
