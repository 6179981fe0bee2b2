# SPDX-License-Identifier: BSD-3-Clause
"""Structured JSON logs of the prediction service: one line per request.

Every request leaves one JSON line on the ``dpsvm.access`` logger (written to
standard error by ``dpsvm serve``): its request id, the id of the API key that
sent it (never the key), the status, the rows answered, the (ε, δ) it charged
and its latency. Server events (start, drain) go to ``dpsvm.server``.

Nothing private is logged: no input values, no answers, no key, and for an
unexpected error only its type and where it was raised (an exception's message
could quote a private value).
"""

from __future__ import annotations

import contextvars
import datetime
import json
import logging
import sys
import traceback
import uuid
from typing import Any, TextIO

__all__ = ["JsonFormatter", "configure_logging", "request_record"]

ACCESS = logging.getLogger("dpsvm.access")
SERVER = logging.getLogger("dpsvm.server")
LOG_LEVELS = ("debug", "info", "warning", "error")

#: The access record of the request being handled (a dict shared by the
#: threads that work on it: the endpoint's worker thread copies the context).
_record: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "dpsvm_request_record", default=None
)


def new_request_record() -> tuple[dict[str, Any], contextvars.Token[Any]]:
    """Start the access record of a request (its id is fresh)."""
    record: dict[str, Any] = {"request_id": uuid.uuid4().hex}
    return record, _record.set(record)


def reset_request_record(token: contextvars.Token[Any]) -> None:
    """End the request's record (the context variable's previous value)."""
    _record.reset(token)


def request_record() -> dict[str, Any]:
    """The access record of the current request (a throwaway dict outside one).

    Returns
    -------
    dict
        Fields the access log line will carry: ``key_id``, ``request_id``,
        ``rows``, ``epsilon``, ``delta``, ``reason``.
    """
    record = _record.get()
    return {} if record is None else record


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f"{last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name}"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the fields.

    Fields come from the record's ``fields`` attribute (``extra={"fields":
    {...}}``). Exceptions are written as their type and place only.
    """

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.datetime.fromtimestamp(
                record.created, tz=datetime.UTC
            ).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            out["error"] = type(exc).__name__
            out["error_at"] = _where(exc)
        return json.dumps(out, default=str, allow_nan=False)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler writing to whatever ``sys.stderr`` is when a record is emitted.

    A handler that kept the stream it was given at configuration time would
    write to a closed stream once ``sys.stderr`` is replaced (a test runner's
    capture, a daemon's redirection) and print "--- Logging error ---".
    """

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass  # always the current sys.stderr


def configure_logging(level: str = "info", stream: TextIO | None = None) -> None:
    """Send the service's logs, as JSON lines, to ``stream`` (standard error).

    Parameters
    ----------
    level : {"debug", "info", "warning", "error"}, default="info"
        ``info`` logs every request (the access log); ``warning`` only
        refusals by the server (5xx), drains and errors.
    stream : text stream, optional
        Where to write (default ``sys.stderr``).
    """
    if level not in LOG_LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LOG_LEVELS)}")
    handler: logging.Handler = (
        _StderrHandler() if stream is None else logging.StreamHandler(stream)
    )
    handler.setFormatter(JsonFormatter())
    for name in ("dpsvm", "uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False
        # uvicorn's own lines (startup, errors) at warning and above only.
        logger.setLevel(
            level.upper() if name == "dpsvm" else max(logging.WARNING, _num(level))
        )


def _num(level: str) -> int:
    return int(logging.getLevelName(level.upper()))


def log_access(fields: dict[str, Any], exc: BaseException | None = None) -> None:
    """Write one access line (``warning`` for 5xx, ``info`` otherwise)."""
    status = int(fields.get("status", 0))
    level = logging.WARNING if status >= 500 else logging.INFO
    if not ACCESS.isEnabledFor(level):
        return
    exc_info = (type(exc), exc, exc.__traceback__) if exc is not None else None
    ACCESS.log(level, "request", extra={"fields": fields}, exc_info=exc_info)
