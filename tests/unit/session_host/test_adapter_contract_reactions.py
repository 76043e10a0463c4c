"""One contract, two adapters: reactions and edits, sent by the device and received from
others, answer alike on both (``adapter_backends``).

Not part of the contract: unknown ids and the edit window. The simulated network refuses
them (``NOT_FOUND``, ``EXPIRED``; ``test_simulated_message_ops.py``); neonize cannot tell
before sending, so the session host checks an edit from its own record of sent messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from adapter_backends import Backend
from test_adapter_contract_groups import ADAPTERS, BOB, CAI, on
from test_adapter_contract_message_ops import fails

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import GroupOptions


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_device_reacts_to_what_it_sent_and_to_what_it_received(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text the device sent Bob and one Bob sent the device
        bob, _ = net.person(BOB)
        mine = await net.session.sending.send_text(bob, "lunch?")
        theirs = await net.text_from(bob, "sure")
        # When the device reacts to both (Bob's keyed by its author, the chat's person)
        await net.session.messages.react(bob, mine.message_id, "👍", from_me=True, sender=None)
        await net.session.messages.react(bob, theirs, "❤️", from_me=False, sender=bob)
        # Then Bob got both reactions, each on its message
        assert net.reactions_got(bob) == [(mine.message_id, "👍"), (theirs, "❤️")]
        # And an empty emoji takes the device's reaction back
        await net.session.messages.react(bob, mine.message_id, "", from_me=True, sender=None)
        assert dict(net.reactions_got(bob)).get(mine.message_id, "") == ""

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_device_edits_a_text_it_sent(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text the device sent Bob
        bob, _ = net.person(BOB)
        sent = await net.session.sending.send_text(bob, "see you at 5")
        # When the device edits it
        await net.session.messages.edit_message(bob, sent.message_id, "see you at 6")
        # Then Bob sees the new text on that message
        assert net.edits_got(bob) == [(sent.message_id, "see you at 6")]
        # And the network's window is the real one's on neonize, the simulator's setting otherwise
        assert net.session.messages.edit_window_seconds > 0

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_reaction_from_someone_else_is_message_reaction(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text the device sent Bob
        bob, _ = net.person(BOB)
        sent = await net.session.sending.send_text(bob, "done!")
        # When Bob reacts to it
        await net.react_as(bob, sent.message_id, "🎉")
        # Then the device's session reports the reaction on that message
        event = await net.next_event("message.reaction", 1)
        data = dict(event.data)
        assert data.pop("timestamp") is not None
        assert data == {
            "message_id": sent.message_id,
            "chat_jid": bob,
            "from": bob,
            "emoji": "🎉",
            "is_from_me": False,
        }
        # And it is no received message
        assert net.events("message.received") == []

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_edit_from_someone_else_is_message_edited_with_the_original_id(
    adapter: str, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        # Given a text Bob sent the device
        bob, _ = net.person(BOB)
        original = await net.text_from(bob, "see you at 5")
        await net.next_event("message.received", 1)
        # When Bob edits it
        await net.edit_as(bob, original, "see you at 6")
        # Then the device's session reports the edit of that message, with its new text
        event = await net.next_event("message.edited", 1)
        data = dict(event.data)
        assert data.pop("edited_at") is not None
        assert data == {
            "message_id": original,
            "chat_jid": bob,
            "from": bob,
            "content": "see you at 6",
            "is_from_me": False,
        }
        assert len(net.events("message.received")) == 1

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_bad_reactions_and_edits_are_refused_before_anything_is_sent(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        cai, _ = net.person(CAI)
        group = (await net.session.groups.create_group("Team", [bob, cai], GroupOptions())).group.jid
        sent = await net.session.sending.send_text(bob, "hi")
        before = net.put_on_network()
        messages = net.session.messages
        # A group message of someone else without its author, no id, an emoji with spaces
        await fails(ErrorKind.INVALID, messages.react(group, "3EB0C0C0", "👍", from_me=False, sender=None))
        await fails(ErrorKind.INVALID, messages.react(bob, "", "👍", from_me=True, sender=None))
        await fails(ErrorKind.INVALID, messages.react(bob, sent.message_id, " 👍", from_me=True, sender=None))
        # An edit without text or id
        await fails(ErrorKind.INVALID, messages.edit_message(bob, sent.message_id, "  "))
        await fails(ErrorKind.INVALID, messages.edit_message(bob, "", "new"))
        assert net.put_on_network() == before
        assert (net.reactions_got(bob), net.edits_got(bob)) == ([], [])

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_disconnected_device_neither_reacts_nor_edits(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        sent = await net.session.sending.send_text(bob, "hello")
        await net.session.disconnect()
        messages = net.session.messages
        await fails(
            ErrorKind.NOT_CONNECTED, messages.react(bob, sent.message_id, "👍", from_me=True, sender=None)
        )
        await fails(ErrorKind.NOT_CONNECTED, messages.edit_message(bob, sent.message_id, "hello!"))
        assert (net.reactions_got(bob), net.edits_got(bob)) == ([], [])

    on(adapter, tmp_path, scenario)
