"""Real neonize events through the real library, for ``test_events_real.py``.

Run as a program (``python real_events.py <proxy-port> <report.json>``) in a process started
with ``HTTPS_PROXY=http://127.0.0.1:<proxy-port>``: the Go runtime inside neonize reads the
environment once, as the process started, so a proxy set later from Python is never seen.
The process plays a silent network (a loopback proxy that accepts and never answers), so each
session's ``connect()`` really runs and keeps dialing, and a media download really blocks in
whatsmeow. It opens two devices through the adapter (``NeonizePort``), then feeds serialized
neonize protobufs through the event thunk neonize keeps on each client after ``connect()``
(``client._connect_refs``, called as Go calls it: ``(uuid, bytes, len, code)``), one event at
a time per device on a thread of its own, as the Go side delivers them. Every event the sinks
received is written to the report, with when it arrived.

Required proto2 fields are filled with zero values (:func:`zero_filled`), as Go's encoder
always writes them.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import queue
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message as ProtoMessage

GO_ZERO_SECONDS = -62135596800
"""Go's ``time.Time{}`` as Unix seconds (year 1): what neonize sends for a time not given."""
MEDIA_DEADLINE = 0.5
"""The download deadline of the sessions here (60 s in production)."""


def zero_filled(message: ProtoMessage) -> ProtoMessage:
    """``message`` with every required field it lacks set to its zero value, recursively."""
    for field in message.DESCRIPTOR.fields:
        if field.is_repeated:
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for item in getattr(message, field.name):
                    zero_filled(item)
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_required or message.HasField(field.name):
                sub = getattr(message, field.name)
                sub.SetInParent()
                zero_filled(sub)
        elif field.is_required and not message.HasField(field.name):
            setattr(message, field.name, field.default_value)
    return message


class SilentProxy:
    """A loopback TCP server that accepts every connection and never answers."""

    def __init__(self, port: int) -> None:
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", port))
        self._server.listen(64)
        self._lock = threading.Lock()
        self._held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def connections(self) -> int:
        with self._lock:
            return len(self._held)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self._held.append(connection)

    def close(self) -> None:
        """Reset every connection: dials and downloads under way fail at once."""
        self._server.close()
        with self._lock:
            for connection in self._held:
                connection.close()


class GoThread:
    """One client's event delivery: events one after the other, as the Go side sends them."""

    def __init__(self, client: Any) -> None:
        from neonize.events import EVENT_TO_INT

        self._codes = EVENT_TO_INT
        self._client = client
        self._thunk = client._connect_refs[2]  # neonize's ctypes thunk of Event.execute
        self._jobs: queue.SimpleQueue[ProtoMessage | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, event: ProtoMessage) -> None:
        self._jobs.put(event)

    def _run(self) -> None:
        while (event := self._jobs.get()) is not None:
            data = zero_filled(event).SerializeToString()
            buffer = ctypes.create_string_buffer(data, len(data))
            self._thunk(self._client.uuid, ctypes.addressof(buffer), len(data), self._codes[type(event)])

    def stop(self) -> None:
        self._jobs.put(None)


def all_mapped_events() -> list[ProtoMessage]:
    """One event of each class :data:`mapping.MAPPED` maps, times set to Go's zero time."""
    from neonize.events import MessageEv, ReceiptEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message

    from session_host.network.neonize.mapping import MAPPED

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    made: list[ProtoMessage] = []
    for event_type in MAPPED:
        if event_type is MessageEv:
            source = MessageSource(Chat=peer, Sender=peer)
            info = MessageInfo(
                MessageSource=source, ID="3EB0TEXT", Timestamp=1_700_000_000_456, Pushname="Maria"
            )
            made.append(MessageEv(Info=info, Message=Message(conversation="hello")))
            continue
        if event_type is ReceiptEv:
            made.append(
                ReceiptEv(
                    MessageSource=MessageSource(Chat=peer, Sender=peer),
                    MessageIDs=["3EB0MINE"],
                    Type=ReceiptEv.READ,
                    Timestamp=GO_ZERO_SECONDS,
                )
            )
            continue
        event = zero_filled(event_type())
        for field in event.DESCRIPTOR.fields:  # every time the network "did not give"
            if (
                field.name in ("Timestamp", "LastSeen", "LastSuccess")
                and field.type == FieldDescriptor.TYPE_INT64
            ):
                setattr(event, field.name, GO_ZERO_SECONDS)
        made.append(event)
    return made


