"""One device's send dispatcher: a task per tenure that sends the device's outbox (and
:class:`Senders`, the host's set of them).

Order: the queued sends are taken by ``not_before`` (request time + delay), then by request
order. So a send with ``delay=0`` goes out before an earlier one with ``delay=60`` (issue 10:
"not queued behind"), and sends without delay go out in request order. The device's
``min_send_interval_seconds`` spaces consecutive dispatches in that same order.

Each send: wait until ``max(not_before, previous dispatch + interval)`` (no lock held; a new
send wakes the wait, as it may be due earlier), wait for a connected session, show
"composing" for ``typing_seconds`` then "paused" (unless ``disable_presence``), claim the
item (``queued`` → ``sending`` under this tenure's lease epoch), send, answer whoever waits
on it, then mark ``sent`` and publish ``message.sent`` (and ``mention.sent`` when the text
mentions people). The claim-send-mark step is shielded from cancellation, so a tenure that
ends mid-send still records what the network answered.

The queued sends are known without reading the outbox: each ``SEND_TEXT`` command brings its
send (:meth:`DeviceSender.offer`) and the device's interval. The outbox is read at the start
of a tenure and every poll, for sends whose command never reached this host (a host that
died after its 202, a command that expired on the queue).

The sending policy (read with the interval and brought by each ``SEND_TEXT``; the tenure's
view of it is :class:`~.policy.TenurePolicy`): a send over a day's limit, or to a new chat
while new chats are capped or paused, is held for the earliest moment the policy allows (its
waiting caller is answered ``scheduled`` for then at once), and sends the policy lets go are
dispatched meanwhile in their order. ``send_jitter_seconds`` adds a random 0..jitter to the
interval of each gap. Each send that goes out is counted, and its chat recorded as known, in
the task that marks it (after its caller's answer). With no policy and no pause, nothing of
this is read before a dispatch.

A send the network refuses for rate (``RATE_LIMITED``) is not failed: the device's new-chat
sends pause (:meth:`~.policy.TenurePolicy.pause`); the send goes back to the outbox, due at
the end of the pause, and its waiting caller is answered ``scheduled`` for then. Sends to
known chats go on.

"Now" is :mod:`gateway.clock` (the simulated stack moves it: the dispatchers look again
when it does).

The crash window: a send found ``sending`` that no dispatch of this host is making was
interrupted between its claim and its mark (a host died there). It is marked ``failed``
(:data:`INTERRUPTED`) and never resent: at-most-once, because the network may already have
it and neonize cannot send with the gateway's id for the network to drop a duplicate.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from tenacity import RetryCallState

from gateway import clock
from gateway.devices.sending_policy import utc_day
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import Send, SendState
from gateway.observability import logger
from gateway.retries import SENT_MARK, WORKER_STEP, failed_with
from session_host.aws_calls import AWS_ERRORS
from session_host.config import SEND_POLL_SECONDS
from session_host.device_tenure import OwnedDevice
from session_host.network import payloads
from session_host.network.port import (
    ChatPresence,
    NetworkError,
    NetworkEvent,
    SentMessage,
    SessionState,
)
from session_host.sending import network_calls
from session_host.sending.policy import Publish, TenurePolicy
from session_host.sending.store import OutboxStore

INTERRUPTED = (
    "interrupted: the session host stopped during the network call; "
    "not sent again, so that it is never sent twice"
)
INTERRUPTED_KIND = ErrorKind.TIMEOUT
"""The error kind of an interrupted send: like a network that did not answer, its outcome is
unknown (the API keeps its ``Idempotency-Key`` bound to it, so it is never sent twice)."""
Draw = Callable[[float, float], float]
"""A random number between two bounds (``random.uniform``): the jitter of each gap."""
REPLY_WAIT_SECONDS = 1.0
"""How long the mark and the events of a send wait for its caller's reply to leave."""
INDEX_LAG_SECONDS = 60.0
"""A send its command brought is kept this long even when the outbox's index does not show
it yet (the index is eventually consistent); a finished one then fails its claim."""


