"""Sending on a simulated device session (its ``sending``): texts, media and rich messages,
and the typing state.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``, :mod:`..message_checks`), then a fault injected for the port
method (``POST /_simulator/faults {operation: "send_media", error: "ack_lost"}``), then the
account sends on the network (:meth:`~.core.NetworkCore.device`): the traffic's rules are the
world's (:meth:`~.world.World.post`, :meth:`~.world.World.post_to_group`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway import jids
from gateway.failures.kinds import ErrorKind

from .. import message_checks
from ..media_types import ContactCard, Location, OutgoingMedia, Template
from ..port import ChatPresence, NetworkError, SentMessage
from ..reply_types import Poll, Quote
from . import bodies
from .bodies import Body
from .core import DeviceLink, NetworkCore
from .model import new_message_id


class SimulatedSending:
    """A simulated session's ``sending``: its account's messages and typing on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def send_text(
        self, to: str, text: str, *, mentions: Sequence[str] = (), quote: Quote | None = None
    ) -> SentMessage:
        self._link.connection()
        if not text:
            raise NetworkError(ErrorKind.INVALID, "the text is empty")
        return await self._send("send_text", to, bodies.text(text), mentions=list(mentions), quote=quote)

    async def send_chat_presence(self, chat: str, presence: ChatPresence) -> None:
        self._link.connection()
        state = ChatPresence(presence).value
        await self._link.fault("send_chat_presence")
        with self._network.device(self._link.connection()) as turn:
            if jids.is_group_jid(chat):
                turn.world.group_presence(turn.account.jid, chat, state)
            else:
                recipient = turn.world.account_of_jid(chat)
                if recipient is None:  # presence to nobody is dropped silently, as on the network
                    return
                turn.world.presence(turn.account.jid, recipient, state)
            turn.changed()

    async def send_media(self, to: str, media: OutgoingMedia, *, quote: Quote | None = None) -> SentMessage:
        """The recipient's inbox describes the bytes; its devices get them as the attachment."""
        self._link.connection()
        message_checks.check_media(media)
        return await self._send("send_media", to, bodies.media(media), quote=quote)

    async def send_location(self, to: str, location: Location, *, quote: Quote | None = None) -> SentMessage:
        self._link.connection()
        message_checks.check_location(location)
        return await self._send("send_location", to, bodies.location(location), quote=quote)

    async def send_contact(self, to: str, card: ContactCard, *, quote: Quote | None = None) -> SentMessage:
        self._link.connection()
        message_checks.check_contact(card)
        return await self._send("send_contact", to, bodies.contact(card), quote=quote)

    async def send_template(self, to: str, template: Template, *, quote: Quote | None = None) -> SentMessage:
        """The simulated network shows the buttons (the real one does not: neonize refuses)."""
        self._link.connection()
        message_checks.check_template(template)
        return await self._send("send_template", to, bodies.template(template), quote=quote)

    async def send_poll(self, to: str, poll: Poll, *, quote: Quote | None = None) -> SentMessage:
        """The recipients' inboxes show the poll, and its votes as they come."""
        self._link.connection()
        message_checks.check_poll(poll)
        return await self._send("send_poll", to, bodies.poll(poll), quote=quote)

    async def _send(
        self,
        operation: str,
        to: str,
        body: Body,
        *,
        mentions: list[str] | None = None,
        quote: Quote | None = None,
    ) -> SentMessage:
        """The account sends ``body`` to a person or a group (a lost answer fails it after).

        The answer names the chat's JID (phone digits name a user JID) and the time as the
        account's record keeps it (a revoke's window counts from it). A group refuses as the
        network does: ``group_not_found`` when the account is not in it, ``not_group_admin``
        when it is an announce group and the account no admin. A new one-to-one chat may meet
        the device's new-chat cap (``RATE_LIMITED``, reachout timelock: :mod:`.reachout`).
        """
        lost = await self._link.fault(operation)
        with self._network.device(self._link.connection()) as turn:
            message_id = new_message_id()
            if quote is not None:  # the network takes any id; it shows what it knows of it
                body = turn.world.replying(body, turn.account, turn.world.chat_of(to), quote.message_id)
            if jids.is_group_jid(to):
                turn.world.post_to_group(turn.account, to, message_id, body, mentions=mentions)
                chat_jid = to
            else:
                recipient = turn.world.recipient(to)
                self._network.reach_out(turn, recipient.jid)
                exclude = turn.conn.device_key
                turn.world.post(turn.account, recipient, message_id, body, exclude=exclude, mentions=mentions)
                chat_jid = recipient.jid
            turn.changed()
            at = turn.account.sent[-1]["timestamp"]
        if lost:
            await self._link.ack_lost(operation)
        return SentMessage(message_id=message_id, chat_jid=chat_jid, timestamp=at)
