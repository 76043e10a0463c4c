"""The event envelope: what the session host publishes on the events queue, what the
delivery function reads back from it (or from a claim check), and what a receiver gets
(with ``signature`` added at delivery when a secret is set). One model for both sides, so the
fields and their types are written once."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from gateway.webhooks.catalog import EventName


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
