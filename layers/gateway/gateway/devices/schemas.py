"""Request bodies of the device routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

from gateway.web.fields import non_blank

_PHONE = re.compile(r"^[1-9][0-9]{6,14}$")

DeviceName = non_blank(100)


class CreateDeviceRequest(BaseModel):
    name: DeviceName | None = Field(
        default=None, description="1 to 100 characters; defaults to `Device <first 8 characters of the id>`"
    )


class PairPhoneRequest(BaseModel):
    phone: str = Field(
        description="The phone number of the account to link: digits only, country code first, no `+`",
        examples=["15551234567"],
        json_schema_extra={"pattern": _PHONE.pattern},
    )

    @field_validator("phone")
    @classmethod
    def _plain_phone_number(cls, value: str) -> str:
        if not _PHONE.match(value):
            raise ValueError("must be 7 to 15 digits with the country code first, without + or spaces")
        return value
