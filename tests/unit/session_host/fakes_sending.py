"""An in-memory outbox and a recording session for the send dispatcher's unit tests."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, cast

import bus_wire

from gateway.bus import CommandName, Reply
from gateway.devices.sending_policy import SendingPolicy
from gateway.failures.kinds import ErrorKind
from gateway.leases import Lease
from gateway.media import kinds
from gateway.media.errors import MediaNotFetched, MediaNotFound
from gateway.media.kinds import CheckedMedia, Kind
from gateway.messages import outbox
from gateway.messages.sends import UNFINISHED, Send, SendState
from session_host.commands import CommandExecutor
from session_host.device_tenure import OwnedDevice
from session_host.network.port import (
    ChatPresence,
    NetworkError,
    NetworkEvent,
    SentMessage,
    SessionState,
)
from session_host.network.reply_types import Quote
from session_host.ownership import Ownership
from session_host.sending.sender import DeviceSender, Draw

TENANT, DEVICE = "t1", "d1"
CHAT = "15550001111@s.whatsapp.net"


class FakeOutbox:
    """The outbox's conditional transitions, in memory."""

    def __init__(self) -> None:
        self.items: dict[str, Send] = {}
        self.interval = 0.0
        self.last_sent: float | None = None  # what an earlier tenure recorded
        self.reads = 0  # how often the unfinished sends were read
        self.hidden: set[str] = set()  # send keys the (lagging) index does not show yet
        self.media: dict[str, bytes] = {}  # media_id -> bytes, as the API stored them
        self.urls: dict[str, bytes] = {}  # url -> what fetching it gives
        self.policy = SendingPolicy()  # the device record's sending policy
        self.chats: set[str] = set()  # the chats known to the device (the known-chats table)
        self.lookups: list[str] = []  # each chat looked up, in order
        self.counted: list[tuple[str, bool]] = []  # each send counted: (day, new chat)
        self.paused_until: float | None = None  # the pause as the record shows it
        self._clock = itertools.count()

    def add(
        self, text: str, *, delay: float = 0, typing: float = 0, presence: bool = False, **fields: Any
    ) -> Send:
        now = time.time() + next(self._clock) / 1000  # distinct, increasing request times
        message_id = f"M{len(self.items)}"
        send = Send(
            TENANT,
            DEVICE,
            outbox.send_key(now, message_id),
            message_id,
            CHAT,
            text,
            delay,
            typing,
            not presence,
            now,
            now + delay,
            SendState.QUEUED,
        )
        send = dataclasses.replace(send, **fields)
        self.items[send.send_key] = send
        return send

    def state(self, send: Send) -> Send:
        return self.items[send.send_key]

    def _move(self, send: Send, expected: SendState, epoch: int | None, **changes: Any) -> bool:
        current = self.items[send.send_key]
        if current.state is not expected or (epoch is not None and current.sending_epoch != epoch):
            return False
        self.items[send.send_key] = dataclasses.replace(current, **changes)
        return True

    async def unfinished(self, _tenant: str, _device: str) -> list[Send]:
        self.reads += 1
        shown = (s for s in self.items.values() if s.state in UNFINISHED and s.send_key not in self.hidden)
        return sorted(shown, key=lambda s: s.send_key)

    async def get(self, _tenant: str, _device: str, send_key: str) -> Send | None:
        return self.items.get(send_key)

    async def claim(self, send: Send, epoch: int) -> bool:
        return self._move(send, SendState.QUEUED, None, state=SendState.SENDING, sending_epoch=epoch)

    async def requeue(self, send: Send, epoch: int, not_before: float | None = None) -> bool:
        due = {} if not_before is None else {"not_before": not_before}
        return self._move(send, SendState.SENDING, epoch, state=SendState.QUEUED, sending_epoch=None, **due)

    async def mark_sent(self, send: Send, epoch: int, network_message_id: str, sent_at: float) -> bool:
        return self._move(
            send,
            SendState.SENDING,
            epoch,
            state=SendState.SENT,
            network_message_id=network_message_id,
            sent_at=sent_at,
        )

    async def mark_failed(self, send: Send, error: str, *, kind: ErrorKind, epoch: int | None = None) -> bool:
        return self._move(
            send, SendState.SENDING, epoch, state=SendState.FAILED, error=error, error_kind=kind
        )

    async def stored_media(self, _tenant: str, _device: str, media_id: str) -> bytes:
        if media_id not in self.media:
            raise MediaNotFound("no such media")
        return self.media[media_id]

    async def fetched_media(
        self, kind: Kind, url: str, declared: str | None, *, status: bool = False
    ) -> CheckedMedia:
        if url not in self.urls:
            raise MediaNotFetched("the server of url answered HTTP 404")
        return kinds.check(kind, self.urls[url], "url", declared=declared, status=status)

    async def sending_policy(self, _tenant: str, _device: str) -> tuple[float, SendingPolicy]:
        return self.interval, self.policy

    async def count_send(self, _tenant: str, _device: str, day: str, *, new_chat: bool) -> bool:
        self.counted.append((day, new_chat))
        return True

    async def pause_new_chats(self, _tenant: str, _device: str, until: float) -> bool:
        self.paused_until = until
        return True

    async def chat_known(self, _tenant: str, _device: str, chat_jid: str) -> bool:
        self.lookups.append(chat_jid)
        return chat_jid in self.chats

    async def remember_chat(self, _tenant: str, _device: str, chat_jid: str) -> bool:
        new = chat_jid not in self.chats
        self.chats.add(chat_jid)
        return new

    async def last_sent_at(self, _tenant: str, _device: str) -> float | None:
        return self.last_sent

    async def find(self, _tenant: str, _device: str, message_id: str) -> Send | None:
        found = (s for s in self.items.values() if message_id in (s.message_id, s.network_message_id))
        return next(found, None)

    async def mark_revoked(self, send: Send, at: float) -> bool:
        self.items[send.send_key] = dataclasses.replace(self.items[send.send_key], revoked_at=at)
        return True

    async def mark_deleted_for_me(self, send: Send, at: float) -> bool:
        self.items[send.send_key] = dataclasses.replace(self.items[send.send_key], deleted_for_me_at=at)
        return True


