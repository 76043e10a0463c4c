"""Status operations of a simulated device session (its ``status``): the story audience and publishing.

Same order as the other operations (:mod:`.session_messages`): connected first
(``NOT_CONNECTED``, nothing sent), the inputs checked (``INVALID``, :mod:`..status_checks`),
then any injected fault named after the port method (``POST /_simulator/faults {operation:
"publish_status"}``), then the account acts on the network
(:class:`~.network_status.DeviceStatus`).
"""

from __future__ import annotations

from gateway import jids

from .. import status_checks
from ..port import SentMessage
from ..status_types import StatusContent, StatusPrivacy
from .link import DeviceLink
from .network import SimulatedNetwork


class SimulatedStatus:
    """A simulated session's ``status``: its account's stories on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: SimulatedNetwork = link.network

    async def get_status_privacy(self) -> StatusPrivacy:
        self._link.connection()
        await self._link.fault("get_status_privacy")
        return self._network.device_status_privacy(self._link.connection())

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        """The network stores it as given (checked): the next story follows it."""
        self._link.connection()
        checked = status_checks.check_privacy(privacy)
        await self._link.fault("set_status_privacy")
        return self._network.device_set_status_privacy(self._link.connection(), checked)

    async def publish_status(self, content: StatusContent) -> SentMessage:
        """The contacts the setting allows see it at once (``docs/status.md``)."""
        self._link.connection()
        status_checks.check_content(content)
        lost = await self._link.fault("publish_status")
        message_id, at = self._network.device_publish_status(self._link.connection(), content)
        if lost:
            await self._link.answer_lost("publish_status")
        return SentMessage(message_id=message_id, chat_jid=jids.STATUS_BROADCAST_JID, timestamp=at)
