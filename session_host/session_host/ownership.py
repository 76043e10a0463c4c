"""The devices this host runs: taking a device, and the three ways a tenure ends.

The host works under one host tenure at a time (:attr:`Ownership.tenure`, see
:mod:`gateway.leases`): every device lease it takes names it, and one heartbeat renewal keeps
them all live. If the heartbeat is not renewed in time, or a renewal is refused, every device
of the tenure is lost at once (:meth:`Ownership.lapse`) and a new tenure begins.

* :meth:`Ownership.retire`: a clean end (command, clean stop, pairing window over). The
  session is closed while the tenure still counts, so its last events are recorded and
  published; then the record is updated and the lease released.
* :meth:`Ownership.lapse`: the host tenure lapsed (its heartbeat expired unrenewed, or a
  renewal was refused). Every device's tenure ends first (later events are ignored), then
  the sessions are closed; the records and the leases are left to the new owners.
* Ending the process without either (a crash): the heartbeat expires and other hosts take
  the devices over.

Every start and clean end of a tenure runs under the device's lock (:attr:`Ownership.locks`);
losing one does not wait for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from enum import Enum
from typing import Any

from gateway import leases
from gateway.bus import DeviceSnapshot, queues
from gateway.failures.kinds import ErrorKind
from gateway.leases import Lease, Tenure
from gateway.observability import logger
from session_host import records, recycling
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.call_rejection import AutoRejection
from session_host.config import EXPIRY_MARGIN_SECONDS, HostSettings
from session_host.device_tenure import DeviceLocks, OwnedDevice, session_snapshot
from session_host.network.port import NetworkError, NetworkEvent, NetworkPort
from session_host.publisher import EventPublisher, envelope
from session_host.sending import HostOutbox, Senders
from session_host.sink import Sinks
from session_host.supervision import Supervisor


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
        self._calls = AutoRejection(aws=aws, publish=self.publish, spawn=self.spawn)
        self._sinks = Sinks(
            aws=aws,
            publisher=publisher,
            queue_url=lambda: self.queue_url,
            on_session_end=self._session_ended,
            on_published=self._calls.observe,
        )
        self._background: set[asyncio.Task[Any]] = set()
        self._publisher = publisher
        # Every tenure sends its device's outbox while it lasts.
        self.senders = Senders(HostOutbox(aws), self.publish)
        self.tenure: Tenure | None = None  # the host tenure, None between a lapse and the next
        self._lapsed: Tenure | None = None  # the last one that lapsed, which the next replaces
        self._tenure_timer: asyncio.TimerHandle | None = None

    @property
    def host_id(self) -> str:
        return self._settings.host_id

    @property
    def full(self) -> bool:
        """This host process runs ``MAX_SESSIONS`` sessions, or is near its memory budget: it
        starts no more."""
        limit = self._settings.max_sessions
        if limit is not None and len(self.devices) >= limit:
            return True
        return recycling.near_memory_budget(self._settings.memory_budget_mb)

    # --- the host tenure ----------------------------------------------------------------

    async def begin_tenure(self) -> bool:
        """Start a host tenure; False while a live one of this host id (a crashed process of
        the same ``SESSION_HOST_ID``) still holds the heartbeat: try again later."""
        tenure = await self.aws(leases.begin, self.host_id, self._settings.lease_ttl_seconds, self._lapsed)
        if tenure is None:
            return False
        self.tenure = tenure
        self._arm_expiry(tenure)
        logger.info("host tenure begun", extra={"host_id": self.host_id})
        return True

    def renewed(self, tenure: Tenure) -> None:
        """A heartbeat renewal succeeded: every device of the tenure lives until its new expiry."""
        if self.tenure is not None and self.tenure.token == tenure.token:
            self.tenure = tenure
            self._arm_expiry(tenure)

    def lapse(self, tenure: Tenure, reason: str) -> None:
        """The tenure is over: every device it runs is lost at once."""
        if self.tenure is None or self.tenure.token != tenure.token:
            return
        self.tenure, self._lapsed = None, tenure
        if self._tenure_timer is not None:
            self._tenure_timer.cancel()
        logger.warning("host tenure lapsed", extra={"host_id": self.host_id, "reason": reason})
        for owned in list(self.devices.values()):
            self._end(owned)  # at once: no dispatch or record write from here on
            self.spawn(self._close_lost(owned, reason))

    async def end_tenure(self) -> None:
        """Delete the heartbeat on a clean stop (every device is handed back already)."""
        tenure, self.tenure = self.tenure, None
        if self._tenure_timer is not None:
            self._tenure_timer.cancel()
        if tenure is None:
            return
        try:
            await self.aws(leases.end, tenure)
        except AWS_ERRORS as error:  # it expires by itself
            logger.warning("host heartbeat not deleted", extra={"error": str(error)})

    # --- starting a device's tenure -----------------------------------------------------

    async def acquire(self, tenant_id: str, device_id: str) -> Lease | None:
        """The device's lease for this host, or None while another live host holds it (or
        while this host has no live tenure: between a lapse and the next)."""
        tenure = self.tenure
        if tenure is None:
            return None
        lease = await self.aws(leases.acquire, device_id, tenant_id, tenure, self.queue_url)
        if lease is not None and not self.runs_under(lease):  # the tenure lapsed meanwhile
            await self.release(lease)
            return None
        return lease

    def runs_under(self, lease: Lease) -> bool:
        """Whether ``lease`` names the current, live host tenure."""
        return self.tenure is not None and self.tenure.token == lease.tenure

    async def holder(self, device_id: str) -> Lease | None:
        """The live lease of another host on the device, if there is one."""
        lease = await self.aws(leases.current, device_id)
        return lease if lease is not None and lease.owner_host_id != self.host_id else None

    async def live_hosts(self, queue_urls: Iterable[str | None]) -> set[str]:
        """Those of ``queue_urls`` (from device records) whose host, another one, has a live
        tenure: one heartbeat read per host. A device whose record names one is left to it;
        the others go through :meth:`acquire`, which checks their leases."""
        hosts = {
            url: host
            for url in queue_urls
            if url is not None
            and (host := queues.dynamic_queue_owner(queues.HOST_QUEUE, url)) not in (None, self.host_id)
        }
        if not hosts:
            return set()
        live = await self.aws(leases.live_tenures, set(hosts.values()))
        return {url for url, host in hosts.items() if host in live}

    def open(self, tenant_id: str, device_id: str, lease: Lease) -> OwnedDevice:
        """Start a tenure under ``lease`` (just acquired, so under the live host tenure: no
        await in between): the session object exists, nothing connects yet."""
        owned = OwnedDevice(tenant_id, device_id, lease)
        sink = self._sinks.sink_for(owned)
        owned.session = self._port.open_session(device_id, data_dir=self._settings.data_dir, sink=sink)
        owned.supervisor = Supervisor(
            device_id,
            session=owned.session,
            sink=sink,
            run_locked=lambda step: self._run_locked(owned, step),
            proxy=lambda: self._proxy_of(owned),
            settings=self._settings.supervision,
        )
        self.devices[device_id] = owned
        self.device_ids = frozenset(self.devices)
        self.senders.start(owned)
        return owned

    async def _proxy_of(self, owned: OwnedDevice) -> str | None:
        """The device's proxy as its record holds it now, read before each attempt; a record
        that cannot be read fails the attempt (never a dial without the proxy it may have)."""
        try:
            settings = await self.aws(records.settings, owned.tenant_id, owned.device_id)
        except AWS_ERRORS as error:
            message = f"the device's settings could not be read: {error}"
            raise NetworkError(ErrorKind.NETWORK, message) from error
        return settings.proxy_url if settings is not None else None

    async def claim(self, owned: OwnedDevice, how: records.Claim) -> bool:
        """Name this host on the record (before connecting, so events can be recorded)."""
        return await self.aws(records.claim, owned.tenant_id, owned.device_id, self.queue_url, how)

    async def release(self, lease: Lease) -> None:
        """Give a lease back; one that cannot be released expires by itself."""
        try:
            await self.aws(leases.release, lease)
        except AWS_ERRORS as error:
            logger.warning("lease not released", extra={"device_id": lease.device_id, "error": str(error)})

    # --- ending a tenure ----------------------------------------------------------------

    async def retire(
        self, owned: OwnedDevice, record: RecordOnEnd, *, discard: bool = False
    ) -> DeviceSnapshot:
        """End the tenure cleanly; returns the session's last state. ``discard``: the device is
        being deleted, so what the adapter stored for it goes too (while the lease is still
        held, so no other host opens the files meanwhile)."""
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
        if discard:
            try:
                self._port.discard(owned.device_id, data_dir=self._settings.data_dir)
            except OSError:
                logger.exception(
                    "session files of a deleted device not deleted", extra={"device_id": owned.device_id}
                )
        await self.release(owned.lease)
        return snapshot

    async def _close_lost(self, owned: OwnedDevice, reason: str) -> None:
        """The host tenure is gone: close the session, touching neither the record nor the lease."""
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

    async def _run_locked(self, owned: OwnedDevice, step: Callable[[], Awaitable[None]]) -> None:
        """A supervisor's step (a retry, a dial deadline), under the device's lock like a
        command, and only while the tenure lasts and no command is ending it."""
        async with self.locks.hold(owned.device_id):
            if owned.active and not owned.ending:
                await step()

    def _end(self, owned: OwnedDevice) -> None:
        owned.active = False
        owned.supervisor.stop()
        self.senders.stop(owned.device_id, owned)
        if self.devices.get(owned.device_id) is owned:
            del self.devices[owned.device_id]
            self.device_ids = frozenset(self.devices)
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

    def _arm_expiry(self, tenure: Tenure) -> None:
        """Lapse the tenure (closing every session) when its expiry comes without a successful
        renewal, a margin early: from its expiry on, other hosts may take the devices over."""
        if self._tenure_timer is not None:
            self._tenure_timer.cancel()
        margin = min(EXPIRY_MARGIN_SECONDS, self._settings.lease_ttl_seconds / 10)
        delay = max(0.0, tenure.expires_at - margin - time.time())
        self._tenure_timer = asyncio.get_running_loop().call_later(
            delay, self.lapse, tenure, "heartbeat expired without renewal"
        )
