"""Input rules both adapters apply to message operations before anything is sent.

Kept in one place so the adapters refuse the same inputs with the same kind (``INVALID``).
"""

from __future__ import annotations

from gateway import jids

from .port import MessageRef, NetworkError, NetworkErrorKind


def check_message(chat: str, message_id: str) -> None:
    if not chat or not message_id:
        raise NetworkError(NetworkErrorKind.INVALID, "chat and message_id are required")


def check_delete_for_me(chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
    """A group message someone else sent is keyed by its author: ``sender`` is required then."""
    check_message(chat, message_id)
    if jids.is_group_jid(chat) and not from_me and not sender:
        raise NetworkError(NetworkErrorKind.INVALID, "sender is required for a group message not from me")


def check_history_sync(chat: str, count: int, oldest: MessageRef) -> None:
    """The request names one chat and starts at a message of it."""
    check_message(chat, oldest.message_id)
    if count < 1:
        raise NetworkError(NetworkErrorKind.INVALID, "count must be at least 1")
    if oldest.chat != chat:
        raise NetworkError(NetworkErrorKind.INVALID, "the oldest message must be of the chat synced")
