"""What a simulated device session does with messages already exchanged (its ``messages``):
read receipts, revoke, delete for me, history sync.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``), then a fault injected for the port method (``POST
/_simulator/faults {operation: "revoke_message"}``), then the account acts on the network
(:class:`~.network_messages.DeviceMessages`).
"""

from __future__ import annotations

from .. import message_checks
from ..port import MessageRef, NetworkError, NetworkErrorKind
from .link import DeviceLink
from .network import SimulatedNetwork


class SimulatedMessages:
    """A simulated session's ``messages``: read receipts and its account's message state."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: SimulatedNetwork = link.network

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        self._link.connection()
        if not message_ids:
            raise NetworkError(NetworkErrorKind.INVALID, "no message ids to mark as read")
        await self._link.fault("mark_read")
        self._network.mark_read(self._link.connection(), chat, sender, list(message_ids))

    @property
    def revoke_window_seconds(self) -> float:
        """The network's own window (``SIMULATOR_REVOKE_WINDOW_SECONDS`` when it started)."""
        return self._network.revoke_window

    async def revoke_message(self, chat: str, message_id: str) -> None:
        """Recipients' inboxes show it ``revoked``; their devices get no event (a protocol
        message, not reported, as on neonize)."""
        self._link.connection()
        message_checks.check_message(chat, message_id)
        await self._link.fault("revoke_message")
        self._network.device_revoke(self._link.connection(), chat, message_id)

    async def delete_for_me(self, chat: str, message_id: str, *, from_me: bool, sender: str | None) -> None:
        """Recorded on the account (``deleted_for_me``); the gateway emits ``message.delete_for_me``."""
        self._link.connection()
        message_checks.check_delete_for_me(chat, message_id, from_me=from_me, sender=sender)
        await self._link.fault("delete_for_me")
        self._network.device_delete_for_me(
            self._link.connection(), chat, message_id, from_me=from_me, sender=sender
        )

    async def request_history_sync(self, chat: str, count: int, oldest: MessageRef) -> None:
        """Answered by one ``history.sync`` event (``on_demand``) counting what came before."""
        self._link.connection()
        message_checks.check_history_sync(chat, count, oldest)
        await self._link.fault("request_history_sync")
        self._network.device_history_sync(self._link.connection(), chat, count, oldest)
