"""What a simulated device session does with messages already exchanged (its ``messages``):
read receipts, revoke, delete for me, history sync, reactions, edits.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``), then a fault injected for the port method (``POST
/_simulator/faults {operation: "revoke_message"}``), then the account acts on the network
(:meth:`~.core.NetworkCore.device`).

Choices, kept close to the real network: a revoke is a protocol message, and protocol
messages are not reported as events (``docs/events.md``, as neonize does not report them
either), so the recipients' devices get nothing and their phones' inboxes show the message
``revoked`` (text gone). Delete for me is app state of the account, which the network does
not check: it is only recorded. A history request is answered at once by the "phone" with
one ``history.sync`` chunk (``on_demand``) that counts what the network holds for the chat
before the oldest message named, as the real event counts (never carries) messages.
Reactions and edits follow :mod:`.message_changes`, the rules phones follow too.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import message_checks
from ..port import MessageRef, NetworkError
from . import events, message_changes
from .core import DeviceLink, NetworkCore
from .group_records import GroupError
from .model import Account, account_phone

REVOKED_CONTENT = ("caption", "media", "location", "contact", "buttons")
"""What a message deleted for everyone no longer shows, beside its text."""


class SimulatedMessages:
    """A simulated session's ``messages``: read receipts and its account's message state."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        """Read receipts for messages ``sender`` (a user JID, phone digits or a LID) sent in
        ``chat``: the sender's chat, or a group the network knows (``NOT_FOUND`` otherwise)."""
        self._link.connection()
        if not message_ids:
            raise NetworkError(ErrorKind.INVALID, "no message ids to mark as read")
        if jids.parse_participant(sender) is None:
            raise NetworkError(ErrorKind.INVALID, f"not a person: {sender!r}")
        await self._link.fault("mark_read")
        with self._network.device(self._link.connection()) as turn:
            if jids.is_group_jid(chat):
                try:
                    chat_jid = turn.world.groups.get(chat).jid
                except GroupError as error:
                    raise NetworkError(ErrorKind.NOT_FOUND, str(error)) from error
            else:
                chat_jid = jids.user_jid(account_phone(chat))
            author = turn.world.person(sender)
            if author is not None:
                turn.world.read(turn.account, chat_jid, list(message_ids), sender=author)
                turn.changed()

    @property
    def revoke_window_seconds(self) -> float:
        """The network's own window (``SIMULATOR_REVOKE_WINDOW_SECONDS`` when it started)."""
        return self._network.revoke_window

    async def revoke_message(self, chat: str, message_id: str) -> None:
        """Delete for everyone a message the account sent in ``chat``: recipients' inboxes show
        it ``revoked``; their devices get no event (a protocol message, as on neonize).

        ``NOT_FOUND``: the account sent no such message there (or already revoked it);
        ``EXPIRED``: it was sent more than the network's revoke window ago. A message saved
        before sends carried a timestamp counts as expired.
        """
        self._link.connection()
        message_checks.check_message(chat, message_id)
        await self._link.fault("revoke_message")
        with self._network.device(self._link.connection()) as turn:
            account = turn.account
            chat_jid = turn.world.chat_of(chat)
            sent = account.sent_message(chat_jid, message_id)
            if sent is None:
                raise NetworkError(
                    ErrorKind.NOT_FOUND, f"{account.jid} sent no message {message_id} to {chat_jid}"
                )
            if time.time() - _epoch(sent) > self._network.revoke_window:
                raise NetworkError(
                    ErrorKind.EXPIRED, "the network's window to delete this for everyone has passed"
                )
            sent["revoked"] = True
            for recipient in turn.world.accounts.values():
                for message in recipient.inbox:
                    if message["message_id"] == message_id and message["from"] == account.jid:
                        message["revoked"], message["text"] = True, None
                        message.update({key: None for key in REVOKED_CONTENT if key in message})
            turn.changed()

    async def delete_for_me(self, chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
        """Recorded on the account (``deleted_for_me``, app state the network never checks);
        the gateway emits ``message.delete_for_me``."""
        self._link.connection()
        message_checks.check_delete_for_me(chat, message_id, from_me=from_me, sender=sender)
        await self._link.fault("delete_for_me")
        with self._network.device(self._link.connection()) as turn:
            entry = {
                "chat": turn.world.chat_of(chat),
                "message_id": message_id,
                "from_me": from_me,
                "sender": sender,
                "timestamp": time.time(),
            }
            turn.account.deleted_for_me.append(entry)
            turn.changed()

    async def request_history_sync(self, chat: str, count: int, oldest: MessageRef) -> None:
        """The phone answers at once with one ``history.sync`` (``on_demand``) counting the
        messages of the chat before ``oldest`` (at most ``count``)."""
        self._link.connection()
        message_checks.check_history_sync(chat, count, oldest)
        await self._link.fault("request_history_sync")
        with self._network.device(self._link.connection()) as turn:
            chat_jid = turn.world.chat_of(chat)
            older = [
                message
                for message in _chat_messages(turn.account, chat_jid)
                if message["message_id"] != oldest.message_id and _epoch(message) < _millis(oldest.timestamp)
            ]
            assert turn.conn.device_key is not None
            found = len(older[-count:])
            turn.world.push(turn.conn.device_key, events.history_sync(turn.conn.device_id, found))

    async def react(
        self, chat: str, message_id: str, emoji: str, *, from_me: bool, sender: str | None
    ) -> None:
        """The chat's other people get the reaction (:func:`.message_changes.react`);
        ``NOT_FOUND`` when the account has no such message there from that author."""
        self._link.connection()
        message_checks.check_reaction(chat, message_id, emoji, from_me=from_me, sender=sender)
        await self._link.fault("react")
        with self._network.device(self._link.connection()) as turn:
            chat_jid = turn.world.chat_of(chat)
            author = turn.account.jid if from_me else turn.world.person(sender or chat_jid)
            if author is None:
                raise NetworkError(ErrorKind.NOT_FOUND, f"{sender} is not on the network")
            message_changes.react(turn.world, turn.account, chat_jid, message_id, emoji, author=author)
            turn.changed()

    @property
    def edit_window_seconds(self) -> float:
        """The network's own window (``SIMULATOR_EDIT_WINDOW_SECONDS`` when it started)."""
        return self._network.edit_window

    async def edit_message(self, chat: str, message_id: str, text: str) -> None:
        """The chat's other people see the new text (:func:`.message_changes.edit`):
        ``NOT_FOUND`` for no such text of the account there, ``EXPIRED`` past the window."""
        self._link.connection()
        message_checks.check_edit(chat, message_id, text)
        await self._link.fault("edit_message")
        with self._network.device(self._link.connection()) as turn:
            chat_jid = turn.world.chat_of(chat)
            window = self._network.edit_window
            message_changes.edit(turn.world, turn.account, chat_jid, message_id, text, window=window)
            turn.changed()


def _chat_messages(account: Account, chat_jid: str) -> list[dict[str, Any]]:
    """What the account's view holds of one chat, oldest first: received and sent."""
    received = [m for m in account.inbox if m.get("chat", m["from"]) == chat_jid]
    sent = [m for m in account.sent if m["to"] == chat_jid]
    return sorted(received + sent, key=_epoch)


def _epoch(message: dict[str, Any]) -> float:
    """When a message was sent, to the millisecond (the network's precision, and the inbox's
    ISO 8601 times'): epoch seconds (``sent``) or ISO 8601 (``inbox``); 0 when unknown."""
    value = message.get("timestamp")
    if isinstance(value, str):
        return _millis(datetime.fromisoformat(value).timestamp())
    return _millis(float(value or 0.0))


def _millis(seconds: float) -> float:
    return int(seconds * 1000) / 1000
