"""What a connected device does to messages already sent: revoke, delete for me, history.

The network side of :class:`~.session_messages.SessionMessages`. Choices, kept close to the
real network: a revoke is a protocol message, and protocol messages are not reported as
events (``docs/events.md``, as neonize does not report them either), so the recipients'
devices get nothing and their phones' inboxes show the message ``revoked`` (text gone).
Delete for me is app state of the account, which the network does not check: it is only
recorded. A history request is answered at once by the "phone" with one ``history.sync``
chunk (``on_demand``) that counts what the network holds for the chat before the oldest
message named, as the real event counts (never carries) messages.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from gateway import jids

from ..port import MessageRef, NetworkError, NetworkErrorKind
from . import events
from .core import NetworkCore
from .model import Account

REVOKED_CONTENT = ("caption", "media", "location", "contact", "buttons")
"""What a message deleted for everyone no longer shows, beside its text."""


class DeviceMessages(NetworkCore):
    """Message operations of a connected device's account (called by sessions)."""

    def device_revoke(self, conn_id: str, chat: str, message_id: str) -> None:
        """Delete for everyone a message the account sent in ``chat``.

        ``NOT_FOUND``: the account sent no such message there (or already revoked it);
        ``EXPIRED``: it was sent more than :attr:`revoke_window` seconds ago. A message saved
        before sends carried a timestamp counts as expired.
        """
        with self._lock:
            _conn, account = self._live(conn_id)
            chat_jid = self._chat_of(chat)
            sent = next(
                (
                    entry
                    for entry in account.sent
                    if entry["message_id"] == message_id
                    and entry["to"] == chat_jid
                    and not entry.get("revoked")
                ),
                None,
            )
            if sent is None:
                raise NetworkError(
                    NetworkErrorKind.NOT_FOUND, f"{account.jid} sent no message {message_id} to {chat_jid}"
                )
            if time.time() - _epoch(sent) > self.revoke_window:
                raise NetworkError(
                    NetworkErrorKind.EXPIRED, "the network's window to delete this for everyone has passed"
                )
            sent["revoked"] = True
            for recipient in self._world.accounts.values():
                for message in recipient.inbox:
                    if message["message_id"] == message_id and message["from"] == account.jid:
                        message["revoked"], message["text"] = True, None
                        message.update({key: None for key in REVOKED_CONTENT if key in message})
            self._save()

    def device_delete_for_me(
        self, conn_id: str, chat: str, message_id: str, *, from_me: bool, sender: str | None
    ) -> None:
        """Record that the account deleted a message for itself (app state, never checked)."""
        with self._lock:
            _conn, account = self._live(conn_id)
            chat_jid = self._chat_of(chat)
            account.deleted_for_me.append(
                {
                    "chat": chat_jid,
                    "message_id": message_id,
                    "from_me": from_me,
                    "sender": sender,
                    "timestamp": time.time(),
                }
            )
            self._save()

    def device_history_sync(self, conn_id: str, chat: str, count: int, oldest: MessageRef) -> None:
        """The phone answers a history request with one ``history.sync`` chunk for the device."""
        with self._lock:
            conn, account = self._live(conn_id)
            chat_jid = self._chat_of(chat)
            older = [
                message
                for message in _chat_messages(account, chat_jid)
                if message["message_id"] != oldest.message_id and _epoch(message) < _millis(oldest.timestamp)
            ]
            found = len(older[-count:])
            assert conn.device_key is not None
            self._world.push(conn.device_key, events.history_sync(conn.device_id, found))

    def _chat_of(self, chat: str) -> str:
        """A chat's JID as the account's messages name it (``NOT_FOUND`` for nobody)."""
        if jids.is_group_jid(chat):
            return chat
        account = self._world.account_of_jid(chat)
        if account is None:
            raise NetworkError(NetworkErrorKind.NOT_FOUND, f"{chat} is not on the network")
        return account.jid


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
