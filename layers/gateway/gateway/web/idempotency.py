"""The ``Idempotency-Key`` header: a repeated request never does its work twice.

A route that takes the header passes its work to :func:`once`. The bookkeeping is Powertools'
idempotency utility (``idempotent_function`` on the IdempotencyTable), not ours:

* the record key is the caller's scope (tenant and device) plus the key, so the same key of
  two tenants or two devices never meets; records expire after :data:`KEEP_SECONDS`, and a
  scope's records are found by their id's prefix (:func:`forget`, when its device goes);
* the request (the operation's name and its validated body, defaults filled in) is hashed
  into the record, so the same key with another request is 409 :data:`KEY_REUSED`;
* a repeat while the first is still running is 409 :data:`KEY_IN_PROGRESS`; a record left in
  progress by a process that died expires after the ``in_progress_seconds`` the route gives.

How the first request ended decides what the key keeps (decisions, "Hostile conditions"):

* an answer: stored, and a repeat gets it. An answer that names what it started
  (:attr:`StoredResponse.bound`: a send, by its outbox key) is looked up again by a repeat through
  the route's ``now``: a send answered 202 ``scheduled`` is answered 200 once it went out;
* a refusal (an ``ApiError``: invalid input, a device not connected, the network clearly
  refusing) leaves no record, so a retry with the same key runs again;
* an unclear outcome (:class:`Unclear`: a timeout, no session host answering, a failure after
  which the network may have the message) is answered as the error it is, and stored with
  what it started: a repeat answers that work's state now (``now``), or this same error while
  nothing more is known, and never starts it again.

The stored answer is the status code and body, so a repeat of a 202 is a 202.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Header
from fastapi.responses import JSONResponse

from gateway import aws
from gateway.config import get_settings
from gateway.context_pool import ContextThreadPool
from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode
from gateway.web.error_docs import standard

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 255
KEEP_SECONDS = 24 * 3600
"""How long a key's first answer is returned to repeats (decisions: "within 24 hours")."""
KEY_REUSED = ErrorCode.IDEMPOTENCY_KEY_REUSED
KEY_IN_PROGRESS = ErrorCode.IDEMPOTENCY_KEY_IN_PROGRESS
_KEY_PREFIX = "idempotency-key"
"""One namespace for every route (a key reused on another operation is refused too); the
record id is ``idempotency-key#<tenant_id>#<device_id>#<hash>``."""
_FORGET_SEGMENTS = 4
"""Parallel segments of the scan that finds a scope's records (:func:`forget`)."""
UNCLEAR_NOTE = (
    f"The outcome is unclear: this {HEADER} stays bound to what the request started; "
    "repeat it to learn its state (it is never done twice), or use a new key to do it again."
)

IDEMPOTENT_ERRORS = (
    standard(400, ErrorCode.VALIDATION_ERROR),  # the header is empty or longer than 255 characters
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
        "request (a UUID, say). Keys are scoped to the tenant and the device. Within 24 hours, "
        "a request with the same key and the same body is never done twice: "
        "(1) an answered request (200, 202) gets its answer again, a send answered 202 "
        "`scheduled` with its state now (200 `sent` once it went out); "
        "(2) a request that ended without a clear outcome (the network or the session host did "
        "not answer in time, the session host failed, any failure after which the network may "
        "have the message) stays bound to what it started: a repeat answers that send's state "
        "now (200 `sent`, 202 `scheduled`, or its failure; for a story, the same error) and never "
        "sends it again; "
        "(3) a request refused before anything could go out (invalid input, the device not "
        "connected, the network clearly refusing: 500 `SEND_FAILED`, 502 `NETWORK_ERROR`, 429) "
        "leaves no trace: a retry with the same key runs again. "
        f"Another body with the key is 409 `{KEY_REUSED}`; a repeat while the first still runs "
        f"409 `{KEY_IN_PROGRESS}`.",
    ),
]
"""The header parameter of a route: ``idempotency_key: IdempotencyKey = None``."""


@dataclass(frozen=True)
class StoredResponse:
    """What a route answers, as stored for repeats."""

    status_code: int
    body: dict[str, Any]
    bound: dict[str, Any] | None = field(default=None, compare=False)
    """What the answer started and a repeat looks up again (a send: its outbox key), or None
    when the answer is final."""

    def response(self) -> JSONResponse:
        return JSONResponse(self.body, status_code=self.status_code)


class Unclear(ApiError):
    """``error``, after which the work may still have happened (or happen later): answered as
    ``error``, and with an ``Idempotency-Key`` the key stays bound to ``bound`` (JSON-able,
    what a repeat's ``now`` looks up; None when nothing can be looked up)."""

    def __init__(self, error: ApiError, bound: dict[str, Any] | None = None) -> None:
        super().__init__(
            error.status,
            error.code,
            error.message,
            validation=error.validation,
            extra=error.extra,
            headers=error.headers,
        )
        self.error = error
        self.bound = bound

    def noted(self) -> ApiError:
        """The error as the first request with a key gets it: the message says the key is bound."""
        error = self.error
        message = f"{error.message.rstrip('.')}. {UNCLEAR_NOTE}"
        return ApiError(error.status, error.code, message, validation=error.validation, extra=error.extra)


