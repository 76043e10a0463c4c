"""Request bodies of the device routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from gateway.jids import PHONE_RULE, PhoneNumber

DeviceName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class CreateDeviceRequest(BaseModel):
    name: DeviceName | None = Field(
        default=None, description="1 to 100 characters; defaults to `Device <first 8 characters of the id>`"
    )


class PairPhoneRequest(BaseModel):
    phone: PhoneNumber = Field(
        description=f"The phone number of the account to link: {PHONE_RULE}", examples=["15551234567"]
    )
