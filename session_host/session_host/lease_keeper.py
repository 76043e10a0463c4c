"""Keeping the host tenure alive: one heartbeat renewal per ``ttl / 3``, whatever the number of
devices the host runs (see :mod:`gateway.leases`).

A renewal answered with ``None`` means the tenure is over (it lapsed, or was replaced): every
session is closed at once. A renewal that fails or hangs changes nothing here: if no later one
succeeds, the tenure's expiry timer (see :meth:`Ownership._arm_expiry`) closes the sessions
before the heartbeat expires, since from then on other hosts may take the devices over. With
no live tenure (after a lapse, or a start that found one of a crashed process of the same
host id), each round tries to begin a new one; the devices come back through restore passes.
"""

from __future__ import annotations

import asyncio

from gateway import leases
from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.config import HostSettings
from session_host.ownership import Ownership

_HEARTBEAT_ERRORS: tuple[type[Exception], ...] = (TimeoutError, *AWS_ERRORS)


class LeaseKeeper:
    def __init__(self, ownership: Ownership, aws: AwsCalls, settings: HostSettings) -> None:
        self._ownership = ownership
        self._aws = aws
        self._ttl = settings.lease_ttl_seconds
        self._every = settings.renew_every_seconds

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            try:
                await self.beat()
            except Exception:  # a bug must not end the heartbeat for good
                logger.exception("host heartbeat round failed")

    async def beat(self) -> None:
        """One round: renew the tenure, or begin one if there is none."""
        own = self._ownership
        tenure = own.tenure
        try:
            async with asyncio.timeout(self._every):
                if tenure is None:
                    await own.begin_tenure()
                    return
                renewed = await self._aws(leases.renew, tenure, self._ttl)
        except _HEARTBEAT_ERRORS as error:
            logger.warning("host heartbeat failed", extra={"error": repr(error)})
            return
        if renewed is None:
            own.lapse(tenure, "heartbeat refused: the tenure lapsed or was replaced")
        else:
            own.renewed(renewed)
