"""Simulated sessions: messages, receipts and chat presence between devices and contacts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, fast_network, open_session, paired

from gateway.failures.kinds import ErrorKind
from session_host.network.port import ChatPresence, NetworkError


def test_device_and_contact_exchange_messages_with_receipts(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)

        # When the device sends a text
        sent = await session.sending.send_text(CONTACT_JID, "hello Bob")

        # Then the network made the id, the contact has it, and it is delivered at once
        assert sent.message_id.startswith("3EB0")
        assert len(sent.message_id) == 20
        assert sent.chat_jid == CONTACT_JID
        delivered = await recorder.wait_for("message.delivered")
        assert recorder.named("message.sent") == []  # the gateway's send path emits it, not the network
        assert delivered.data["message_ids"] == [sent.message_id]
        assert delivered.data["chat_jid"] == CONTACT_JID
        assert delivered.data["receipt_type"] == "delivered"
        assert delivered.data["message_count"] == 1
        assert delivered.data["is_group"] is False
        assert delivered.data["delivered_at"].endswith("Z")
        inbox = network.inbox(CONTACT)
        assert inbox["messages"][0]["text"] == "hello Bob"
        assert inbox["messages"][0]["from"] == JID

        # When the contact reads it and answers
        network.read_by_account(CONTACT, JID, [sent.message_id])
        reply_id = network.send_from_account(CONTACT, JID, "hi!")

        # Then the device gets the read receipt and the message
        read = await recorder.wait_for("message.read")
        assert read.data["message_ids"] == [sent.message_id]
        assert read.data["reader"] == CONTACT_JID
        assert read.data["receipt_type"] == "read"
        received = await recorder.wait_for("message.received")
        assert received.data == {
            "message_id": reply_id,
            "from": CONTACT_JID,
            "to": JID,
            "chat_jid": CONTACT_JID,
            "content": "hi!",
            "message_type": "text",
            "is_from_me": False,
            "is_group": False,
            "quoted": None,
            "push_name": "Bob",
            "timestamp": received.data["timestamp"],
        }

        # When the device marks the reply read and shows typing
        await session.messages.mark_read(CONTACT_JID, CONTACT_JID, [reply_id])
        await session.sending.send_chat_presence(CONTACT_JID, ChatPresence.COMPOSING)

        # Then the contact's phone sees both
        inbox = network.inbox(CONTACT)
        assert inbox["sent"][0]["status"] == "read"
        assert inbox["presence"][0]["from"] == JID
        assert inbox["presence"][0]["state"] == "composing"
        assert inbox["statuses"] == []
        await session.close()

    asyncio.run(scenario())


def test_two_devices_message_each_other(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given two devices paired to two accounts
        network = fast_network()
        alice, alice_events = await paired(network, tmp_path, "dev-a", PHONE)
        bob, bob_events = await paired(network, tmp_path, "dev-b", CONTACT)

        # When Alice writes to Bob and Bob reads it
        sent = await alice.sending.send_text(CONTACT_JID, "hi Bob")
        received = await bob_events.wait_for("message.received")
        await bob.messages.mark_read(JID, JID, [received.data["message_id"]])

        # Then Bob got it from Alice, and Alice got delivered then read receipts
        assert received.data["from"] == JID
        assert received.data["message_id"] == sent.message_id
        delivered = await alice_events.wait_for("message.delivered")
        read = await alice_events.wait_for("message.read")
        assert delivered.data["chat_jid"] == CONTACT_JID
        assert read.data["reader"] == CONTACT_JID
        assert read.data["message_ids"] == [sent.message_id]

        # And typing shows up as chat presence on Alice's side
        await bob.sending.send_chat_presence(JID, ChatPresence.PAUSED)
        presence = await alice_events.wait_for("chat.presence")
        assert presence.data["sender"] == CONTACT_JID
        assert presence.data["state"] == "paused"
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_receipts_for_an_offline_sender_wait_for_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given Alice's message delivered to Bob, and Alice then offline
        network = fast_network()
        alice, alice_events = await paired(network, tmp_path, "dev-a", PHONE)
        bob, bob_events = await paired(network, tmp_path, "dev-b", CONTACT)
        sent = await alice.sending.send_text(CONTACT_JID, "read me later")
        await bob_events.wait_for("message.received")
        await alice_events.wait_for("message.delivered")
        await alice.disconnect()

        # When Bob reads it while Alice is away
        await bob.messages.mark_read(JID, JID, [sent.message_id])

        # Then the network keeps the read receipt for Alice (what it keeps it has not handed
        # over), and she gets it when she is back
        assert network.queued_count("dev-a") == 1
        assert alice_events.named("message.read") == []
        await alice.connect()
        read = await alice_events.wait_for("message.read")
        assert read.data["message_ids"] == [sent.message_id]
        await alice.close()
        await bob.close()

    asyncio.run(scenario())


def test_phone_digits_address_the_account_as_with_the_real_network(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact
        network = fast_network()
        network.create_account(CONTACT)
        session, _ = await paired(network, tmp_path)

        # When it sends to the contact's phone number (as neonize's adapter accepts)
        sent = await session.sending.send_text(CONTACT, "hello by number")

        # Then the contact gets it and the chat is the contact's user JID
        assert sent.chat_jid == CONTACT_JID
        assert [m["text"] for m in network.inbox(CONTACT)["messages"]] == ["hello by number"]
        await session.close()

    asyncio.run(scenario())


def test_sending_to_someone_not_on_the_network(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        session, _ = await paired(fast_network(), tmp_path)

        # When it sends to an unknown number, a group that does not exist and a malformed JID
        with pytest.raises(NetworkError) as unknown:
            await session.sending.send_text("19990000000@s.whatsapp.net", "hello?")
        with pytest.raises(NetworkError) as group:
            await session.sending.send_text("120363000000000000@g.us", "hello group")
        with pytest.raises(NetworkError) as malformed:
            await session.sending.send_text("not-a-jid", "hello")
        with pytest.raises(NetworkError) as with_plus:
            await session.sending.send_text("+19990000000", "hello")

        # Then the network refuses each in its own way
        assert unknown.value.kind is ErrorKind.NOT_FOUND
        assert (group.value.kind, group.value.code) == (ErrorKind.REFUSED, "group_not_found")
        assert malformed.value.kind is ErrorKind.INVALID
        assert with_plus.value.kind is ErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_operations_need_a_connected_session(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a session that is pairing (started, not paired)
        session, _ = open_session(fast_network(), tmp_path)
        await session.connect()

        # When it tries every operation, Then each fails as not connected
        for call in (
            session.sending.send_text(CONTACT_JID, "hi"),
            session.sending.send_chat_presence(CONTACT_JID, ChatPresence.COMPOSING),
            session.messages.mark_read(CONTACT_JID, CONTACT_JID, ["3EB0"]),
            session.logout(),
        ):
            with pytest.raises(NetworkError) as refused:
                await call
            assert refused.value.kind is ErrorKind.NOT_CONNECTED
        await session.close()

    asyncio.run(scenario())
