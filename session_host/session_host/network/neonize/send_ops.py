"""Sending on a neonize session (its ``sending``): texts, media, places, contacts, typing.

Every library call goes through :meth:`.link.DeviceLink.call`. Media is uploaded from bytes
and its message built by :func:`.media.media_message` (see :mod:`.media` for why not with
neonize's own builders); a location and a contact are ``LocationMessage`` and
``ContactMessage`` (a vCard from :mod:`..vcards`).

**Templates** are ``UNSUPPORTED``: whatsmeow sends buttons from a linked device, but the real
network no longer shows quick-reply buttons that do not come from the Business API (phones
drop them or show "message not supported"). A plain text in their place would claim buttons
nobody can tap; nothing is sent.

**Replies** quote through the content's ``ContextInfo`` (:mod:`.replies`). **Polls** are built
by neonize's ``build_poll_vote_creation`` (whatsmeow adds the poll's secret, which it keeps
to decrypt the votes); their options are remembered for ``poll.vote``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from neonize.client import NewClient
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContextInfo, ExtendedTextMessage, Message
from neonize.utils.enum import ChatPresence as NeonizeChatPresence
from neonize.utils.enum import ChatPresenceMedia, VoteType

from gateway.failures.kinds import ErrorKind

from .. import message_checks
from ..media_types import ContactCard, Location, MediaKind, OutgoingMedia, Template
from ..port import ChatPresence, NetworkError, SentMessage
from ..reply_types import Poll, Quote
from .catalog import unsupported
from .jids import jid_str, parse_jid
from .link import DeviceLink
from .media import UPLOAD_TYPES, contact_message, location_message, media_message
from .replies import quote_context, quoting

_PRESENCE = {
    ChatPresence.COMPOSING: NeonizeChatPresence.CHAT_PRESENCE_COMPOSING,
    ChatPresence.PAUSED: NeonizeChatPresence.CHAT_PRESENCE_PAUSED,
}


class NeonizeSending:
    """A neonize session's ``sending``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def send_text(
        self, to: str, text: str, *, mentions: Sequence[str] = (), quote: Quote | None = None
    ) -> SentMessage:
        if not text:
            raise NetworkError(ErrorKind.INVALID, "text must not be empty")
        message = (
            Message(
                extendedTextMessage=ExtendedTextMessage(
                    text=text, contextInfo=ContextInfo(mentionedJID=list(mentions))
                )
            )
            if mentions
            else Message(conversation=text)
        )
        return await self._send_built(to, message, quote)

    async def send_media(self, to: str, media: OutgoingMedia, *, quote: Quote | None = None) -> SentMessage:
        message_checks.check_media(media)
        kind = MediaKind(media.kind)
        data = bytes(media.data)  # bytes, never a str neonize would fetch

        def upload(client: NewClient) -> Message:
            return media_message(media, client.upload(data, UPLOAD_TYPES[kind]))

        message = await self._link.call(f"upload {kind}", upload)
        return await self._send_built(to, message, quote)

    async def send_location(self, to: str, location: Location, *, quote: Quote | None = None) -> SentMessage:
        message_checks.check_location(location)
        return await self._send_built(to, location_message(location), quote)

    async def send_contact(self, to: str, card: ContactCard, *, quote: Quote | None = None) -> SentMessage:
        message_checks.check_contact(card)
        return await self._send_built(to, contact_message(card), quote)

    async def send_template(
        self,
        to: str,  # noqa: ARG002 (the port's)
        template: Template,
        *,
        quote: Quote | None = None,  # noqa: ARG002 (the port's)
    ) -> SentMessage:
        message_checks.check_template(template)
        raise unsupported("send_template")

    async def send_chat_presence(self, chat: str, presence: ChatPresence) -> None:
        target = parse_jid(chat)
        state = _PRESENCE[ChatPresence(presence)]
        media = ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT
        await self._link.call(
            "send chat presence", lambda client: client.send_chat_presence(target, state, media)
        )

    async def send_poll(self, to: str, poll: Poll, *, quote: Quote | None = None) -> SentMessage:
        message_checks.check_poll(poll)
        count = VoteType.MULTIPLE if poll.multiple_answers else VoteType.SINGLE
        options = list(poll.options)
        message = await self._link.call(
            "build poll", lambda client: client.build_poll_vote_creation(poll.question, options, count)
        )
        sent = await self._send_built(to, message, quote)
        self._link.recent.poll_sent(sent.message_id, options)
        return sent

    async def _send_built(self, to: str, message: Message, quote: Quote | None = None) -> SentMessage:
        """Send a message built already (quoting ``quote``); the network's id and time (now,
        if it gave none)."""
        chat = parse_jid(to)
        if quote is not None:
            context = quote_context(quote, jid_str(chat) or to, self._link.own_jid(), self._link.recent)
            message = quoting(message, context)
        response = await self._link.call("send message", lambda client: client.send_message(chat, message))
        timestamp = float(response.Timestamp) if response.Timestamp > 0 else time.time()
        return SentMessage(message_id=response.ID, chat_jid=jid_str(chat) or to, timestamp=timestamp)