Now = Callable[[dict[str, Any]], StoredResponse | None]
"""The state now of what an answer is bound to (:attr:`StoredResponse.bound`): its answer, or None
when nothing more is known (the stored answer is then repeated); may raise its failure."""


def once(
    key: str | None,
    *,
    scope: tuple[str, str],
    operation: str,
    request: dict[str, Any],
    run: Callable[[], StoredResponse],
    in_progress_seconds: float,
    now: Now | None = None,
) -> StoredResponse:
    """``run()`` once for ``key`` in ``scope`` (tenant, device); a repeat gets its answer.

    ``operation`` and ``request`` (JSON-able) are what a repeat must match. Without a key,
    ``run()`` is simply called. ``in_progress_seconds`` bounds how long the first request
    can take: after it, a record a dead process left in progress no longer blocks the key.
    ``now`` answers a repeat of a bound answer (see the module).
    """
    if key is None:
        return run()
    # Imported here: Powertools' idempotency layer imports boto3 (a cold start's largest
    # import, bench/README.md), which only a request with a key needs.
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    first: list[ApiError] = []  # the unclear error of this very request, raised once stored

    def work(data: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG001 - what the record is keyed by
        try:
            return asdict(run())
        except Unclear as unclear:
            error = unclear.noted()
            first.append(error)
            return asdict(StoredResponse(error.status, error.body(), unclear.bound))

    # Named as Powertools' IdempotentHookFunction names them: its protocol says both.
    def repeated(response: dict[str, Any], idempotent_data: DataRecord) -> dict[str, Any]:  # noqa: ARG001
        bound = response.get("bound")
        current = now(bound) if now is not None and bound is not None else None
        return asdict(current) if current is not None else response

    config = IdempotencyConfig(
        event_key_jmespath="key",
        payload_validation_jmespath="request",
        expires_after_seconds=KEEP_SECONDS,
        response_hook=repeated,
    )
    config.register_lambda_context(_Deadline(in_progress_seconds))  # type: ignore[arg-type]
    guarded = idempotent_function(
        data_keyword_argument="data", persistence_store=_store(), config=config, key_prefix=_prefix(scope)
    )(work)
    data = {"key": "#".join((*scope, key)), "request": {"operation": operation, "body": request}}
    try:
        stored = guarded(data=data)
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
    if first:
        raise first[0]
    return StoredResponse(**stored)


def forget(tenant_id: str, device_id: str | None = None) -> int:
    """Delete the records of a device (of every device of the tenant when ``device_id`` is
    None); how many there were. A parallel scan of the table, which holds about a day of
    requests: deleting is rare, and the records' ids are Powertools' (no index to query)."""
    prefix = _prefix((tenant_id,) if device_id is None else (tenant_id, device_id)) + "#"
    with ContextThreadPool(max_workers=_FORGET_SEGMENTS) as pool:
        counts = pool.map(lambda segment: _forget_segment(prefix, segment), range(_FORGET_SEGMENTS))
        return sum(counts)


def _forget_segment(prefix: str, segment: int) -> int:
    client = _client()
    table = get_settings().idempotency_table
    pages = client.get_paginator("scan").paginate(
        TableName=table,
        Segment=segment,
        TotalSegments=_FORGET_SEGMENTS,
        ProjectionExpression="id",
        FilterExpression="begins_with(id, :prefix)",
        ExpressionAttributeValues={":prefix": {"S": prefix}},
    )
    ids = [item["id"] for page in pages for item in page.get("Items", [])]
    for start in range(0, len(ids), 25):
        requests = [{"DeleteRequest": {"Key": {"id": id_}}} for id_ in ids[start : start + 25]]
        while requests:
            answer = client.batch_write_item(RequestItems={table: requests})
            requests = answer.get("UnprocessedItems", {}).get(table, [])
    return len(ids)


def _prefix(scope: tuple[str, ...]) -> str:
    return "#".join((_KEY_PREFIX, *scope))


class _Deadline:
    """The one thing Powertools asks of a Lambda context: the time left. Given for the
    request's own bound (the hold limit and a margin), in a Lambda function as locally."""

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._end - time.monotonic()) * 1000))


_stores = threading.local()


def _store() -> DynamoDBPersistenceLayer:
    """This thread's persistence layer: the key prefix (the scope) is set on it by each call,
    so two threads never share one (a Lambda environment runs one thread; the local server
    several). They share one client, which is thread-safe."""
    store = getattr(_stores, "layer", None)
    if store is None:
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        store = _stores.layer = DynamoDBPersistenceLayer(
            table_name=get_settings().idempotency_table, boto3_client=_client()
        )
    return store


@lru_cache(maxsize=1)
def _client() -> Any:
    return aws.client("dynamodb")
