"""One contract, two adapters, through the session host: DELETE_MESSAGE, SYNC_HISTORY,
EDIT_MESSAGE and REACT_MESSAGE run by the host's executor on each adapter's real session
(``adapter_backends``), with the host's record of sends (an in-memory outbox) naming what
the device sent.

The revoke and edit windows and unknown ids are the host's to check (neonize cannot tell them before
sending), so they answer alike on both adapters: ``expired`` / ``not_found`` with nothing put
on the network. History sync is ``unsupported`` where the adapter declares it, nothing sent."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
from adapter_backends import Backend
from fakes_sending import CommandHost, FakeOutbox
from test_adapter_contract_groups import ADAPTERS, BOB, on

from gateway.bus import CommandName
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import Send, SendState


async def sent_to(net: Backend, store: FakeOutbox, chat: str, *, age: float = 0.0) -> Send:
    """The device sends ``chat`` a text, and the host's record has it as sent ``age`` seconds ago."""
    sent = await net.session.sending.send_text(chat, "oops")
    return store.add(
        "oops",
        chat_jid=chat,
        state=SendState.SENT,
        network_message_id=sent.message_id,
        sent_at=time.time() - age,
    )


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_within_the_window_the_host_revokes_once(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a message the device sent to Bob a moment ago
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        send = await sent_to(net, store, bob)
        before = net.put_on_network()
        # When it is deleted for everyone by the gateway's id
        reply = await host.run(
            CommandName.DELETE_MESSAGE, message_id=send.message_id, chat_jid=bob, for_everyone=True
        )
        # Then one revoke went out; a second delete for everyone is not found and sends nothing
        assert reply.ok, reply
        assert net.put_on_network() == before + 1
        again = await host.run(
            CommandName.DELETE_MESSAGE, message_id=send.message_id, chat_jid=bob, for_everyone=True
        )
        assert again.error_kind is ErrorKind.NOT_FOUND
        assert net.put_on_network() == before + 1

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_past_the_window_the_host_answers_expired_and_sends_nothing(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        send = await sent_to(net, store, bob, age=net.session.messages.revoke_window_seconds + 1)
        before = net.put_on_network()
        reply = await host.run(
            CommandName.DELETE_MESSAGE, message_id=send.network_message_id, chat_jid=bob, for_everyone=True
        )
        assert (reply.ok, reply.error_kind) == (False, ErrorKind.EXPIRED)
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_delete_for_me_goes_to_the_network_and_emits_the_event(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        send = await sent_to(net, store, bob, age=net.session.messages.revoke_window_seconds + 1)  # any age
        before = net.put_on_network()
        reply = await host.run(
            CommandName.DELETE_MESSAGE, message_id=send.message_id, chat_jid=bob, for_everyone=False
        )
        if "delete_for_me" in net.unsupported:
            # Then an adapter that cannot write app state answers unsupported (501), sends nothing
            assert (reply.ok, reply.error_kind) == (False, ErrorKind.UNSUPPORTED)
            assert (net.put_on_network(), host.published) == (before, [])
            return
        assert reply.ok, reply
        assert net.put_on_network() == before + 1
        (event,) = host.published
        assert event.name == "message.delete_for_me"
        assert (event.data["message_id"], event.data["chat_jid"]) == (send.network_message_id, bob)
        # And an id the device never sent (a received message) is not found on either adapter
        unknown = await host.run(
            CommandName.DELETE_MESSAGE, message_id="3EB0FEED", chat_jid=bob, for_everyone=False
        )
        assert unknown.error_kind is ErrorKind.NOT_FOUND
        assert net.put_on_network() == before + 1

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_hosts_history_request_is_answered_or_unsupported(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a chat where the device sent a message
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        await net.session.sending.send_text(bob, "one")
        before = net.put_on_network()
        # When the host asks the phone for the chat's latest messages
        reply = await host.run(CommandName.SYNC_HISTORY, chat_jid=bob, count=10)
        if "request_history_sync" in net.unsupported:
            # Then an adapter that cannot says so and sends nothing
            assert (reply.ok, reply.error_kind) == (False, ErrorKind.UNSUPPORTED)
            assert net.put_on_network() == before
            return
        # Then the phone answers with one on-demand chunk counting the message sent before now
        assert reply.ok, reply
        answer = await net.next_event("history.sync", 1)
        assert answer.data["sync_type"] == "on_demand"
        assert answer.data["message_count"] == 1

    on(adapter, tmp_path, scenario)


# --- reactions and edits ------------------------------------------------------------------


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_within_the_window_the_host_edits_a_text_by_either_id(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text the device sent Bob a moment ago
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        send = await sent_to(net, store, bob)
        # When it is edited by the gateway's id, then by the network's
        first = await host.run(CommandName.EDIT_MESSAGE, message_id=send.message_id, chat_jid=bob, text="oh")
        second = await host.run(
            CommandName.EDIT_MESSAGE, message_id=send.network_message_id, chat_jid=bob, text="oh no"
        )
        # Then both answer the two ids, and Bob sees the last edit on the network's message
        assert (first.ok, second.ok) == (True, True), (first, second)
        assert first.result is not None
        assert (first.result["message_id"], first.result["network_message_id"]) == (
            send.message_id,
            send.network_message_id,
        )
        assert net.edits_got(bob)[-1] == (send.network_message_id, "oh no")

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_host_refuses_an_edit_past_the_window_or_of_what_the_device_did_not_send(
    adapter: str, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text sent past the network's edit window, and a revoked one
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        old = await sent_to(net, store, bob, age=net.session.messages.edit_window_seconds + 1)
        revoked = await sent_to(net, store, bob)
        store.items[revoked.send_key] = replace(revoked, revoked_at=time.time())
        before = net.put_on_network()

        async def edit(message_id: str, chat: str = bob) -> ErrorKind | None:
            reply = await host.run(CommandName.EDIT_MESSAGE, message_id=message_id, chat_jid=chat, text="x")
            return reply.error_kind

        # Then expired past the window; not found for a revoked text, an unknown id, another chat
        assert await edit(old.message_id) is ErrorKind.EXPIRED
        assert await edit(revoked.message_id) is ErrorKind.NOT_FOUND
        assert await edit("3EB0FEED") is ErrorKind.NOT_FOUND
        assert await edit(old.message_id, "15559999999@s.whatsapp.net") is ErrorKind.NOT_FOUND
        # And nothing went to the network
        assert (net.put_on_network(), net.edits_got(bob)) == (before, [])

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_host_sends_a_reaction_and_answers_it(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        store = FakeOutbox()
        host = CommandHost(net.session, store)
        send = await sent_to(net, store, bob)
        reply = await host.run(
            CommandName.REACT_MESSAGE,
            message_id=send.network_message_id,
            chat_jid=bob,
            emoji="🔥",
            from_me=True,
            sender_jid=None,
        )
        assert reply.ok, reply
        assert reply.result is not None
        assert (reply.result["message_id"], reply.result["emoji"]) == (send.network_message_id, "🔥")
        assert net.reactions_got(bob) == [(send.network_message_id, "🔥")]

    on(adapter, tmp_path, scenario)
