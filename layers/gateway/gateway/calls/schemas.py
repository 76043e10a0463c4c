"""Request bodies of the call routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, StringConstraints

from gateway.jids import PARTICIPANT_PATTERN
from gateway.web.deferred import DeferredModel
from gateway.web.fields import NonBlank, omittable

MAX_CALL_ID_LENGTH = 64
CallId = Annotated[NonBlank, StringConstraints(max_length=MAX_CALL_ID_LENGTH)]
"""A call's id as the network gives it (32 hexadecimal digits today), trimmed."""


class RejectCallRequest(DeferredModel):
    model_config = ConfigDict(json_schema_extra={"required": ["from"]}, populate_by_name=True)

    caller: str | None = omittable(
        {"pattern": PARTICIPANT_PATTERN},
        alias="from",
        description="Who calls: `call.offer`'s `from` (a user JID, a phone number or a LID)",
        examples=["15557654321@s.whatsapp.net"],
    )
