"""What travels on the events queue: the event envelope, and its message, measured as SQS
measures it, with a claim check for an envelope too large for one.

The envelope (:class:`EventEnvelope`) is what the session host publishes, what the delivery
function reads back (from the message or from a claim check), and what a receiver gets (with
``signature`` added at delivery when a secret is set): one model for both sides, so the fields
and their types are written once.

SQS takes at most 256 KiB per message and per SendMessageBatch request, counting the UTF-8
bytes of each body plus, for each message attribute, its name, data type and value. An
envelope whose message would be larger is stored whole under :data:`KEY_PREFIX` and the queue
carries a claim check in its place, in the format of AWS's SQS extended client libraries
(Java, Python, JavaScript): the body ``["software.amazon.payloadoffloading.PayloadS3Pointer",
{"s3BucketName": ..., "s3Key": ...}]`` and the attribute ``ExtendedPayloadSize``. The library
itself is not used (docs/session-host.md, "Large events and refused events"): among other
reasons, the delivery function reads records Lambda already received, which it cannot do.

The session host's publisher makes the messages (:func:`queue_message`) and stores the claimed
envelopes (:func:`store`); the delivery function reads each record back as an
:class:`IncomingEvent` (:func:`parse_record`: the envelope, from the record or its claim
check, its tenant and its attempt number); redelivery checks one is still kept
(:func:`still_kept`). The objects expire
with the delivery log (template.yaml, ``ExpireQueuedEvents``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from botocore.config import Config
from botocore.exceptions import ClientError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gateway import aws
from gateway.config import get_settings
from gateway.media import store as media_store
from gateway.media.store import is_missing, media_key
from gateway.webhooks.catalog import EventName
from gateway.webhooks.delivery.constants import (
    ATTRIBUTE_EVENT,
    ATTRIBUTE_PRIOR_ATTEMPTS,
    ATTRIBUTE_REDELIVERY,
    ATTRIBUTE_TENANT,
)


class EventEnvelope(BaseModel):
    """One event of one device; ``id`` stays the same on every delivery attempt."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    event: EventName
    timestamp: int = Field(description="When it happened: epoch seconds")
    device_id: str = Field(min_length=1)
    data: dict[str, Any] = Field(description="The event's payload, as docs/events.md gives it")

    @classmethod
    def new(
        cls, event: EventName, data: Mapping[str, Any], occurred_at: float, device_id: str
    ) -> EventEnvelope:
        """The envelope of an event that just happened, with a new id."""
        return cls(
            id=uuid.uuid4().hex, event=event, timestamp=int(occurred_at), device_id=device_id, data=dict(data)
        )

    def fields(self) -> dict[str, Any]:
        """The envelope as JSON values (what is signed, sent and logged)."""
        return self.model_dump(mode="json")


MAX_MESSAGE_BYTES = 256 * 1024
"""SQS's limit for one message and for a whole SendMessageBatch request (the events queue's
``MaximumMessageSize`` in template.yaml)."""
KEY_PREFIX = "events/"
"""Where claimed envelopes are kept in the media bucket: ``events/<tenant>/<device>/<event id>``."""
POINTER_CLASS = "software.amazon.payloadoffloading.PayloadS3Pointer"
SIZE_ATTRIBUTE = "ExtendedPayloadSize"
"""The extended client's attribute: the claimed envelope's size in bytes."""

Attributes = dict[str, dict[str, str]]


def string_attribute(value: str) -> dict[str, str]:
    return {"DataType": "String", "StringValue": value}


REDELIVERY_ATTRIBUTES: Attributes = {ATTRIBUTE_REDELIVERY: string_attribute("true")}
"""What redelivery adds to a logged message (``delivery_log.redeliver``)."""


def message_bytes(body: str, attributes: Attributes) -> int:
    """The size SQS counts for a message: the body's UTF-8 bytes, and each attribute's name,
    data type and value."""
    size = len(body.encode())
    for name, attribute in attributes.items():
        size += len(name.encode()) + len(attribute["DataType"].encode())
        size += len(attribute.get("StringValue", "").encode())
    return size


INLINE_LIMIT = MAX_MESSAGE_BYTES - message_bytes("", REDELIVERY_ATTRIBUTES)
"""The largest message an envelope travels in: room is left for the redelivery flag, so the
logged message can be sent again as it is."""


