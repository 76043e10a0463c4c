"""Supervised sessions: while a device is meant to be connected, the host keeps trying.

One :class:`Supervisor` per tenure (:class:`~session_host.device_tenure.OwnedDevice`). The adapters
report what became of each attempt through the sink (port contract, ``network/port.py``):
``device.connected`` or ``qr.generated`` when it reached the network, ``connection.failure``
(``reason``, ``message``, ``permanent``) or ``connection.temporary_ban`` when it did not. The
supervisor numbers the failures, adds ``attempt`` and ``reconnect_at`` to the event before it
is recorded and published, and starts the next attempt when it is due:

* backoff from ``initial`` seconds doubling to ``maximum``, with +-``jitter`` (decisions:
  2 s to 5 minutes, 20 %), counted afresh once a connection lasted ``reset_after`` seconds;
* a temporary ban is waited out until its end;
* an attempt (or a reconnect the adapter runs itself after a drop) with no outcome within the
  dial deadline is closed and counted as a ``timeout`` failure, so a silent network never
  leaves a device waiting without an answer;
* permanent failures (``client_outdated``) end the tenure: nothing is retried until a new
  connect. Logged out ends it as before.

Attempts run under the device's lock, like commands, so a retry never races a disconnect.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import datetime

from gateway.devices.proxies import redacted
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from gateway.webhooks.catalog import EventName
from session_host.network import payloads
from session_host.network.port import (
    DeviceSession,
    EventSink,
    NetworkError,
    NetworkEvent,
    SessionState,
)


@dataclass(frozen=True)
class Backoff:
    """When the next attempt comes after ``attempt`` failures in a row."""

    initial: float = 2.0
    maximum: float = 300.0
    jitter: float = 0.2
    reset_after: float = 60.0  # seconds connected after which failures are counted afresh

    def delay(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        base = min(self.maximum, self.initial * 2.0 ** max(0, attempt - 1))
        return base * (1 + self.jitter * (2 * rand() - 1))


@dataclass(frozen=True)
class SupervisionSettings:
    backoff: Backoff = Backoff()
    dial_timeout: float = 90.0  # an attempt with no outcome by then failed (whatsmeow gives up at ~60 s)


RunLocked = Callable[[Callable[[], Awaitable[None]]], Coroutine[object, object, None]]
"""Runs a step under the device's lock, only while the tenure lasts and no command ends it."""

REACHED = frozenset({EventName.DEVICE_CONNECTED, EventName.QR_GENERATED})
"""Events that say an attempt reached the network."""


