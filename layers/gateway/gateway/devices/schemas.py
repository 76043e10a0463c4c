"""Request bodies of the device routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from gateway.jids import PHONE_RULE, PhoneNumber
from gateway.web.deferred import DeferredModel
from gateway.web.fields import JsonInteger, NonBlank

DeviceName = Annotated[NonBlank, StringConstraints(max_length=100)]
MAX_SEND_INTERVAL_SECONDS = 600


class CreateDeviceRequest(DeferredModel):
    name: DeviceName | None = Field(
        default=None, description="1 to 100 characters; defaults to `Device <first 8 characters of the id>`"
    )


class PairPhoneRequest(DeferredModel):
    phone: PhoneNumber = Field(
        description=f"The phone number of the account to link: {PHONE_RULE}", examples=["15551234567"]
    )


class UpdateDeviceRequest(DeferredModel):
    """PATCH /devices/{device_id}: the device's settings; today only the send spacing."""

    min_send_interval_seconds: JsonInteger = Field(
        ge=0,
        le=MAX_SEND_INTERVAL_SECONDS,
        description="Consecutive sends of the device go out at least this many seconds apart "
        "(0: no spacing); sends over the limit wait in the outbox, none is refused",
        examples=[2],
    )
