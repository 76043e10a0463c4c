"""One device's tenure on this host (:class:`OwnedDevice`), the per-device locks, and session
snapshots; which devices the host holds, and how their tenures begin and end, is
:mod:`session_host.ownership`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from gateway.bus import DeviceSnapshot
from gateway.leases import Lease
from session_host.config import STATE_POLL_SECONDS
from session_host.network.port import DeviceSession, SessionState
from session_host.outbox_names import RecentSends
from session_host.supervision import Supervisor


@dataclass(eq=False)
class OwnedDevice:
    """One tenure: from taking the device's lease to closing its session.

    ``active`` turns False once the tenure ends (clean close, lease lost): from then on its
    session's events are ignored, record updates included. ``ending`` marks a session that a
    command is ending itself (disconnect, logout, delete), so its last events do not also
    schedule an end.
    """

    tenant_id: str
    device_id: str
    lease: Lease
    session: DeviceSession = field(init=False)
    supervisor: Supervisor = field(init=False)
    active: bool = True
    ending: bool = False
    recent_sends: RecentSends = field(default_factory=RecentSends)  # for receipts' gateway ids
    # Chats the device wrote to or heard from, as recorded (``gateway.devices.known_chats``)
    # by this tenure or found there: each is looked up or written once per tenure at most.
    known_chats: set[str] = field(default_factory=set)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def notify(self) -> None:
        """Wake whoever waits for this session's state (an event arrived)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_until(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``ready()``, re-checked on every event."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not ready():
            remaining = deadline - loop.time()
            if remaining <= 0 or not self.active:
                return ready()
            try:
                async with asyncio.timeout(min(remaining, STATE_POLL_SECONDS)):
                    await self._changed.wait()
            except TimeoutError:
                pass
        return True


def session_snapshot(session: DeviceSession) -> DeviceSnapshot:
    """The device state the session shows now, as replies and records carry it."""
    state = session.state
    jid = session.jid
    return DeviceSnapshot(
        status=state.value,
        is_connected=state is SessionState.CONNECTED,
        is_logged_in=jid is not None and state is not SessionState.LOGGED_OUT,
        messaging_jid=jid,
    )


class DeviceLocks:
    """One asyncio lock per device, kept only while someone holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, device_id: str) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(device_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[device_id]
