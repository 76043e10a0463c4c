"""Receipts carry the gateway's ids of the device's sends they name (``gateway_message_ids``):
from the tenure's memory of its latest sends, else from the outbox, never held back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, cast

from botocore.exceptions import EndpointConnectionError

from gateway.messages import outbox
from session_host.aws_calls import AwsCalls
from session_host.network import payloads
from session_host.network.port import NetworkEvent
from session_host.outbox_names import RecentSends, with_gateway_ids

PEER = "5511999998888@s.whatsapp.net"


class FakeOutbox:
    """Stands in for the host's AWS calls: answers ``outbox.gateway_ids`` from ``known``."""

    def __init__(self, known: dict[str, str], *, fails: bool = False) -> None:
        self.known = known
        self.fails = fails
        self.asked: list[list[str]] = []

    async def __call__(self, fn: Callable[..., Any], *args: Any) -> dict[str, str]:
        assert fn is outbox.gateway_ids
        _tenant, _device, network_ids = args
        self.asked.append(list(network_ids))
        if self.fails:
            raise EndpointConnectionError(endpoint_url="http://dynamodb")
        return {network_id: self.known[network_id] for network_id in network_ids if network_id in self.known}


def receipt(*message_ids: str) -> NetworkEvent:
    return payloads.message_receipt("read", message_ids=message_ids, chat_jid=PEER, is_group=False, at=1.0)


def filled(event: NetworkEvent, recent: RecentSends, aws: FakeOutbox) -> NetworkEvent:
    return asyncio.run(with_gateway_ids(event, recent, cast(AwsCalls, aws), "t1", "d1"))


def test_recent_sends_are_named_without_reading_the_outbox_and_older_ones_from_it() -> None:
    # Given a send of this tenure, one the outbox knows, and one sent from the phone
    recent = RecentSends()
    recent.put("3EB0NEW", "G-NEW")
    aws = FakeOutbox({"3EB0OLD": "G-OLD"})
    # When a read receipt names all three
    event = filled(receipt("3EB0OLD", "3EB0NEW", "3EB0PHONE"), recent, aws)
    # Then the gateway's ids of the two it sent, in the receipt's order; only the others were looked up
    assert event.data["gateway_message_ids"] == ["G-OLD", "G-NEW"]
    assert event.data["message_ids"] == ["3EB0OLD", "3EB0NEW", "3EB0PHONE"]
    assert aws.asked == [["3EB0OLD", "3EB0PHONE"]]


def test_an_outbox_that_cannot_be_read_never_holds_the_receipt_back() -> None:
    # Given an outbox that fails
    aws = FakeOutbox({}, fails=True)
    recent = RecentSends()
    recent.put("3EB0NEW", "G-NEW")
    # When a receipt names a recent send and an older one
    event = filled(receipt("3EB0NEW", "3EB0OLD"), recent, aws)
    # Then it goes out with what the memory knew
    assert event.data["gateway_message_ids"] == ["G-NEW"]


def test_other_events_pass_unchanged_and_the_memory_is_bounded() -> None:
    # Given a memory of two sends, three sent
    recent = RecentSends(capacity=2)
    for index in range(3):
        recent.put(f"N{index}", f"G{index}")
    # Then the oldest is forgotten
    assert (recent.get("N0"), recent.get("N1"), recent.get("N2")) == (None, "G1", "G2")
    # And an event that is no receipt is not touched
    presence = payloads.contact_presence(PEER, available=True, last_seen=None)
    assert filled(presence, recent, FakeOutbox({})) is presence
