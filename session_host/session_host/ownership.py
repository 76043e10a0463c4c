"""The devices this host runs: taking a device, and the three ways a tenure ends.

* :meth:`Ownership.retire`: a clean end (command, clean stop, pairing window over). The
  session is closed while the tenure still counts, so its last events are recorded and
  published; then the record is updated and the lease released.
* :meth:`Ownership.lose`: the lease was taken over or expired unrenewed. The tenure ends
  first (later events are ignored), then the session is closed; the record and the lease
  are left to the new owner.
* Ending the process without either (a crash): leases expire and other hosts take over.

Every start and clean end of a tenure runs under the device's lock (:attr:`Ownership.locks`);
losing one does not wait for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from enum import Enum
from typing import Any

from gateway import leases
from gateway.bus import DeviceSnapshot
from gateway.leases import Lease
from gateway.observability import logger
from session_host import records
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.config import EXPIRY_MARGIN_SECONDS, HostSettings
from session_host.network.port import NetworkEvent, NetworkPort
from session_host.owned import DeviceLocks, OwnedDevice, session_snapshot
from session_host.publisher import EventPublisher, envelope
from session_host.sending import HostOutbox, Senders
from session_host.sink import Sinks


class RecordOnEnd(Enum):
    """What a clean end writes to the device record."""

    HAND_BACK = "hand_back"  # clear this host's queue, record the last state; still wanted
    STOP_WANTING = "stop_wanting"  # also wants_connection = False: nobody restores it
    RELEASE_ONLY = "release_only"  # clear this host's queue only
    NOTHING = "nothing"  # the record was never claimed


class Ownership:
    """The registry of tenures (``devices``) and the only code that starts or ends one."""

    def __init__(
        self, *, port: NetworkPort, settings: HostSettings, aws: AwsCalls, publisher: EventPublisher
    ) -> None:
        self.devices: dict[str, OwnedDevice] = {}
        self.device_ids: frozenset[str] = frozenset()  # a copy other threads may read
        self.locks = DeviceLocks()
        self.queue_url = ""  # set by the host once its queue exists
        self.aws = aws
        self._port = port
        self._settings = settings
        self._sinks = Sinks(
            aws=aws, publisher=publisher, queue_url=lambda: self.queue_url, on_session_end=self._session_ended
        )
        self._background: set[asyncio.Task[Any]] = set()
        self._publisher = publisher
        # Every tenure sends its device's outbox while it lasts.
        self.senders = Senders(HostOutbox(aws), self.publish)

    @property
    def host_id(self) -> str:
        return self._settings.host_id

    # --- starting a tenure --------------------------------------------------------------

    async def acquire(self, tenant_id: str, device_id: str) -> Lease | None:
        """The device's lease for this host, or None while another live host holds it."""
        return await self.aws(
            leases.acquire,
            device_id,
            tenant_id,
            self.host_id,
            self.queue_url,
            self._settings.lease_ttl_seconds,
        )

    async def holder(self, device_id: str, consistent: bool = True) -> Lease | None:
        """The live lease of another host on the device, if there is one."""
        lease = await self.aws(leases.current, device_id, consistent)
        return lease if lease is not None and lease.owner_host_id != self.host_id else None

    def open(self, tenant_id: str, device_id: str, lease: Lease) -> OwnedDevice:
        """Start a tenure under ``lease``: the session object exists, nothing connects yet."""
        owned = OwnedDevice(tenant_id, device_id, lease)
        owned.session = self._port.open_session(
            device_id, data_dir=self._settings.data_dir, sink=self._sinks.sink_for(owned)
        )
        self.devices[device_id] = owned
        self.device_ids = frozenset(self.devices)
        self._arm_expiry(owned)
        self.senders.start(owned)
        return owned

    async def claim(self, owned: OwnedDevice, how: records.Claim) -> bool:
        """Name this host on the record (before connecting, so events can be recorded)."""
        return await self.aws(records.claim, owned.tenant_id, owned.device_id, self.queue_url, how)

    async def release(self, lease: Lease) -> None:
        """Give a lease back; one that cannot be released expires by itself."""
        try:
            await self.aws(leases.release, lease)
        except AWS_ERRORS as error:
            logger.warning("lease not released", extra={"device_id": lease.device_id, "error": str(error)})

    def renewed(self, owned: OwnedDevice, lease: Lease) -> None:
        owned.lease = lease
        self._arm_expiry(owned)

    # --- ending a tenure ----------------------------------------------------------------

    async def retire(self, owned: OwnedDevice, record: RecordOnEnd) -> DeviceSnapshot:
        """End the tenure cleanly; returns the session's last state."""
        owned.ending = True
        await self.senders.settle(owned)  # no new dispatch, and the one under way is recorded
        try:
            await owned.session.close()
        except Exception:
            logger.exception("closing a session failed", extra={"device_id": owned.device_id})
        still_ours = owned.active
        self._end(owned)
        snapshot = session_snapshot(owned.session)
        if not still_ours:  # lost while closing: the record and the lease are the new owner's
            return snapshot
        try:
            await self._write_end(owned, record, snapshot)
        except AWS_ERRORS as error:
            logger.error(
                "device record not updated at the end of a session",
                extra={"device_id": owned.device_id, "error": str(error)},
            )
        await self.release(owned.lease)
        return snapshot

    async def lose(self, owned: OwnedDevice, reason: str) -> None:
        """The lease is gone: stop at once, touching neither the record nor the lease."""
        if not owned.active:
            return
        self._end(owned)
        logger.warning("lease lost, session closed", extra={"device_id": owned.device_id, "reason": reason})
        try:
            await owned.session.close()
        except Exception:
            logger.exception("closing a session failed", extra={"device_id": owned.device_id})

    async def wait_background(self) -> None:
        """Let the tenure ends already scheduled finish (used by a clean stop)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _write_end(self, owned: OwnedDevice, record: RecordOnEnd, snapshot: DeviceSnapshot) -> None:
        tenant_id, device_id = owned.tenant_id, owned.device_id
        if record is RecordOnEnd.HAND_BACK:
            await self.aws(records.hand_back, tenant_id, device_id, self.queue_url, snapshot)
        elif record is RecordOnEnd.STOP_WANTING:
            await self.aws(records.stop_wanting, tenant_id, device_id, snapshot)
        elif record is RecordOnEnd.RELEASE_ONLY:
            await self.aws(records.hand_back, tenant_id, device_id, self.queue_url, None)

    def _end(self, owned: OwnedDevice) -> None:
        owned.active = False
        self.senders.stop(owned.device_id, owned)
        if self.devices.get(owned.device_id) is owned:
            del self.devices[owned.device_id]
            self.device_ids = frozenset(self.devices)
        if owned.expiry_timer is not None:
            owned.expiry_timer.cancel()
        owned.notify()

    async def publish(self, owned: OwnedDevice, event: NetworkEvent) -> None:
        """Publish an event the host itself emits for ``owned``'s device (``message.sent``,
        ``message.delete_for_me``), as the adapters' events are."""
        await self._publisher.publish(envelope(event, owned.device_id), owned.tenant_id)

    def _session_ended(self, owned: OwnedDevice) -> None:
        """The pairing window closed or the phone unlinked the device: nothing left to run."""
        self.spawn(self._retire_ended(owned))

    async def _retire_ended(self, owned: OwnedDevice) -> None:
        async with self.locks.hold(owned.device_id):
            if owned.active:
                await self.retire(owned, RecordOnEnd.STOP_WANTING)

    def _arm_expiry(self, owned: OwnedDevice) -> None:
        """Close the session when the lease's expiry comes without a successful renewal."""
        if owned.expiry_timer is not None:
            owned.expiry_timer.cancel()
        margin = min(EXPIRY_MARGIN_SECONDS, self._settings.lease_ttl_seconds / 10)
        delay = max(0.0, owned.lease.expires_at - margin - time.time())
        lease = owned.lease
        owned.expiry_timer = asyncio.get_running_loop().call_later(delay, self._expired, owned, lease)

    def _expired(self, owned: OwnedDevice, lease: Lease) -> None:
        if owned.active and owned.lease is lease:
            self.spawn(self.lose(owned, "expired without renewal"))
