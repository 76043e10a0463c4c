"""The send dispatchers of the devices this host runs, one per tenure."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from session_host.config import SEND_POLL_SECONDS
from session_host.device_tenure import OwnedDevice
from session_host.network.port import NetworkEvent
from session_host.sending.sender import DeviceSender
from session_host.sending.store import OutboxStore

SETTLE_SECONDS = 10.0
"""How long a clean end of a tenure waits for the device's dispatch under way."""
PublishFor = Callable[[OwnedDevice, NetworkEvent], Awaitable[None]]


class Senders:
    """Started and stopped by :class:`~session_host.ownership.Ownership` with each tenure."""

    def __init__(
        self, store: OutboxStore, publish: PublishFor, poll_seconds: float = SEND_POLL_SECONDS
    ) -> None:
        self.store = store
        self._publish = publish
        self._poll = poll_seconds
        self._running: dict[str, tuple[DeviceSender, asyncio.Task[None]]] = {}
        self._in_flight: set[str] = set()
        self._dispatching: set[asyncio.Task[None]] = set()

    def start(self, owned: OwnedDevice) -> None:
        async def publish(event: NetworkEvent) -> None:
            await self._publish(owned, event)

        sender = DeviceSender(
            owned,
            self.store,
            publish,
            in_flight=self._in_flight,
            dispatching=self._dispatching,
            poll_seconds=self._poll,
        )
        self.stop(owned.device_id)
        self._running[owned.device_id] = (sender, asyncio.get_running_loop().create_task(sender.run()))

    def stop(self, device_id: str, owned: OwnedDevice | None = None) -> None:
        """Cancel the device's dispatcher (only ``owned``'s, when given); a dispatch under
        way finishes by itself (see :meth:`drain`)."""
        entry = self._running.get(device_id)
        if entry is None or (owned is not None and entry[0].owned is not owned):
            return
        del self._running[device_id]
        entry[1].cancel()

    async def settle(self, owned: OwnedDevice, timeout: float = SETTLE_SECONDS) -> None:
        """Stop ``owned``'s dispatcher and let its dispatch under way finish (up to ``timeout``)
        before the session closes: the next owner then finds it sent or queued again, never
        ``sending`` (which it would have to fail as interrupted)."""
        entry = self._running.get(owned.device_id)
        self.stop(owned.device_id, owned)
        unsettled = entry[0].unsettled() if entry is not None and entry[0].owned is owned else []
        if unsettled:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await asyncio.gather(*(asyncio.shield(task) for task in unsettled))

    def get(self, device_id: str) -> DeviceSender | None:
        entry = self._running.get(device_id)
        return entry[0] if entry is not None else None

    async def drain(self) -> None:
        """Let the dispatches under way record their outcome (a clean stop)."""
        while self._dispatching:
            await asyncio.gather(*list(self._dispatching), return_exceptions=True)
