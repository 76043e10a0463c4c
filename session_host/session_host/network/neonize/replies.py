"""Replies and polls on neonize: quotes in and out, and what the session remembers for them.

Out: a send with a :class:`~..reply_types.Quote` carries a ``ContextInfo`` on its content
(``stanzaID``, ``participant``, ``quotedMessage``), as neonize's ``build_reply_message``
builds it from a received ``MessageEv``. The gateway names the quoted message by id only,
so the rest comes from what this session knows (:class:`Recent`): the messages it received
lately (their author and text), or, for one of the device's own sends, its own JID and the
text the outbox kept. Of an id nobody knows, a one-to-one chat's other person is taken as
the author; in a group the author stays unsaid. ``quotedMessage`` is a text: the quoted
message's text or caption (media are not quoted with their thumbnails).

In: ``message.received`` carries ``quoted`` from the ``ContextInfo`` of its content
(:func:`quoted_of`).

Polls: a vote names its options by their SHA-256 (:func:`~..reply_types.option_texts`);
:class:`Recent` keeps the options of the polls this session sent or received, and a vote
on another poll names them ``sha256:<hex>`` for the session host to map from the outbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContextInfo, ExtendedTextMessage, Message

from gateway import jids
from gateway.latest import LatestMap

from .. import payloads
from ..reply_types import Quote
from .content import describe_message

KEPT = 1000
"""How many received messages, and how many polls, a session remembers (oldest forgotten)."""


@dataclass(frozen=True)
class Known:
    """A message this session received: who wrote it, where, and its text."""

    chat: str | None
    sender: str | None
    content: str


class Recent:
    """What one session remembers for quotes and votes; bounded, safe across threads."""

    def __init__(self, kept: int = KEPT) -> None:
        self._messages: LatestMap[str, Known] = LatestMap(kept)
        self._polls: LatestMap[str, tuple[str, ...]] = LatestMap(kept)

    def received(self, data: Mapping[str, Any]) -> None:
        """Remember a ``message.received`` payload (and a poll's options)."""
        known = Known(data.get("chat_jid"), data.get("from"), data.get("content") or "")
        self._messages.put(data["message_id"], known)
        poll = data.get("poll")
        if isinstance(poll, dict):
            self.poll_sent(data["message_id"], poll.get("options") or ())

    def poll_sent(self, message_id: str, options: Any) -> None:
        self._polls.put(message_id, tuple(str(option) for option in options))

    def message(self, message_id: str) -> Known | None:
        return self._messages.get(message_id)

    def poll_options(self, message_id: str) -> tuple[str, ...] | None:
        return self._polls.get(message_id)


def quote_context(quote: Quote, chat: str, own_jid: str | None, recent: Recent) -> ContextInfo:
    """The ``ContextInfo`` that makes a message quote ``quote`` in ``chat`` (see the module)."""
    author: str | None
    content: str | None
    if quote.from_me:
        author, content = own_jid, quote.content
    elif (known := recent.message(quote.message_id)) is not None and known.chat in (None, chat):
        author, content = known.sender, known.content
    else:
        author, content = (None if jids.is_group_jid(chat) else chat), quote.content
    context = ContextInfo(stanzaID=quote.message_id)
    if author:
        context.participant = author
    if content:
        context.quotedMessage.CopyFrom(Message(conversation=content))
    return context


def quoting(message: Message, context: ContextInfo) -> Message:
    """``message`` with ``context`` on its content; a plain text becomes an extended text,
    the form that has a ``ContextInfo``."""
    if message.conversation:
        message = Message(extendedTextMessage=ExtendedTextMessage(text=message.conversation))
    part = _content(message)
    if part is not None:
        part.contextInfo.MergeFrom(context)
    return message


def quoted_of(message: Message) -> dict[str, Any] | None:
    """``quoted`` of a received message: the id, author and text of the message it replies
    to, from its content's ``ContextInfo``; None when it quotes nothing."""
    part = _content(message)
    if part is None or not part.HasField("contextInfo") or not part.contextInfo.stanzaID:
        return None
    context = part.contextInfo
    author = jids.parse_jid(context.participant) if context.participant else None
    described = describe_message(context.quotedMessage) if context.HasField("quotedMessage") else None
    return payloads.quoted_message(
        context.stanzaID,
        author.bare if author is not None else (context.participant or None),
        described.content if described is not None else None,
    )


def _content(message: Message) -> Any:
    """The set part of ``message`` that carries a ``ContextInfo`` (text, media, poll...), or None."""
    for field, value in message.ListFields():
        if field.message_type is not None and "contextInfo" in field.message_type.fields_by_name:
            return value
    return None
