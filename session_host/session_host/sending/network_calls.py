"""The network call of one send, by its kind: the only place a dispatch meets the port.

``text`` → ``send_text`` (with the people it mentions); the media kinds → their bytes (from
the media bucket, ``media_id``; or fetched from ``url``, checked and converted as inline
media are checked by the API) → ``send_media``; ``location``, ``contact`` and ``template``
→ their port calls. The blocking reads (S3, the fetch) run on the host's AWS threads,
through the :class:`MediaReader` the dispatcher is given.

Content that cannot be sent (a url that does not fetch, bytes not of the kind, stored media
gone) raises ``NetworkError(INVALID)``: the send fails, and a held request is answered 400
``VALIDATION_ERROR`` naming the problem.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from gateway import jids
from gateway.failures.kinds import ErrorKind
from gateway.media import fetch, kinds
from gateway.media.errors import MediaError
from gateway.media.kinds import CheckedMedia
from gateway.messages.sends import TEXT, Send
from session_host.aws_calls import AWS_ERRORS
from session_host.network.media_types import (
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    QuickReply,
    Template,
)
from session_host.network.port import NetworkError, SendOperations, SentMessage

MEDIA_KINDS = frozenset(kind.value for kind in MediaKind)


class MediaReader(Protocol):
    """Where a dispatch reads media bytes (awaitable: the blocking calls run off the loop)."""

    async def stored_media(self, tenant_id: str, device_id: str, media_id: str) -> bytes: ...
    async def fetched_media(self, kind: kinds.Kind, url: str, declared: str | None) -> CheckedMedia:
        """:func:`fetch_checked`, off the event loop."""
        ...


def mentions(send: Send) -> list[str]:
    """The people a send mentions: those of a text's ``@<phone>`` (other kinds mention none)."""
    return jids.mentioned_jids(send.text) if send.kind == TEXT else []


async def send_message(sending: SendOperations, send: Send, media: MediaReader) -> SentMessage:
    """Make the network call of ``send`` on a session's ``sending``; raises ``NetworkError``
    (``INVALID`` for content that cannot be sent)."""
    payload = send.payload or {}
    to = send.chat_jid
    if send.kind == TEXT:
        return await sending.send_text(to, send.text, mentions=mentions(send))
    if send.kind in MEDIA_KINDS:
        outgoing = await _media(send, payload, media)  # the bytes first: a failure here sends nothing
        return await sending.send_media(to, outgoing)
    if send.kind == "location":
        place = Location(
            latitude=float(payload["latitude"]),
            longitude=float(payload["longitude"]),
            name=payload.get("name"),
            address=payload.get("address"),
        )
        return await sending.send_location(to, place)
    if send.kind == "contact":
        return await sending.send_contact(to, ContactCard(name=payload["name"], phone=payload["phone"]))
    if send.kind == "template":
        buttons = tuple(QuickReply(button["id"], button["text"]) for button in payload.get("buttons", []))
        return await sending.send_template(to, Template(send.text, payload.get("footer"), buttons))
    raise NetworkError(ErrorKind.INVALID, f"unknown kind of send: {send.kind}")


async def _media(send: Send, payload: dict[str, Any], reader: MediaReader) -> OutgoingMedia:
    """The bytes of a media send: stored by the API (already checked), or fetched now and
    checked like inline media (a PNG/JPEG sticker becomes WebP)."""
    kind = cast(kinds.Kind, send.kind)
    try:
        if (media_id := payload.get("media_id")) is not None:
            data = await reader.stored_media(send.tenant_id, send.device_id, media_id)
            mimetype = payload.get("mimetype") or kinds.sniff(data) or kinds.OCTET_STREAM
        else:
            checked = await reader.fetched_media(kind, payload["url"], payload.get("mimetype"))
            data, mimetype = checked.data, checked.mimetype
    except MediaError as error:
        raise NetworkError(ErrorKind.INVALID, str(error)) from None
    except AWS_ERRORS as error:  # nothing reached the network, but the send cannot go out as is
        raise NetworkError(
            ErrorKind.NETWORK, f"the media could not be read ({type(error).__name__})"
        ) from None
    return OutgoingMedia(
        kind=MediaKind(send.kind),
        data=data,
        mimetype=mimetype,
        caption=payload.get("caption") or None,
        filename=payload.get("filename") or None,
        ptt=bool(payload.get("ptt")),
    )


def fetch_checked(kind: kinds.Kind, url: str, declared: str | None) -> CheckedMedia:
    """GET ``url`` under the address rules and the kind's limit, and check the bytes as the
    API checks inline media. Blocks (network, image conversion): run it on a worker thread."""
    fetched = fetch.fetch(url, kinds.max_bytes(kind, "url"))
    return kinds.check(kind, fetched.data, "url", declared=declared or fetched.content_type)
