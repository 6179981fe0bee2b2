# SPDX-License-Identifier: BSD-3-Clause
"""Operations helpers of ``dpsvm serve``: options from ``DPSVM_*`` environment
variables, durations, and a uvicorn server that logs its drain.

Every option of ``dpsvm serve`` but the source (``--data``/``--model``) can
also come from an environment variable ``DPSVM_`` + the option's name in
capitals with ``_`` for ``-`` (``--api-key-file`` from ``DPSVM_API_KEY_FILE``);
a flag on the command line wins (:func:`env_defaults`).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Mapping
from typing import Any

__all__ = ["ENV_PREFIX", "draining_server", "duration", "env_defaults"]

#: Environment variables name options: DPSVM_ + the option in capitals.
ENV_PREFIX = "DPSVM_"
#: Options never read from the environment: the source is always given on the
#: command line (and DPSVM_DATA names the datasets directory elsewhere).
_NOT_FROM_ENV = ("data", "model", "help")
_DURATION_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration(text: str) -> float:
    """Seconds from ``24h``, ``90m``, ``45s``, ``2d`` or a plain number."""
    value = text.strip().lower()
    scale = _DURATION_UNITS.get(value[-1:], None) if value else None
    number = value[:-1] if scale is not None else value
    try:
        seconds = float(number) * (1.0 if scale is None else scale)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive duration (e.g. 24h, 90m, 45s, 3600)"
        )
    return seconds


def env_defaults(p: argparse.ArgumentParser, environ: Mapping[str, str]) -> None:
    """Defaults of ``p``'s options from ``DPSVM_*`` variables (flags win).

    ``--max-batch`` reads ``DPSVM_MAX_BATCH``. The variable's text becomes the
    option's default, so argparse converts and checks it as it would the flag
    (an error names the variable); a variable given makes a required option
    optional. The choices of an option without a type are checked by
    :func:`dpsvm.cli._serve._check_args`.
    """
    sources: dict[str, tuple[str, tuple[str, ...] | None]] = {}
    for action in p._actions:
        names = [o for o in action.option_strings if o.startswith("--")]
        if not names or action.dest in _NOT_FROM_ENV:
            continue
        var = ENV_PREFIX + names[0][2:].upper().replace("-", "_")
        action.help = f"{action.help or ''} [env {var}]".strip()
        if var not in environ:
            continue
        value = environ[var]
        action.default = value
        action.required = False
        convert = action.type
        if callable(convert):
            action.type = _named_env_type(convert, var, value)
        choices = action.choices
        sources[action.dest] = (
            var,
            None if choices is None else tuple(str(c) for c in choices),
        )
    p.set_defaults(_env_sources=sources)


def _named_env_type(convert: Any, var: str, env_value: str) -> Any:
    """``convert`` whose errors on the variable's own text name the variable."""

    def named(text: str) -> Any:
        try:
            return convert(text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
            if text is env_value:  # the default argparse passes, not a flag
                raise argparse.ArgumentTypeError(
                    f"environment variable {var}={text!r}: {exc}"
                ) from None
            raise

    named.__name__ = getattr(convert, "__name__", "value")
    return named


def draining_server(base: Any, log: Any, timeout: float) -> Any:
    """A uvicorn ``Server`` that logs the start and end of its drain.

    On SIGTERM (or SIGINT) uvicorn stops accepting connections, lets the
    requests in flight finish for at most ``timeout`` seconds
    (``timeout_graceful_shutdown``), then cancels what is left and runs the
    shutdown (the ledger's connections are closed); it then re-raises the
    signal, so the process ends as killed by SIGTERM, as supervisors expect.
    """

    class DrainingServer(base):  # type: ignore[misc, valid-type]
        drain_started: float | None = None
        drain_logged = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.drain_started is None:
                self.drain_started = time.monotonic()
                import signal

                state = getattr(self, "server_state", None)
                log.warning(
                    "drain started",
                    extra={
                        "fields": {
                            "event": "drain_start",
                            "signal": signal.Signals(sig).name,
                            "timeout_s": timeout,
                            "connections": len(getattr(state, "connections", ())),
                            "requests_in_flight": len(getattr(state, "tasks", ())),
                        }
                    },
                )
            super().handle_exit(sig, frame)

        async def shutdown(self, sockets: Any = None) -> None:
            # Logged here: uvicorn re-raises the signal after its shutdown.
            await super().shutdown(sockets=sockets)
            self.log_drained()

        def log_drained(self) -> None:
            if self.drain_started is None or self.drain_logged:
                return
            self.drain_logged = True
            seconds = time.monotonic() - self.drain_started
            log.warning(
                "drain finished",
                extra={
                    "fields": {
                        "event": "drain_end",
                        "seconds": round(seconds, 3),
                        "within_timeout": seconds <= timeout + 0.5,
                    }
                },
            )

    return DrainingServer
