"""Request bodies of the status routes. Unknown fields are ignored, as on every route.

A field that fails its shape (type, enum, length, pattern) is 400 ``VALIDATION_ERROR`` in the
standard envelope, on the privacy routes too (decisions, "Sending and status"). The rules
that join fields (a whitelist names someone, ``contacts`` takes no list, every entry is a
person) are the privacy operation's own: 400 ``invalid_request`` (:mod:`.service`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator
from pydantic.config import JsonDict

from gateway.jids import PHONE_PATTERN, PHONE_RULE, USER_JID_PATTERN
from gateway.messages.schedule import send_at_field
from gateway.web.deferred import DeferredModel
from gateway.web.fields import NOT_BLANK, JsonInteger, omittable

MAX_LIST = 1024
"""People one privacy setting names at most."""
MAX_TEXT_CHARS = 700
"""The network's story text limit (its story editor stops there)."""
MAX_CAPTION_CHARS = 1024
STORY_FONTS: tuple[int, ...] = (0, 1, 2, 6, 7, 8, 9, 10)
"""``ExtendedTextMessage.FontType`` values a text story may use: the keys of the session
host's ``STORY_FONTS`` (a unit test keeps both the same)."""
COLOR_PATTERN = r"^#[0-9A-Fa-f]{6}$"
BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"

PrivacyType = Literal["contacts", "whitelist", "blacklist"]
PERSON_PATTERN = rf"^(?:{PHONE_PATTERN[1:-1]}|{USER_JID_PATTERN[1:-1]})$"
People = Annotated[
    list[Annotated[str, StringConstraints(pattern=PERSON_PATTERN)]],
    Field(
        max_length=MAX_LIST,
        description=f"People: phone numbers ({PHONE_RULE}) or user JIDs; phone numbers become user "
        "JIDs; anything else is 400 `VALIDATION_ERROR`. Empty for `contacts`, at least one "
        "for `whitelist` (else 400 `invalid_request`)",
        examples=[["15551234567"]],
    ),
]
"""(A name of its own: inside the model, ``list`` is the field.)"""


def _list_by_type(schema: JsonDict) -> None:
    """The rules joining ``type`` and ``list`` (answered ``invalid_request``), in the schema."""

    def when(kind: str, then: JsonDict) -> JsonDict:
        return {"if": {"properties": {"type": {"const": kind}}, "required": ["type"]}, "then": then}

    schema["allOf"] = [
        when("contacts", {"properties": {"list": {"maxItems": 0}}}),
        when("whitelist", {"properties": {"list": {"minItems": 1}}, "required": ["list"]}),
    ]


class StatusPrivacyRequest(DeferredModel):
    """Who sees the device's stories."""

    model_config = ConfigDict(json_schema_extra=_list_by_type)

    type: PrivacyType = Field(
        description="`contacts`: every contact; `whitelist`: only the people in `list` (at least "
        "one); `blacklist`: every contact but the people in `list`"
    )
    list: People = []


class TextStatusRequest(DeferredModel):
    """A text story."""

    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS)] = Field(
        json_schema_extra={"pattern": NOT_BLANK},
        description=f"The story's text, 1 to {MAX_TEXT_CHARS} characters, not only whitespace",
        examples=["Hello from the gateway"],
    )
    background_color: str | None = omittable(
        {"pattern": COLOR_PATTERN}, pattern=COLOR_PATTERN, description="`#RRGGBB`", examples=["#1E88E5"]
    )
    font: JsonInteger | None = omittable(
        {"enum": list(STORY_FONTS)},
        description="A font of the network's story editor: 0 SYSTEM, 1 SYSTEM_TEXT, 2 FB_SCRIPT, "
        "6 SYSTEM_BOLD, 7 MORNINGBREEZE_REGULAR, 8 CALISTOGA_REGULAR, 9 EXO2_EXTRABOLD, "
        "10 COURIERPRIME_BOLD",
    )
    send_at: str | None = send_at_field()

    @model_validator(mode="after")
    def _checked(self) -> TextStatusRequest:
        if not self.text.strip():
            raise ValueError("text must not be only whitespace")
        if self.font is not None and self.font not in STORY_FONTS:
            raise ValueError(f"font must be one of {list(STORY_FONTS)}")
        return self


def _one_source(schema: JsonDict) -> None:
    schema["oneOf"] = [{"required": ["url"]}, {"required": ["data_base64"]}]


class MediaStatusRequest(DeferredModel):
    """An image or video story: exactly one of ``url`` and ``data_base64``."""

    model_config = ConfigDict(json_schema_extra=_one_source)

    url: str | None = omittable(
        {"format": "uri", "maxLength": 2048},
        max_length=2048,
        description="An https URL the session host fetches (public addresses only, 30 s, 16 MB)",
    )
    data_base64: str | None = omittable(
        {"pattern": BASE64_PATTERN},
        description="The media's bytes in standard base64, at most 4 MB once decoded (larger: use url)",
    )
    caption: Annotated[str, StringConstraints(max_length=MAX_CAPTION_CHARS)] = Field(
        default="", description=f"Shown under the story, up to {MAX_CAPTION_CHARS} characters"
    )
    send_at: str | None = send_at_field()

    @model_validator(mode="after")
    def _one_of(self) -> MediaStatusRequest:
        if (self.url is None) == (self.data_base64 is None):
            raise ValueError("give exactly one of url and data_base64")
        return self
