"""Request bodies of the device routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gateway.jids import PHONE_RULE, PhoneNumber
from gateway.web.fields import non_blank

DeviceName = non_blank(100)


class CreateDeviceRequest(BaseModel):
    name: DeviceName | None = Field(
        default=None, description="1 to 100 characters; defaults to `Device <first 8 characters of the id>`"
    )


class PairPhoneRequest(BaseModel):
    phone: PhoneNumber = Field(
        description=f"The phone number of the account to link: {PHONE_RULE}", examples=["15551234567"]
    )
