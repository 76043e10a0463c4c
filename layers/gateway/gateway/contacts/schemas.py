"""Request bodies and the person path parameter of the contact routes. Unknown fields are
ignored, as on every route; a field that fails its shape is 400 ``VALIDATION_ERROR``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from pydantic import Field

from gateway.bus.contracts.contacts import MAX_CHECK_NUMBERS
from gateway.jids import PARTICIPANT_PATTERN, PHONE_RULE, PhoneNumber
from gateway.web.deferred import DeferredModel

PersonInPath = Annotated[
    str,
    Path(
        description="The person: phone digits, a user JID (`<phone>@s.whatsapp.net`) or a LID "
        "(`<digits>@lid`); anything else: 400 `VALIDATION_ERROR`",
        json_schema_extra={"pattern": PARTICIPANT_PATTERN},
        examples=["15551234567"],
    ),
]
"""A route's ``{jid}`` that names a person of the network (contacts, presence subscriptions)."""


class CheckContactsRequest(DeferredModel):
    numbers: Annotated[list[PhoneNumber], Field(min_length=1, max_length=MAX_CHECK_NUMBERS)] = Field(
        description=f"1 to {MAX_CHECK_NUMBERS} plain phone numbers ({PHONE_RULE}); a number given "
        "twice is answered once",
        examples=[["15551234567", "15557654321"]],
    )