@dataclass(frozen=True)
class QueueMessage:
    """An envelope's events-queue message, and the envelope to store first when it is claimed."""

    body: str
    attributes: Attributes
    size: int  # as SQS counts it
    claimed: bytes | None = None  # the envelope, to be stored under ``key`` before sending
    key: str | None = None


def event_attributes(tenant_id: str, event: str) -> Attributes:
    """The attributes the delivery function routes an envelope by."""
    return {ATTRIBUTE_TENANT: string_attribute(tenant_id), ATTRIBUTE_EVENT: string_attribute(event)}


def queue_message(body: str, *, tenant_id: str, device_id: str, event_id: str, event: str) -> QueueMessage:
    """The message of an envelope serialised as ``body``: itself when it fits, else a claim
    check of its object. Raises ``ValueError`` when the ids cannot make a key (nothing the
    gateway issues)."""
    attributes = event_attributes(tenant_id, event)
    size = message_bytes(body, attributes)
    if size <= INLINE_LIMIT:
        return QueueMessage(body, attributes, size)
    claimed = body.encode()
    key = object_key(tenant_id, device_id, event_id)
    pointer = json.dumps([POINTER_CLASS, {"s3BucketName": get_settings().media_bucket, "s3Key": key}])
    attributes[SIZE_ATTRIBUTE] = {"DataType": "Number", "StringValue": str(len(claimed))}
    return QueueMessage(pointer, attributes, message_bytes(pointer, attributes), claimed, key)


def object_key(tenant_id: str, device_id: str, event_id: str) -> str:
    """Where an event's claimed envelope is kept; ``ValueError`` for a part that is not an id."""
    return KEY_PREFIX + media_key(tenant_id, device_id, event_id)


def store(message: QueueMessage) -> None:
    """Put a claimed envelope in the bucket (before its claim check is sent)."""
    if message.claimed is None or message.key is None:
        return
    _s3().put_object(
        Bucket=get_settings().media_bucket,
        Key=message.key,
        Body=message.claimed,
        ContentType="application/json",
    )


class ClaimError(ValueError):
    """A claim check that names nothing this tenant's events are kept as, or nothing anymore."""


def is_claim_check(body: str) -> bool:
    """Whether a message body is a claim check (a JSON array; an envelope is an object): telling
    costs no parsing."""
    return body.lstrip()[:1] == "["


def claimed_key(parsed: Any, tenant_id: str) -> str | None:
    """The object key a parsed message body claims, None when it is not a claim check.
    Raises :class:`ClaimError` for one that names another bucket, or a key outside the
    tenant's events."""
    if not isinstance(parsed, list):
        return None
    if len(parsed) != 2 or parsed[0] != POINTER_CLASS or not isinstance(parsed[1], dict):
        raise ClaimError("body is a list but not a claim check")
    bucket, key = parsed[1].get("s3BucketName"), parsed[1].get("s3Key")
    if bucket != get_settings().media_bucket:
        raise ClaimError("the claim check names another bucket")
    if not isinstance(key, str) or not key.startswith(f"{KEY_PREFIX}{tenant_id}/"):
        raise ClaimError("the claim check names a key outside the tenant's events")
    return key


def fetch(key: str) -> str:
    """The claimed envelope's JSON; :class:`ClaimError` when the object is gone (expired)."""
    try:
        response = _s3().get_object(Bucket=get_settings().media_bucket, Key=key)
    except ClientError as error:
        if is_missing(error):
            raise ClaimError("the claimed envelope is gone from the bucket") from None
        raise
    return str(response["Body"].read().decode())


def still_kept(body: str, tenant_id: str) -> bool:
    """Whether the envelope of a logged message body can still be delivered: always for an
    envelope, while its object is kept for a claim check (the objects expire after the log's
    30 days, counted from publication; a redelivery renews the log, not the object)."""
    if not is_claim_check(body):
        return True
    try:
        key = claimed_key(json.loads(body), tenant_id)
    except (ValueError, ClaimError):
        return False
    try:
        _s3().head_object(Bucket=get_settings().media_bucket, Key=str(key))
    except ClientError as error:
        if is_missing(error):
            return False
        raise
    return True


