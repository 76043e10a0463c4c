"""Request bodies of the contact routes. Unknown fields are ignored, as on every route; a
field that fails its shape is 400 ``VALIDATION_ERROR``."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gateway.bus.contracts.contacts import MAX_CHECK_NUMBERS
from gateway.jids import PHONE_RULE, PhoneNumber
from gateway.web.deferred import DeferredModel


class CheckContactsRequest(DeferredModel):
    numbers: Annotated[list[PhoneNumber], Field(min_length=1, max_length=MAX_CHECK_NUMBERS)] = Field(
        description=f"1 to {MAX_CHECK_NUMBERS} plain phone numbers ({PHONE_RULE}); a number given "
        "twice is answered once",
        examples=[["15551234567", "15557654321"]],
    )
