"""Status operations on a simulated device session: the story audience and publishing.

Same order as the other operations (:mod:`.session_messages`): connected first
(``NOT_CONNECTED``, nothing sent), the inputs checked (``INVALID``, :mod:`..status_checks`),
then any injected fault named after the port method (``POST /_simulator/faults {operation:
"publish_status"}``), then the account acts on the network
(:class:`~.network_status.DeviceStatus`).
"""

from __future__ import annotations

from typing import NoReturn

from gateway import jids

from .. import status_checks
from ..port import SentMessage
from ..status_types import StatusContent, StatusPrivacy
from .network import SimulatedNetwork


class SessionStatus:
    """Status operations of :class:`~.session.SimulatedSession`, which provides the
    connection and the faults."""

    _network: SimulatedNetwork

    def _connection(self) -> str:
        raise NotImplementedError

    async def _fault(self, operation: str) -> bool:
        raise NotImplementedError

    async def _answer_lost(self, operation: str) -> NoReturn:
        raise NotImplementedError

    async def get_status_privacy(self) -> StatusPrivacy:
        self._connection()
        await self._fault("get_status_privacy")
        return self._network.device_status_privacy(self._connection())

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        """The network stores it as given (checked): the next story follows it."""
        self._connection()
        checked = status_checks.check_privacy(privacy)
        await self._fault("set_status_privacy")
        return self._network.device_set_status_privacy(self._connection(), checked)

    async def publish_status(self, content: StatusContent) -> SentMessage:
        """The contacts the setting allows see it at once (``docs/status.md``)."""
        self._connection()
        status_checks.check_content(content)
        lost = await self._fault("publish_status")
        message_id, at = self._network.device_publish_status(self._connection(), content)
        if lost:
            await self._answer_lost("publish_status")
        return SentMessage(message_id=message_id, chat_jid=jids.STATUS_BROADCAST_JID, timestamp=at)
