"""One contract, two adapters: the device and message operations that existed before groups
(send text, typing, read receipts, disconnect) answer alike on both (``adapter_backends``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from adapter_backends import DEVICE_JID, Backend
from test_adapter_contract_groups import ADAPTERS, BOB, on

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import GroupOptions
from session_host.network.port import ChatPresence, NetworkError, SessionState


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_connected_device_knows_its_account(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        assert net.session.state is SessionState.CONNECTED
        assert net.session.jid == DEVICE_JID
        assert net.session.current_qr is None
        assert (await net.next_event("device.connected", 1)).data["messaging_jid"] == DEVICE_JID

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_sending_text_answers_the_networks_id_and_the_chat(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        group = (await net.session.groups.create_group("Team", [bob], GroupOptions())).group.jid
        to_bob = await net.session.sending.send_text(bob, "hello")
        to_group = await net.session.sending.send_text(group, "hello all")
        assert (to_bob.chat_jid, to_group.chat_jid) == (bob, group)
        assert to_bob.message_id
        assert to_bob.message_id != to_group.message_id
        assert to_bob.timestamp > 0
        with pytest.raises(NetworkError) as empty:
            await net.session.sending.send_text(bob, "")
        assert empty.value.kind is ErrorKind.INVALID

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_text_marks_the_people_it_mentions(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        carol, _ = net.person("15550001111")
        await net.session.sending.send_text(bob, "ask @15550001111", mentions=[carol])
        await net.session.sending.send_text(bob, "no one")
        assert net.mentions_received(bob) == [[carol], []]

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_typing_and_read_receipts(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        await net.session.sending.send_chat_presence(bob, ChatPresence.COMPOSING)
        await net.session.sending.send_chat_presence(bob, ChatPresence.PAUSED)
        await net.session.messages.mark_read(bob, bob, ["3EB0AAAA"])
        with pytest.raises(NetworkError) as nothing:
            await net.session.messages.mark_read(bob, bob, [])
        assert nothing.value.kind is ErrorKind.INVALID

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_disconnecting_keeps_the_login_and_stops_operations(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        await net.session.disconnect()
        assert net.session.state is SessionState.DISCONNECTED
        assert net.session.jid == DEVICE_JID
        disconnected = await net.next_event("device.disconnected", 1)
        assert disconnected.data["reason"] == "manual"
        for call in (
            net.session.sending.send_text(bob, "hello"),
            net.session.sending.send_chat_presence(bob, ChatPresence.COMPOSING),
            net.session.messages.mark_read(bob, bob, ["3EB0AAAA"]),
        ):
            with pytest.raises(NetworkError) as caught:
                await call
            assert caught.value.kind is ErrorKind.NOT_CONNECTED

    on(adapter, tmp_path, scenario)