def edit_event() -> ProtoMessage:
    """An edit as whatsmeow reports it: ``IsEdit``, the new content, the original id in Raw."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waCommon.WACommon_pb2 import MessageKey
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import FutureProofMessage, Message, ProtocolMessage

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    protocol = ProtocolMessage(
        key=MessageKey(ID="3EB0ORIGINAL", fromMe=False),
        type=ProtocolMessage.MESSAGE_EDIT,
        editedMessage=Message(conversation="hello, corrected"),
        timestampMS=1_700_000_180_000,
    )
    info = MessageInfo(
        MessageSource=MessageSource(Chat=peer, Sender=peer), ID="3EB0EDIT", Timestamp=1_700_000_180_000
    )
    return MessageEv(
        Info=info,
        Message=Message(conversation="hello, corrected"),
        IsEdit=True,
        Raw=Message(editedMessage=FutureProofMessage(message=Message(protocolMessage=protocol))),
    )


def other_edit_forms() -> list[ProtoMessage]:
    """The edit still wrapped in its protocol message, and one encrypted with the message secret."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waCommon.WACommon_pb2 import MessageKey
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message, ProtocolMessage, SecretEncryptedMessage

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    source = MessageSource(Chat=peer, Sender=peer)
    protocol = ProtocolMessage(
        key=MessageKey(ID="3EB0FIRST"),
        type=ProtocolMessage.MESSAGE_EDIT,
        editedMessage=Message(conversation="second thoughts"),
    )
    secret = SecretEncryptedMessage(
        targetMessageKey=MessageKey(ID="3EB0SECOND"),
        encPayload=b"\x00" * 16,
        encIV=b"\x00" * 12,
        secretEncType=SecretEncryptedMessage.MESSAGE_EDIT,
    )
    info = MessageInfo(MessageSource=source, ID="3EB0EDIT2", Timestamp=1_700_000_190_000)
    return [
        MessageEv(Info=info, Message=Message(protocolMessage=protocol), IsEdit=True),
        MessageEv(Info=info, Message=Message(secretEncryptedMessage=secret)),
    ]


