"""The simulated network's message operations: revokes within its window and what recipients
see, delete for me recorded as app state, history requests answered with ``history.sync``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, fast_network, paired

from gateway.failures.kinds import ErrorKind
from session_host.network.port import MessageRef, NetworkError
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.core import REAL_REVOKE_WINDOW, revoke_window_from_env


async def fails(kind: ErrorKind, call: object) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.kind is kind, caught.value
    return caught.value


def test_a_revoked_message_shows_revoked_in_the_inbox_and_brings_no_event(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device whose message reached Bob's own linked device
        network = fast_network()
        session, _ = await paired(network, tmp_path / "a")
        bob, bob_events = await paired(network, tmp_path / "b", "dev-bob", CONTACT)
        sent = await session.sending.send_text(CONTACT_JID, "oops")
        await bob_events.wait_for("message.received")
        before = len(bob_events.events)
        # When the sender deletes it for everyone
        await session.messages.revoke_message(CONTACT_JID, sent.message_id)
        # Then Bob's inbox shows it revoked, its text gone, and his device got nothing more
        (message,) = network.inbox(CONTACT)["messages"]
        assert (message["message_id"], message["revoked"], message["text"]) == (sent.message_id, True, None)
        assert network.inbox(PHONE)["sent"][-1]["revoked"] is True
        # (a message sent after the revoke reaches him next: the network hands his device its
        # events in order)
        after = await session.sending.send_text(CONTACT_JID, "sent after the revoke")
        await bob_events.wait_for("message.received", 2)
        assert [(e.name, e.data["message_id"]) for e in bob_events.events[before:]] == [
            ("message.received", after.message_id)
        ]
        # And a second revoke finds nothing to revoke
        await fails(ErrorKind.NOT_FOUND, session.messages.revoke_message(CONTACT_JID, sent.message_id))
        await session.close()
        await bob.close()

    asyncio.run(scenario())


def test_a_revoke_in_a_group_reaches_every_members_inbox(tmp_path: Path) -> None:
    async def scenario() -> None:
        network = fast_network()
        network.create_account(CONTACT)
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Team", [PHONE, THIRD])["jid"]
        sent = await session.sending.send_text(group, "oops all")
        await session.messages.revoke_message(group, sent.message_id)
        for phone in (CONTACT, THIRD):
            assert [m["revoked"] for m in network.inbox(phone)["messages"]] == [True]
        await session.close()

    asyncio.run(scenario())


def test_only_the_devices_own_messages_can_be_revoked(tmp_path: Path) -> None:
    async def scenario() -> None:
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        theirs = network.send_from_account(CONTACT, JID, "mine, not yours")
        sent = await session.sending.send_text(CONTACT_JID, "hello")
        await fails(ErrorKind.NOT_FOUND, session.messages.revoke_message(CONTACT_JID, theirs))
        await fails(ErrorKind.NOT_FOUND, session.messages.revoke_message(CONTACT_JID, "3EB0UNKNOWN"))
        await fails(ErrorKind.NOT_FOUND, session.messages.revoke_message("15559999999", sent.message_id))
        await session.close()

    asyncio.run(scenario())


def test_a_revoke_past_the_window_is_expired_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        network = SimulatedNetwork(qr_lifetimes=(0.3,), revoke_window=0.0)
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        sent = await session.sending.send_text(CONTACT_JID, "too late")
        await asyncio.sleep(0.01)
        error = await fails(ErrorKind.EXPIRED, session.messages.revoke_message(CONTACT_JID, sent.message_id))
        assert "window" in str(error)
        assert "revoked" not in network.inbox(CONTACT)["messages"][0]
        await session.close()

    asyncio.run(scenario())


def test_the_window_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMULATOR_REVOKE_WINDOW_SECONDS", raising=False)
    assert revoke_window_from_env() == REAL_REVOKE_WINDOW == 216_000
    monkeypatch.setenv("SIMULATOR_REVOKE_WINDOW_SECONDS", "5")
    assert SimulatedNetwork().revoke_window == 5.0
    monkeypatch.setenv("SIMULATOR_REVOKE_WINDOW_SECONDS", "-1")
    with pytest.raises(ValueError, match="SIMULATOR_REVOKE_WINDOW_SECONDS"):
        revoke_window_from_env()


def test_delete_for_me_is_recorded_and_saved(tmp_path: Path) -> None:
    async def scenario() -> None:
        state = tmp_path / "network.json"
        network = SimulatedNetwork(state, qr_lifetimes=(0.3,))
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        await session.messages.delete_for_me(CONTACT_JID, "3EB0AAAA", from_me=False, sender=CONTACT_JID)
        await session.close()
        # Then the account's app state holds it, also after a restart of the network
        (deleted,) = SimulatedNetwork(state).inbox(PHONE)["deleted_for_me"]
        assert (deleted["chat"], deleted["message_id"], deleted["from_me"]) == (
            CONTACT_JID,
            "3EB0AAAA",
            False,
        )

    asyncio.run(scenario())


def test_history_sync_counts_what_came_before_the_oldest_up_to_count(tmp_path: Path) -> None:
    async def scenario() -> None:
        network = fast_network()
        network.create_account(CONTACT)
        session, events = await paired(network, tmp_path)
        first = await session.sending.send_text(CONTACT_JID, "one")
        await asyncio.sleep(0.01)
        network.send_from_account(CONTACT, JID, "two")
        await events.wait_for("message.received")
        await asyncio.sleep(0.01)
        last = await session.sending.send_text(CONTACT_JID, "three")
        oldest = MessageRef(CONTACT_JID, last.message_id, from_me=True, timestamp=last.timestamp)
        # When the device asks for everything before its last message, then for one only
        await session.messages.request_history_sync(CONTACT_JID, 50, oldest)
        await session.messages.request_history_sync(CONTACT_JID, 1, oldest)
        # Then each answer is an on-demand chunk counting what the network holds
        answers = [(await events.wait_for("history.sync", n)).data for n in (1, 2)]
        assert [a["message_count"] for a in answers] == [2, 1]
        assert answers[0] == {
            "device_id": "dev-1",
            "sync_type": "on_demand",
            "chunk_order": None,
            "progress": None,
            "conversation_count": 1,
            "message_count": 2,
            "push_name_count": 0,
            "status_count": 0,
        }
        # And before the first message there is nothing
        before_first = MessageRef(CONTACT_JID, first.message_id, from_me=True, timestamp=first.timestamp)
        await session.messages.request_history_sync(CONTACT_JID, 50, before_first)
        assert (await events.wait_for("history.sync", 3)).data["message_count"] == 0
        await session.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("operation", ["revoke_message", "delete_for_me", "request_history_sync"])
def test_faults_fail_the_operation_named_after_the_port_method(tmp_path: Path, operation: str) -> None:
    async def scenario() -> None:
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        sent = await session.sending.send_text(CONTACT_JID, "hello")
        network.inject_fault(operation, "rate_limited")
        calls = {
            "revoke_message": lambda: session.messages.revoke_message(CONTACT_JID, sent.message_id),
            "delete_for_me": lambda: session.messages.delete_for_me(
                CONTACT_JID, sent.message_id, from_me=True, sender=None
            ),
            "request_history_sync": lambda: session.messages.request_history_sync(
                CONTACT_JID, 5, MessageRef(CONTACT_JID, sent.message_id, True, sent.timestamp)
            ),
        }
        await fails(ErrorKind.RATE_LIMITED, calls[operation]())
        await calls[operation]()  # the fault is used up
        await session.close()

    asyncio.run(scenario())
