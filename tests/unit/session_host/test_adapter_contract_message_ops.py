"""One contract, two adapters: operations on messages already sent (revoke, delete for me,
history sync) answer alike on both (``adapter_backends``). What one adapter cannot do is
declared in its ``unsupported`` set and checked as ``UNSUPPORTED`` with nothing sent.

Not part of the contract: the revoke window and unknown ids. The simulated network refuses
them (``EXPIRED``, ``NOT_FOUND``; ``test_simulated_message_ops.py``); neonize cannot tell
before sending, so the session host checks them from its own record."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from adapter_backends import Backend
from test_adapter_contract_groups import ADAPTERS, BOB, CAI, on

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import GroupOptions
from session_host.network.port import MessageRef, NetworkError


async def fails(kind: ErrorKind, call: Awaitable[Any]) -> None:
    with pytest.raises(NetworkError) as caught:
        await call
    assert caught.value.kind is kind, caught.value


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_device_revokes_what_it_sent_to_a_person_and_to_a_group(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given messages the device sent to Bob and to a group
        bob, _ = net.person(BOB)
        group = (await net.session.groups.create_group("Team", [bob], GroupOptions())).group.jid
        to_bob = await net.session.sending.send_text(bob, "oops")
        to_group = await net.session.sending.send_text(group, "oops all")
        before = net.put_on_network()
        # When it deletes both for everyone
        await net.session.messages.revoke_message(bob, to_bob.message_id)
        await net.session.messages.revoke_message(group, to_group.message_id)
        # Then each went to the network as one revoke
        assert net.put_on_network() == before + 2

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_delete_for_me_takes_any_message_and_needs_a_group_author(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        group = (await net.session.groups.create_group("Team", [bob, cai], GroupOptions())).group.jid
        sent = await net.session.sending.send_text(bob, "mine")
        before = net.put_on_network()
        if "delete_for_me" in net.unsupported:
            # Then an adapter that cannot write app state says so for any message, nothing sent
            await fails(
                ErrorKind.UNSUPPORTED,
                net.session.messages.delete_for_me(bob, sent.message_id, from_me=True, sender=None),
            )
            await fails(
                ErrorKind.UNSUPPORTED,
                net.session.messages.delete_for_me(group, "3EB0C0C0", from_me=False, sender=cai),
            )
            assert net.put_on_network() == before
            return
        # When the device deletes for itself its own message, one Bob sent, one Cai sent in a group
        await net.session.messages.delete_for_me(bob, sent.message_id, from_me=True, sender=None)
        await net.session.messages.delete_for_me(bob, "3EB0B0B0", from_me=False, sender=bob)
        await net.session.messages.delete_for_me(group, "3EB0C0C0", from_me=False, sender=cai)
        # Then each is one change on the network
        assert net.put_on_network() == before + 3
        # And a group message of someone else without its author is refused, nothing sent
        await fails(
            ErrorKind.INVALID,
            net.session.messages.delete_for_me(group, "3EB0D0D0", from_me=False, sender=None),
        )
        assert net.put_on_network() == before + 3

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_history_sync_is_answered_with_history_sync_or_unsupported(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a chat where the device sent two messages
        bob, _ = net.person(BOB)
        first = await net.session.sending.send_text(bob, "one")
        second = await net.session.sending.send_text(bob, "two")
        oldest = MessageRef(bob, second.message_id, from_me=True, timestamp=second.timestamp + 1)
        before = net.put_on_network()
        # When the device asks for the history before the newer one
        call = net.session.messages.request_history_sync(bob, 50, oldest)
        if "request_history_sync" in net.unsupported:
            # Then an adapter that cannot says so and sends nothing
            await fails(ErrorKind.UNSUPPORTED, call)
            assert net.put_on_network() == before
            return
        await call
        # Then the phone answers with one on-demand chunk counting what came before
        answer = await net.next_event("history.sync", 1)
        assert answer.data["sync_type"] == "on_demand"
        assert first.timestamp < oldest.timestamp
        assert answer.data["message_count"] == 1

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_bad_input_is_refused_before_anything_is_sent(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        other = MessageRef("15550000005@s.whatsapp.net", "3EB0AAAA", from_me=True, timestamp=1.0)
        before = net.put_on_network()
        await fails(ErrorKind.INVALID, net.session.messages.revoke_message(bob, ""))
        await fails(ErrorKind.INVALID, net.session.messages.delete_for_me(bob, "", from_me=True, sender=None))
        await fails(ErrorKind.INVALID, net.session.messages.request_history_sync(bob, 0, other))
        await fails(ErrorKind.INVALID, net.session.messages.request_history_sync(bob, 10, other))
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_disconnected_device_sends_nothing(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        sent = await net.session.sending.send_text(bob, "hello")
        await net.session.disconnect()
        before = net.put_on_network()
        oldest = MessageRef(bob, sent.message_id, from_me=True, timestamp=sent.timestamp)

        def kind(operation: str) -> ErrorKind:
            unsupported = operation in net.unsupported
            return ErrorKind.UNSUPPORTED if unsupported else ErrorKind.NOT_CONNECTED

        history = kind("request_history_sync")
        await fails(ErrorKind.NOT_CONNECTED, net.session.messages.revoke_message(bob, sent.message_id))
        await fails(
            kind("delete_for_me"),
            net.session.messages.delete_for_me(bob, sent.message_id, from_me=True, sender=None),
        )
        await fails(history, net.session.messages.request_history_sync(bob, 10, oldest))
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)
