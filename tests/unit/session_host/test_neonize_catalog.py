"""Every event neonize 0.5.2 delivers is subscribed and mapped, and lands in the catalog.

The classes come from neonize itself (``EVENT_TO_INT``, the codes its Go bridge forwards),
so a neonize upgrade that adds an event makes these tests name it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes_neonize import (
    CTX,
    EMPTY,
    FakeNetwork,
    connected,
    deliver,
    eventually,
    jid,
    make_port,
    open_session,
    patched_client,
    run,
    wait_connect_started,
)
from neonize.events import EVENT_TO_INT, CallOfferEv
from neonize.proto.Neonize_pb2 import BasicCallMeta, CallRemoteMeta, Node
from recording_sink import RecordingSink

from gateway.webhooks.catalog import CATALOG
from session_host.network.neonize import PRODUCED_EVENTS
from session_host.network.neonize.mapping import IGNORED, MAPPED

OWN_HANDLER_EVENTS = {
    "device.connected",
    "device.disconnected",
    "device.logged_out",
    "qr.generated",
    "pair.success",
    "connection.pair_error",
    "connection.stream_replaced",
    "connection.failure",
    "connection.temporary_ban",
}
"""What the session's own pairing and connection handlers emit (see test_neonize_pairing/_ending)."""


def test_every_event_class_neonize_decodes_is_subscribed_before_connect_or_ignored_for_a_reason(
    tmp_path: Path,
) -> None:
    # Given what neonize 0.5.2 can decode, and an unpaired device about to connect
    fake = FakeNetwork()
    codes_at_connect: set[int] = set()
    fake.on_connect = lambda client: codes_at_connect.update(client.event.list_func)

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            # When the session connects
            await session.connect()
            await wait_connect_started(fake)
            await session.close()

    run(scenario())
    # Then every class was registered before connect(), except those ignored with a reason
    ignored_codes = {EVENT_TO_INT[event_type] for event_type in IGNORED}
    assert codes_at_connect == set(EVENT_TO_INT.values()) - ignored_codes
    assert set(IGNORED) <= set(EVENT_TO_INT)
    assert set(MAPPED).isdisjoint(IGNORED)
    assert all(reason for reason in IGNORED.values())


@pytest.mark.parametrize("event_type", list(MAPPED), ids=lambda event_type: event_type.__name__)
def test_every_mapper_copes_with_a_bare_event_and_names_a_produced_catalog_event(event_type: Any) -> None:
    # Given an event with no field set (whatever the network leaves out)
    bare = event_type()
    # When it is mapped
    event = MAPPED[event_type](CTX, bare)
    # Then nothing raises, and a produced event has a catalog name this adapter declares
    if event is not None:
        assert event.name in PRODUCED_EVENTS
        assert event.name in CATALOG


def test_the_declared_events_are_exactly_what_the_handlers_and_the_mappers_emit() -> None:
    # Given the names the mappers give to a bare event of each class they map
    mapped = {event.name for event_type, mapper in MAPPED.items() if (event := mapper(CTX, event_type()))}
    # (a bare message or receipt carries nothing to report: test_neonize_messages names those;
    # a poll vote is the session's to decrypt: test_adapter_contract_replies)
    messages = {
        "message.received",
        "message.edited",
        "message.reaction",
        "message.delivered",
        "message.read",
        "poll.vote",
    }
    # Then, with the session's own pairing and connection events, they are the declared list
    assert mapped | messages | OWN_HANDLER_EVENTS == PRODUCED_EVENTS


def test_a_call_offer_from_the_network_reaches_the_sink(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, sink = await connected(tmp_path, fake)
            # When neonize delivers a video call offer on the client thread
            offer = CallOfferEv(
                basicCallMeta=BasicCallMeta(
                    **{"from": jid("5511999998888")},
                    timestamp=1_700_000_000,
                    callCreator=jid("5511999998888"),
                    callCreatorAlt=EMPTY,
                    callID="CALL0001",
                ),
                callRemoteMeta=CallRemoteMeta(remotePlatform="android", remoteVersion="2.24.1"),
                data=Node(Tag="offer", Nodes=[Node(Tag="audio"), Node(Tag="video")]),
            )
            await deliver(fake.client, offer)
            # Then the sink gets call.offer, after device.connected
            await eventually(lambda: bool(sink.named("call.offer")))
            assert [name for name, _ in sink.pairs()] == ["device.connected", "call.offer"]
            assert sink.named("call.offer")[0].data == {
                "call_id": "CALL0001",
                "from": "5511999998888@s.whatsapp.net",
                "creator": "5511999998888@s.whatsapp.net",
                "timestamp": "2023-11-14T22:13:20.000Z",
                "is_video": True,
                "is_group": False,
                "remote_platform": "android",
                "remote_version": "2.24.1",
            }
            await session.close()

    run(scenario())