class CommandHost:
    """What the command executor sees of a host running one device on ``session`` with
    ``store`` as its outbox; ``published`` collects the events handlers emit."""

    def __init__(self, session: Any, store: FakeOutbox) -> None:
        owned = OwnedDevice(TENANT, DEVICE, Lease(DEVICE, TENANT, "host-a", None, 1, "tenure-a"))
        owned.session = session
        self.devices = {DEVICE: owned}
        self.senders = SimpleNamespace(store=store)
        self.published: list[NetworkEvent] = []

    async def publish(self, _owned: OwnedDevice, event: NetworkEvent) -> None:
        self.published.append(event)

    async def run(self, name: CommandName, **args: Any) -> Reply:
        """Execute one command as the host reads it (``args`` are its JSON) and its executor
        runs it; the reply's result as the host sends it (JSON)."""
        command = bus_wire.command(name, args, tenant_id=TENANT, device_id=DEVICE)
        reply = await CommandExecutor(cast(Ownership, self)).execute(command)
        assert isinstance(reply, Reply)
        return bus_wire.on_the_wire(reply)


class RecordingSession:
    """What the dispatcher did to the network, with monotonic times (the session is its own
    ``sending`` family)."""

    def __init__(self, owned: OwnedDevice) -> None:
        self.sending = self
        self._owned = owned
        self._state = SessionState.CONNECTED
        self.looked: list[SessionState] = []  # each state the dispatcher saw, in order
        self.log: list[tuple[str, str, float]] = []  # (what, text or presence, time)
        self.mentions: dict[str, list[str]] = {}  # text -> the mentions it was sent with
        self.quotes: dict[str, Quote] = {}  # text -> the message it quoted
        self.fail_with: NetworkError | None = None

    @property
    def state(self) -> SessionState:
        """The state, each look kept in ``looked``: the dispatcher looks before each send, so a
        test knows when it saw the device down (tests read ``looked``, not this)."""
        self.looked.append(self._state)
        return self._state

    @state.setter
    def state(self, state: SessionState) -> None:
        self._state = state

    def set_state(self, state: SessionState) -> None:
        self._state = state
        self._owned.notify()

    async def send_text(
        self, to: str, text: str, *, mentions: Sequence[str] = (), quote: Quote | None = None
    ) -> SentMessage:
        if quote is not None:
            self.quotes[text] = quote
        if self.fail_with is not None:
            if self.fail_with.kind is ErrorKind.NOT_CONNECTED:  # the connection just dropped
                self.set_state(SessionState.DISCONNECTED)
            raise self.fail_with
        self.log.append(("text", text, time.monotonic()))
        self.mentions[text] = list(mentions)
        return SentMessage(f"NET-{text}", to, time.time())

    async def send_chat_presence(self, _chat: str, presence: ChatPresence) -> None:
        self.log.append(("presence", presence.value, time.monotonic()))

    def texts(self) -> list[str]:
        return [value for what, value, _ in self.log if what == "text"]

    def at(self, value: str) -> float:
        return next(at for _, logged, at in self.log if logged == value)


class Rig:
    """A device's dispatcher over the fakes; ``published`` collects its events."""

    def __init__(self, epoch: int = 1, draw: Draw = random.uniform) -> None:
        self.owned = OwnedDevice(TENANT, DEVICE, Lease(DEVICE, TENANT, "host-a", None, epoch, "tenure-a"))
        self.session = RecordingSession(self.owned)
        self.owned.session = self.session  # type: ignore[assignment]
        self.store = FakeOutbox()
        self.published: list[NetworkEvent] = []
        self.sender = DeviceSender(
            self.owned,
            self.store,
            self._publish,
            in_flight=set(),
            dispatching=set(),
            poll_seconds=5,
            draw=draw,
        )
        self._task: asyncio.Task[None] | None = None

    async def _publish(self, event: NetworkEvent) -> None:
        self.published.append(event)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.sender.run())

    async def stop(self) -> None:
        self.owned.active = False
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def until(self, check: Any, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                await asyncio.sleep(0.01)