@lru_cache(maxsize=1)
def _s3() -> Any:
    """An S3 client of its own, with short timeouts: an envelope is fetched while its batch
    waits, so a slow S3 answer must fail (and the record come back) rather than hold it."""
    return aws.client(
        "s3",
        Config(
            signature_version="s3v4",
            connect_timeout=3,
            read_timeout=10,
            retries={"mode": "standard", "max_attempts": 3},
        ),
    )


def delete_all(tenant_id: str, device_id: str | None = None) -> int:
    """Delete the stored envelopes of the device (of the whole tenant when ``device_id`` is
    None): deletion that deletes does not wait for their expiry."""
    return media_store.delete_all(tenant_id, device_id, under=KEY_PREFIX)


# --- a record as the delivery function receives it -------------------------------------


class MalformedEvent(ValueError):
    """The record is not an envelope the session host (or redelivery) publishes."""


@dataclass(frozen=True)
class IncomingEvent:
    """One record of a batch. ``attempt`` is SQS's receive count of this message: 1 on the
    first delivery, n after n - 1 failed attempts (a redelivery is a new message: 1 again),
    plus the attempts made before the event moved to the slow lane's queue.
    ``claim_check`` is the record's body when it held one: what the log keeps for redelivery."""

    envelope: EventEnvelope
    tenant_id: str
    attempt: int
    redelivery: bool
    receipt_handle: str
    queue_url: str
    claim_check: str | None = None

    @property
    def event_id(self) -> str:
        return self.envelope.id

    @property
    def event(self) -> str:
        return self.envelope.event.value

    @property
    def device_id(self) -> str:
        return self.envelope.device_id


def holds_claim_check(record: SQSRecord) -> bool:
    """Whether the record's body is a claim check, so that parsing it reads S3."""
    return is_claim_check(record.body)


def parse_record(record: SQSRecord) -> IncomingEvent:
    """The event of an SQS record; raises :class:`MalformedEvent` when it is not one. A claim
    check's envelope is read from the bucket (an S3 failure raises as it is: the record comes
    back later)."""
    tenant = record.message_attributes[ATTRIBUTE_TENANT]
    if tenant is None or not tenant.string_value:
        raise MalformedEvent(f"message attribute {ATTRIBUTE_TENANT} is missing")
    body = _json(record.body)
    try:
        key = claimed_key(body, tenant.string_value)
        if key is not None:
            body = _json(fetch(key))
    except ClaimError as error:
        raise MalformedEvent(str(error)) from error
    try:
        envelope = EventEnvelope.model_validate(body)
    except ValidationError as error:
        raise MalformedEvent(f"body is not an event envelope: {error}") from None
    if key is not None and key != _key_of(tenant.string_value, envelope):
        raise MalformedEvent("the claimed envelope is not the one its key names")
    redelivery = record.message_attributes[ATTRIBUTE_REDELIVERY]
    return IncomingEvent(
        envelope=envelope,
        tenant_id=tenant.string_value,
        attempt=int(record.attributes.approximate_receive_count) + _prior_attempts(record),
        redelivery=redelivery is not None and redelivery.string_value == "true",
        receipt_handle=record.receipt_handle,
        queue_url=record.queue_url,
        claim_check=None if key is None else record.body,
    )


def _prior_attempts(record: SQSRecord) -> int:
    """The attempts made before the event moved to the slow lane (0 for any other record)."""
    prior = record.message_attributes[ATTRIBUTE_PRIOR_ATTEMPTS]
    if prior is None or prior.string_value is None:
        return 0
    try:
        count = int(prior.string_value)
    except ValueError:
        count = -1
    if count < 0:
        raise MalformedEvent(f"message attribute {ATTRIBUTE_PRIOR_ATTEMPTS} is not a count")
    return count


def _json(body: str) -> Any:
    try:
        return json.loads(body)
    except (TypeError, ValueError) as error:
        raise MalformedEvent(f"body is not JSON: {error}") from error


def _key_of(tenant_id: str, envelope: EventEnvelope) -> str | None:
    """Where the envelope would be kept were it claimed (None for ids no key is made of)."""
    try:
        return object_key(tenant_id, envelope.device_id, envelope.id)
    except ValueError:
        return None
