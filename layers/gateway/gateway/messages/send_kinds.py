"""What each kind of send carries: the request checked and turned into a :class:`Message`.

Every POST /send/* route goes through :func:`gateway.messages.sending.send` with one of
these; none has a path of its own. A message is a ``kind``, a ``text`` (the text, the
caption, the place's name...: what ``message.sent`` shows as content) and the ``payload``
the session host needs to send it (outbox ``payload``).

Media never travel in the payload. Inline media (``data_base64``) are decoded and sized
here (413 ``PAYLOAD_TOO_LARGE`` over the inline limit, pointing at ``url``); then, once the
device is known to be connected, :func:`~gateway.messages.sending.send` has them sniffed and
checked against the kind (:func:`late_checked`: 400 ``VALIDATION_ERROR``; a sticker given as
PNG or JPEG is converted to WebP) and stores them in the media bucket: the payload names
them (``media_id``). A ``url`` is checked against the address rules at that same point,
before anything is stored, and fetched by the session host when it sends: a fetch or type
failure then fails the send (``invalid``: 400 ``VALIDATION_ERROR`` naming ``url``).

Those content checks come after the device's state because no schema can state them (that
bytes are an image, that a host resolves to a public address): a request valid by the
published document meets the device's state (503) first, as every send route does.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gateway.config import get_settings
from gateway.errors import ApiError, validation_error
from gateway.failures.codes import ErrorCode
from gateway.media import kinds, urls
from gateway.media.errors import MediaError, MediaTooLarge
from gateway.media.kinds import CheckedMedia, Kind
from gateway.media.limits import INLINE_MAX_BYTES
from gateway.messages.receipts import require_fields
from gateway.messages.schemas import (
    SendAudioRequest,
    SendContactRequest,
    SendDocumentRequest,
    SendLocationRequest,
    SendMediaRequest,
    SendPollRequest,
    SendTemplateRequest,
)
from gateway.messages.sends import TEXT
from gateway.web.fields import is_blank

LOCATION = "location"
CONTACT = "contact"
TEMPLATE = "template"
POLL = "poll"
MEDIA_KINDS: tuple[Kind, ...] = ("image", "video", "audio", "document", "sticker")


@dataclass(frozen=True)
class InlineMedia:
    """Decoded ``data_base64`` within the inline limit, not checked against its kind yet
    (:func:`checked`: once the device is known to be connected, just before storing)."""

    kind: Kind
    data: bytes
    declared: str | None
    filename: str | None


@dataclass(frozen=True)
class Message:
    """One send's content. ``media``: inline bytes still to check and store (their
    ``media_id`` joins the payload). ``field``: the request field a refusal of the content names."""

    kind: str
    text: str
    payload: dict[str, Any] | None = None
    media: InlineMedia | None = None
    field: str = "number"
    value: Any = None
    late_checks: tuple[Callable[[], None], ...] = ()
    """What no schema can state (a url's address rules, unique button ids): checked once the
    device is known to be connected, so a request valid by the document meets its state first."""


def late_checked(message: Message) -> CheckedMedia | None:
    """Run ``message``'s late checks; its inline media checked for their kind (400)."""
    for check in message.late_checks:
        check()
    return checked(message.media) if message.media is not None else None


def text(value: str) -> Message:
    return Message(TEXT, value)


def media(kind: Kind, request: SendMediaRequest) -> Message:
    """A media send: exactly one of ``url`` or ``data_base64``."""
    require_fields(number=(request.number or "").strip())
    url, data = request.url, request.data_base64
    if (url is None) == (data is None):
        raise validation_error("url", "give exactly one of url or data_base64")
    filename = request.filename if isinstance(request, SendDocumentRequest) else None
    payload: dict[str, Any] = {
        "caption": request.caption or None,
        "filename": filename or None,
        "ptt": bool(request.ptt) if isinstance(request, SendAudioRequest) else False,
        "mimetype": request.mimetype or None,
    }
    caption = request.caption or ""
    if url is not None:
        checks = (lambda: _check_url(url),)
        return Message(kind, caption, payload | {"url": url}, field="url", value=url, late_checks=checks)
    inline = InlineMedia(kind, _decoded(data or ""), request.mimetype, filename)
    return Message(kind, caption, payload, media=inline, field="data_base64")


def _check_url(url: str) -> None:
    """400 naming ``url`` unless its scheme, credentials and addresses may be fetched."""
    settings = get_settings()
    try:
        urls.check_url(
            url,
            allow_http=settings.http_urls_allowed,
            local_mode=settings.local_mode,
        )
    except MediaError as error:
        raise validation_error("url", str(error), url) from None


def _decoded(data: str) -> bytes:
    """The bytes of ``data_base64``, within the inline limit (413 over it)."""
    if len(data) // 4 * 3 > INLINE_MAX_BYTES + 2:  # over the limit however it decodes
        raise _too_large()
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise validation_error("data_base64", "not valid base64") from None
    if len(raw) > INLINE_MAX_BYTES:
        raise _too_large()
    return raw


def checked(media: InlineMedia) -> CheckedMedia:
    """Inline media sniffed and checked against their kind (400 naming ``data_base64``); a
    PNG or JPEG sticker comes back converted to WebP."""
    try:
        return kinds.check(media.kind, media.data, "data", declared=media.declared)
    except MediaTooLarge:
        raise _too_large() from None
    except MediaError as error:
        raise validation_error("data_base64", str(error)) from None


def _too_large() -> ApiError:
    return ApiError(
        413,
        ErrorCode.PAYLOAD_TOO_LARGE,
        f"data_base64 is over {INLINE_MAX_BYTES // (1024 * 1024)} MB once decoded: send larger media by url",
    )


def location(request: SendLocationRequest) -> Message:
    require_fields(
        number=(request.number or "").strip(),
        latitude=request.latitude is not None,
        longitude=request.longitude is not None,
    )
    place = {
        "latitude": request.latitude,
        "longitude": request.longitude,
        "name": request.name or None,
        "address": request.address or None,
    }
    return Message(LOCATION, request.name or "", place, field="latitude", value=request.latitude)


def contact(request: SendContactRequest) -> Message:
    name = request.contact_name or ""
    require_fields(
        number=(request.number or "").strip(),
        contact_name="" if is_blank(name) else name,
        contact_number=(request.contact_number or "").strip(),
    )
    phone = (request.contact_number or "").strip().removeprefix("+")
    if not phone.isdigit() or not 7 <= len(phone) <= 15:
        raise validation_error(
            "contact_number", "7 to 15 digits, an optional leading +", request.contact_number
        )
    return Message(CONTACT, name, {"name": name, "phone": phone}, field="contact_number", value=phone)


def template(request: SendTemplateRequest) -> Message:
    body = request.text or ""
    require_fields(
        number=(request.number or "").strip(),
        text="" if is_blank(body) else body,
        buttons=bool(request.buttons),
    )
    buttons = [{"id": button.id, "text": button.text} for button in request.buttons or []]

    def unique_ids() -> None:
        if len({button["id"] for button in buttons}) != len(buttons):
            raise validation_error("buttons", "each button needs its own id")

    payload = {"footer": request.footer or None, "buttons": buttons}
    return Message(TEMPLATE, body, payload, field="buttons", late_checks=(unique_ids,))


def poll(request: SendPollRequest) -> Message:
    """A poll: its question is the send's text; the options travel in the payload, which the
    outbox keeps with the sent message so that votes can be read back as texts (``poll.vote``)."""
    question = request.question or ""
    options = list(request.options or [])
    require_fields(
        number=(request.number or "").strip(),
        question="" if is_blank(question) else question,
        options=bool(options),
    )
    if len(set(options)) != len(options):
        raise validation_error("options", "each option must be different from the others")
    payload = {"question": question, "options": options, "multiple_answers": request.multiple_answers}
    return Message(POLL, question, payload, field="options", value=options)
