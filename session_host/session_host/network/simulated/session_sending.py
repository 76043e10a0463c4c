"""Sending on a simulated device session (its ``sending``): texts, media and rich messages,
and the typing state.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``, :mod:`..message_checks`), then a fault injected for the port
method (``POST /_simulator/faults {operation: "send_media", error: "ack_lost"}``), then the
account sends on the network (:meth:`~.network.SimulatedNetwork.send`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import message_checks
from ..media_types import ContactCard, Location, OutgoingMedia, Template
from ..port import ChatPresence, NetworkError, NetworkErrorKind, SentMessage
from . import bodies
from .bodies import Body
from .link import DeviceLink
from .network import SimulatedNetwork


class SimulatedSending:
    """A simulated session's ``sending``: its account's messages and typing on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: SimulatedNetwork = link.network

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
