"""The simulated network's rate refusals of sends: faults that name the limit (429 overlimit,
463 reachout timelock) and until when, and the network's own new-chat cap (``reachout``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from pathlib import Path

import pytest
from fakes_control_groups import MASTER
from fakes_groups import Clock
from fakes_simulated import CONTACT, CONTACT_JID, PHONE, THIRD, THIRD_JID, LoopThread, fast_network, paired
from fastapi.testclient import TestClient
from test_simulated_control import assert_envelope, start_session

from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, RateLimit
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.model import ControlError

FOURTH, FIFTH = "15550004444", "15550005555"
FOURTH_JID, FIFTH_JID = f"{FOURTH}@s.whatsapp.net", f"{FIFTH}@s.whatsapp.net"
GROUP_MEMBER = "15550006666"
START = Clock().now
LOCK_END = "2023-11-14T22:23:20.000Z"  # START + 600 s


@pytest.fixture
def host() -> Iterator[LoopThread]:
    with LoopThread() as loop_thread:
        yield loop_thread


async def rate_refusal(send: Awaitable[object]) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await send
    assert caught.value.kind is ErrorKind.RATE_LIMITED, caught.value
    return caught.value


@pytest.mark.parametrize(
    ("error", "limit"),
    [("rate_limited", RateLimit.OVERLIMIT), ("reachout_timelock", RateLimit.REACHOUT_TIMELOCK)],
)
@pytest.mark.parametrize("retry_after", [None, 90.0])
def test_a_rate_fault_names_its_limit_and_until_when_the_network_said(
    tmp_path: Path, error: str, limit: RateLimit, retry_after: float | None
) -> None:
    async def scenario() -> None:
        # Given a connected device and a rate fault on its next text (saying to wait, or not)
        clock = Clock()
        network = fast_network(clock=clock)
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        network.inject_fault("send_text", error, retry_after=retry_after)

        # When it sends, then the send is refused for rate, naming the limit and until when
        refused = await rate_refusal(session.sending.send_text(CONTACT_JID, "hi"))
        assert refused.rate_limit is limit
        assert refused.retry_at == (None if retry_after is None else START + retry_after)

        # And nothing reached the contact; the next send goes
        assert network.inbox(CONTACT)["messages"] == []
        await session.sending.send_text(CONTACT_JID, "hi")
        assert len(network.inbox(CONTACT)["messages"]) == 1
        await session.close()

    asyncio.run(scenario())


def test_rate_faults_are_checked_where_they_are_injected() -> None:
    network = fast_network()
    # The reachout timelock is a send's refusal; a wait goes with rate refusals only, never negative
    with pytest.raises(ValueError, match="send operations"):
        network.inject_fault("mark_read", "reachout_timelock")
    with pytest.raises(ValueError, match="retry_after"):
        network.inject_fault("send_text", "network", retry_after=10)
    with pytest.raises(ValueError, match="retry_after"):
        network.inject_fault("send_text", "rate_limited", retry_after=-1)
    # A 429 on any operation (a group's too) may say how long
    network.inject_fault("create_group", "rate_limited", retry_after=5)
    assert network.pending_faults()[0]["retry_after_seconds"] == 5


def test_the_new_chat_cap_refuses_new_chats_beyond_its_limit_and_keeps_known_chats(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device whose account heard from CONTACT, and people it never talked to
        clock = Clock()
        network = fast_network(clock=clock)
        for phone in (CONTACT, THIRD, FOURTH, FIFTH, GROUP_MEMBER):
            network.create_account(phone)
        session, recorder = await paired(network, tmp_path)
        network.send_from_account(CONTACT, f"{PHONE}@s.whatsapp.net", "hello")
        await recorder.wait_for("message.received")
        group = network.groups.create(GROUP_MEMBER, "Team", [PHONE], {})["jid"]

        # When the network caps its new chats at one, locking them for 10 minutes
        view = network.set_new_chat_cap("dev-1", 1, 600)
        assert view == {
            "device_id": "dev-1",
            "new_chat_cap": {"limit": 1, "lock_seconds": 600, "new_chats": 0, "locked_until": None},
        }

        # Then the first new chat goes, the second is refused: reachout timelock for 600 s
        await session.sending.send_text(THIRD_JID, "one")
        refused = await rate_refusal(session.sending.send_text(FOURTH_JID, "two"))
        assert (refused.rate_limit, refused.retry_at) == (RateLimit.REACHOUT_TIMELOCK, START + 600)
        assert network.inbox(FOURTH)["messages"] == []

        # And while locked, every new chat is refused until the same moment
        clock.now += 300
        later = await rate_refusal(session.sending.send_text(FIFTH_JID, "three"))
        assert later.retry_at == START + 600

        # And chats it has keep working: heard from, written to, a group it is in
        await session.sending.send_text(CONTACT_JID, "known")
        await session.sending.send_text(THIRD_JID, "again")
        await session.sending.send_text(group, "all")
        assert [m["text"] for m in network.inbox(CONTACT)["messages"]] == ["known"]
        assert [m["text"] for m in network.inbox(THIRD)["messages"]] == ["one", "again"]
        assert network.new_chat_cap("dev-1")["new_chat_cap"]["locked_until"] == LOCK_END

        # When the lock ends, then the count starts again
        clock.now = START + 600
        await session.sending.send_text(FOURTH_JID, "two")
        await rate_refusal(session.sending.send_text(FIFTH_JID, "three"))
        await session.close()

    asyncio.run(scenario())


def test_lifting_the_cap_lets_new_chats_through_and_unknown_devices_are_not_found(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device whose new chats are locked
        network = fast_network()
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path)
        network.set_new_chat_cap("dev-1", 0, 3600)
        await rate_refusal(session.sending.send_text(THIRD_JID, "hi"))

        # When the cap is lifted, then new chats go again
        assert network.lift_new_chat_cap("dev-1") == {"device_id": "dev-1", "new_chat_cap": None}
        await session.sending.send_text(THIRD_JID, "hi")
        assert len(network.inbox(THIRD)["messages"]) == 1
        await session.close()

        # And a device the network never saw has no cap to set, read or lift
        for call in (
            lambda: network.set_new_chat_cap("ghost", 1, 60),
            lambda: network.new_chat_cap("ghost"),
            lambda: network.lift_new_chat_cap("ghost"),
        ):
            with pytest.raises(ControlError) as unknown:
                call()
            assert (unknown.value.status, unknown.value.code) == (404, "DEVICE_NOT_FOUND")

    asyncio.run(scenario())


def test_the_control_routes_set_read_and_lift_the_cap_and_take_rate_faults(
    client: TestClient, network: SimulatedNetwork, host: LoopThread, tmp_path: Path
) -> None:
    # Given no device yet, When its cap is set, Then the device is not found
    cap_in = {"limit": 1, "lock_seconds": 60}
    unknown = client.put("/_simulator/devices/dev-1/new_chat_cap", json=cap_in, headers=MASTER)
    assert_envelope(unknown, 404, "DEVICE_NOT_FOUND")

    # Given a device that connected to the network
    session, _ = start_session(network, host, tmp_path)

    # When a cap is set, read and lifted
    put = client.put(
        "/_simulator/devices/dev-1/new_chat_cap", json={"limit": 2, "lock_seconds": 3600}, headers=MASTER
    )
    got = client.get("/_simulator/devices/dev-1/new_chat_cap", headers=MASTER)
    deleted = client.delete("/_simulator/devices/dev-1/new_chat_cap", headers=MASTER)

    # Then each answers the cap as it stands
    cap = {"limit": 2, "lock_seconds": 3600, "new_chats": 0, "locked_until": None}
    assert put.json() == got.json() == {"success": True, "device_id": "dev-1", "new_chat_cap": cap}
    assert deleted.json() == {"success": True, "device_id": "dev-1", "new_chat_cap": None}

    # And bad bodies fail validation
    for body in (
        {"limit": 1},
        {"lock_seconds": 60},
        {"limit": -1, "lock_seconds": 60},
        {"limit": 1, "lock_seconds": 0},
        {"limit": "many", "lock_seconds": 60},
        {"limit": 1, "lock_seconds": 31 * 86400},
    ):
        response = client.put("/_simulator/devices/dev-1/new_chat_cap", json=body, headers=MASTER)
        assert_envelope(response, 400, "VALIDATION_ERROR")

    # And the faults route takes the reachout timelock on sends, and a wait with rate refusals
    fault = client.post(
        "/_simulator/faults",
        json={"operation": "send_poll", "error": "reachout_timelock", "retry_after_seconds": 120},
        headers=MASTER,
    )
    assert fault.json()["retry_after_seconds"] == 120
    assert network.pending_faults()[0]["error"] == "reachout_timelock"
    for body in (
        {"operation": "mark_read", "error": "reachout_timelock"},
        {"operation": "send_text", "error": "network", "retry_after_seconds": 5},
        {"operation": "send_text", "error": "rate_limited", "retry_after_seconds": -5},
    ):
        assert_envelope(client.post("/_simulator/faults", json=body, headers=MASTER), 400, "VALIDATION_ERROR")
    host.run(session.close())
