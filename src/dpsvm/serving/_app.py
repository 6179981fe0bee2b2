# SPDX-License-Identifier: BSD-3-Clause
"""The FastAPI application: Open Inference Protocol v2 over a private predictor."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

import numpy as np
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..exceptions import BudgetExceededError
from ._inputs import InputError, parse_inputs
from ._keys import ApiKey, ApiKeys
from ._ledger import Ledger, LedgerState
from ._models import ServedModel

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
class InferInput(BaseModel):
    """One input tensor (OIP v2 ``$request_input``)."""

    name: str = Field(max_length=256)
    shape: list[int]
    datatype: str = Field(max_length=16)
    data: list[Any]
    parameters: dict[str, Any] | None = None


class InferRequest(BaseModel):
    """An inference request (OIP v2 ``$inference_request``)."""

    id: str | None = Field(
        default=None,
        max_length=256,
        description="Request id: a retried id returns the stored answer and "
        "spends nothing.",
    )
    inputs: list[InferInput]
    outputs: list[dict[str, Any]] | None = None
    parameters: dict[str, Any] | None = None


class _BodyLimit:
    """Refuse request bodies over a size limit (HTTP 422) before parsing them.

    It also reads every POST body as JSON (the only body this API takes), so
    that ``curl -d`` works without a ``Content-Type`` header.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = (
            f"the request body is larger than {self.limit} bytes; send fewer rows "
            "per request"
        )
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await JSONResponse({"error": message}, 422)(scope, receive, send)
                    return
        if scope["method"] == "POST":
            # curl -d sends a form content type: the body is JSON whatever it says.
            headers = [
                (n, v) for n, v in scope.get("headers", []) if n != b"content-type"
            ]
            scope = {
                **scope,
                "headers": [*headers, (b"content-type", b"application/json")],
            }
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            seen += len(msg.get("body", b""))
            if seen > self.limit:
                raise ServiceError(422, message)
            return msg

        try:
            await self.app(scope, limited, send)
        except ServiceError as exc:
            await JSONResponse({"error": exc.message}, exc.status)(scope, receive, send)


def _datatype(labels: np.ndarray) -> tuple[str, list[Any]]:
    kind = labels.dtype.kind
    if kind == "b":
        return "BOOL", [bool(v) for v in labels]
    if kind in "iu":
        return "INT64", [int(v) for v in labels]
    if kind == "f":
        return "FP64", [float(v) for v in labels]
    return "BYTES", [str(v) for v in labels]


def _request_hash(inputs: list[dict[str, Any]]) -> str:
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    response: dict[str, Any] | None = None
    error: BaseException | None = None


