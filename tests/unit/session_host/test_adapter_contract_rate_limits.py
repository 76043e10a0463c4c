"""One contract, two adapters: a send the network refuses for rate (``adapter_backends``).

Every kind of send, refused with the network's 429 (rate overlimit) or 463 (reachout
timelock), fails ``RATE_LIMITED`` naming that limit (:class:`~session_host.network.port.RateLimit`),
and no time when the network gave none; the device's next send goes out. The simulated
network can also say until when (``test_simulated_rate_limits``); whatsmeow never does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from adapter_backends import Backend
from test_adapter_contract_groups import ADAPTERS, BOB, JPEG, on

from gateway.failures.kinds import ErrorKind
from session_host.network.media_types import ContactCard, Location, MediaKind, OutgoingMedia
from session_host.network.port import NetworkError, RateLimit, SentMessage
from session_host.network.reply_types import Poll
from session_host.network.status_types import TextStatus

Send = Callable[[Backend, str], Awaitable[SentMessage]]

SENDS: dict[str, Send] = {
    "send_text": lambda net, to: net.session.sending.send_text(to, "hello"),
    "send_media": lambda net, to: net.session.sending.send_media(
        to, OutgoingMedia(MediaKind.IMAGE, JPEG, "image/jpeg")
    ),
    "send_location": lambda net, to: net.session.sending.send_location(to, Location(48.85, 2.35)),
    "send_contact": lambda net, to: net.session.sending.send_contact(to, ContactCard("Ana", "15550001111")),
    "send_poll": lambda net, to: net.session.sending.send_poll(to, Poll("Lunch?", ("Yes", "No"))),
    "publish_status": lambda net, _: net.session.status.publish_status(TextStatus("hello")),
}


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("limit", list(RateLimit))
@pytest.mark.parametrize("operation", list(SENDS))
def test_a_send_refused_for_rate_names_the_limit_then_the_next_send_goes(
    adapter: str, limit: RateLimit, operation: str, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        # Given a connected device and a person, and a network refusing its next send for rate
        bob, _ = net.person(BOB)
        net.refuse_next_send(operation, limit)

        # When it sends, then the send fails RATE_LIMITED naming the limit, and no time
        with pytest.raises(NetworkError) as refused:
            await SENDS[operation](net, bob)
        assert refused.value.kind is ErrorKind.RATE_LIMITED
        assert (refused.value.rate_limit, refused.value.retry_at) == (limit, None)

        # And the next send goes out with the network's id
        sent = await SENDS[operation](net, bob)
        assert sent.message_id

    on(adapter, tmp_path, scenario)
