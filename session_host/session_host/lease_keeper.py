"""Renewing the leases of every device this host runs.

Every ``ttl / 3`` seconds each held lease is renewed (a bounded number at once). A renewal
answered with ``None`` means another host took the device over: its session is closed at
once. A renewal that fails or hangs changes nothing here: if no later one succeeds, the
tenure's expiry timer (see :meth:`Ownership._arm_expiry`) closes the session before the
lease expires, since from then on another host may take the device over.
"""

from __future__ import annotations

import asyncio

from gateway import leases
from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.config import RENEW_CONCURRENCY, HostSettings
from session_host.owned import OwnedDevice
from session_host.ownership import Ownership


class LeaseKeeper:
    def __init__(self, ownership: Ownership, aws: AwsCalls, settings: HostSettings) -> None:
        self._ownership = ownership
        self._aws = aws
        self._ttl = settings.lease_ttl_seconds
        self._every = settings.renew_every_seconds
        self._slots = asyncio.Semaphore(RENEW_CONCURRENCY)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            await self.renew_all()

    async def renew_all(self) -> None:
        owned = list(self._ownership.devices.values())
        await asyncio.gather(*(self._renew(device) for device in owned))

    async def _renew(self, owned: OwnedDevice) -> None:
        async with self._slots:
            lease = owned.lease
            if not owned.active:
                return
            try:
                async with asyncio.timeout(self._every):
                    renewed = await self._aws(leases.renew, lease, self._ttl)
            except (TimeoutError, *AWS_ERRORS) as error:
                logger.warning(
                    "lease renewal failed", extra={"device_id": owned.device_id, "error": repr(error)}
                )
                return
            if not owned.active or owned.lease is not lease:
                return
            if renewed is None:
                await self._ownership.lose(owned, "taken over by another host")
            else:
                self._ownership.renewed(owned, renewed)
