"""The ``Idempotency-Key`` header: a repeated request gets the first answer and does nothing again.

A route that takes the header passes its work to :func:`once`. The bookkeeping is Powertools'
idempotency utility (``idempotent_function`` on the IdempotencyTable), not ours:

* the record key is the caller's scope (tenant and device) plus the key, so the same key of
  two tenants or two devices never meets; records expire after :data:`KEEP_SECONDS`;
* the request (the operation's name and its validated body, defaults filled in) is hashed
  into the record, so the same key with another request is 409 :data:`KEY_REUSED`;
* a repeat while the first is still running is 409 :data:`KEY_IN_PROGRESS`; a record left in
  progress by a process that died expires after the ``in_progress_seconds`` the route gives;
* work that raises (an ``ApiError``: a refusal, a failed send) leaves no record, so a retry
  with the same key runs again.

The stored answer is the status code and body, so a repeat of a 202 is a 202.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Header
from fastapi.responses import JSONResponse

from gateway import aws
from gateway.config import get_settings
from gateway.errors import ApiError
from gateway.web.error_docs import standard

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 255
KEEP_SECONDS = 24 * 3600
"""How long a key's first answer is returned to repeats (decisions: "within 24 hours")."""
KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
KEY_IN_PROGRESS = "IDEMPOTENCY_KEY_IN_PROGRESS"
_KEY_PREFIX = "idempotency-key"
"""One namespace for every route: a key reused on another operation is refused too."""

IDEMPOTENT_ERRORS = (
    standard(400, "VALIDATION_ERROR"),  # the header is empty or longer than 255 characters
    standard(409, KEY_REUSED, KEY_IN_PROGRESS),
)
"""What a route taking the header may answer because of it, for its documented errors."""

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias=HEADER,
        min_length=1,
        max_length=MAX_KEY_CHARS,
        description=f"Makes the request safe to repeat: 1 to {MAX_KEY_CHARS} characters, unique per "
        "request (a UUID, say). Within 24 hours, a request with the same key and the same body "
        "gets the first answer (status and body) and nothing is done again; another body with "
        f"the key is 409 `{KEY_REUSED}`, and a repeat while the first still runs 409 "
        f"`{KEY_IN_PROGRESS}`. A request that failed leaves no trace: retry it with the same key. "
        "Keys are scoped to the tenant and the device.",
    ),
]
"""The header parameter of a route: ``idempotency_key: IdempotencyKey = None``."""


@dataclass(frozen=True)
class Answer:
    """What a route answers, as stored for repeats."""

    status_code: int
    body: dict[str, Any]

    def response(self) -> JSONResponse:
        return JSONResponse(self.body, status_code=self.status_code)


def once(
    key: str | None,
    *,
    scope: tuple[str, ...],
    operation: str,
    request: dict[str, Any],
    run: Callable[[], Answer],
    in_progress_seconds: float,
) -> Answer:
    """``run()``, or the answer it gave the first request with ``key`` in ``scope``.

    ``operation`` and ``request`` (JSON-able) are what a repeat must match. Without a key,
    ``run()`` is simply called. ``in_progress_seconds`` bounds how long the first request
    can take: after it, a record a dead process left in progress no longer blocks the key.
    """
    if key is None:
        return run()
    # Imported here: Powertools' idempotency layer imports boto3 (~100 ms of a cold start),
    # which only a request with a key needs.
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    config = IdempotencyConfig(
        event_key_jmespath="key",
        payload_validation_jmespath="request",
        expires_after_seconds=KEEP_SECONDS,
    )
    config.register_lambda_context(_Deadline(in_progress_seconds))  # type: ignore[arg-type]
    guarded = idempotent_function(
        data_keyword_argument="data", persistence_store=_store(), config=config, key_prefix=_KEY_PREFIX
    )(_run)
    data = {"key": "#".join((*scope, key)), "request": {"operation": operation, "body": request}}
    try:
        stored = guarded(data=data, run=run)
    except IdempotencyValidationError:
        raise ApiError(
            409, KEY_REUSED, f"this {HEADER} was used for a different request; use a new key"
        ) from None
    except IdempotencyAlreadyInProgressError:
        raise ApiError(
            409,
            KEY_IN_PROGRESS,
            f"a request with this {HEADER} is still being processed; repeat it once that one is answered",
        ) from None
    return Answer(**stored)


def _run(data: dict[str, Any], run: Callable[[], Answer]) -> dict[str, Any]:  # noqa: ARG001
    """The guarded function: ``data`` is only what the record is keyed and checked by."""
    return asdict(run())


class _Deadline:
    """The one thing Powertools asks of a Lambda context: the time left. Given for the
    request's own bound (the hold limit and a margin), in a Lambda function as locally."""

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._end - time.monotonic()) * 1000))


@lru_cache(maxsize=1)
def _store() -> DynamoDBPersistenceLayer:
    """One persistence layer per process (its client is thread-safe)."""
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    settings = get_settings()
    return DynamoDBPersistenceLayer(
        table_name=settings.idempotency_table, boto3_client=aws.client("dynamodb")
    )
