"""Request bodies of the message routes. Unknown fields are ignored, as on every route.

Required fields (``chat_jid`` and ``message_ids``; ``number`` and ``text``) are declared
optional here on purpose: a missing, null or empty one is answered 400
``MISSING_REQUIRED_FIELDS`` (the specification's code for it), and a chat that
cannot be parsed ``INVALID_CHAT_JID``, not the generic ``VALIDATION_ERROR`` that the model's
own validation produces. The published schema still says what is accepted: the fields
required, non-null and non-empty, the JID shapes, and the sender required for a group chat.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictBool, StringConstraints

from gateway.bus.contracts.messages import MAX_POLL_OPTIONS, MAX_SYNC_COUNT
from gateway.jids import CHAT_PATTERN, GROUP_JID_PATTERN, PARTICIPANT_PATTERN, PHONE_RULE
from gateway.messages.schedule import send_at_field
from gateway.web.deferred import DeferredModel
from gateway.web.fields import NOT_BLANK, JsonInteger, omittable

MAX_MESSAGE_IDS = 100
MessageId = Annotated[str, StringConstraints(min_length=1, max_length=128)]
MessageIds = Annotated[list[MessageId], Field(max_length=MAX_MESSAGE_IDS)]


class MarkReadRequest(DeferredModel):
    model_config = ConfigDict(
        json_schema_extra={
            "required": ["chat_jid", "message_ids"],
            "if": {"properties": {"chat_jid": {"pattern": GROUP_JID_PATTERN}}, "required": ["chat_jid"]},
            "then": {"required": ["sender_jid"]},
        }
    )

    chat_jid: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description="The chat the messages were received in: a user JID (`<phone>@s.whatsapp.net`), "
        "a phone number, or a group JID (`<digits>@g.us`); see docs/identifiers.md",
        examples=["15551234567@s.whatsapp.net"],
    )
    message_ids: MessageIds | None = omittable(
        {"minItems": 1},
        description=f"The ids of the received messages to mark as read: 1 to {MAX_MESSAGE_IDS}, "
        "each 1 to 128 characters (repeats are sent once)",
        examples=[["3EB0C767D26A1B2E5F4A"]],
    )
    sender_jid: str | None = omittable(
        {"pattern": PARTICIPANT_PATTERN},
        description="Who sent the messages: required for a group chat (a user JID, a phone number or "
        "a LID); for a person's chat it defaults to that person",
        examples=["15557654321@s.whatsapp.net"],
    )


class DeleteMessageRequest(DeferredModel):
    model_config = ConfigDict(json_schema_extra={"required": ["chat_jid"]})

    chat_jid: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description="The chat the message was sent in: a user JID, a phone number or a group JID "
        "(docs/identifiers.md)",
        examples=["15551234567@s.whatsapp.net"],
    )
    for_everyone: StrictBool = Field(
        default=False,
        description="Delete it for every participant (within the network's window: 60 hours on the "
        "real network) instead of only from the device's own view",
    )


class HistorySyncRequest(DeferredModel):
    model_config = ConfigDict(json_schema_extra={"required": ["chat_jid", "count"]})

    chat_jid: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description="The chat whose history the device asks its phone for: a user JID, a phone "
        "number or a group JID (docs/identifiers.md)",
        examples=["15551234567@s.whatsapp.net"],
    )
    count: JsonInteger | None = omittable(
        {"minimum": 1, "maximum": MAX_SYNC_COUNT},
        description=f"How many of the chat's latest messages to ask for: 1 to {MAX_SYNC_COUNT}",
        examples=[20],
    )


MAX_TEXT_CHARS = 4096
MAX_DELAY_SECONDS = 3600
MAX_TYPING_SECONDS = 30
DEFAULT_TYPING_SECONDS = 3
MessageText = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
QuotedId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^\S+$")]


class SendOptions(DeferredModel):
    """How a send goes out: the fields every POST /send/* route shares."""

    delay: JsonInteger = Field(
        default=0,
        ge=0,
        le=MAX_DELAY_SECONDS,
        description="Seconds to wait before the typing indicator and the message",
    )
    typing_duration: JsonInteger = Field(
        default=DEFAULT_TYPING_SECONDS,
        ge=0,
        le=MAX_TYPING_SECONDS,
        alias="typingDuration",
        description="Seconds the chat shows the device typing before the message goes out",
    )
    disable_presence: StrictBool = Field(
        default=False,
        alias="disablePresence",
        description="Skip the typing indicator (``typingDuration`` is then ignored)",
    )
    reply_to: QuotedId | None = omittable(
        description="A message of the same chat this one quotes (a reply): the gateway's id of one "
        "of the device's sends, or the network's id of any message (a received message's "
        "`message_id`). An id the gateway does not know is passed to the network as is "
        "(docs/messages.md#replies)",
        examples=["3EB0C767D26A1B2E5F4A"],
    )
    send_at: str | None = send_at_field()


class SendTextRequest(SendOptions):
    """A text message to send, and how it goes out. An absent, null, empty or blank ``number``
    or ``text`` is 400 ``MISSING_REQUIRED_FIELDS``."""

    model_config = ConfigDict(json_schema_extra={"required": ["number", "text"]})

    number: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description=f"The recipient: phone digits ({PHONE_RULE}), a user JID "
        "(`<phone>@s.whatsapp.net`) or a group JID (`<digits>@g.us`); see docs/identifiers.md",
        examples=["15551234567"],
    )
    text: MessageText | None = omittable(
        {"minLength": 1, "pattern": NOT_BLANK},
        description=f"The message, 1 to {MAX_TEXT_CHARS} characters, not only whitespace; sent as given",
        examples=["Hello!"],
    )


RECIPIENT = (
    f"The recipient: phone digits ({PHONE_RULE}), a user JID (`<phone>@s.whatsapp.net`) or a group JID "
    "(`<digits>@g.us`); see docs/identifiers.md"
)
MAX_URL_CHARS = 2048
BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
Caption = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
MediaUrl = Annotated[str, StringConstraints(min_length=1, max_length=MAX_URL_CHARS)]
ShortText = Annotated[str, StringConstraints(max_length=255)]


class SendMediaRequest(SendOptions):
    """Media to send: exactly one of ``url`` or ``data_base64`` (both or neither: 400
    ``VALIDATION_ERROR``). The type is sniffed from the bytes and must suit the route's kind."""

    model_config = ConfigDict(
        json_schema_extra={
            "required": ["number"],
            "oneOf": [{"required": ["url"]}, {"required": ["data_base64"]}],
        }
    )

    number: str | None = omittable({"pattern": CHAT_PATTERN}, description=RECIPIENT, examples=["15551234567"])
    url: MediaUrl | None = omittable(
        description="Where the session host fetches the media when it sends: https, a public address; "
        "at most 16 MB (64 MB for a document); see docs/media.md",
        examples=["https://example.com/picture.jpg"],
    )
    data_base64: str | None = omittable(
        {"minLength": 4, "pattern": BASE64_PATTERN},
        description="The media itself, base64: at most 4 MB once decoded (over it: 413 "
        "PAYLOAD_TOO_LARGE, send a url instead)",
    )
    caption: Caption | None = omittable(description="Text shown with the media", examples=["Look!"])
    mimetype: ShortText | None = omittable(
        description="The type as the caller knows it; the gateway sniffs the bytes and sends what it "
        "finds (only a document of a format it does not know keeps this one)",
        examples=["image/jpeg"],
    )


class SendAudioRequest(SendMediaRequest):
    ptt: StrictBool = Field(default=False, description="Send it as a voice note (push to talk)")


class SendDocumentRequest(SendMediaRequest):
    filename: ShortText | None = omittable(
        description="The file name the recipient sees", examples=["invoice.pdf"]
    )


class SendLocationRequest(SendOptions):
    model_config = ConfigDict(json_schema_extra={"required": ["number", "latitude", "longitude"]})

    number: str | None = omittable({"pattern": CHAT_PATTERN}, description=RECIPIENT, examples=["15551234567"])
    latitude: float | None = omittable(
        {"minimum": -90, "maximum": 90}, description="Degrees north, -90 to 90", examples=[52.5163]
    )
    longitude: float | None = omittable(
        {"minimum": -180, "maximum": 180}, description="Degrees east, -180 to 180", examples=[13.3777]
    )
    name: ShortText | None = omittable(description="The place's name", examples=["Brandenburg Gate"])
    address: Annotated[str, StringConstraints(max_length=512)] | None = omittable(
        description="The place's address", examples=["Pariser Platz, Berlin"]
    )


CONTACT_PHONE_PATTERN = r"^\+?[0-9]{7,15}$"


class SendContactRequest(SendOptions):
    model_config = ConfigDict(json_schema_extra={"required": ["number", "contact_name", "contact_number"]})

    number: str | None = omittable({"pattern": CHAT_PATTERN}, description=RECIPIENT, examples=["15551234567"])
    contact_name: ShortText | None = omittable(
        {"minLength": 1, "pattern": NOT_BLANK}, description="The shared contact's name", examples=["Ana"]
    )
    contact_number: str | None = omittable(
        {"pattern": CONTACT_PHONE_PATTERN},
        description="The shared contact's phone number: 7 to 15 digits, an optional leading +",
        examples=["15557654321"],
    )


MAX_BUTTONS = 3


class TemplateButton(DeferredModel):
    id: Annotated[str, StringConstraints(min_length=1, max_length=256)] = Field(
        description="What a tap sends back (`button_reply.id`); unique within the template", examples=["yes"]
    )
    text: Annotated[str, StringConstraints(min_length=1, max_length=20)] = Field(
        description="The button's label", examples=["Yes"]
    )


class SendTemplateRequest(SendOptions):
    """A text with 1 to 3 quick-reply buttons (the simulated network only: neonize answers 501
    ``UNSUPPORTED_OPERATION``)."""

    model_config = ConfigDict(json_schema_extra={"required": ["number", "text", "buttons"]})

    number: str | None = omittable({"pattern": CHAT_PATTERN}, description=RECIPIENT, examples=["15551234567"])
    text: MessageText | None = omittable(
        {"minLength": 1, "pattern": NOT_BLANK}, description="The message", examples=["Coming tonight?"]
    )
    footer: Annotated[str, StringConstraints(max_length=60)] | None = omittable(
        description="A line under the text", examples=["Tap to answer"]
    )
    buttons: Annotated[list[TemplateButton], Field(min_length=1, max_length=MAX_BUTTONS)] | None = omittable(
        description=f"1 to {MAX_BUTTONS} quick replies"
    )


MAX_POLL_TEXT_CHARS = 255
PollText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_POLL_TEXT_CHARS, pattern=NOT_BLANK)]


class SendPollRequest(SendOptions):
    """A poll: a question and 2 to 12 distinct options; votes arrive as ``poll.vote``."""

    model_config = ConfigDict(json_schema_extra={"required": ["number", "question", "options"]})

    number: str | None = omittable({"pattern": CHAT_PATTERN}, description=RECIPIENT, examples=["15551234567"])
    question: PollText | None = omittable(
        description=f"The question, 1 to {MAX_POLL_TEXT_CHARS} characters", examples=["Lunch at noon?"]
    )
    options: Annotated[list[PollText], Field(min_length=2, max_length=MAX_POLL_OPTIONS)] | None = omittable(
        {"uniqueItems": True},
        description=f"2 to {MAX_POLL_OPTIONS} distinct answers, each 1 to {MAX_POLL_TEXT_CHARS} characters",
        examples=[["Yes", "No"]],
    )
    multiple_answers: StrictBool = Field(
        default=False, description="Voters may choose several options (else exactly one)"
    )


# Reactions and edits.
MAX_EMOJI_CHARS = 32
"""An emoji with its modifiers and joiners is a few code points; longer is no reaction."""
EMOJI_PATTERN = r"^(\S(.*\S)?)?$"
"""Empty (a removal), or without whitespace around it."""


class ReactRequest(DeferredModel):
    """A reaction to a message of a chat; an empty ``emoji`` removes the device's reaction."""

    model_config = ConfigDict(json_schema_extra={"required": ["chat_jid", "emoji"]})

    chat_jid: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description="The chat of the message: a user JID, a phone number or a group JID "
        "(docs/identifiers.md)",
        examples=["15551234567@s.whatsapp.net"],
    )
    emoji: Annotated[str, StringConstraints(max_length=MAX_EMOJI_CHARS)] | None = omittable(
        {"pattern": EMOJI_PATTERN},
        description=f"The reaction, one emoji (at most {MAX_EMOJI_CHARS} characters); empty removes the "
        "device's reaction",
        examples=["👍"],
    )
    sender_jid: str | None = omittable(
        {"pattern": PARTICIPANT_PATTERN},
        description="Who sent the message, for a message the device did not send in a group chat (a user "
        "JID, a phone number or a LID; the network keys a group message by its author; without it such a "
        "message is 404 MESSAGE_NOT_FOUND). A person's chat defaults to that person; a message the device "
        "sent is known without it",
        examples=["15557654321@s.whatsapp.net"],
    )


class EditMessageRequest(DeferredModel):
    """A new text for a text message the device sent."""

    model_config = ConfigDict(json_schema_extra={"required": ["chat_jid", "text"]})

    chat_jid: str | None = omittable(
        {"pattern": CHAT_PATTERN},
        description="The chat the message was sent in: a user JID, a phone number or a group JID "
        "(docs/identifiers.md)",
        examples=["15551234567@s.whatsapp.net"],
    )
    text: MessageText | None = omittable(
        {"minLength": 1, "pattern": NOT_BLANK},
        description=f"The message's new text, 1 to {MAX_TEXT_CHARS} characters, not only whitespace",
        examples=["See you at 6"],
    )
