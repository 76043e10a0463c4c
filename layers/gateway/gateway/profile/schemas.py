"""Request bodies of the presence and profile routes. Unknown fields are ignored, as on every
route; a field that fails its shape is 400 ``VALIDATION_ERROR``."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from gateway.bus.contracts.profile import MAX_ABOUT_CHARS, MAX_NAME_CHARS, PresenceState
from gateway.groups.schemas import JPEG_BASE64_PATTERN
from gateway.media.limits import INLINE_MAX_BYTES, MB
from gateway.web.deferred import DeferredModel
from gateway.web.fields import NonBlank, omittable, some_property


class PresenceRequest(DeferredModel):
    state: PresenceState = Field(
        description="`available`: the account shows as online to those who follow its presence (and "
        "the real network sends it other people's presence only then); `unavailable`: offline"
    )


class ProfileUpdateRequest(DeferredModel):
    """The fields to change, at least one; those left out stay as they are."""

    model_config = ConfigDict(json_schema_extra=some_property)

    name: Annotated[NonBlank, StringConstraints(max_length=MAX_NAME_CHARS)] | None = omittable(
        description=f"The push name contacts see on the account's messages, 1 to {MAX_NAME_CHARS} "
        "characters (surrounding whitespace removed)",
        examples=["Acme Support"],
    )
    about: Annotated[NonBlank, StringConstraints(max_length=MAX_ABOUT_CHARS)] | None = omittable(
        description=f"The About text, 1 to {MAX_ABOUT_CHARS} characters (surrounding whitespace removed)",
        examples=["Answering 9:00-17:00 CET"],
    )

    @model_validator(mode="after")
    def _something(self) -> ProfileUpdateRequest:
        if self.name is None and self.about is None:
            raise ValueError("give name, about or both")
        return self


class ProfilePictureRequest(DeferredModel):
    image_base64: str = Field(
        description="A JPEG image, base64 (standard alphabet, padded), at most "
        f"{INLINE_MAX_BYTES // MB} MB once decoded (413 `PAYLOAD_TOO_LARGE` above); not base64 "
        "or not a JPEG: 400 `VALIDATION_ERROR`. The network shows pictures at 640 x 640: send one "
        "that size or smaller",
        json_schema_extra={"pattern": JPEG_BASE64_PATTERN},
    )
