"""Powertools singletons, configured by the ``POWERTOOLS_*`` environment variables.

Nothing is passed to them in code, where it would win over the variables: the template gives
each function and the session host its own service name (tests/deploy_rehearsal checks that
every variable it sets takes effect).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer

from gateway.config import tracing_settings

Handler = Callable[..., Any]


class Untraced:
    """What the tracer is where Powertools would trace nothing: its handlers run undecorated.

    A disabled ``Tracer`` still imports the X-Ray SDK, whose recorder makes two X-Ray clients
    outside Lambda (100-130 ms of a cold start) only to record nothing.
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
