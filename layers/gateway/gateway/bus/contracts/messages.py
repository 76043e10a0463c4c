"""Contracts of the commands on messages: read receipts, sends, deletes, history."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictInt, model_validator

from gateway.bus.contracts.base import CommandArgs, CommandResult, Text
from gateway.messages.sends import Send

MAX_SYNC_COUNT = 50
"""The most messages one history request asks the phone for (POST /chat/history's limit too)."""
MAX_POLL_OPTIONS = 12
"""The most options a poll has (POST /send/poll's limit, and the session host's check)."""


class MarkReadArgs(CommandArgs):
    chat_jid: Text
    sender_jid: Text
    message_ids: list[Text] = Field(min_length=1)


class SendingSettings(CommandArgs):
    """A device's sending policy as the API read it with a send
    (``gateway.devices.sending_policy``): it applies from that send on."""

    daily_send_limit: StrictInt | None = None
    new_chat_daily_limit: StrictInt | None = None
    warmup_days: StrictInt = 0
    send_jitter_seconds: StrictInt = 0


class SendTextArgs(CommandArgs):
    """A send of the outbox, by its key; the API carries it whole (``send``) so the host
    needs no read to start it, and the device's interval between sends and sending policy."""

    send_key: Text
    send: Send | None = None
    min_send_interval_seconds: float | None = None
    sending_policy: SendingSettings | None = None

    def carried(self, tenant_id: str, device_id: str) -> Send | None:
        """The send carried, if it is this device's and the one named; else None (the host
        then reads it from the outbox)."""
        send = self.send
        if send is None or (send.tenant_id, send.device_id, send.send_key) != (
            tenant_id,
            device_id,
            self.send_key,
        ):
            return None
        return send


class SendOutcome(CommandResult):
    """``sent`` (with ``sent_at`` and the network's id), or ``scheduled``: it goes out at
    ``scheduled_for`` (ISO 8601)."""

    status: Literal["sent", "scheduled"]
    message_id: Text
    chat_jid: Text
    sent_at: str | None = None
    network_message_id: str | None = None
    scheduled_for: str | None = None

    @model_validator(mode="after")
    def _when(self) -> SendOutcome:
        if self.status == "scheduled" and self.scheduled_for is None:
            raise ValueError("a scheduled send says when (scheduled_for)")
        return self


class DeleteMessageArgs(CommandArgs):
    """A message the device sent, by the gateway's id or the network's."""

    message_id: Text
    chat_jid: Text
    for_everyone: StrictBool


class DeletedMessage(CommandResult):
    message_id: str
    network_message_id: str
    chat_jid: str
    for_everyone: bool


class SyncHistoryArgs(CommandArgs):
    chat_jid: Text
    count: StrictInt = Field(ge=1, le=MAX_SYNC_COUNT)


class HistoryRequested(CommandResult):
    chat_jid: str
    count: int


class ReactArgs(CommandArgs):
    """A reaction to a message of ``chat_jid``, named by the network's id: one the device's
    account sent (``from_me``), or one ``sender_jid`` sent it. An empty ``emoji`` removes the
    account's reaction."""

    message_id: Text
    chat_jid: Text
    emoji: str
    from_me: StrictBool
    sender_jid: Text | None = None


class Reacted(CommandResult):
    message_id: str
    chat_jid: str
    emoji: str


class EditMessageArgs(CommandArgs):
    """A new text for a text the device sent, by the gateway's id or the network's."""

    message_id: Text
    chat_jid: Text
    text: Text


class EditedMessage(CommandResult):
    message_id: str
    network_message_id: str
    chat_jid: str
