"""The event payloads both network adapters produce: one shape, whichever adapter runs.

The builders in ``session_host.network.payloads`` are pinned here field by field (they are
what ``docs/events.md`` documents), then each adapter's own mapping is checked to land on
the same payload for the same fact. ``docs/events.md`` itself is checked against the
catalog and against what each adapter declares it produces.
"""

from __future__ import annotations

import re
from pathlib import Path

from fakes_neonize import CTX, DEVICE_ID, EMPTY, OWN, PEER_PHONE, message_event, source
from neonize.events import CallOfferEv, CallTerminateEv, PresenceEv, ReceiptEv
from neonize.proto.Neonize_pb2 import BasicCallMeta, CallRemoteMeta, ChatPresence, Node
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message

from gateway.webhooks.catalog import CATALOG
from session_host.network import call_payloads, payloads
from session_host.network.neonize import PRODUCED_EVENTS as NEONIZE_EVENTS
from session_host.network.neonize import UNAVAILABLE_EVENTS
from session_host.network.neonize import calls as neonize_calls
from session_host.network.neonize import events as neonize_events
from session_host.network.simulated import PRODUCED_EVENTS as SIMULATED_EVENTS
from session_host.network.simulated import events as simulated_events
from session_host.network.simulated.model import Call

EVENTS_DOC = Path(__file__).resolve().parents[3] / "docs" / "events.md"

AT = 1_700_000_000.0  # 2023-11-14T22:13:20.000Z
PEER = "5511999998888@s.whatsapp.net"


def test_device_lifecycle_payloads_are_exactly_the_catalogs() -> None:
    # Given a device, When its lifecycle events are built
    built = [
        payloads.device_connected(DEVICE_ID, OWN),
        payloads.device_disconnected(DEVICE_ID, "connection_lost"),
        payloads.device_disconnected(DEVICE_ID, "manual", logged_in=False),
        payloads.device_logged_out(DEVICE_ID, "logout"),
    ]
    # Then names and data are exactly these (device.connected: the specification's five fields)
    assert [(event.name, dict(event.data)) for event in built] == [
        (
            "device.connected",
            {
                "device_id": DEVICE_ID,
                "status": "connected",
                "messaging_jid": OWN,
                "is_connected": True,
                "is_logged_in": True,
            },
        ),
        (
            "device.disconnected",
            {
                "device_id": DEVICE_ID,
                "status": "disconnected",
                "is_connected": False,
                "is_logged_in": True,
                "reason": "connection_lost",
            },
        ),
        (
            "device.disconnected",
            {
                "device_id": DEVICE_ID,
                "status": "not_ready",
                "is_connected": False,
                "is_logged_in": False,
                "reason": "manual",
            },
        ),
        (
            "device.logged_out",
            {
                "device_id": DEVICE_ID,
                "status": "logged_out",
                "is_connected": False,
                "is_logged_in": False,
                "reason": "logout",
            },
        ),
    ]


def test_pairing_and_connection_payloads() -> None:
    # Given a device pairing, When its pairing events are built
    built = [
        payloads.qr_generated(DEVICE_ID, "2@abc", AT + 60),
        payloads.pair_success(DEVICE_ID, OWN, platform="android", business_name=""),
        payloads.pair_error(DEVICE_ID, "qr_timeout", "no phone scanned the QR code in time"),
        payloads.stream_replaced(DEVICE_ID),
    ]
    # Then each carries the device and what happened, times in ISO 8601 UTC
    assert [(event.name, dict(event.data)) for event in built] == [
        (
            "qr.generated",
            {"device_id": DEVICE_ID, "qr_code": "2@abc", "expires_at": "2023-11-14T22:14:20.000Z"},
        ),
        (
            "pair.success",
            {"device_id": DEVICE_ID, "messaging_jid": OWN, "platform": "android", "business_name": ""},
        ),
        (
            "connection.pair_error",
            {"device_id": DEVICE_ID, "reason": "qr_timeout", "error": "no phone scanned the QR code in time"},
        ),
        (
            "connection.stream_replaced",
            {"device_id": DEVICE_ID, "reason": "another client connected with the same credentials"},
        ),
    ]