def reaction_events() -> list[ProtoMessage]:
    """A group member's reaction to the account's message, and a reaction taken back, as
    whatsmeow delivers them: messages carrying a ``reactionMessage`` keyed by the message."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waCommon.WACommon_pb2 import MessageKey
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message, ReactionMessage

    group = JID(User="120363000000000001", Server="g.us")
    member = JID(User="5511999998888", Server="s.whatsapp.net")
    key = MessageKey(remoteJID="120363000000000001@g.us", fromMe=True, ID="3EB0MINE")
    made = []
    for emoji, at_ms in (("👍", 1_700_000_185_000), ("", 0)):
        info = MessageInfo(
            MessageSource=MessageSource(Chat=group, Sender=member, IsGroup=True),
            ID=f"3EB0REACTION{len(made)}",
            Timestamp=1_700_000_186_000,
        )
        reaction = ReactionMessage(key=key, text=emoji, senderTimestampMS=at_ms)
        made.append(MessageEv(Info=info, Message=Message(reactionMessage=reaction)))
    return made


def built_reaction(client: Any) -> dict[str, Any]:
    """What the real library builds for the adapter's reaction to a group member's message
    (the chat, the message's author, its id, the emoji), as the adapter calls it."""
    from google.protobuf.json_format import MessageToDict

    from session_host.network.neonize.jids import parse_jid

    group, author = parse_jid("120363000000000001@g.us"), parse_jid("5511999998888@s.whatsapp.net")
    message = client.build_reaction(group, author, "3EB0THEIRS", "🙏")
    return MessageToDict(message.reactionMessage.key)


def image_event(message_id: str, size: int) -> ProtoMessage:
    """An image whose bytes whatsmeow fetches from the media server's URL (the played network)."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ImageMessage, Message

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    image = ImageMessage(
        URL="https://mmg.whatsapp.net/v/t62.7118-24/real-events.enc",
        directPath="/v/t62.7118-24/real-events.enc",
        mimetype="image/jpeg",
        caption="look",
        fileLength=size,
        mediaKey=b"\x01" * 32,
        fileSHA256=b"\x02" * 32,
        fileEncSHA256=b"\x03" * 32,
    )
    info = MessageInfo(
        MessageSource=MessageSource(Chat=peer, Sender=peer), ID=message_id, Timestamp=1_700_000_200_000
    )
    return MessageEv(Info=info, Message=Message(imageMessage=image))


def text_event(message_id: str) -> ProtoMessage:
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message

    peer = JID(User="5511777776666", Server="s.whatsapp.net")
    info = MessageInfo(
        MessageSource=MessageSource(Chat=peer, Sender=peer), ID=message_id, Timestamp=1_700_000_300_000
    )
    return MessageEv(Info=info, Message=Message(conversation="meanwhile"))


def reply_event() -> ProtoMessage:
    """A reply as a phone sends it: an extended text whose ContextInfo quotes the device's message."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContextInfo, ExtendedTextMessage, Message

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    context = ContextInfo(
        stanzaID="3EB0QUOTED",
        participant="12025550123@s.whatsapp.net",
        quotedMessage=Message(conversation="Lunch?"),
    )
    info = MessageInfo(
        MessageSource=MessageSource(Chat=peer, Sender=peer), ID="3EB0REPLY", Timestamp=1_700_000_400_000
    )
    return MessageEv(
        Info=info, Message=Message(extendedTextMessage=ExtendedTextMessage(text="Yes!", contextInfo=context))
    )


def vote_event() -> ProtoMessage:
    """A vote on a poll, reaching a session whose store has no account (never paired)."""
    from neonize.events import MessageEv
    from neonize.proto.Neonize_pb2 import JID, MessageInfo, MessageSource
    from neonize.proto.waCommon.WACommon_pb2 import MessageKey
    from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message, PollEncValue, PollUpdateMessage

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    vote = PollUpdateMessage(
        pollCreationMessageKey=MessageKey(ID="3EB0POLL", fromMe=False),
        vote=PollEncValue(encPayload=b"\x00" * 32, encIV=b"\x00" * 12),
        senderTimestampMS=1_700_000_500_000,
    )
    info = MessageInfo(
        MessageSource=MessageSource(Chat=peer, Sender=peer), ID="3EB0VOTE", Timestamp=1_700_000_500_000
    )
    return MessageEv(Info=info, Message=Message(pollUpdateMessage=vote))


async def _until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.01)


