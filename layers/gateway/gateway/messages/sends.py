"""A send as the gateway sees it: the outbox's item (:mod:`gateway.messages.outbox` stores it)
and what ``SEND_TEXT`` carries whole. Apart from the outbox so that the bus's contracts can
name it without loading the tables' models (their names are read from the settings)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from gateway.failures.kinds import ErrorKind

TEXT = "text"
STATUS = "status"
"""The kind of a planned status publish (``send_at`` on POST /status/*): its payload is the
``PUBLISH_STATUS`` arguments, its chat ``status@broadcast``."""


class SendState(StrEnum):
    QUEUED = "queued"
    SENDING = "sending"  # a host has started the network call
    SENT = "sent"
    FAILED = "failed"
    CANCELED = "canceled"  # DELETE /sends/{message_id} before a host claimed it: never sent


UNFINISHED = (SendState.QUEUED, SendState.SENDING)


ShownState = Literal["scheduled", "sending", "sent", "failed", "canceled"]
"""A send's state as the API shows it (GET /sends)."""


def shown_state(state: SendState) -> ShownState:
    """The state as GET /sends names it: a ``queued`` send is ``scheduled`` (waiting for its
    time, its turn or its device), the others by their own name."""
    return _SHOWN[state]


def stored_state(shown: ShownState) -> SendState:
    """The stored state GET /sends shows as ``shown`` (its ``state`` filter)."""
    return _STORED[shown]


_SHOWN: dict[SendState, ShownState] = {
    SendState.QUEUED: "scheduled",
    SendState.SENDING: "sending",
    SendState.SENT: "sent",
    SendState.FAILED: "failed",
    SendState.CANCELED: "canceled",
}
_STORED = {shown: state for state, shown in _SHOWN.items()}


@dataclass(frozen=True)
class Send:
    """One outbox item, as the gateway sees it."""

    tenant_id: str
    device_id: str
    send_key: str
    message_id: str
    chat_jid: str
    text: str
    delay_seconds: float
    typing_seconds: float
    disable_presence: bool
    requested_at: float
    not_before: float
    state: SendState
    sending_epoch: int | None = None
    network_message_id: str | None = None
    sent_at: float | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    """Why it failed: the session host's error kind (``network``, ``timeout``, ...); None
    for a send failed before the kind was recorded (read as ``network``)."""
    revoked_at: float | None = None
    deleted_for_me_at: float | None = None
    kind: str = TEXT
    """What is sent: ``text``, or a kind of the send routes to come (image, location, ...)."""
    payload: dict[str, Any] | None = None
    """What a kind other than text needs beyond ``text`` (never media bytes: their S3 key)."""
    reply_to: str | None = None
    """The message it quotes, as the request named it (the gateway's id or the network's):
    resolved when it goes out, so a send held or scheduled keeps it."""

    def deletable(self, chat_jid: str, *, for_everyone: bool) -> bool:
        """Whether DELETE /messages/{message_id} may name it: sent in ``chat_jid``, not deleted
        for me, and, to delete it for everyone, not revoked yet (else MESSAGE_NOT_FOUND)."""
        if (
            self.state is not SendState.SENT
            or self.chat_jid != chat_jid
            or self.deleted_for_me_at is not None
        ):
            return False
        return not (for_everyone and self.revoked_at is not None)

    def shown_in(self, chat_jid: str) -> bool:
        """Sent in ``chat_jid`` and still there for everyone (not deleted, not deleted for me):
        what may still be deleted for everyone."""
        return self.deletable(chat_jid, for_everyone=True)

    def editable(self, chat_jid: str) -> bool:
        """Whether PATCH /messages/{message_id} may name it: a text :meth:`shown_in` the chat
        (else MESSAGE_NOT_FOUND); the network's window is the session host's to check."""
        return self.kind == TEXT and self.shown_in(chat_jid)

    @property
    def order(self) -> tuple[float, str]:
        """Dispatch order: when it may go out, then request order (the ``send_key``)."""
        return (self.not_before, self.send_key)
