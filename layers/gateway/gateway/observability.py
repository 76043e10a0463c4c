"""Powertools singletons, configured by the ``POWERTOOLS_*`` environment variables.

Nothing is passed to them in code, where it would win over the variables: the template gives
each function and the session host its own service name (tests/deploy_rehearsal checks that
every variable it sets takes effect).
"""

from __future__ import annotations

import logging
import sys
import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer

from gateway.config import tracing_settings

Handler = Callable[..., Any]


class Untraced:
    """What the tracer is where Powertools would trace nothing: its handlers run undecorated.

    A disabled ``Tracer`` still imports the X-Ray SDK, whose recorder makes two X-Ray clients
    outside Lambda (a cold start's cost: bench/README.md) only to record nothing.
    """

    def capture_lambda_handler(
        self, lambda_handler: Handler | None = None, **_: bool | None
    ) -> Handler | Callable[[Handler], Handler]:
        if lambda_handler is None:
            return lambda handler: handler
        return lambda_handler


def _tracer() -> Tracer | Untraced:
    """Powertools' Tracer where it traces (:class:`gateway.config.TracingSettings`), made here at
    import: in Lambda the X-Ray recorder makes no client (it samples locally) and patching
    belongs before the first AWS call."""
    if not tracing_settings().traced:
        return Untraced()
    return Tracer()


logger = Logger()
tracer = _tracer()
metrics = Metrics()

# Most requests add no metric; an empty flush is normal, not worth a warning per invocation.
warnings.filterwarnings("ignore", message="No application metrics to publish")


class _NotThePowertoolsLogger(logging.Filter):
    """Passes the records the Powertools logger's own handler has not written already: those of
    other loggers than it and its children (its children's records reach its handler too)."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self._service = service

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name != self._service and not record.name.startswith(self._service + ".")


def configure_logging() -> None:
    """One logging output for the whole process, in the Powertools logger's JSON format and at
    its level (``POWERTOOLS_LOG_LEVEL``): the root logger gets one handler with the Powertools
    formatter, so dependencies' stdlib loggers (neonize's Go log relay, botocore, ...) write
    lines like ours. Any handler already on the root logger is replaced: neonize's import calls
    ``logging.basicConfig`` with a colored format of its own, which is a no-op once the root
    logger has this handler, and replaced here when neonize was imported first.

    Called once by a process that owns its output (the session host's ``main``); Lambda's
    runtime owns the root logger of a function.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logger.registered_formatter)
    handler.addFilter(_NotThePowertoolsLogger(logger.name))
    root.addHandler(handler)
    root.setLevel(logger.log_level)
