"""Simulated contacts that type, come online, change their name and call the device."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, fast_network, open_session, paired

from session_host.network.port import MessageRef
from session_host.network.reply_types import Poll
from session_host.network.simulated import PRODUCED_EVENTS
from session_host.network.simulated.model import ControlError


def test_a_contact_typing_and_coming_online_reaches_a_connected_device_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)

        # When the contact types in the chat, comes online, then goes offline
        network.type_to(CONTACT, JID, "composing")
        network.show_presence(CONTACT, PHONE, available=True)
        network.show_presence(CONTACT, JID, available=False)

        # Then the device sees the typing and the contact's presence, with a last seen when offline
        typing = await recorder.wait_for("chat.presence")
        assert dict(typing.data) == {
            "chat_jid": CONTACT_JID,
            "sender": CONTACT_JID,
            "is_group": False,
            "state": "composing",
            "media": "text",
        }
        online = await recorder.wait_for("contact.presence")
        offline = await recorder.wait_for("contact.presence", 2)
        assert dict(online.data) == {"jid": CONTACT_JID, "available": True, "last_seen": None}
        assert offline.data["available"] is False
        assert offline.data["last_seen"].endswith("Z")
        assert network.inbox(PHONE)["presence"][0]["state"] == "composing"

        # When the device is offline and the contact comes online again
        await session.disconnect()
        network.show_presence(CONTACT, JID, available=True)
        await session.connect()
        await recorder.wait_for("device.connected", 2)

        # Then nothing was kept for it: presence is not queued (a message sent now comes after
        # anything kept would have)
        network.send_from_account(CONTACT, JID, "after the presence")
        await recorder.wait_for("message.received")
        assert len(recorder.named("contact.presence")) == 2
        await session.close()

    asyncio.run(scenario())


def test_a_new_push_name_comes_with_the_contacts_next_message(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device that received a message from Bob, and is then offline
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)
        network.send_from_account(CONTACT, JID, "hi")
        await recorder.wait_for("message.received")
        await session.disconnect()

        # When Bob changes his name (nothing is sent for that alone), then writes again
        assert network.rename_account(CONTACT, "Robert") == {
            "jid": CONTACT_JID,
            "phone": CONTACT,
            "name": "Robert",
        }
        network.send_from_account(CONTACT, JID, "it's me")
        await session.connect()

        # Then the device gets contact.pushname just before that message, when it is back
        second = await recorder.wait_for("message.received", 2)
        at = recorder.names().index("contact.pushname")
        assert recorder.events[at + 1] is second
        changed = recorder.named("contact.pushname")
        assert [dict(event.data) for event in changed] == [
            {"jid": CONTACT_JID, "old_push_name": "Bob", "new_push_name": "Robert"}
        ]
        assert second.data["push_name"] == "Robert"

        # And a third message under the same name brings no other change
        network.send_from_account(CONTACT, JID, "again")
        await recorder.wait_for("message.received", 3)
        assert len(recorder.named("contact.pushname")) == 1
        await session.close()

    asyncio.run(scenario())


def test_a_contact_calls_the_device_and_hangs_up(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)

        # When the contact places a video call, then hangs up
        call_id = network.call(CONTACT, PHONE, video=True)
        offer = await recorder.wait_for("call.offer")
        network.end_call(CONTACT, call_id, "timeout")
        ended = await recorder.wait_for("call.terminate")

        # Then the device saw the offer and the end of the same call
        assert len(call_id) == 32
        assert dict(offer.data) == {
            "call_id": call_id,
            "from": CONTACT_JID,
            "creator": CONTACT_JID,
            "timestamp": offer.data["timestamp"],
            "is_video": True,
            "is_group": False,
            "remote_platform": "simulated",
            "remote_version": None,
        }
        assert dict(ended.data) == {
            "call_id": call_id,
            "from": CONTACT_JID,
            "creator": CONTACT_JID,
            "timestamp": ended.data["timestamp"],
            "reason": "timeout",
        }

        # And a call that is over, or someone else's, cannot be ended
        with pytest.raises(ControlError) as over:
            network.end_call(CONTACT, call_id)
        other = network.call(CONTACT, JID)
        with pytest.raises(ControlError) as not_theirs:
            network.end_call(PHONE, other)
        assert (over.value.status, over.value.code) == (404, "CALL_NOT_FOUND")
        assert (not_theirs.value.status, not_theirs.value.code) == (404, "CALL_NOT_FOUND")
        await session.close()

    asyncio.run(scenario())


def test_the_simulated_network_produces_every_event_it_declares(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a network where a device pairs, chats (with an edit and a reaction), polls, asks for
        # history, gets calls, joins a group, blocks someone and loses its connection
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)
        sent = await session.sending.send_text(CONTACT_JID, "hi Bob")
        network.read_by_account(CONTACT, JID, [sent.message_id])
        network.send_from_account(CONTACT, JID, "hi")
        network.rename_account(CONTACT, "Robert")
        renamed = network.send_from_account(CONTACT, JID, "renamed")
        network.edit_from_account(CONTACT, renamed, JID, "renamed!")
        network.react_from_account(CONTACT, sent.message_id, JID, "👍")
        poll = await session.sending.send_poll(CONTACT_JID, Poll("Lunch?", ("Yes", "No")))
        network.vote(CONTACT, poll.message_id, JID, ["Yes"])
        oldest = MessageRef(CONTACT_JID, sent.message_id, from_me=True, timestamp=sent.timestamp + 60)
        await session.messages.request_history_sync(CONTACT_JID, 10, oldest)
        await recorder.wait_for("history.sync")
        network.type_to(CONTACT, JID, "paused")
        network.show_presence(CONTACT, JID, available=True)
        network.end_call(CONTACT, network.call(CONTACT, JID))
        await recorder.wait_for("call.terminate")
        trip = network.groups.create(CONTACT, "Trip", [PHONE])["jid"]
        network.groups.update(CONTACT, trip, {"name": "Trip 2025"})
        await recorder.wait_for("group.info")
        stranger = "15550009999"
        network.create_account(stranger, "Eve")
        await session.contacts.block(f"{stranger}@s.whatsapp.net")
        await recorder.wait_for("privacy.blocklist")
        network.drop("dev-1")
        await recorder.wait_for("device.connected", 2)
        network.inject_fault("connect", "refused", device_id="dev-1")
        network.drop("dev-1")
        await recorder.wait_for("connection.failure")
        await session.connect()
        await recorder.wait_for("device.connected", 3)
        (tmp_path / "copy").mkdir()
        (tmp_path / "copy" / "dev-1.json").write_text((tmp_path / "dev-1.json").read_text())
        twin, _ = open_session(network, tmp_path / "copy")
        await twin.connect()
        await recorder.wait_for("connection.stream_replaced")
        await twin.logout()
        await session.close()
        pairing, pairing_events = open_session(network, tmp_path / "other", "dev-2")
        await pairing.connect()
        await pairing_events.wait_for("connection.pair_error", timeout=3)
        unlinked, unlinked_events = await paired(network, tmp_path / "third", "dev-3", "15550003333")
        network.unlink("dev-3")
        await unlinked_events.wait_for("device.logged_out")

        # When the events of every session are put together
        seen = {*recorder.names(), *pairing_events.names(), *unlinked_events.names()}

        # Then they are exactly the events the adapter declares
        assert seen == PRODUCED_EVENTS
        await pairing.close()
        await unlinked.close()

    asyncio.run(scenario())
