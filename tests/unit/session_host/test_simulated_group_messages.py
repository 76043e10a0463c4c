"""Simulated network: messages, typing and reads in groups, from devices and from phones, under
the group's rules (members only; an announce group takes messages from admins only)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from pathlib import Path
from unittest.mock import ANY

import pytest
from fakes_simulated import (
    CONTACT,
    CONTACT_JID,
    JID,
    PHONE,
    THIRD,
    THIRD_JID,
    fast_network,
    paired,
    refusal,
)

from gateway.failures.kinds import ErrorKind
from session_host.network.group_types import GroupOptions
from session_host.network.payloads import iso_utc
from session_host.network.port import ChatPresence, NetworkError
from session_host.network.simulated.group_records import GroupError


def test_a_device_s_message_to_a_group_reaches_every_other_member(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device and a contact (a phone) as members
        network = fast_network()
        network.create_account(PHONE, "Ana")
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = (await session.groups.create_group("Trip", [CONTACT, THIRD], GroupOptions())).group.jid

        # When the device sends a text to the group
        sent = await session.sending.send_text(group, "hello all")

        # Then the chat is the group, and the other device gets it from the sender in the group
        assert sent.chat_jid == group
        received = await other_events.wait_for("message.received")
        assert received.data == {
            "message_id": sent.message_id,
            "from": JID,
            "to": group,
            "chat_jid": group,
            "content": "hello all",
            "message_type": "text",
            "is_from_me": False,
            "is_group": True,
            "quoted": None,
            "push_name": "Ana",
            "timestamp": received.data["timestamp"],
        }

        # And the contact's phone has it in the group's chat
        (message,) = network.inbox(CONTACT)["messages"]
        assert (message["message_id"], message["from"], message["to"], message["chat"]) == (
            sent.message_id,
            JID,
            group,
            group,
        )
        assert (message["type"], message["text"], message["read"]) == ("text", "hello all", False)

        # And the sender is told of each member's delivery in the group, not the message itself
        delivered = await recorder.wait_for("message.delivered", where=lambda e: e.data["chat_jid"] == group)
        assert (delivered.data["chat_jid"], delivered.data["is_group"]) == (group, True)
        assert delivered.data["message_ids"] == [sent.message_id]
        assert recorder.named("message.received") == []
        assert network.inbox(PHONE)["sent"][-1] == {
            "message_id": sent.message_id,
            "to": group,
            "text": "hello all",
            "status": "delivered",
            "timestamp": ANY,  # when it was sent: the revoke window counts from it
        }
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_a_phone_s_message_to_a_group_reaches_the_devices_and_the_other_phones(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's group with a device's account and another phone
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        network.create_account(THIRD)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Trip", [PHONE, THIRD])["jid"]

        # When the contact sends to the group
        message_id = network.send_from_account(CONTACT, group, "meet at 8")

        # Then the device gets it from the contact in the group, the other phone too, the sender not
        received = await recorder.wait_for("message.received")
        assert (received.data["message_id"], received.data["from"], received.data["chat_jid"]) == (
            message_id,
            CONTACT_JID,
            group,
        )
        assert (received.data["push_name"], received.data["is_group"]) == ("Bob", True)
        assert [m["chat"] for m in network.inbox(THIRD)["messages"]] == [group]
        assert network.inbox(CONTACT)["messages"] == []

        # When the device and the other phone read it
        await session.messages.mark_read(group, CONTACT_JID, [message_id])
        network.read_by_account(THIRD, group, [message_id])

        # Then the sender's phone has it read
        assert network.inbox(CONTACT)["sent"][0]["status"] == "read"
        assert network.inbox(THIRD)["messages"][0]["read"] is True
        await session.close()

    asyncio.run(scenario())


def test_a_member_s_read_reaches_the_sender_s_device_as_a_group_receipt(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a contact, and a message the device sent there
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions())).group.jid
        sent = await session.sending.send_text(group, "read me")

        # When the contact reads it
        assert network.read_by_account(CONTACT, group, [sent.message_id]) == [sent.message_id]

        # Then the device gets message.read of the group, naming the reader
        read = await recorder.wait_for("message.read")
        assert (read.data["chat_jid"], read.data["is_group"], read.data["reader"]) == (
            group,
            True,
            CONTACT_JID,
        )
        assert read.data["message_ids"] == [sent.message_id]
        await session.close()

    asyncio.run(scenario())


def test_an_offline_member_device_gets_the_group_message_when_it_is_back(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device that is disconnected
        network = fast_network()
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", CONTACT)
        group = (await session.groups.create_group("G", [CONTACT], GroupOptions())).group.jid
        await other.disconnect()

        # When the first device sends to the group
        sent = await session.sending.send_text(group, "while you were away")

        # Then nothing is delivered until the second device is back (a message to a phone
        # that is always online, sent after it, is delivered first: the network hands receipts
        # over in order), then both happen
        network.create_account(THIRD)
        marker = await session.sending.send_text(THIRD_JID, "after the group message")
        await recorder.wait_for("message.delivered", where=lambda e: e.data["chat_jid"] == THIRD_JID)
        assert [event.data["message_ids"] for event in recorder.named("message.delivered")] == [
            [marker.message_id]
        ]
        await other.connect()
        received = await other_events.wait_for("message.received")
        assert received.data["chat_jid"] == group
        delivered = await recorder.wait_for("message.delivered", where=lambda e: e.data["chat_jid"] == group)
        assert (delivered.data["chat_jid"], delivered.data["message_ids"]) == (group, [sent.message_id])
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_only_members_send_to_a_group_and_only_admins_to_an_announce_group(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's announce group with the device's account as plain member
        network = fast_network()
        network.create_account(CONTACT)
        network.create_account(THIRD)
        session, _ = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "News", [PHONE, THIRD], {"announcement": True})["jid"]
        closed = network.groups.create(CONTACT, "Closed", [])["jid"]

        # When the device sends there, or to a group it is not in
        # Then the network refuses: only admins send to an announce group, only members to a group
        assert await refusal(session.sending.send_text(group, "may I?")) == "not_group_admin"
        assert await refusal(session.sending.send_text(closed, "hello?")) == "group_not_found"
        with pytest.raises(GroupError) as phone_refused:
            network.send_from_account(THIRD, group, "me too?")
        assert phone_refused.value.code == "not_group_admin"
        assert network.inbox(CONTACT)["messages"] == []

        # When the admin promotes the account, Then its device may send, and the members get it
        network.groups.change_participants(CONTACT, group, "promote", [PHONE])
        await session.sending.send_text(group, "now I may")
        assert [m["text"] for m in network.inbox(THIRD)["messages"]] == ["now I may"]
        await session.close()

    asyncio.run(scenario())


def test_typing_in_a_group_is_seen_by_its_other_members(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device and a contact
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        other, other_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = (await session.groups.create_group("G", [CONTACT, THIRD], GroupOptions())).group.jid

        # When the device types in the group, and the contact too
        await session.sending.send_chat_presence(group, ChatPresence.COMPOSING)
        network.type_to(CONTACT, group, "composing")

        # Then the second device sees both in the group's chat, the contact's phone the device's
        seen = [(await other_events.wait_for("chat.presence", n)).data for n in (1, 2)]
        assert [(p["chat_jid"], p["sender"], p["is_group"]) for p in seen] == [
            (group, JID, True),
            (group, CONTACT_JID, True),
        ]
        (presence,) = network.inbox(CONTACT)["presence"]
        assert (presence["from"], presence["chat"], presence["state"]) == (JID, group, "composing")
        presence_of_device = await recorder.wait_for("chat.presence")
        assert presence_of_device.data["sender"] == CONTACT_JID
        await session.close()
        await other.close()

    asyncio.run(scenario())


def test_a_device_reads_in_a_group_naming_the_sender_by_lid(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a contact's message in a group the device's account is in
        network = fast_network()
        lid = network.create_account(CONTACT)["lid"]
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "G", [PHONE])["jid"]
        message_id = network.send_from_account(CONTACT, group, "hi")
        await recorder.wait_for("message.received")

        # When the device marks it read naming the sender by LID
        await session.messages.mark_read(group, lid, [message_id])

        # Then the sender's phone has it read
        assert network.inbox(CONTACT)["sent"][0]["status"] == "read"

        # And a group the network does not know, or a sender that is no person, is refused
        with pytest.raises(NetworkError) as unknown:
            await session.messages.mark_read("120363000000000009@g.us", CONTACT_JID, [message_id])
        assert unknown.value.kind is ErrorKind.NOT_FOUND
        with pytest.raises(NetworkError) as nobody:
            await session.messages.mark_read(group, group, [message_id])
        assert nobody.value.kind is ErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_a_message_to_a_group_with_disappearing_messages_disappears_when_its_timer_ends(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        # Given a device's group with a contact, where messages disappear after 24 hours
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)
        group = (await session.groups.create_group("Trip", [CONTACT], GroupOptions())).group.jid
        await session.groups.set_group_ephemeral(group, 86400)

        # When the device sends there
        await session.sending.send_text(group, "gone tomorrow")

        # Then the contact's phone has it until its timer ends
        (message,) = network.inbox(CONTACT)["messages"]
        sent_at = datetime.fromisoformat(message["timestamp"].replace("Z", "+00:00"))
        assert message["expires_at"] == iso_utc((sent_at + timedelta(hours=24)).timestamp())

        # And once the timer has run out, the message is gone from the phone
        network._world.accounts[CONTACT].inbox[0]["expires_at"] = iso_utc(time.time() - 1)
        assert network.inbox(CONTACT)["messages"] == []
        await session.close()

    asyncio.run(scenario())