def test_message_received_has_the_specification_fields_then_the_type_sub_object() -> None:
    # Given an image received in a one-to-one chat
    event = payloads.message_received(
        message_id="3EB0AA11",
        sender=PEER,
        recipient=OWN,
        chat_jid=PEER,
        content="look",
        message_type="image",
        is_from_me=False,
        is_group=False,
        push_name="Maria",
        timestamp=AT + 0.456,
        extra={"media": {"mime_type": "image/jpeg", "caption": "look", "file_length": 1, "media_path": None}},
    )
    # Then the specification's fields come first, then chat and group, then the sub-object
    assert event.name == "message.received"
    assert list(event.data) == [
        "message_id", "from", "to", "content", "message_type", "is_from_me", "push_name", "timestamp",
        "chat_jid", "is_group", "quoted", "media",
    ]  # fmt: skip
    assert event.data["timestamp"] == "2023-11-14T22:13:20.456Z"


def test_receipts_name_their_time_and_reads_name_the_reader() -> None:
    # Given receipts for two messages, When built
    delivered = payloads.message_receipt(
        "delivered", message_ids=["A", "B"], chat_jid=PEER, is_group=False, at=AT
    )
    read = payloads.message_receipt(
        "read", message_ids=["A"], chat_jid=PEER, is_group=False, at=AT, reader=PEER
    )
    # Then message.delivered is the specification's six fields and the gateway's ids (the
    # session host fills them), message.read adds the reader
    assert (delivered.name, dict(delivered.data)) == (
        "message.delivered",
        {
            "message_ids": ["A", "B"],
            "gateway_message_ids": [],
            "chat_jid": PEER,
            "receipt_type": "delivered",
            "message_count": 2,
            "is_group": False,
            "delivered_at": "2023-11-14T22:13:20.000Z",
        },
    )
    assert (read.name, read.data["read_at"], read.data["reader"]) == (
        "message.read",
        "2023-11-14T22:13:20.000Z",
        PEER,
    )


def test_both_adapters_describe_the_same_text_the_same_way() -> None:
    # Given the same text from a contact, as each adapter's world presents it
    simulated = simulated_events.text_received("3EB0AA11", PEER, "Maria", OWN, "oi", 1_700_000_000.456)
    neonize = neonize_events.message_received(
        CTX, message_event(source(PEER_PHONE, PEER_PHONE), Message(conversation="oi"))
    )
    # When both are mapped, Then the payloads are equal
    assert neonize is not None
    assert (simulated.name, dict(simulated.data)) == (neonize.name, dict(neonize.data))


def test_both_adapters_describe_receipts_and_typing_the_same_way() -> None:
    # Given a delivery, a read and typing from the same contact in each adapter's world
    one_to_one = source(PEER_PHONE, PEER_PHONE)
    pairs = [
        (
            simulated_events.receipt("delivered", ["A"], PEER, AT),
            neonize_events.receipt(
                CTX,
                ReceiptEv(
                    MessageSource=one_to_one, MessageIDs=["A"], Timestamp=int(AT), Type=ReceiptEv.DELIVERED
                ),
            ),
        ),
        (
            simulated_events.receipt("read", ["A"], PEER, AT),
            neonize_events.receipt(
                CTX,
                ReceiptEv(MessageSource=one_to_one, MessageIDs=["A"], Timestamp=int(AT), Type=ReceiptEv.READ),
            ),
        ),
        (
            simulated_events.chat_presence(PEER, "composing"),
            neonize_events.chat_presence(
                CTX,
                ChatPresence(MessageSource=one_to_one, State=ChatPresence.COMPOSING, Media=ChatPresence.TEXT),
            ),
        ),
    ]
    # When both are mapped, Then each pair is the same event with the same data
    for simulated, neonize in pairs:
        assert neonize is not None
        assert (simulated.name, dict(simulated.data)) == (neonize.name, dict(neonize.data))