class _Service:
    """The served model, its ledger and the lock that serialises answers."""

    def __init__(
        self, served: ServedModel, ledger: Ledger, keys: ApiKeys, max_batch: int
    ) -> None:
        self.served = served
        self.ledger = ledger
        self.keys = keys
        self.max_batch = max_batch
        self.lock = threading.Lock()
        self._queue_lock = threading.Lock()
        self._queue: list[_Job] = []
        state = ledger.open(served.predictor.state_dict())
        self.version = state.version
        if state.version > 0:
            # A restart: the ledger's spend and (server-secret) state are the truth.
            served.predictor.load_state_dict(state.state)
        classes = np.asarray(served.classes)
        self.label_datatype = _datatype(classes)[0]

    # ----------------------------------------------------------- answering
    def infer(self, body: InferRequest, key: ApiKey) -> dict[str, Any]:
        inputs = [t.model_dump(exclude={"parameters"}) for t in body.inputs]
        try:
            raw = parse_inputs(inputs, self.served.inputs, self.max_batch)
            X = self.served.inputs.features(raw)
        except InputError as exc:
            raise ServiceError(422, str(exc)) from None
        except ValueError as exc:  # the schema transform refused a value
            raise ServiceError(422, f"input: {exc}") from None
        job = _Job(
            key=key,
            X=X,
            rows=int(X.shape[0]),
            request_id=body.id if body.id is not None else uuid.uuid4().hex,
            retry=body.id is not None,
            request_hash=_request_hash(inputs),
        )
        return self._submit(job)

    def _submit(self, job: _Job) -> dict[str, Any]:
        """Queue a charge; the thread holding the lock commits the queue as one.

        Group commit: whoever takes ``self.lock`` answers every queued job in
        order inside ONE ledger transaction and commits once (one fsync for
        the group), then hands each waiter its answer. No answer is handed out
        before the commit, so the guarantees are those of one charge per
        transaction; only the cost of the fsync is shared.
        """
        with self._queue_lock:
            self._queue.append(job)
        with self.lock:
            if not job.done.is_set():
                with self._queue_lock:
                    group, self._queue = self._queue[:_GROUP], self._queue[_GROUP:]
                self._charge(group)
        job.done.wait()
        if job.error is not None:
            raise job.error
        assert job.response is not None
        return job.response

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
                job.done.set()

    def _answer(
        self, txn: Any, state: LedgerState, job: _Job
    ) -> tuple[dict[str, Any], LedgerState]:
        """Answer one job inside the group's transaction; (response, new row)."""
        predictor = self.served.predictor
        key = job.key
        if job.retry:
            stored = txn.lookup(key.key_id, job.request_id)
            if stored is not None:
                if stored.request_hash != job.request_hash:
                    raise ServiceError(
                        409,
                        f"request id {job.request_id!r} was already used with "
                        "other inputs; use a new id",
                    )
                return stored.response, state
        if key.max_answers is not None:
            used = txn.key_answers(key.key_id)
            if used + job.rows > key.max_answers:
                raise ServiceError(
                    429,
                    f"this API key may receive {key.max_answers} answers and has "
                    f"{key.max_answers - used} left; the batch has {job.rows} rows",
                )
        if predictor.budget_exhausted:
            raise ServiceError(429, self._exhausted_message(state))
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
                    "name": "label",
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
                    "name": "input",
                    "datatype": "BYTES" if spec.has_categorical else "FP64",
                    "shape": [-1, spec.width],
                }
            ],
            "outputs": [
                {"name": "label", "datatype": self.label_datatype, "shape": [-1]}
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


def _authenticate(request: Request) -> ApiKey:
    """The API key of a request (``Authorization: Bearer KEY``), or a 401."""
    keys: ApiKeys = request.app.state.service.keys
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    key = keys.authenticate(token.strip()) if scheme.lower() == "bearer" else None
    if key is None:
        raise ServiceError(
            401,
            "missing or invalid API key: send the header 'Authorization: Bearer <key>'",
        )
    return key


Authed = Annotated[ApiKey, Depends(_authenticate)]


def create_app(
    served: ServedModel,
    ledger: Ledger,
    keys: ApiKeys,
    *,
    max_batch: int = MAX_BATCH,
    max_body_bytes: int = MAX_BODY_BYTES,
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
        The largest request body.

    Returns
    -------
    fastapi.FastAPI
        The application; serve it with uvicorn.

    Raises
    ------
    LedgerError
        If the ledger belongs to another model, data or total budget.
    """
    service = _Service(served, ledger, keys, max_batch)

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
        "before it is sent.",
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
        return JSONResponse({"error": str(exc.detail)}, exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:3]:
            loc = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{loc}: {e.get('msg', 'invalid')}" if loc else e["msg"])
        return JSONResponse({"error": "invalid request body: " + "; ".join(parts)}, 422)

    def model(name: str) -> None:
        if name != served.name:
            raise ServiceError(
                404, f"unknown model {name!r}; this server serves {served.name!r}"
            )

    @app.get("/v2/health/live", tags=["health"])
    def live() -> dict[str, bool]:
        """Liveness (no API key needed)."""
        return {"live": True}

    @app.get("/v2/health/ready", tags=["health"])
    def ready() -> dict[str, bool]:
        """Readiness: the model is trained and the ledger is open (no key)."""
        return {"ready": True}

    @app.get("/v2/models/{name}/ready", tags=["health"])
    def model_ready(name: str) -> dict[str, Any]:
        """Readiness of one model (no key)."""
        model(name)
        return {"name": name, "ready": True}

    @app.get("/v2", tags=["metadata"])
    def server_metadata(key: Authed) -> dict[str, Any]:
        """Server metadata."""
        return {"name": "dpsvm", "version": __version__, "extensions": ["budget"]}

    @app.get("/v2/models/{name}", tags=["metadata"])
    def model_metadata(name: str, key: Authed) -> dict[str, Any]:
        """Model metadata: input shape, columns, classes and mechanism."""
        model(name)
        return service.metadata()

    @app.get("/v2/models/{name}/budget", tags=["budget"])
    def budget(name: str, key: Authed) -> dict[str, Any]:
        """The committed privacy spend: totals, spent, remaining, answers."""
        model(name)
        return service.budget(key)

    @app.post("/v2/models/{name}/infer", tags=["inference"])
    def infer(name: str, body: InferRequest, key: Authed) -> dict[str, Any]:
        """Answer a batch of queries privately (charged before it is sent).

        Errors: 401 bad key, 404 unknown model, 409 request id reused with
        other inputs, 422 bad input (nothing spent), 429 budget exhausted.
        """
        model(name)
        return service.infer(body, key)

    app.add_middleware(_BodyLimit, limit=max_body_bytes)
    return app
