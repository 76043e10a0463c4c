"""What a neonize session does with messages already exchanged (its ``messages``): read
receipts, revoke, delete for me, history sync, reactions, edits.

What neonize 0.5.2 can do here (read from its source and its Go library's exports):

- **Revoke** (delete for everyone): ``send_message(chat, build_revoke(chat, own JID, id,
  with_go=True))``. ``with_go`` builds the key in whatsmeow, which knows the account's LID
  too; neonize's ``revoke_message`` builds it in Python comparing phone users only and
  misjudges LID senders. Neither the network nor whatsmeow tells beforehand whether the id
  is a message of this account or whether the revoke window (60 hours) has passed: the
  session host checks both from its own record of sent messages.
- **Delete for me** is ``UNSUPPORTED`` (501 ``UNSUPPORTED_OPERATION``), like every other
  app-state write (archive, pin, mute, mark chat read): it is an app-state patch, and
  neonize 0.5.2's ``send_app_state`` cannot send one correctly (its Go decoder compares enum
  pointers, so the patch name is always empty, and reads the timestamp as nanoseconds).
  Nothing reaches the library; the session host's own checks of the request still run first.
- **History sync on demand** is ``UNSUPPORTED``: whatsmeow sends the request built by
  ``build_history_sync_request`` as a *peer* message (``SendPeerMessage`` /
  ``SendRequestExtra{Peer: true}``), but neonize's ``send_message`` takes no extra and its
  Go library exports no peer send (``SendMessage``, ``SendFBMessage`` for FB application
  messages, ``SendAppState``, ...). Sent as a plain message to the own account, the phone
  would not take it as a request; nothing is sent.
- **Reactions**: ``send_message(chat, build_reaction(chat, author, id, emoji))``; whatsmeow
  builds the key (``fromMe`` when the author is the account, the author as participant in a
  group) and an empty emoji removes the reaction. Nothing tells whether the message exists.
- **Edits**: ``edit_message(chat, id, Message(conversation=text))`` (neonize's ``build_edit``:
  a ``MESSAGE_EDIT`` protocol message keyed ``fromMe``). whatsmeow checks neither the id nor
  the 15-minute window: the session host checks both from its record of sent messages.
"""

from __future__ import annotations

from neonize.client import NewClient
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message
from neonize.utils.enum import ReceiptType

from gateway.failures.kinds import ErrorKind

from .. import message_checks
from ..port import REAL_EDIT_WINDOW_SECONDS, REAL_REVOKE_WINDOW_SECONDS, MessageRef, NetworkError
from .catalog import unsupported
from .jids import parse_jid
from .link import DeviceLink


class NeonizeMessages:
    """A neonize session's ``messages``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        if not message_ids:
            raise NetworkError(ErrorKind.INVALID, "message_ids must not be empty")
        chat_jid = parse_jid(chat)
        sender_jid = parse_jid(sender) if sender else chat_jid
        ids = list(message_ids)
        await self._link.call(
            "mark read",
            lambda client: client.mark_read(*ids, chat=chat_jid, sender=sender_jid, receipt=ReceiptType.READ),
        )

    @property
    def revoke_window_seconds(self) -> float:
        """The real network's window; whatsmeow does not check it, the session host does."""
        return REAL_REVOKE_WINDOW_SECONDS

    async def revoke_message(self, chat: str, message_id: str) -> None:
        message_checks.check_message(chat, message_id)
        chat_jid = parse_jid(chat)

        def revoke(client: NewClient) -> None:
            message = client.build_revoke(chat_jid, self._link.own_account(), message_id, with_go=True)
            client.send_message(chat_jid, message)

        await self._link.call("revoke message", revoke)

    async def delete_for_me(self, chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
        message_checks.check_delete_for_me(chat, message_id, from_me=from_me, sender=sender)
        raise unsupported("delete_for_me")

    async def request_history_sync(self, chat: str, count: int, oldest: MessageRef) -> None:
        message_checks.check_history_sync(chat, count, oldest)
        raise unsupported("request_history_sync")

    async def react(
        self, chat: str, message_id: str, emoji: str, *, from_me: bool, sender: str | None
    ) -> None:
        message_checks.check_reaction(chat, message_id, emoji, from_me=from_me, sender=sender)
        chat_jid = parse_jid(chat)
        author = None if from_me else parse_jid(sender) if sender else chat_jid

        def react(client: NewClient) -> None:
            key_author = self._link.own_account() if author is None else author
            client.send_message(chat_jid, client.build_reaction(chat_jid, key_author, message_id, emoji))

        await self._link.call("react to message", react)

    @property
    def edit_window_seconds(self) -> float:
        """The real network's window; whatsmeow does not check it, the session host does."""
        return REAL_EDIT_WINDOW_SECONDS

    async def edit_message(self, chat: str, message_id: str, text: str) -> None:
        message_checks.check_edit(chat, message_id, text)
        chat_jid = parse_jid(chat)
        await self._link.call(
            "edit message",
            lambda client: client.edit_message(chat_jid, message_id, Message(conversation=text)),
        )
