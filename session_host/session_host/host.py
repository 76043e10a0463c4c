"""The session host: runs device sessions, executes their commands, publishes their events.

One asyncio service per process (or several in one process, each on its own loop, for the
tests and the local stack: see :mod:`session_host.host_thread`). It consumes two command
queues: its own (``<prefix>-h-<host_id>``, named on the records of the devices it runs) and
the shared one, where commands for devices no host runs arrive. Background work: the host
heartbeat that keeps every device lease live (:mod:`.lease_keeper`), restore and takeover
(:mod:`.restore`), event publishing (:mod:`.publisher`), its queue's heartbeat, the sweep of
bus queues whose owner is gone, and the liveness file (:mod:`.liveness`).

The network port is injected, so tests and the local stack can run several hosts against
one :class:`~session_host.network.simulated.SimulatedNetwork`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from gateway.bus import queues
from gateway.config import get_settings
from gateway.observability import logger
from session_host import liveness
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.command_queue import CommandDispatcher, QueueConsumer, move_to_queue, release_to_queue
from session_host.commands import CommandExecutor
from session_host.config import (
    AWS_THREADS,
    COMMAND_CONCURRENCY,
    EVENT_BUFFER_SIZE,
    EVENT_FLUSH_SECONDS,
    EVENT_SENDERS,
    LIVENESS_EVERY_SECONDS,
    STOP_GRACE_SECONDS,
    HostSettings,
)
from session_host.device_tenure import OwnedDevice
from session_host.lease_keeper import LeaseKeeper
from session_host.network.port import NetworkPort
from session_host.ownership import Ownership, RecordOnEnd
from session_host.publisher import EventPublisher
from session_host.restore import Restorer


class SessionHost:
    """Start with :meth:`start` on the loop it will run on; end with :meth:`stop`.

    ``command_queue_url`` and ``events_queue_url`` default to the gateway's settings; tests
    pass queues of their own so hosts of different tests never share work.
    """

    def __init__(
        self,
        *,
        port: NetworkPort,
        settings: HostSettings | None = None,
        command_queue_url: str | None = None,
        events_queue_url: str | None = None,
    ) -> None:
        self.settings = settings or HostSettings()
        self.queue_url = ""
        self._port = port
        self._shared_queue_url = command_queue_url or get_settings().command_queue_url
        self._sqs = queues.sqs_client()
        self._aws = AwsCalls(AWS_THREADS, f"aws-{self.host_id}")
        self._publisher = EventPublisher(
            self._sqs,
            events_queue_url or get_settings().events_queue_url,
            self._aws,
            linger=self.settings.event_batch_linger_seconds,
            buffer_size=EVENT_BUFFER_SIZE,
            senders=EVENT_SENDERS,
        )
        self._ownership = Ownership(
            port=port, settings=self.settings, aws=self._aws, publisher=self._publisher
        )
        self._dispatcher = CommandDispatcher(
            self._sqs, self._aws, self._ownership, CommandExecutor(self._ownership), self.host_id
        )
        self._consumers: list[QueueConsumer] = []
        self._renewing: asyncio.Task[None] | None = None
        self._restorer = Restorer(self._ownership, self._aws, self.settings)
        self._restoring: asyncio.Task[None] | None = None
        self._background: list[asyncio.Task[None]] = []
        self._stopped = False

    @property
    def host_id(self) -> str:
        return self.settings.host_id

    def owned_devices(self) -> frozenset[str]:
        """Ids of the devices this host runs now; safe to call from any thread."""
        return self._ownership.device_ids

    def restore_passes(self) -> int:
        """How many restore passes this host has completed (failed ones included); safe to
        call from any thread. Lets a caller wait for passes instead of guessing their timing."""
        return self._restorer.passes

    async def start(self) -> None:
        self.queue_url = await self._aws(queues.create_dynamic_queue, queues.HOST_QUEUE, self.host_id)
        self._ownership.queue_url = self.queue_url
        try:
            if not await self._ownership.begin_tenure():
                logger.warning("a live heartbeat of this host id remains; waiting for it to expire")
        except AWS_ERRORS as error:  # the heartbeat keeper tries again
            logger.warning("host tenure not begun", extra={"error": str(error)})
        self._publisher.start()
        self._consumers = [
            self._consumer(
                "own", self.queue_url, move_to_queue(self._sqs, self.queue_url, self._shared_queue_url)
            ),
            self._consumer(
                "shared", self._shared_queue_url, release_to_queue(self._sqs, self._shared_queue_url)
            ),
        ]
        for consumer in self._consumers:
            consumer.start()
        settings = self.settings
        self._renewing = asyncio.create_task(LeaseKeeper(self._ownership, self._aws, settings).run())
        self._restoring = asyncio.create_task(self._restorer.run())
        self._background = [
            asyncio.create_task(self._every(queues.HEARTBEAT_EVERY_SECONDS, self._heartbeat)),
            asyncio.create_task(self._every(settings.sweep_interval_seconds, self._sweep)),
            asyncio.create_task(
                liveness.keep_alive(settings.liveness_file, self.host_id, LIVENESS_EVERY_SECONDS)
            ),
        ]
        logger.info(
            "session host started",
            extra={"host_id": self.host_id, "queue_url": self.queue_url, "adapter": self._port.name},
        )

    async def stop(self) -> None:
        """Clean stop: no new commands, sessions closed and handed back (another host restores
        them), leases released and the heartbeat deleted, events flushed, the host's queue
        deleted."""
        if self._stopped:
            return
        self._stopped = True
        for consumer in self._consumers:
            consumer.stop()
        await _cancel(self._background)
        self._restorer.finish()
        await _finish(self._restoring, STOP_GRACE_SECONDS)
        await asyncio.gather(*(consumer.wait_handled(STOP_GRACE_SECONDS) for consumer in self._consumers))
        await self._ownership.wait_background()
        slots = asyncio.Semaphore(self.settings.restore_concurrency)
        while self._ownership.devices:
            owned = list(self._ownership.devices.values())
            await asyncio.gather(*(self._hand_back(device, slots) for device in owned))
        await self._ownership.senders.drain()
        await _cancel([self._renewing] if self._renewing else [])
        await self._ownership.end_tenure()
        await self._publisher.stop(EVENT_FLUSH_SECONDS)
        await self._move_leftovers()
        for consumer in self._consumers:
            await consumer.deleter.drain()
        try:
            await self._aws(queues.delete_queue, self.queue_url)
        except AWS_ERRORS as error:  # swept later by another host
            logger.warning("host queue not deleted", extra={"error": str(error)})
        liveness.remove(self.settings.liveness_file)
        self._aws.shutdown()
        logger.info("session host stopped", extra={"host_id": self.host_id})

    def abandon(self) -> None:
        """Stop taking commands and nothing else: sessions, leases, the heartbeat and the queue
        are left as a process that died leaves them. For tests that model a crash; thread-safe."""
        self._stopped = True
        for consumer in self._consumers:
            consumer.stop()

    # --- consumers ----------------------------------------------------------------------

    def _consumer(
        self, name: str, queue_url: str, on_late: Callable[[list[dict[str, Any]]], None]
    ) -> QueueConsumer:
        return QueueConsumer(
            name=name,
            queue_url=queue_url,
            sqs=self._sqs,
            aws=self._aws,
            handle=self._dispatcher.handle,
            on_late=on_late,
            capacity=COMMAND_CONCURRENCY,
        )

    # --- stopping -----------------------------------------------------------------------

    async def _hand_back(self, owned: OwnedDevice, slots: asyncio.Semaphore) -> None:
        async with slots, self._ownership.locks.hold(owned.device_id):
            if owned.active:
                await self._ownership.retire(owned, RecordOnEnd.HAND_BACK)

    async def _move_leftovers(self) -> None:
        """Commands still in the host's queue go to the shared queue before it is deleted."""
        move = move_to_queue(self._sqs, self.queue_url, self._shared_queue_url)
        for _ in range(10):
            try:
                response = await self._aws(
                    self._sqs.receive_message,
                    QueueUrl=self.queue_url,
                    MaxNumberOfMessages=10,
                    WaitTimeSeconds=0,
                )
                messages = list(response.get("Messages", []))
                if not messages:
                    return
                await self._aws(move, messages)
            except AWS_ERRORS as error:
                logger.warning("commands left in the host queue not moved", extra={"error": str(error)})
                return

    # --- housekeeping -------------------------------------------------------------------

    async def _heartbeat(self) -> None:
        if not await self._aws(queues.heartbeat, self.queue_url):
            logger.error("the host's command queue is gone; commands reach it through the shared queue only")

    async def _sweep(self) -> None:
        deleted = await self._aws(queues.sweep_idle_queues)
        if deleted:
            logger.info("idle bus queues deleted", extra={"count": len(deleted)})

    @staticmethod
    async def _every(seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` every ``seconds`` (the first time after a random part of it)."""
        await asyncio.sleep(random.uniform(0, seconds))  # noqa: S311
        while True:
            try:
                await job()
            except Exception:
                logger.exception("periodic job failed", extra={"job": job.__name__})
            await asyncio.sleep(seconds)


async def _finish(task: asyncio.Task[None] | None, timeout: float) -> None:
    """Let ``task`` end by itself within ``timeout`` seconds, else cancel it."""
    if task is None:
        return
    try:
        async with asyncio.timeout(timeout):
            await asyncio.shield(task)
    except TimeoutError:
        await _cancel([task])


async def _cancel(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