async def scenario(proxy: SilentProxy, data_dir: Path) -> dict[str, Any]:
    from session_host.network.neonize import NeonizePort, NeonizeTimings
    from session_host.network.neonize.clients import ClientRegistry
    from session_host.network.neonize.mapping import MAPPED
    from session_host.network.neonize.store import DeviceStore

    started = time.monotonic()
    received: dict[str, list[dict[str, Any]]] = {"dev-a": [], "dev-b": []}

    def sink_for(device: str) -> Callable[[Any], Any]:
        async def sink(event: Any) -> None:
            received[device].append(
                {
                    "name": event.name,
                    "data": event.data,
                    "attachment": event.attachment is not None,
                    "at": time.monotonic() - started,
                }
            )

        return sink

    registry = ClientRegistry()  # hands back each device's one client object
    port = NeonizePort(
        timings=NeonizeTimings(media_deadline=MEDIA_DEADLINE, start_hold=0.5), registry=registry
    )
    sessions = {d: port.open_session(d, data_dir=data_dir / d, sink=sink_for(d)) for d in received}
    for session in sessions.values():
        await session.connect()
    await _until(lambda: proxy.connections >= 2, 10)  # both clients are dialing the silent network
    go = {d: GoThread(registry.client_for(DeviceStore(data_dir / d, d).db_name, None)) for d in sessions}
    report: dict[str, Any] = {"mapped": [t.__name__ for t in MAPPED]}

    # Every mapped kind, in order, on device a
    kinds = all_mapped_events()
    for event in kinds:
        go["dev-a"].send(event)
    await _until(lambda: len(received["dev-a"]) >= len(kinds), 10)
    report["kinds"] = [type(e).__name__ for e in kinds]
    report["all"] = list(received["dev-a"])
    received["dev-a"].clear()

    # An edit
    go["dev-a"].send(edit_event())
    await _until(lambda: len(received["dev-a"]) >= 1, 5)
    report["edit"] = received["dev-a"].pop()
    for event in other_edit_forms():
        go["dev-a"].send(event)
    await _until(lambda: len(received["dev-a"]) >= 2, 5)
    report["other_edits"] = list(received["dev-a"])
    received["dev-a"].clear()

    # Reactions: a member's, then taken back; and the one the library builds for the adapter
    for event in reaction_events():
        go["dev-a"].send(event)
    await _until(lambda: len(received["dev-a"]) >= 2, 5)
    report["reactions"] = list(received["dev-a"])
    received["dev-a"].clear()
    report["built_reaction"] = built_reaction(
        registry.client_for(DeviceStore(data_dir / "dev-a", "dev-a").db_name, None)
    )

    # An image declared over the 16 MB limit: reported at once, nothing fetched
    before = proxy.connections
    sent = time.monotonic() - started
    go["dev-a"].send(image_event("3EB0BIG", 16 * 1024 * 1024 + 1))
    await _until(lambda: len(received["dev-a"]) >= 1, 5)
    report["too_large"] = {
        **received["dev-a"].pop(),
        "sent": sent,
        "new_connections": proxy.connections - before,
    }

    # An image whose download hangs (the media server never answers), then a receipt of the
    # same device behind it; meanwhile a text to device b
    before = proxy.connections
    sent = time.monotonic() - started
    go["dev-a"].send(image_event("3EB0SLOW", 1000))
    from neonize.events import ReceiptEv
    from neonize.proto.Neonize_pb2 import JID, MessageSource

    peer = JID(User="5511999998888", Server="s.whatsapp.net")
    receipt = ReceiptEv(
        MessageSource=MessageSource(Chat=peer, Sender=peer),
        MessageIDs=["3EB0MINE"],
        Type=ReceiptEv.DELIVERED,
        Timestamp=1_700_000_201,
    )
    go["dev-a"].send(receipt)
    await asyncio.sleep(0.1)  # whatsmeow is fetching the media (or failed)
    report["download_connections"] = proxy.connections - before
    other_sent = time.monotonic() - started
    go["dev-b"].send(text_event("3EB0OTHER"))
    await _until(lambda: len(received["dev-a"]) >= 2 and len(received["dev-b"]) >= 1, 10)
    report["timeout"] = {
        "sent": sent,
        "a": list(received["dev-a"]),
        "b": list(received["dev-b"]),
        "b_sent": other_sent,
    }

    received["dev-a"].clear()
    received["dev-b"].clear()

    # A reply quoting the device's message; then a vote on the unpaired session, and a text behind it
    go["dev-a"].send(reply_event())
    await _until(lambda: len(received["dev-a"]) >= 1, 5)
    report["reply"] = received["dev-a"].pop()
    go["dev-a"].send(vote_event())
    go["dev-a"].send(text_event("3EB0AFTERVOTE"))
    await _until(lambda: len(received["dev-a"]) >= 1, 5)
    report["after_vote"] = list(received["dev-a"])

    for thread in go.values():
        thread.stop()
    proxy.close()  # the dials fail now, so the sessions stop at once
    for session in sessions.values():
        await session.close()
    return report


def main() -> None:
    port, out = int(sys.argv[1]), Path(sys.argv[2])
    proxy = SilentProxy(port)
    try:
        report = asyncio.run(scenario(proxy, out.parent / "data"))
    finally:
        proxy.close()  # a dial still under way fails now: the process can exit
    out.write_text(json.dumps(report, default=str))


if __name__ == "__main__":
    main()
