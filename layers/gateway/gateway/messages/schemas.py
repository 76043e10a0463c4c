"""Request bodies of the message routes. Unknown fields are ignored, as on every route.

Required fields are declared optional here on purpose: a missing or empty one is answered
400 ``MISSING_REQUIRED_FIELDS`` (the specification's code for it), not the generic
``VALIDATION_ERROR`` that the model's own validation produces. The published schema still
lists them as required.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from gateway.jids import CHAT_PATTERN, PARTICIPANT_PATTERN

MAX_MESSAGE_IDS = 100
MessageId = Annotated[str, StringConstraints(min_length=1, max_length=128)]


class MarkReadRequest(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["chat_jid", "message_ids"]})

    chat_jid: str | None = Field(
        default=None,
        description="The chat the messages were received in: a user JID (`<phone>@s.whatsapp.net`), "
        "a phone number, or a group JID (`<digits>@g.us`); see docs/identifiers.md",
        examples=["15551234567@s.whatsapp.net"],
        json_schema_extra={"pattern": CHAT_PATTERN},
    )
    message_ids: list[MessageId] | None = Field(
        default=None,
        max_length=MAX_MESSAGE_IDS,
        description=f"The ids of the received messages to mark as read: 1 to {MAX_MESSAGE_IDS}, "
        "each 1 to 128 characters (repeats are sent once)",
        examples=[["3EB0C767D26A1B2E5F4A"]],
    )
    sender_jid: str | None = Field(
        default=None,
        description="Who sent the messages: required for a group chat (a user JID, a phone number or "
        "a LID); for a person's chat it defaults to that person",
        examples=["15557654321@s.whatsapp.net"],
        json_schema_extra={"pattern": PARTICIPANT_PATTERN},
    )
