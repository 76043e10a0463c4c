"""An event as it arrives from the events queue: the envelope, its tenant, its attempt number."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from gateway.webhooks.delivery.constants import ATTRIBUTE_REDELIVERY, ATTRIBUTE_TENANT

ENVELOPE_FIELDS = ("id", "event", "timestamp", "device_id", "data")


class MalformedEvent(ValueError):
    """The record is not an envelope the session host (or redelivery) publishes."""


@dataclass(frozen=True)
class IncomingEvent:
    """One record of a batch. ``attempt`` is SQS's receive count of this message: 1 on the
    first delivery, n after n - 1 failed attempts (a redelivery is a new message: 1 again)."""

    envelope: dict[str, Any]
    tenant_id: str
    attempt: int
    redelivery: bool
    receipt_handle: str
    queue_url: str

    @property
    def event_id(self) -> str:
        return str(self.envelope["id"])

    @property
    def event(self) -> str:
        return str(self.envelope["event"])

    @property
    def device_id(self) -> str:
        return str(self.envelope["device_id"])


def parse_record(record: SQSRecord) -> IncomingEvent:
    """The event of an SQS record; raises :class:`MalformedEvent` when it is not one."""
    try:
        envelope = json.loads(record.body)
    except (TypeError, ValueError) as error:
        raise MalformedEvent(f"body is not JSON: {error}") from error
    if not isinstance(envelope, dict) or any(name not in envelope for name in ENVELOPE_FIELDS):
        raise MalformedEvent(f"body is not an envelope with {', '.join(ENVELOPE_FIELDS)}")
    if not all(isinstance(envelope[name], str) and envelope[name] for name in ("id", "event", "device_id")):
        raise MalformedEvent("id, event and device_id must be non-empty strings")
    tenant = record.message_attributes[ATTRIBUTE_TENANT]
    if tenant is None or not tenant.string_value:
        raise MalformedEvent(f"message attribute {ATTRIBUTE_TENANT} is missing")
    redelivery = record.message_attributes[ATTRIBUTE_REDELIVERY]
    return IncomingEvent(
        envelope=envelope,
        tenant_id=tenant.string_value,
        attempt=int(record.attributes.approximate_receive_count),
        redelivery=redelivery is not None and redelivery.string_value == "true",
        receipt_handle=record.receipt_handle,
        queue_url=record.queue_url,
    )
