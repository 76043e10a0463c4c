"""Fakes and builders for the neonize adapter's unit tests (no network).

Clients are ``create_autospec(NewClient, instance=True)``, patched where the adapter
constructs them, so every call the adapter makes is checked against neonize's real
signatures. Their ``event`` attribute is neonize's real ``Event`` dispatcher, and events are
delivered as neonize delivers them: serialized protobuf bytes decoded by ``Event.execute``
on a thread that is not the event loop. The fake ``connect()`` blocks until ``stop()``, as
the real one does. Payload tests build events from neonize's own protobuf classes
(``neonize.proto.Neonize_pb2`` and the ``waE2E`` message classes), as the Go bridge hands
them to Python.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import inspect
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest.mock import Mock, create_autospec, patch

from google.protobuf.message import Message as ProtoMessage
from neonize.client import NewClient
from neonize.events import EVENT_TO_INT, ConnectedEv, Event, MessageEv
from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message
from recording_sink import RecordingSink

from session_host.network.neonize import NeonizePort, NeonizeSession, NeonizeTimings, events
from session_host.network.neonize.clients import ClientRegistry
from session_host.network.neonize.locks import GoCallGate
from session_host.network.neonize.store import DeviceStore
from session_host.network.port import SessionState

HANDLERS = "session_host.network.neonize.handlers"
DEVICE_ID = "3f1c2b9e-0d7a-4c55-9a61-2f0e8b7c6d5a"
ACCOUNT = JID(User="12025550123", Device=7, Server="s.whatsapp.net", RawAgent=0, Integrator=0, IsEmpty=False)
ACCOUNT_JID = "12025550123@s.whatsapp.net"

FAST = NeonizeTimings(
    first_qr_ttl=60.0,
    next_qr_ttl=20.0,
    qr_timeout_grace=15.0,
    first_qr_wait=2.0,
    start_hold=0.005,
    sink_timeout=2.0,
    stop_join=2.0,
)


class FakeNetwork:
    """Creates autospec clients where the adapter constructs ``NewClient``."""

    def __init__(self) -> None:
        self.clients: list[Any] = []
        self.on_connect: Callable[[Any], None] | None = None

    def new_client(self, name: str, jid: JID | None = None, **_: Any) -> Any:
        client = create_autospec(NewClient, instance=True)
        client.name = name
        client.jid = jid
        client.uuid = (jid.User if jid else name).encode()
        client.event = Event(client)
        client.connect_started = threading.Event()
        run = {"stopped": threading.Event()}

        def connect(proxy_settings: Any = None) -> None:
            stopped = run["stopped"] = threading.Event()  # each run blocks until its own stop()
            client.connect_started.set()
            if self.on_connect is not None:
                self.on_connect(client)
            stopped.wait(5)  # neonize's connect() blocks until stop()

        client.connect.side_effect = connect
        client.stop.side_effect = lambda: run["stopped"].set()
        self.clients.append(client)
        return client

    @property
    def client(self) -> Any:
        assert self.clients, "no client was created"
        return self.clients[-1]


def patched_client(fake: FakeNetwork) -> Any:
    """Patch ``NewClient`` where the adapter constructs it, checking the real constructor signature."""
    signature = inspect.signature(NewClient)

    def construct(*args: Any, **kwargs: Any) -> Any:
        signature.bind(*args, **kwargs)  # TypeError on a call the real constructor would refuse
        return fake.new_client(*args, **kwargs)

    return patch("session_host.network.neonize.clients.NewClient", new=Mock(side_effect=construct))


def make_port(timings: NeonizeTimings = FAST, gate: GoCallGate | None = None) -> NeonizePort:
    return NeonizePort(timings=timings, gate=gate or GoCallGate(), registry=ClientRegistry())


def open_session(port: NeonizePort, data_dir: Path, sink: RecordingSink) -> NeonizeSession:
    return port.open_session(DEVICE_ID, data_dir=data_dir, sink=sink)


def execute(client: Any, event: ProtoMessage) -> None:
    """What neonize's Go callback does: hand serialized bytes to ``Event.execute``."""
    data = event.SerializeToString()
    buffer = ctypes.create_string_buffer(data, len(data))
    client.event.execute(0, ctypes.addressof(buffer), len(data), EVENT_TO_INT[type(event)])


