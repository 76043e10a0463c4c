"""The simulated network's reactions and edits: what it refuses (a message the account does
not have, an edit past ``SIMULATOR_EDIT_WINDOW_SECONDS``), who gets them in a group, and what
the phones' inboxes show."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, fast_network, paired

from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind
from session_host.network.port import REAL_EDIT_WINDOW_SECONDS, NetworkError
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.core import edit_window_from_env
from session_host.network.simulated.model import ControlError

THIRD_JID = f"{THIRD}@s.whatsapp.net"


async def fails(kind: ErrorKind, call: object) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.kind is kind, caught.value
    return caught.value


def test_a_reaction_names_a_message_the_account_has_in_that_chat(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a text Bob sent the device, and one the device sent him
        network = fast_network()
        network.create_account(CONTACT)
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path)
        theirs = network.send_from_account(CONTACT, JID, "hi")
        mine = await session.sending.send_text(CONTACT_JID, "hello")
        react = session.messages.react
        # Then an unknown id, a message of another chat, or one named with the wrong author is not found
        await fails(ErrorKind.NOT_FOUND, react(CONTACT_JID, "3EB0UNKNOWN", "👍", from_me=False, sender=None))
        await fails(ErrorKind.NOT_FOUND, react(THIRD_JID, theirs, "👍", from_me=False, sender=None))
        await fails(ErrorKind.NOT_FOUND, react(CONTACT_JID, theirs, "👍", from_me=True, sender=None))
        await fails(
            ErrorKind.NOT_FOUND, react(CONTACT_JID, mine.message_id, "👍", from_me=False, sender=None)
        )
        assert network.inbox(CONTACT)["reactions"] == []
        # And a reaction changes the account's one reaction to that message
        await react(CONTACT_JID, theirs, "👍", from_me=False, sender=None)
        await react(CONTACT_JID, theirs, "😂", from_me=False, sender=None)
        [got] = network.inbox(CONTACT)["reactions"]
        assert (got["message_id"], got["chat"], got["from"], got["emoji"]) == (theirs, JID, JID, "😂")
        await session.close()

    asyncio.run(scenario())


def test_in_a_group_every_other_member_gets_a_reaction_and_an_edit(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a group of the device's account, Bob and Cai, where Bob wrote and Cai has a device
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path / "a")
        cai, cai_events = await paired(network, tmp_path / "c", "dev-cai", THIRD)
        group = network.groups.create(CONTACT, "Team", [PHONE, THIRD])["jid"]
        bobs = network.send_from_account(CONTACT, group, "who's in?")
        mine = await session.sending.send_text(group, "me")
        # When the device reacts to Bob's message (naming him) and edits its own
        await session.messages.react(group, bobs, "🙋", from_me=False, sender=CONTACT_JID)
        await session.messages.edit_message(group, mine.message_id, "me, at 6")
        # Then Bob and Cai got the reaction, in the group's chat
        for phone in (CONTACT, THIRD):
            [got] = network.inbox(phone)["reactions"]
            assert (got["message_id"], got["chat"], got["from"], got["emoji"]) == (bobs, group, JID, "🙋")
        # And their phones show the new text, marked edited
        for phone in (CONTACT, THIRD):
            [message] = [m for m in network.inbox(phone)["messages"] if m["message_id"] == mine.message_id]
            assert (message["text"], message["edited"]) == ("me, at 6", True)
        # And Cai's device got both as events of the group
        reaction = await cai_events.wait_for("message.reaction")
        edited = await cai_events.wait_for("message.edited")
        assert (reaction.data["chat_jid"], reaction.data["from"], reaction.data["message_id"]) == (
            group,
            JID,
            bobs,
        )
        assert (edited.data["chat_jid"], edited.data["content"]) == (group, "me, at 6")
        await session.close()
        await cai.close()

    asyncio.run(scenario())


def test_an_edit_names_a_text_the_account_sent_within_the_window(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a network whose edit window is 0.2 s, a text the device sent and one it received
        network = SimulatedNetwork(qr_lifetimes=(0.3,), edit_window=0.2)
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        theirs = network.send_from_account(CONTACT, JID, "not yours")
        sent = await session.sending.send_text(CONTACT_JID, "typo")
        edit = session.messages.edit_message
        # Then a message the account did not send, or of another chat, is not found
        await fails(ErrorKind.NOT_FOUND, edit(CONTACT_JID, theirs, "mine now"))
        await fails(ErrorKind.NOT_FOUND, edit("15559999999", sent.message_id, "fixed"))
        # And past the window the edit is expired and changes nothing
        await asyncio.sleep(0.25)
        error = await fails(ErrorKind.EXPIRED, edit(CONTACT_JID, sent.message_id, "fixed"))
        assert "window" in str(error)
        assert network.inbox(CONTACT)["messages"][-1]["text"] == "typo"
        # And a revoked text can no longer be edited
        await session.messages.revoke_message(CONTACT_JID, sent.message_id)
        await fails(ErrorKind.NOT_FOUND, edit(CONTACT_JID, sent.message_id, "fixed"))
        await session.close()

    asyncio.run(scenario())


def test_a_phone_reacts_and_edits_as_devices_do_and_is_refused_alike() -> None:
    # Given Bob, who sent Cai a text a moment ago, on a network with a 15-minute edit window
    network = SimulatedNetwork(qr_lifetimes=(0.3,))
    network.create_account(CONTACT)
    network.create_account(THIRD)
    sent = network.send_from_account(CONTACT, THIRD_JID, "at 5")
    # When Bob edits it and Cai reacts to it
    network.edit_from_account(CONTACT, sent, THIRD_JID, "at 6")
    network.react_from_account(THIRD, sent, CONTACT_JID, "👌")
    # Then Cai's phone shows the new text and Bob's the reaction
    [message] = network.inbox(THIRD)["messages"]
    assert (message["text"], message["edited"]) == ("at 6", True)
    assert [(r["message_id"], r["emoji"]) for r in network.inbox(CONTACT)["reactions"]] == [(sent, "👌")]
    # And what they do not have is 404 MESSAGE_NOT_FOUND; Cai cannot edit Bob's text
    for call in (
        lambda: network.react_from_account(THIRD, "3EB0UNKNOWN", CONTACT_JID, "👌"),
        lambda: network.edit_from_account(THIRD, sent, CONTACT_JID, "mine"),
    ):
        with pytest.raises(ControlError) as refused:
            call()
        assert (refused.value.status, refused.value.code) == (404, ErrorCode.MESSAGE_NOT_FOUND)
    # And past the window an edit is 400 EDIT_TIME_EXPIRED
    network.edit_window = 0.0
    with pytest.raises(ControlError) as expired:
        network.edit_from_account(CONTACT, sent, THIRD_JID, "at 7")
    assert (expired.value.status, expired.value.code) == (400, ErrorCode.EDIT_TIME_EXPIRED)


def test_the_edit_window_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SIMULATOR_EDIT_WINDOW_SECONDS", raising=False)
    assert edit_window_from_env() == REAL_EDIT_WINDOW_SECONDS == 900
    monkeypatch.setenv("SIMULATOR_EDIT_WINDOW_SECONDS", "5")
    assert SimulatedNetwork().edit_window == 5.0
    monkeypatch.setenv("SIMULATOR_EDIT_WINDOW_SECONDS", "-1")
    with pytest.raises(ValueError, match="SIMULATOR_EDIT_WINDOW_SECONDS"):
        edit_window_from_env()
