"""The network call of one send, by its kind: the only place a dispatch meets the port.

A planned status publish (``send_at`` on POST /status/*, kind ``status``) is published on
the session's ``status`` with the story its payload describes (:func:`dispatch`).

``text`` → ``send_text`` (with the people it mentions); the media kinds → their bytes (from
the media bucket, ``media_id``; or fetched from ``url``, checked and converted as inline
media are checked by the API) → ``send_media``; ``location``, ``contact``, ``template`` and
``poll`` → their port calls. The blocking reads (S3, the fetch, the outbox) run on the
host's AWS threads, through the :class:`OutboxReader` the dispatcher is given.

A send with ``reply_to`` quotes that message (:func:`quote`), resolved now, when it goes out:
a send of the device named by either id (in the same chat, and sent) is quoted by its
network id with its text; any other id is passed to the network as its own id, as the real
network accepts any (a message the gateway never saw, or one it received).

Content that cannot be sent (a url that does not fetch, bytes not of the kind, stored media
gone) raises ``NetworkError(INVALID)``: the send fails, and a held request is answered 400
``VALIDATION_ERROR`` naming the problem.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast

from gateway import jids
from gateway.bus.contracts.status import PublishStatusArgs
from gateway.failures.kinds import ErrorKind
from gateway.media import fetch, kinds
from gateway.media.errors import MediaError
from gateway.media.kinds import CheckedMedia
from gateway.messages.sends import STATUS, TEXT, Send
from session_host.aws_calls import AWS_ERRORS
from session_host.network.media_types import (
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    QuickReply,
    Template,
)
from session_host.network.port import DeviceSession, NetworkError, SendOperations, SentMessage
from session_host.network.reply_types import Poll, Quote
from session_host.network.status_types import MediaStatus, StatusContent, TextStatus

MEDIA_KINDS = frozenset(kind.value for kind in MediaKind)


class MediaReader(Protocol):
    """Where a dispatch reads media bytes (awaitable: the blocking calls run off the loop)."""

    async def stored_media(self, tenant_id: str, device_id: str, media_id: str) -> bytes: ...
    async def fetched_media(
        self, kind: kinds.Kind, url: str, declared: str | None, *, status: bool = False
    ) -> CheckedMedia:
        """:func:`fetch_checked`, off the event loop."""
        ...


class OutboxReader(MediaReader, Protocol):
    """The media reads, and the device's sends by either id (a reply's quote)."""

    async def find(self, tenant_id: str, device_id: str, message_id: str) -> Send | None: ...


def mentions(send: Send) -> list[str]:
    """The people a send mentions: those of a text's ``@<phone>`` (other kinds mention none)."""
    return jids.mentioned_jids(send.text) if send.kind == TEXT else []


async def dispatch(session: DeviceSession, send: Send, reader: OutboxReader) -> SentMessage:
    """The network call of ``send`` on ``session``: a planned status publish (kind
    :data:`~gateway.messages.sends.STATUS`) on its ``status``, any other kind a message."""
    if send.kind == STATUS:
        return await session.status.publish_status(await _story(send, reader))
    return await send_message(session.sending, send, reader)


async def _story(send: Send, reader: MediaReader) -> StatusContent:
    """The story a planned status publish carries (its payload: the ``PUBLISH_STATUS``
    arguments), its media read or fetched now under the status limits."""
    story = PublishStatusArgs.model_validate(send.payload or {})
    if story.kind == "text" and story.text is not None:
        return TextStatus(text=story.text, background_color=story.background_color, font=story.font)
    kind: kinds.Kind = "video" if story.kind == "video" else "image"
    with _reading_media():
        if story.media_id is not None:
            data = await reader.stored_media(send.tenant_id, send.device_id, story.media_id)
            return MediaStatus(data=data, mimetype=kinds.sniff(data) or "", caption=story.caption)
        checked = await reader.fetched_media(kind, story.url or "", None, status=True)
    return MediaStatus(data=checked.data, mimetype=checked.mimetype, caption=story.caption)