async def deliver(client: Any, event: ProtoMessage) -> None:
    """Deliver an event on a worker thread, as the Go side does, and wait for the handler."""
    await asyncio.to_thread(execute, client, event)


async def show_qr(client: Any, code: str) -> None:
    """neonize's QR callback: ``event._qr(client, bytes)`` on the client thread."""
    await asyncio.to_thread(client.event._qr, client, code.encode())


async def login_status(client: Any, status: str) -> None:
    """neonize's login-status callback: two C string addresses (uuid, status)."""
    uuid = ctypes.create_string_buffer(client.uuid)
    text = ctypes.create_string_buffer(status.encode())
    await asyncio.to_thread(client._NewClient__onLoginStatus, ctypes.addressof(uuid), ctypes.addressof(text))


async def eventually(condition: Callable[[], bool], timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


async def wait_connect_started(fake: FakeNetwork) -> Any:
    await eventually(lambda: bool(fake.clients) and fake.client.connect_started.is_set())
    return fake.client


# --- scenario helpers ---------------------------------------------------------------------


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def seed_paired(data_dir: Path) -> DeviceStore:
    """A device paired earlier: sidecar with the account JID, whatsmeow row in the database."""
    data_dir.mkdir(parents=True, exist_ok=True)
    store = DeviceStore(data_dir, DEVICE_ID)
    store.save_jid(ACCOUNT, now=1_700_000_000.0)
    with contextlib.closing(sqlite3.connect(store.db_path)) as db:
        db.execute("CREATE TABLE whatsmeow_device (jid TEXT PRIMARY KEY)")
        db.execute("INSERT INTO whatsmeow_device VALUES (?)", ("12025550123:7@s.whatsapp.net",))
        db.commit()
    return store


async def connected(
    data_dir: Path, fake: FakeNetwork, **port_args: Any
) -> tuple[NeonizeSession, RecordingSink]:
    """A paired device, connected: the scenario most operations start from."""
    seed_paired(data_dir)
    sink = RecordingSink()
    session = open_session(make_port(**port_args), data_dir, sink)
    await session.connect()
    client = await wait_connect_started(fake)
    await deliver(client, ConnectedEv(status=True))
    assert session.state is SessionState.CONNECTED
    return session, sink


CONNECTED_DATA = {
    "device_id": DEVICE_ID,
    "status": "connected",
    "messaging_jid": ACCOUNT_JID,
    "is_connected": True,
    "is_logged_in": True,
}


# --- protobuf builders for payload tests --------------------------------------------------

OWN = ACCOUNT_JID  # the account of the session in payload tests
CTX = events.EventContext(DEVICE_ID, OWN)

# 2023-11-14T22:13:20.456Z, in the milliseconds MessageInfo.Timestamp carries
MESSAGE_MS = 1_700_000_000_456


def jid(user: str, server: str = "s.whatsapp.net", device: int = 0) -> JID:
    return JID(User=user, Server=server, Device=device, RawAgent=0, Integrator=0, IsEmpty=False)


EMPTY = JID(User="", Server="", Device=0, RawAgent=0, Integrator=0, IsEmpty=True)
PEER_LID = jid("207180606656725", "lid")
PEER_PHONE = jid("5511999998888")
GROUP = jid("120363000000000001", "g.us")


def source(
    chat: JID, sender: JID, *, group: bool = False, from_me: bool = False, sender_alt: JID = EMPTY
) -> MessageSource:
    return MessageSource(
        Chat=chat,
        Sender=sender,
        IsFromMe=from_me,
        IsGroup=group,
        SenderAlt=sender_alt,
        RecipientAlt=EMPTY,
        BroadcastListOwner=EMPTY,
    )


def message_event(src: MessageSource, message: Message, *, push_name: str = "Maria") -> MessageEv:
    info = MessageInfo(MessageSource=src, ID="3EB0AA11", Pushname=push_name, Timestamp=MESSAGE_MS)
    return MessageEv(Info=info, Message=message)
