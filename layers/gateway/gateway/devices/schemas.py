"""Request bodies of the device routes. Unknown fields are ignored, as on every route."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictBool, StringConstraints

from gateway.devices.proxies import MAX_PROXY_URL_LENGTH, PROXY_RULE, PROXY_URL_PATTERN
from gateway.devices.sending_policy import MAX_JITTER_SECONDS, MAX_LIMIT, MAX_WARMUP_DAYS
from gateway.jids import PHONE_RULE, PhoneNumber
from gateway.messages.schemas import MAX_TEXT_CHARS
from gateway.web.deferred import DeferredModel
from gateway.web.fields import JsonInteger, NonBlank, omittable, some_property

DeviceName = Annotated[NonBlank, StringConstraints(max_length=100)]
MAX_SEND_INTERVAL_SECONDS = 600
SendInterval = Annotated[JsonInteger, Field(ge=0, le=MAX_SEND_INTERVAL_SECONDS)]
SendLimit = Annotated[
    JsonInteger, Field(ge=1, le=MAX_LIMIT, json_schema_extra={"minimum": 1, "maximum": MAX_LIMIT})
]
"""A daily limit; nullable where it is used, so the bounds go into the integer's own schema (the
document would otherwise not state them: the validator before the integer hides ``ge``/``le``)."""
WarmupDays = Annotated[JsonInteger, Field(ge=0, le=MAX_WARMUP_DAYS)]
JitterSeconds = Annotated[JsonInteger, Field(ge=0, le=MAX_JITTER_SECONDS)]
RejectCallsMessage = Annotated[NonBlank, StringConstraints(max_length=MAX_TEXT_CHARS)]
"""A text as the device sends it (``/send/text``'s limit), trimmed."""


class CreateDeviceRequest(DeferredModel):
    name: DeviceName | None = Field(
        default=None, description="1 to 100 characters; defaults to `Device <first 8 characters of the id>`"
    )


class PairPhoneRequest(DeferredModel):
    phone: PhoneNumber = Field(
        description=f"The phone number of the account to link: {PHONE_RULE}", examples=["15551234567"]
    )


class UpdateDeviceRequest(DeferredModel):
    """PATCH /devices/{device_id}: any of the device's settings, each the device record's
    attribute of the same name; a field left out keeps its value, and at least one must be
    given (the schema says so). A new setting is one more optional field here."""

    model_config = ConfigDict(json_schema_extra=some_property)

    name: DeviceName | None = omittable(description="1 to 100 characters", examples=["Sales phone"])
    min_send_interval_seconds: SendInterval | None = omittable(
        {"minimum": 0, "maximum": MAX_SEND_INTERVAL_SECONDS},
        description="Consecutive sends of the device go out at least this many seconds apart "
        "(0: no spacing); sends over the limit wait in the outbox, none is refused",
        examples=[2],
    )
    reject_calls: StrictBool | None = omittable(
        description="Reject every incoming call at once (`call.reject` with `by: auto`)", examples=[True]
    )
    reject_calls_message: RejectCallsMessage | None = Field(
        default=None,
        description="The text a rejected caller gets from the device (only while `reject_calls` is "
        "true); null: none",
        examples=["Calls are not answered here; please write."],
    )
    proxy_url: str | None = Field(
        default=None,
        json_schema_extra={"pattern": PROXY_URL_PATTERN, "maxLength": MAX_PROXY_URL_LENGTH},
        description=f"The proxy the device's network connection goes through from its next connect: "
        f"{PROXY_RULE}; null: none. Shown with its password as `***`",
        examples=["socks5://user:secret@proxy.example.com:1080"],
    )
    # The sending policy (docs/sending-policy.md).
    daily_send_limit: SendLimit | None = Field(
        default=None,
        description="At most this many messages a UTC day (after warm-up); a send over it is "
        "scheduled for the next day, never refused. null: no limit",
        examples=[300],
    )
    new_chat_daily_limit: SendLimit | None = Field(
        default=None,
        description="At most this many messages a UTC day (after warm-up) to chats the device never "
        "wrote to or heard from; sends to known chats go on. null: no limit",
        examples=[30],
    )
    warmup_days: WarmupDays | None = omittable(
        {"minimum": 0, "maximum": MAX_WARMUP_DAYS},
        description="The limits ramp linearly from 10 % on the day of pairing to 100 % this many days "
        "later (0: no warm-up)",
        examples=[14],
    )
    send_jitter_seconds: JitterSeconds | None = omittable(
        {"minimum": 0, "maximum": MAX_JITTER_SECONDS},
        description="A random 0 to this many seconds added to `min_send_interval_seconds` between "
        "consecutive sends (0: none)",
        examples=[10],
    )
