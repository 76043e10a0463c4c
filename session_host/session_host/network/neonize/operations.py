"""The operations a connected session offers: send text, chat presence, read receipts.

Every call goes through :meth:`OperationsMixin._call`: it runs on a thread of its own with a
deadline (``TIMEOUT`` after it; the call finishes by itself), and the session state is
checked inside the process-wide gate *before* the client is touched, because on a client that is not
connected several neonize calls (``get_me``, ``revoke_message``, ``contact.*``,
``chat_settings.*`` and more) abort the whole process instead of raising. Future operations
(groups, status, media) must use ``_call`` too. Library exceptions become
:class:`NetworkError` with the library's message (``errors.py``); none is swallowed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from neonize.client import NewClient
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContextInfo, ExtendedTextMessage, Message
from neonize.utils.enum import ChatPresence as NeonizeChatPresence
from neonize.utils.enum import ChatPresenceMedia, ReceiptType

from ..port import ChatPresence, NetworkError, NetworkErrorKind, SentMessage
from .errors import library_error
from .jids import jid_str, parse_jid
from .link import DeviceLink, ErrorMapper

T = TypeVar("T")
_PRESENCE = {
    ChatPresence.COMPOSING: NeonizeChatPresence.CHAT_PRESENCE_COMPOSING,
    ChatPresence.PAUSED: NeonizeChatPresence.CHAT_PRESENCE_PAUSED,
}


class OperationsMixin:
    """Network operations of ``NeonizeSession`` (which owns the state used here)."""

    _link: DeviceLink

    async def send_text(self, to: str, text: str, *, mentions: Sequence[str] = ()) -> SentMessage:
        if not text:
            raise NetworkError(NetworkErrorKind.INVALID, "text must not be empty")
        chat = parse_jid(to)
        message = (
            Message(
                extendedTextMessage=ExtendedTextMessage(
                    text=text, contextInfo=ContextInfo(mentionedJID=list(mentions))
                )
            )
            if mentions
            else Message(conversation=text)
        )
        response = await self._call("send message", lambda client: client.send_message(chat, message))
        timestamp = float(response.Timestamp) if response.Timestamp > 0 else time.time()
        return SentMessage(message_id=response.ID, chat_jid=jid_str(chat) or to, timestamp=timestamp)

    async def send_chat_presence(self, chat: str, presence: ChatPresence) -> None:
        target = parse_jid(chat)
        state = _PRESENCE[ChatPresence(presence)]
        media = ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT
        await self._call("send chat presence", lambda client: client.send_chat_presence(target, state, media))

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        if not message_ids:
            raise NetworkError(NetworkErrorKind.INVALID, "message_ids must not be empty")
        chat_jid = parse_jid(chat)
        sender_jid = parse_jid(sender) if sender else chat_jid
        ids = list(message_ids)
        await self._call(
            "mark read",
            lambda client: client.mark_read(*ids, chat=chat_jid, sender=sender_jid, receipt=ReceiptType.READ),
        )

    async def _call(
        self,
        operation: str,
        call: Callable[[NewClient], T],
        *,
        error: ErrorMapper = library_error,
        deadline: float | None = None,
    ) -> T:
        return await self._link.call(operation, call, error=error, deadline=deadline)
