"""Restoring and taking over devices that should run but that no live host runs.

On start and then every takeover interval, the host lists the devices wanted connected and
logged in (:func:`records.restorable`, a Query of a sparse index: its cost follows those
devices, not the table), skips those whose record names a live host (one heartbeat read per
host, not one lease read per device: see :meth:`Ownership.live_hosts`), and takes the
others: lease, session, record claim, connect.

Each device waits a random jitter first, then for one of a bounded number of slots
(``RESTORE_CONCURRENCY``): hosts starting together (or taking over the devices of a host that
died) take the devices in different random orders, so they neither stampede the network nor
keep colliding on the same leases, and the jitter is paid once per pass, not once per device
(1,000 devices behind 8 slots would otherwise wait 1,000 x 1 s / 8, two minutes, for it).

Workers of one task (``SESSION_WORKER_SHARE``) each take their own share of the devices
first: a device that hashes to a sibling is left for one pass, for the sibling to take, and
taken by the next pass if nobody did (a sibling that is down or restarting). So a task's
devices stay spread evenly over its workers across starts and crashes, and a crash of the
native library costs one share of them.

A device is restored only from credentials this host can read under ``SESSION_DATA_DIR``
(a volume shared by the hosts); a host that has none for it lets it go again untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

from gateway.observability import logger
from session_host import records
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.config import HostSettings
from session_host.network.port import NetworkError
from session_host.ownership import Ownership, RecordOnEnd


class Restorer:
    def __init__(self, ownership: Ownership, aws: AwsCalls, settings: HostSettings) -> None:
        self._ownership = ownership
        self._aws = aws
        self._settings = settings
        self._slots = asyncio.Semaphore(settings.restore_concurrency)
        self._finishing = asyncio.Event()
        self.passes = 0  # completed passes, read by other threads (an int: no lock needed)
        self._left_for_siblings: set[str] = set()

    async def run(self) -> None:
        """Restore passes until :meth:`finish` is called; a pass under way completes first."""
        while not self._finishing.is_set():
            try:
                await self.restore_once()
            except AWS_ERRORS as error:
                logger.warning("restore pass failed", extra={"error": str(error)})
            except Exception:
                logger.exception("restore pass failed")
            self.passes += 1
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._settings.takeover_every_seconds):
                    await self._finishing.wait()

    def finish(self) -> None:
        """Start no more takeovers (the host is stopping); those under way complete."""
        self._finishing.set()

    async def restore_once(self) -> None:
        """One pass: take every restorable device no live host runs (while there is room)."""
        if self._ownership.full:
            return
        candidates = await self._aws(records.restorable)
        todo = [device for device in candidates if device.device_id not in self._ownership.devices]
        running = await self._ownership.live_hosts({device.host_queue_url for device in todo})
        todo = self._mine_first([device for device in todo if device.host_queue_url not in running])
        await asyncio.gather(*(self._take(device.tenant_id, device.device_id) for device in todo))

    def _mine_first(self, todo: list[records.Restorable]) -> list[records.Restorable]:
        """The devices of this worker's share, and those a sibling left for a whole pass."""
        share = self._settings.worker_share
        if share is None:
            return todo
        theirs = {device.device_id for device in todo if not share.holds(device.device_id)}
        overdue = theirs & self._left_for_siblings
        self._left_for_siblings = theirs - overdue
        return [device for device in todo if device.device_id not in self._left_for_siblings]

    async def _take(self, tenant_id: str, device_id: str) -> None:
        await asyncio.sleep(random.uniform(0, self._settings.restore_jitter_seconds))  # noqa: S311
        async with self._slots:
            if self._finishing.is_set():
                return
            try:
                async with self._ownership.locks.hold(device_id):
                    await self._take_locked(tenant_id, device_id)
            except AWS_ERRORS as error:
                logger.warning(
                    "restoring a device failed", extra={"device_id": device_id, "error": str(error)}
                )
            except Exception:
                logger.exception("restoring a device failed", extra={"device_id": device_id})

    async def _take_locked(self, tenant_id: str, device_id: str) -> None:
        own = self._ownership
        if device_id in own.devices or own.full:  # a full host leaves it to the others
            return
        lease = await own.acquire(tenant_id, device_id)
        if lease is None:  # another live host runs it
            return
        owned = own.open(tenant_id, device_id, lease)
        if owned.session.jid is None:
            logger.warning("no stored credentials to restore the device here", extra={"device_id": device_id})
            await own.retire(owned, RecordOnEnd.NOTHING)
            return
        if not await own.claim(owned, records.Claim.RESTORE):  # disconnected or deleted meanwhile
            await own.retire(owned, RecordOnEnd.NOTHING)
            return
        try:
            await owned.supervisor.start()  # a failed attempt is retried; only UNSUPPORTED raises
        except Exception as error:  # the tenure must not outlive a start that can never work
            log = logger.warning if isinstance(error, NetworkError) else logger.exception
            log("restored device did not connect", extra={"device_id": device_id, "error": str(error)})
            await own.retire(owned, RecordOnEnd.HAND_BACK)
            return
        logger.info("device restored", extra={"device_id": device_id, "tenant_id": tenant_id})
