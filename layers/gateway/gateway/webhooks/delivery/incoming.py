"""An event as it arrives from the events queue: the envelope, its tenant, its attempt number.

A record carries the envelope, or the claim check of one too large for a queue message
(:mod:`gateway.webhooks.events_queue`): that envelope is read whole from the media bucket.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from pydantic import ValidationError

from gateway.webhooks import events_queue
from gateway.webhooks.delivery.constants import (
    ATTRIBUTE_PRIOR_ATTEMPTS,
    ATTRIBUTE_REDELIVERY,
    ATTRIBUTE_TENANT,
)
from gateway.webhooks.events_queue import EventEnvelope


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
    return events_queue.is_claim_check(record.body)


def parse_record(record: SQSRecord) -> IncomingEvent:
    """The event of an SQS record; raises :class:`MalformedEvent` when it is not one. A claim
    check's envelope is read from the bucket (an S3 failure raises as it is: the record comes
    back later)."""
    tenant = record.message_attributes[ATTRIBUTE_TENANT]
    if tenant is None or not tenant.string_value:
        raise MalformedEvent(f"message attribute {ATTRIBUTE_TENANT} is missing")
    body = _json(record.body)
    try:
        key = events_queue.claimed_key(body, tenant.string_value)
        if key is not None:
            body = _json(events_queue.fetch(key))
    except events_queue.ClaimError as error:
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
        return events_queue.object_key(tenant_id, envelope.device_id, envelope.id)
    except ValueError:
        return None
