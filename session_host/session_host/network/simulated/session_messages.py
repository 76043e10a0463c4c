"""Message operations on a simulated device session: text, media and rich sends, typing,
read marks, revoke, delete for me, history sync.

Same order as the group operations (:mod:`.session_groups`): connected first
(``NOT_CONNECTED``, nothing sent), the inputs checked (``INVALID``), then any injected fault
named after the port method (``POST /_simulator/faults {operation: "revoke_message"}``),
then the account acts on the network (:class:`~.network_messages.DeviceMessages`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import message_checks
from ..media_types import ContactCard, Location, OutgoingMedia, Template
from ..port import ChatPresence, MessageRef, NetworkError, NetworkErrorKind, SentMessage
from . import bodies
from .bodies import Body
from .link import DeviceLink
from .network import SimulatedNetwork


class SessionMessages:
    """Message operations of :class:`~.session.SimulatedSession`, which provides the
    connection and the faults."""

    _network: SimulatedNetwork
    _link: DeviceLink

    async def send_text(self, to: str, text: str, *, mentions: Sequence[str] = ()) -> SentMessage:
        self._link.connection()
        if not text:
            raise NetworkError(NetworkErrorKind.INVALID, "the text is empty")
        lost = await self._link.fault("send_text")
        message_id, chat_jid, at = self._network.send_text(
            self._link.connection(), to, text, mentions=list(mentions)
        )
        if lost:
            await self._link.answer_lost("send_text")
        return SentMessage(message_id=message_id, chat_jid=chat_jid, timestamp=at)

    async def send_chat_presence(self, chat: str, presence: ChatPresence) -> None:
        self._link.connection()
        state = ChatPresence(presence).value
        await self._link.fault("send_chat_presence")
        self._network.send_presence(self._link.connection(), chat, state)

    async def mark_read(self, chat: str, sender: str, message_ids: list[str]) -> None:
        self._link.connection()
        if not message_ids:
            raise NetworkError(NetworkErrorKind.INVALID, "no message ids to mark as read")
        await self._link.fault("mark_read")
        self._network.mark_read(self._link.connection(), chat, sender, list(message_ids))

    async def send_media(self, to: str, media: OutgoingMedia) -> SentMessage:
        """The recipient's inbox describes the bytes; its devices get them as the attachment."""
        self._link.connection()
        message_checks.check_media(media)
        return await self._send("send_media", to, bodies.media(media))

    async def send_location(self, to: str, location: Location) -> SentMessage:
        self._link.connection()
        message_checks.check_location(location)
        return await self._send("send_location", to, bodies.location(location))

    async def send_contact(self, to: str, card: ContactCard) -> SentMessage:
        self._link.connection()
        message_checks.check_contact(card)
        return await self._send("send_contact", to, bodies.contact(card))

    async def send_template(self, to: str, template: Template) -> SentMessage:
        """The simulated network shows the buttons (the real one does not: neonize refuses)."""
        self._link.connection()
        message_checks.check_template(template)
        return await self._send("send_template", to, bodies.template(template))

    async def _send(self, operation: str, to: str, body: Body) -> SentMessage:
        lost = await self._link.fault(operation)
        message_id, chat_jid, at = self._network.send(self._link.connection(), to, body)
        if lost:
            await self._link.answer_lost(operation)
        return SentMessage(message_id=message_id, chat_jid=chat_jid, timestamp=at)

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