async def send_message(sending: SendOperations, send: Send, reader: OutboxReader) -> SentMessage:
    """Make the network call of ``send`` on a session's ``sending``; raises ``NetworkError``
    (``INVALID`` for content that cannot be sent)."""
    payload = send.payload or {}
    to = send.chat_jid
    quoted = await quote(send, reader)
    if send.kind == TEXT:
        return await sending.send_text(to, send.text, mentions=mentions(send), quote=quoted)
    if send.kind in MEDIA_KINDS:
        outgoing = await _media(send, payload, reader)  # the bytes first: a failure here sends nothing
        return await sending.send_media(to, outgoing, quote=quoted)
    if send.kind == "location":
        place = Location(
            latitude=float(payload["latitude"]),
            longitude=float(payload["longitude"]),
            name=payload.get("name"),
            address=payload.get("address"),
        )
        return await sending.send_location(to, place, quote=quoted)
    if send.kind == "contact":
        card = ContactCard(name=payload["name"], phone=payload["phone"])
        return await sending.send_contact(to, card, quote=quoted)
    if send.kind == "template":
        buttons = tuple(QuickReply(button["id"], button["text"]) for button in payload.get("buttons", []))
        return await sending.send_template(
            to, Template(send.text, payload.get("footer"), buttons), quote=quoted
        )
    if send.kind == "poll":
        poll = Poll(payload["question"], tuple(payload["options"]), bool(payload.get("multiple_answers")))
        return await sending.send_poll(to, poll, quote=quoted)
    raise NetworkError(ErrorKind.INVALID, f"unknown kind of send: {send.kind}")


async def quote(send: Send, reader: OutboxReader) -> Quote | None:
    """The message ``send`` replies to, as the network names it (see the module); None
    without ``reply_to``. An outbox that cannot be read fails the send (``NETWORK``):
    nothing reached the network, and a gateway id must not be passed as the network's."""
    if send.reply_to is None:
        return None
    try:
        own = await reader.find(send.tenant_id, send.device_id, send.reply_to)
    except AWS_ERRORS as error:
        raise NetworkError(
            ErrorKind.NETWORK, f"the message replied to could not be looked up ({type(error).__name__})"
        ) from None
    if own is None or own.chat_jid != send.chat_jid or own.network_message_id is None:
        return Quote(send.reply_to)
    return Quote(own.network_message_id, from_me=True, content=own.text)


async def _media(send: Send, payload: dict[str, Any], reader: MediaReader) -> OutgoingMedia:
    """The bytes of a media send: stored by the API (already checked), or fetched now and
    checked like inline media (a PNG/JPEG sticker becomes WebP)."""
    kind = cast(kinds.Kind, send.kind)
    with _reading_media():
        if (media_id := payload.get("media_id")) is not None:
            data = await reader.stored_media(send.tenant_id, send.device_id, media_id)
            mimetype = payload.get("mimetype") or kinds.sniff(data) or kinds.OCTET_STREAM
        else:
            checked = await reader.fetched_media(kind, payload["url"], payload.get("mimetype"))
            data, mimetype = checked.data, checked.mimetype
    return OutgoingMedia(
        kind=MediaKind(send.kind),
        data=data,
        mimetype=mimetype,
        caption=payload.get("caption") or None,
        filename=payload.get("filename") or None,
        ptt=bool(payload.get("ptt")),
    )


@contextmanager
def _reading_media() -> Iterator[None]:
    """Media that cannot be read fail the send before anything reached the network:
    ``INVALID`` when they are gone or not of the kind, ``NETWORK`` when the store failed."""
    try:
        yield
    except MediaError as error:
        raise NetworkError(ErrorKind.INVALID, str(error)) from None
    except AWS_ERRORS as error:
        raise NetworkError(
            ErrorKind.NETWORK, f"the media could not be read ({type(error).__name__})"
        ) from None


def fetch_checked(kind: kinds.Kind, url: str, declared: str | None, *, status: bool = False) -> CheckedMedia:
    """GET ``url`` under the address rules and the kind's limit (a story's when ``status``),
    and check the bytes as the API checks inline media. Blocks (network, image conversion):
    run it on a worker thread."""
    fetched = fetch.fetch(url, kinds.max_bytes(kind, "url", status=status))
    return kinds.check(kind, fetched.data, "url", declared=declared or fetched.content_type, status=status)
