# SPDX-License-Identifier: BSD-3-Clause
"""Operations of the prediction service: metrics, access log, readiness.

:func:`instrument` adds to an application

* ``GET /metrics``: Prometheus text format (prometheus-client), on a registry
  of the application's own (several applications in one process do not
  collide). It needs an API key, like the budget endpoint whose numbers it
  repeats; it holds only fleet-wide aggregates, nothing per key.
* an ASGI middleware that times every request, counts it by route and status
  (refusals also by reason) and writes its JSON access line
  (:mod:`dpsvm.serving._logging`);
* a handler that answers 503 ``{"error": ...}`` when the ledger's database is
  unreachable, busy past its timeout or fails to commit (nothing is spent:
  either no mechanism ran, or its group was rolled back unsent).

:func:`readiness` is what ``/v2/health/ready`` answers: not ready (503) when
the ledger cannot be read or the mechanism's budget is exhausted.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._logging import SERVER, log_access, new_request_record, reset_request_record

__all__ = ["ServiceMetrics", "instrument", "readiness"]

#: Latency buckets (seconds): a fsync is ~1-10 ms, a busy group ~100 ms.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

#: A refusal's reason when the handler did not name one (by status).
_REASONS = {
    400: "bad_request",
    401: "unauthenticated",
    404: "not_found",
    405: "method_not_allowed",
    409: "request_id_conflict",
    413: "body_too_large",
    422: "invalid_input",
    429: "budget_exhausted",
    503: "unavailable",
}


def readiness(service: Any) -> tuple[bool, str | None]:
    """Whether the service can answer: (ready, why not).

    Parameters
    ----------
    service : _Service
        The application's service.

    Returns
    -------
    ready : bool
        ``False`` when the ledger cannot be read, or when the mechanism, in
        the ledger's committed state, answers no more queries.
    reason : str or None
        Why not, in words (public: the budget's state is public).
    """
    try:
        state = service.ledger.snapshot()
    except Exception as exc:  # any database failure: not ready
        service.last_exhausted = None
        return False, f"the ledger is unreachable ({type(exc).__name__})"
    if service.served.free:
        return True, None
    exhausted = getattr(service, "last_exhausted", None)
    # The mechanism's own rule in the ledger's committed state; if a charge
    # holds the lock, the last known answer (never block a health check).
    if service.lock.acquire(timeout=0.5):
        try:
            service._sync(state)
            exhausted = bool(service.served.predictor.budget_exhausted)
        finally:
            service.lock.release()
    service.last_exhausted = exhausted
    if exhausted:
        return False, service._exhausted_message(state)
    return True, None


def ready_response(service: Any, body: dict[str, Any]) -> JSONResponse:
    """200 with ``body`` if ready, else 503 with ``ready: false`` and ``error``."""
    ok, why = readiness(service)
    if ok:
        return JSONResponse(body)
    return JSONResponse({**body, "ready": False, "error": why}, 503)


class _BudgetCollector(Collector):
    """Gauges read from the ledger at each scrape (fleet-wide, committed)."""

    def __init__(self, service: Any) -> None:
        self.service = service

    def collect(self) -> Any:
        service = self.service
        ledger = service.ledger
        up = GaugeMetricFamily(
            "dpsvm_ledger_up", "1 if the ledger could be read at this scrape"
        )
        try:
            state = ledger.snapshot()
        except Exception:
            up.add_metric([], 0.0)
            yield up
            return
        up.add_metric([], 1.0)
        yield up
        predictor = service.served.predictor
        if service.served.free:  # what the release spent, once
            eps, delta = float(predictor.spent_epsilon), float(predictor.spent_delta)
        else:
            eps, delta = state.epsilon_spent, state.delta_spent
        for name, value, text in (
            ("epsilon_total", ledger.epsilon_total, "total epsilon of the ledger"),
            ("delta_total", ledger.delta_total, "total delta of the ledger"),
            ("epsilon_spent", eps, "epsilon spent (committed, all replicas)"),
            ("delta_spent", delta, "delta spent (committed, all replicas)"),
            (
                "epsilon_remaining",
                max(0.0, ledger.epsilon_total - eps),
                "epsilon not yet spent",
            ),
            ("delta_remaining", max(0.0, ledger.delta_total - delta), "delta left"),
            (
                "ledger_answered_rows",
                float(state.answers),
                "query rows answered (committed, all replicas)",
            ),
        ):
            g = GaugeMetricFamily(f"dpsvm_{name}", text)
            g.add_metric([], float(value))
            yield g
        exhausted = getattr(service, "last_exhausted", None)
        if exhausted is not None:
            g = GaugeMetricFamily(
                "dpsvm_budget_exhausted",
                "1 if the mechanism answers no more queries (at the last check)",
            )
            g.add_metric([], 1.0 if exhausted else 0.0)
            yield g


class ServiceMetrics:
    """The Prometheus metrics of one application (its own registry).

    Parameters
    ----------
    service : _Service
        The application's service (its ledger is read at each scrape).
    """

    def __init__(self, service: Any) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "dpsvm_requests",
            "HTTP requests by route and status",
            ("route", "status"),
            registry=r,
        )
        self.answers = Counter(
            "dpsvm_answers",
            "query rows answered by this replica (infer responses 200)",
            registry=r,
        )
        self.epsilon_charged = Counter(
            "dpsvm_epsilon_charged",
            "epsilon charged by this replica's answers",
            registry=r,
        )
        self.refusals = Counter(
            "dpsvm_refusals",
            "requests refused (4xx, 5xx) by reason",
            ("reason",),
            registry=r,
        )
        self.latency = Histogram(
            "dpsvm_request_duration_seconds",
            "request latency by route",
            ("route",),
            buckets=_BUCKETS,
            registry=r,
        )
        self.commit = Histogram(
            "dpsvm_ledger_commit_seconds",
            "time of each ledger commit (one per group of charges)",
            buckets=_BUCKETS,
            registry=r,
        )
        r.register(_BudgetCollector(service))

    def render(self) -> bytes:
        """The metrics in Prometheus text format."""
        return generate_latest(self.registry)


#: Most distinct request paths whose route is remembered.
_ROUTE_CACHE = 1024


def _route_of(app: FastAPI, scope: Scope) -> str:
    """The route's path template (bounded label values), or ``other``."""
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return str(getattr(route, "path", "other"))
    return "other"


class _Instrument:
    """Time, count and log every request (outermost middleware)."""

    def __init__(self, app: ASGIApp, fastapi: FastAPI, metrics: ServiceMetrics) -> None:
        self.app = app
        self.fastapi = fastapi
        self.metrics = metrics
        #: (method, root path, path) -> route template, for the paths seen
        #: (bounded: paths beyond it are matched each time).
        self._routes: dict[tuple[Any, Any, Any], str] = {}

    def _route(self, scope: Scope) -> str:
        key = (scope.get("method"), scope.get("root_path"), scope.get("path"))
        route = self._routes.get(key)
        if route is None:
            route = _route_of(self.fastapi, scope)
            if len(self._routes) < _ROUTE_CACHE:
                self._routes[key] = route
        return route

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        record, token = new_request_record()
        route = self._route(scope)
        status = [500]

        async def send_status(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        error: BaseException | None = None
        try:
            await self.app(scope, receive, send_status)
        except BaseException as exc:
            error = exc
            raise
        finally:
            reset_request_record(token)
            self._done(scope, route, status[0], record, started, error)

    def _done(
        self,
        scope: Scope,
        route: str,
        status: int,
        record: dict[str, Any],
        started: float,
        error: BaseException | None,
    ) -> None:
        seconds = time.perf_counter() - started
        m = self.metrics
        m.requests.labels(route, str(status)).inc()
        m.latency.labels(route).observe(seconds)
        if status >= 400:
            reason = record.get("reason") or _REASONS.get(status, f"http_{status}")
            record["reason"] = reason
            m.refusals.labels(reason).inc()
        elif "rows" in record:
            m.answers.inc(record["rows"])
            m.epsilon_charged.inc(max(0.0, float(record.get("epsilon", 0.0))))
        fields = {
            "request_id": record.get("request_id"),
            "key_id": record.get("key_id"),
            "method": scope.get("method"),
            "path": scope.get("path"),
            "route": route,
            "status": status,
            "rows": record.get("rows"),
            "epsilon": record.get("epsilon"),
            "delta": record.get("delta"),
            "reason": record.get("reason"),
            "latency_ms": round(seconds * 1000, 3),
        }
        log_access(fields, error)


def instrument(
    app: FastAPI,
    service: Any,
    authenticate: Any,
    responses: dict[int | str, dict[str, Any]] | None = None,
) -> ServiceMetrics:
    """Add ``/metrics``, the access log, timing and the ledger-failure handler.

    Parameters
    ----------
    app : fastapi.FastAPI
        The application (call after its other middleware are added, so that
        this one is outermost and sees every response).
    service : _Service
        Its service.
    authenticate : callable
        The API-key dependency of the application.
    responses : dict, optional
        The error responses /metrics documents in the OpenAPI document.

    Returns
    -------
    ServiceMetrics
        The metrics (also ``app.state.metrics``).
    """
    import sqlalchemy as sa

    metrics = ServiceMetrics(service)
    app.state.metrics = metrics
    service.ledger.commit_observer = metrics.commit.observe

    @app.exception_handler(sa.exc.SQLAlchemyError)
    async def _ledger_down(request: Request, exc: sa.exc.SQLAlchemyError) -> Response:
        from ._logging import request_record

        request_record()["reason"] = "ledger_unavailable"
        SERVER.warning(
            "ledger error",
            extra={
                "fields": {"error": type(getattr(exc, "orig", None) or exc).__name__}
            },
        )
        return JSONResponse(
            {
                "error": "the privacy ledger is unavailable or busy; nothing was "
                "spent and no answer was sent; retry later"
            },
            503,
            headers={"Retry-After": "1"},
        )

    @app.get(
        "/metrics",
        tags=["operations"],
        dependencies=[Depends(authenticate)],
        response_class=Response,
        responses=responses,
    )
    def prometheus_metrics() -> Response:
        """Prometheus metrics (text format; needs an API key, as /budget)."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    app.add_middleware(_Instrument, fastapi=app, metrics=metrics)
    return metrics