def test_both_adapters_describe_presence_and_calls_the_same_way() -> None:
    # Given a contact going offline, calling the account and hanging up, in each adapter's world
    call = Call("CALL0001", PEER, OWN, video=False, started_at=AT)
    meta = BasicCallMeta(
        **{"from": PEER_PHONE},
        timestamp=int(AT),
        callCreator=PEER_PHONE,
        callCreatorAlt=EMPTY,
        callID="CALL0001",
    )
    pairs = [
        (
            simulated_events.contact_presence(PEER, False, AT),
            neonize_events.presence(CTX, PresenceEv(From=PEER_PHONE, Unavailable=True, LastSeen=int(AT))),
        ),
        (
            simulated_events.call_offer(call),
            neonize_calls.call_offer(
                CTX,
                CallOfferEv(
                    basicCallMeta=meta,
                    callRemoteMeta=CallRemoteMeta(remotePlatform="simulated", remoteVersion=""),
                    data=Node(Tag="offer", Nodes=[Node(Tag="audio")]),
                ),
            ),
        ),
        (
            simulated_events.call_terminate(call, "timeout", AT),
            neonize_calls.call_terminate(
                CTX, CallTerminateEv(basicCallMeta=meta, reason="timeout", data=Node(Tag="terminate"))
            ),
        ),
    ]
    # When both are mapped, Then each pair is the same event with the same data
    for simulated, neonize in pairs:
        assert (simulated.name, dict(simulated.data)) == (neonize.name, dict(neonize.data))
    assert dict(pairs[0][0].data) == {
        "jid": PEER,
        "available": False,
        "last_seen": "2023-11-14T22:13:20.000Z",
    }


# --- docs/events.md -----------------------------------------------------------------------


def test_each_adapter_declares_only_catalog_events() -> None:
    # Given what each adapter says it produces, Then every name is in the catalog
    assert SIMULATED_EVENTS.issubset(CATALOG)
    assert NEONIZE_EVENTS.issubset(CATALOG)


def test_the_events_page_has_one_section_per_catalog_event_and_nothing_else() -> None:
    # Given the events page, When its event sections are read
    headings = re.findall(r"^### (.+)$", EVENTS_DOC.read_text(encoding="utf-8"), flags=re.MULTILINE)
    # Then there is exactly one per catalog event, in the catalog's order
    assert headings == list(CATALOG)


def test_the_events_page_says_who_produces_each_event_as_the_adapters_declare() -> None:
    # Given the page's table of producers (event, simulated, neonize, why not)
    rows = re.findall(
        r"^\| `([a-z_.]+)` \| (\w+) \| (\w+) \| (.*?) ?\|$",
        EVENTS_DOC.read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    table = {name: (simulated, neonize, why) for name, simulated, neonize, why in rows}
    # Then it has one row per catalog event, matching what each adapter declares
    assert sorted(name for name, *_ in rows) == sorted(CATALOG)
    for name, (simulated, neonize, why) in table.items():
        if neonize == "gateway":
            assert simulated == "gateway", name
            assert "gateway" in UNAVAILABLE_EVENTS[name], name
            continue
        assert (simulated == "yes") == (name in SIMULATED_EVENTS), name
        assert (neonize == "yes") == (name in NEONIZE_EVENTS), name
        assert {simulated, neonize} <= {"yes", "no"}, name
        # And every event an adapter does not produce says why
        assert why or (simulated == neonize == "yes"), name


def test_message_sent_names_both_ids_and_the_networks_time() -> None:
    # Given a text the gateway dispatched, When its message.sent is built
    event = payloads.message_sent(
        message_id="3EB0AA", gateway_message_id="G1", chat_jid=PEER, content="hi", timestamp=AT
    )
    # Then it carries the network's id, the gateway's id and the time it went out
    assert (event.name, dict(event.data), event.occurred_at) == (
        "message.sent",
        {
            "message_id": "3EB0AA",
            "gateway_message_id": "G1",
            "chat_jid": PEER,
            "message_type": "text",
            "content": "hi",
            "timestamp": "2023-11-14T22:13:20.000Z",
        },
        AT,
    )


def test_call_reject_names_the_device_as_sender_the_caller_as_creator_and_who_decided() -> None:
    # Given the device's rejections of a call, by a client and by its setting with a reply
    by_api = call_payloads.call_reject(
        call_id="C1", device_jid=OWN, caller=PEER, at=AT, by=call_payloads.RejectedBy.API
    )
    by_setting = call_payloads.call_reject(
        call_id="C2",
        device_jid=OWN,
        caller=PEER,
        at=AT,
        by=call_payloads.RejectedBy.AUTO,
        reply_message_id="3EB0",
    )
    # Then each is call.reject with the common call fields, who decided, and the reply's id
    common = {"from": OWN, "creator": PEER, "timestamp": "2023-11-14T22:13:20.000Z"}
    assert [(event.name, dict(event.data)) for event in (by_api, by_setting)] == [
        ("call.reject", {"call_id": "C1", **common, "by": "api", "reply_message_id": None}),
        ("call.reject", {"call_id": "C2", **common, "by": "auto", "reply_message_id": "3EB0"}),
    ]