class Supervisor:
    """Keeps one device's session trying (see the module docstring)."""

    def __init__(
        self,
        device_id: str,
        *,
        session: DeviceSession,
        sink: EventSink,
        run_locked: RunLocked,
        proxy: Callable[[], Awaitable[str | None]],
        settings: SupervisionSettings,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._device_id = device_id
        self._session = session
        self._sink = sink
        self._run_locked = run_locked
        self._proxy = proxy
        self._settings = settings
        self._clock = clock
        self.attempt = 0  # failures in a row
        self.reconnect_at: float | None = None
        self._connected_since: float | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.stopped = False

    # --- what commands ask ----------------------------------------------------------------

    @property
    def trying(self) -> bool:
        """An attempt is under way or the next one is scheduled."""
        return self._deadline is not None or self._retry is not None

    async def start(self) -> None:
        """Start an attempt now (connect, restore, a retry that came due), through the proxy
        ``proxy()`` reads for the device (its record, as the API last wrote it).

        Raises the adapter's ``UNSUPPORTED``: that setup never works, retrying cannot help. Any
        other refusal to start counts as a failed attempt, reported like the adapter's own.
        """
        self._cancel_retry()
        self.reconnect_at = None
        try:
            proxy_url = await self._proxy()
            self._session.use_proxy(proxy_url)
            if proxy_url is not None:
                logger.info(
                    "connecting through the device's proxy",
                    extra={"device_id": self._device_id, "proxy_url": redacted(proxy_url)},
                )
            await self._session.connect()
        except NetworkError as error:
            if error.kind is ErrorKind.UNSUPPORTED:
                raise
            await self._sink(payloads.connection_failure(self._device_id, _reason(error), str(error)))
            return
        if self._session.state not in (SessionState.CONNECTED, SessionState.PAIRING):
            self._arm_deadline()

    async def reconnect_now(self) -> None:
        """POST /devices/{id}/reconnect: backoff reset, the next attempt at once."""
        self.attempt = 0
        self._cancel_deadline()
        await self._sink(payloads.manual_reconnect(self._device_id))
        await self._session.close()  # a hanging attempt is dropped (adapters close at once)
        await self.start()

    def stop(self) -> None:
        """The tenure ends: no more attempts or deadlines."""
        self.stopped = True
        self._cancel_retry()
        self._cancel_deadline()
        for task in self._tasks:
            task.cancel()

    # --- what the session reports ---------------------------------------------------------

    def observe(self, event: NetworkEvent) -> tuple[NetworkEvent, bool]:
        """The event as it is recorded and published, and whether it ends the tenure."""
        name, data = event.name, event.data
        if name in REACHED:
            self._cancel_deadline()
            self.reconnect_at = None
            if name == EventName.DEVICE_CONNECTED:
                self._connected_since = self._clock()
            return event, False
        if name == EventName.DEVICE_DISCONNECTED and data.get("reason") == "connection_lost":
            self._forget_connection()
            self._arm_deadline()  # the adapter reconnects by itself; watch that it does
            return event, False
        if name == EventName.CONNECTION_FAILURE:
            return self._failed(event)
        if name == EventName.CONNECTION_TEMPORARY_BAN:
            self._cancel_deadline()
            until = _parse_time(data.get("expires_at"))
            delay = max(0.0, until - self._clock()) if until is not None else self._next_delay()
            self._schedule(delay)
            return replace(event, data={**data, "reconnect_at": self._reconnect_iso()}), False
        return event, False

    def _failed(self, event: NetworkEvent) -> tuple[NetworkEvent, bool]:
        self._cancel_deadline()
        self._forget_connection()
        permanent = bool(event.data.get("permanent", False))
        if permanent:
            self.attempt += 1
            self.reconnect_at = None
        else:
            self._schedule(self._next_delay())
        data = {
            **event.data,
            "attempt": self.attempt,
            "reconnect_at": self._reconnect_iso(),
            "permanent": permanent,
        }
        logger.info(
            "session attempt failed",
            extra={"device_id": self._device_id, "reason": data.get("reason"), "attempt": self.attempt},
        )
        return replace(event, data=data), permanent

    # --- timers ---------------------------------------------------------------------------

    def _next_delay(self) -> float:
        self.attempt += 1
        return self._settings.backoff.delay(self.attempt)

    def _schedule(self, delay: float) -> None:
        self._cancel_retry()
        if self.stopped:
            return
        self.reconnect_at = self._clock() + delay
        self._retry = asyncio.get_running_loop().call_later(delay, self._spawn, self._retry_due)

    def _arm_deadline(self) -> None:
        self._cancel_deadline()
        if self.stopped:
            return
        self._deadline = asyncio.get_running_loop().call_later(
            self._settings.dial_timeout, self._spawn, self._deadline_passed
        )

    def _spawn(self, step: Callable[[], Awaitable[None]]) -> None:
        if self.stopped:
            return
        task = asyncio.get_running_loop().create_task(self._run_locked(step))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _retry_due(self) -> None:
        self._retry = None
        try:
            await self.start()
        except NetworkError as error:  # UNSUPPORTED: the setup changed under a running tenure
            await self._sink(
                payloads.connection_failure(self._device_id, _reason(error), str(error), permanent=True)
            )

    async def _deadline_passed(self) -> None:
        if self._deadline is None:  # an outcome arrived while this waited for the lock
            return
        self._deadline = None
        await self._session.close()
        message = f"the network did not answer within {self._settings.dial_timeout:g} s"
        await self._sink(payloads.connection_failure(self._device_id, "timeout", message))

    def _cancel_retry(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _forget_connection(self) -> None:
        if self._lasted():
            self.attempt = 0
        self._connected_since = None

    def _lasted(self) -> bool:
        since = self._connected_since
        return since is not None and self._clock() - since >= self._settings.backoff.reset_after

    def _reconnect_iso(self) -> str | None:
        return payloads.iso_utc(self.reconnect_at) if self.reconnect_at is not None else None


def _reason(error: NetworkError) -> str:
    return "timeout" if error.kind is ErrorKind.TIMEOUT else "dial_error"


def _parse_time(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