@dataclass(frozen=True)
class Dispatched:
    """How a send ended: sent (``network_message_id``, ``sent_at``) or failed (``error``);
    or, with ``scheduled_for``, held by the sending policy or a pause until then."""

    send: Send
    network_message_id: str | None = None
    sent_at: float | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    scheduled_for: float | None = None


class DeviceSender:
    """Dispatches one tenure's sends; :meth:`run` until the tenure ends (then cancelled).

    ``in_flight`` (send keys) and ``dispatching`` (tasks) are shared by the host's senders,
    so a later tenure on this host never takes a send an earlier one is still finishing
    for one it interrupted.
    """

    def __init__(
        self,
        owned: OwnedDevice,
        store: OutboxStore,
        publish: Publish,
        *,
        in_flight: set[str],
        dispatching: set[asyncio.Task[None]],
        poll_seconds: float = SEND_POLL_SECONDS,
        draw: Draw = random.uniform,
    ) -> None:
        self.owned = owned
        self._store = store
        self._publish = publish
        self._in_flight = in_flight
        self._dispatching = dispatching
        self._poll = poll_seconds
        self._wake = asyncio.Event()
        self._watchers: dict[str, list[asyncio.Future[Dispatched]]] = {}
        self._replies: dict[str, asyncio.Event] = {}  # sends whose waiting caller is being answered
        self._recording: set[asyncio.Task[None]] = set()  # sent, being marked and published
        self._due: dict[str, float] = {}
        self._last_dispatch: float | None = None
        self._queued: dict[str, Send] = {}  # the queued sends known here, by send_key
        self._read_at: float | None = None  # when the outbox was last read (monotonic)
        self.interval: float | None = None  # min_send_interval_seconds, as last learnt
        self.rules = TenurePolicy(owned, store, publish)  # the sending policy, as last learnt
        self._draw = draw
        self._jitter: float | None = None  # the jitter drawn for the gap before the next dispatch
        self.current: asyncio.Task[None] | None = None  # the dispatch under way, if any

    # --- what commands use --------------------------------------------------------------

    def wake(self) -> None:
        """Look at the queued sends again now."""
        self._wake.set()

    def offer(self, send: Send) -> None:
        """A queued send its command brought: dispatched in its turn without reading the outbox."""
        if send.state is SendState.QUEUED:
            self._queued.setdefault(send.send_key, send)
        self.wake()

    def watch(self, send_key: str) -> asyncio.Future[Dispatched]:
        """A future resolved when this tenure sends (or fails) ``send_key``."""
        future: asyncio.Future[Dispatched] = asyncio.get_running_loop().create_future()
        self._watchers.setdefault(send_key, []).append(future)
        self.wake()
        return future

    def replied(self, send_key: str) -> None:
        """The answer to whoever waited on ``send_key`` has left: its bookkeeping may go."""
        if (event := self._replies.get(send_key)) is not None:
            event.set()

    def unwatch(self, send_key: str, future: asyncio.Future[Dispatched]) -> None:
        futures = self._watchers.get(send_key, [])
        if future in futures:
            futures.remove(future)
        if not futures:
            self._watchers.pop(send_key, None)

    def scheduled_for(self, send: Send) -> float:
        """When the send is expected to go out, as far as this dispatcher knows now."""
        return _with_typing(send, max(send.not_before, self._due.get(send.send_key, 0.0)))

    def apply(self, settings: Any) -> None:
        """The policy's settings a command brought (``SendingSettings``): from the next dispatch."""
        self.rules.apply(settings)
        self.wake()

    # --- the loop -----------------------------------------------------------------------

    async def run(self) -> None:
        """Step after step while the tenure lasts; a failed step is tried again after a pause
        (:data:`~gateway.retries.WORKER_STEP`), which a step that succeeds starts over."""
        while self.owned.active:
            await WORKER_STEP.async_retrying(Exception, until=self._ended, before_sleep=self._step_failed)(
                self._step
            )

    def _ended(self) -> bool:
        return not self.owned.active

    def _step_failed(self, retry_state: RetryCallState) -> None:
        error = failed_with(retry_state)
        if isinstance(error, AWS_ERRORS):
            logger.warning("send dispatcher: outbox not reachable", extra=self._about(str(error)))
        else:
            logger.error("send dispatcher step failed", exc_info=error, extra=self._about())

    async def _step(self) -> None:
        self._wake.clear()
        owned = self.owned
        if self._read_at is None or time.monotonic() - self._read_at >= self._poll:
            await self._read_outbox()
        if not self._queued:
            self._due = {}
            await self._sleep(self._poll - (time.monotonic() - (self._read_at or 0.0)))
            return
        head, due = await self._next()
        gap = self._gap()
        if gap > 0 and self._last_dispatch is None:  # a new tenure: the last owner's dispatch
            self._last_dispatch = await self._store.last_sent_at(owned.tenant_id, owned.device_id)
        if self._last_dispatch is not None:
            due = max(due, self._last_dispatch + gap)
        self._due[head.send_key] = due
        if (wait := due - clock.now()) > 0:
            await self._sleep(min(wait, self._poll))
            return
        session = owned.session
        if session.state is not SessionState.CONNECTED:  # it stays queued until the device is back
            await owned.wait_until(lambda: session.state is SessionState.CONNECTED, self._poll)
            return
        await self._typing(head)
        self._queued.pop(head.send_key, None)
        task = self.current = asyncio.get_running_loop().create_task(self._dispatch(head))
        self._dispatching.add(task)
        task.add_done_callback(self._dispatching.discard)
        await asyncio.shield(task)

    async def _next(self) -> tuple[Send, float]:
        """The send to go next and from when the policy lets it: the first in order, unless
        the policy holds it; then the first it lets go (or, all held, the first let go). Each
        held send's waiting caller is answered ``scheduled`` for when it may go."""
        now = clock.now()
        self._due = {}
        if not self.rules.holds_any(now):
            head = min(self._queued.values(), key=lambda send: send.order)
            return head, head.not_before
        ordered = sorted(self._queued.values(), key=lambda send: send.order)
        best: tuple[float, Send] | None = None
        for send in ordered:
            ready = send.not_before
            held = await self.rules.held_until(send, now)
            if held is not None and held > ready:
                ready = self._due[send.send_key] = held
                self._resolve(Dispatched(send, scheduled_for=_with_typing(send, held)))
            if best is None or ready < best[0]:
                best = (ready, send)
            if ready == send.not_before:  # not held: no later send can be ready before it
                break
        assert best is not None
        return best[1], best[0]

    def _gap(self) -> float:
        """The least time between the last dispatch and the next: the interval, and the jitter
        drawn for this gap."""
        if self._jitter is None:
            top = self.rules.jitter_seconds
            self._jitter = self._draw(0.0, float(top)) if top > 0 else 0.0
        return (self.interval or 0.0) + self._jitter

    def _dispatched(self) -> float:
        """A dispatch was made now: the next gap counts from it, with a jitter of its own."""
        self._last_dispatch = clock.now()
        self._jitter = None
        return self._last_dispatch

    async def _read_outbox(self) -> None:
        """Read the device's unfinished sends (and its interval): at the start of the tenure
        and every poll, for sends whose command never reached this host. A send that is
        ``sending`` and not this host's was interrupted."""
        owned = self.owned
        started = clock.now()
        found: dict[str, Send] = {}
        for send in await self._store.unfinished(owned.tenant_id, owned.device_id):
            if send.state is SendState.QUEUED:
                found[send.send_key] = send
            elif send.send_key not in self._in_flight:
                await self._interrupted(send)
        # The index lags a moment behind writes: keep what commands brought just before.
        recent = {
            key: send
            for key, send in self._queued.items()
            if key not in found and send.requested_at > started - INDEX_LAG_SECONDS
        }
        self._queued = found | recent
        self.interval, policy = await self._store.sending_policy(owned.tenant_id, owned.device_id)
        self.rules.learnt(policy)
        self._read_at = time.monotonic()

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less when woken."""
        try:
            async with asyncio.timeout(seconds):
                await self._wake.wait()
        except TimeoutError:
            pass

    async def _typing(self, send: Send) -> None:
        """ "composing" for the send's typing time, then "paused"; presence is best effort."""
        if send.disable_presence:
            return
        session = self.owned.session
        try:
            await session.sending.send_chat_presence(send.chat_jid, ChatPresence.COMPOSING)
            await asyncio.sleep(send.typing_seconds)
            await session.sending.send_chat_presence(send.chat_jid, ChatPresence.PAUSED)
        except NetworkError as error:
            logger.info("typing indicator not shown", extra=self._about(str(error)))

    # --- one dispatch (shielded) ----------------------------------------------------------

    async def _dispatch(self, send: Send) -> None:
        epoch = self.owned.lease.epoch
        if not await self._store.claim(send, epoch):
            return  # no longer queued: another tenure has it
        key = send.send_key
        mentioned = network_calls.mentions(send)
        self._in_flight.add(key)
        recorded = False
        recording: asyncio.Task[None] | None = None
        try:
            try:
                sent = await network_calls.dispatch(self.owned.session, send, self._store)
            except NetworkError as error:
                if error.kind is ErrorKind.NOT_CONNECTED:  # nothing reached the network
                    recorded = await self._store.requeue(send, epoch)
                    if recorded:  # it goes when the device is back, in its turn
                        self._queued.setdefault(send.send_key, send)
                    return
                self._dispatched()
                if error.kind is ErrorKind.RATE_LIMITED:
                    recorded = await self._rate_limited(send, epoch, error)
                    return
                message = f"{error.code or error.kind}: {error}"
                recorded = await self._store.mark_failed(send, message, kind=error.kind, epoch=epoch)
                logger.warning("send refused by the network", extra=self._about(message))
                self._resolve(Dispatched(send, error=message, error_kind=error.kind))
                return
            dispatched = self._dispatched()
            # Before anything awaits: the network's receipt may follow at once.
            self.owned.recent_sends.put(sent.message_id, send.message_id)
            new_chat = self.rules.count(send, dispatched)
            sent_at = sent.timestamp or dispatched
            # The caller learns it first; the record and the events follow in a task of their
            # own, so the device's next send does not wait for them either.
            answered = self._resolve(Dispatched(send, sent.message_id, sent_at))
            recording = self._track(
                self._record_sent(
                    send, epoch, sent, sent_at, mentioned, answered, (utc_day(dispatched), new_chat)
                )
            )
        finally:
            if recording is None and recorded:  # else "ours" here: never marked interrupted
                self._in_flight.discard(key)

    async def _rate_limited(self, send: Send, epoch: int, error: NetworkError) -> bool:
        """The network refused the send for rate: new-chat sends pause (see the module), the
        send goes back to the outbox for the end of the pause; True once it is there."""
        until = await self.rules.pause(error)
        recorded = await self._store.requeue(send, epoch, not_before=until)
        if recorded:
            self._queued[send.send_key] = replace(send, not_before=until)
        self._resolve(Dispatched(send, scheduled_for=_with_typing(send, until)))
        return recorded

    async def _record_sent(
        self,
        send: Send,
        epoch: int,
        sent: SentMessage,
        sent_at: float,
        mentioned: list[str],
        answered: bool,
        usage: tuple[str, bool | None],
    ) -> None:
        """Mark the send ``sent``, publish its events and count it, once its caller's reply
        has left."""
        recorded = False
        try:
            if answered:
                await self._reply_left(send.send_key)
            marking = asyncio.ensure_future(self._mark_sent(send, epoch, sent.message_id, sent_at))
            try:
                await self._publish_sent(send, sent.message_id, sent_at, mentioned)
                await self.rules.record(send, *usage)
            finally:
                recorded = await marking
        finally:
            if recorded:  # else it stays "ours" here, so this host never marks it interrupted
                self._in_flight.discard(send.send_key)

    def _track(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` as a task that a clean end of the tenure and a host stop wait for."""
        task = asyncio.get_running_loop().create_task(work)
        for tasks in (self._dispatching, self._recording):
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        return task

    def unsettled(self) -> list[asyncio.Task[None]]:
        """The dispatch under way and the sends still being recorded: what the next owner
        must find finished."""
        current = [self.current] if self.current is not None and not self.current.done() else []
        return current + [task for task in self._recording if not task.done()]

    async def _publish_sent(self, send: Send, network_id: str, sent_at: float, mentioned: list[str]) -> None:
        await self._publish(
            payloads.message_sent(
                message_id=network_id,
                gateway_message_id=send.message_id,
                chat_jid=send.chat_jid,
                content=send.text,
                timestamp=sent_at,
                message_type=send.kind,
            )
        )
        if mentioned:
            await self._publish(
                payloads.mention_sent(
                    message_id=network_id, chat_jid=send.chat_jid, mentioned=mentioned, timestamp=sent_at
                )
            )

    async def _mark_sent(self, send: Send, epoch: int, network_id: str, sent_at: float) -> bool:
        try:
            marked: bool = await SENT_MARK.async_retrying(AWS_ERRORS)(
                self._store.mark_sent, send, epoch, network_id, sent_at
            )
        except AWS_ERRORS as error:
            logger.error("a sent message was not marked sent", extra=self._about(str(error)))
            return False
        if not marked:
            logger.warning("a sent message was no longer ours to mark", extra=self._about())
        return True

    async def _interrupted(self, send: Send) -> None:
        # A timeout as far as the caller can tell: the network may or may not have it.
        kind = INTERRUPTED_KIND
        if await self._store.mark_failed(send, INTERRUPTED, kind=kind):
            logger.warning(
                "send interrupted by a host stop marked failed",
                extra={**self._about(), "message_id": send.message_id},
            )
        self._resolve(Dispatched(send, error=INTERRUPTED, error_kind=kind))

    def _resolve(self, outcome: Dispatched) -> bool:
        """Tell the send's waiting callers; True when there was one (its reply is on its way)."""
        told = False
        for future in self._watchers.pop(outcome.send.send_key, []):
            if not future.done():
                future.set_result(outcome)
                told = True
        if told and outcome.scheduled_for is None:  # answered for good: its bookkeeping follows
            self._replies[outcome.send.send_key] = asyncio.Event()
        return told

    async def _reply_left(self, send_key: str) -> None:
        """Wait (briefly) for the caller's reply to leave before the bookkeeping: on one
        machine they would compete, and the caller is who waits."""
        try:
            async with asyncio.timeout(REPLY_WAIT_SECONDS):
                await self._replies[send_key].wait()
        except TimeoutError:
            pass
        finally:
            del self._replies[send_key]

    def _about(self, error: str | None = None) -> dict[str, str]:
        about = {"device_id": self.owned.device_id, "tenant_id": self.owned.tenant_id}
        return about | ({"error": error} if error else {})


SETTLE_SECONDS = 10.0
"""How long a clean end of a tenure waits for the device's dispatch under way."""
PublishFor = Callable[[OwnedDevice, NetworkEvent], Awaitable[None]]
"""Publishes an event of a device the host runs."""


class Senders:
    """The dispatchers of the devices this host runs, one per tenure: started and stopped by
    :class:`~session_host.ownership.Ownership` with each tenure."""

    def __init__(
        self, store: OutboxStore, publish: PublishFor, poll_seconds: float = SEND_POLL_SECONDS
    ) -> None:
        self.store = store
        self._publish = publish
        self._poll = poll_seconds
        self._running: dict[str, tuple[DeviceSender, asyncio.Task[None]]] = {}
        self._in_flight: set[str] = set()
        self._dispatching: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clock_listener = clock.ClockListener(self._clock_moved)
        clock.CLOCK.subscribe(self._clock_listener)

    def _clock_moved(self) -> None:
        """The clock moved (the simulated stack): every dispatcher looks at its sends again."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # closed meanwhile
                loop.call_soon_threadsafe(self._wake_all)

    def _wake_all(self) -> None:
        for sender, _ in self._running.values():
            sender.wake()

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
        self._loop = asyncio.get_running_loop()
        self._running[owned.device_id] = (sender, self._loop.create_task(sender.run()))

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


def _with_typing(send: Send, at: float) -> float:
    """When a send due ``at`` goes out: after its typing indicator."""
    return at + (0.0 if send.disable_presence else send.typing_seconds)
