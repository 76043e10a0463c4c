"""Stories on the simulated network: contacts, the audience setting, what readers see."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest
from fakes_control_groups import MASTER
from fakes_simulated import (
    CONTACT,
    CONTACT_JID,
    JID,
    PHONE,
    THIRD,
    THIRD_JID,
    fast_network,
    open_session,
    paired,
)
from fastapi.testclient import TestClient
from recording_sink import RecordingSink

from gateway import jids
from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError, NetworkEvent
from session_host.network.simulated import SimulatedNetwork, SimulatedSession
from session_host.network.status_types import MediaStatus, PrivacyType, StatusPrivacy, TextStatus

FOURTH = "15550004444"
STRANGER = "15550009999"


async def fails(kind: ErrorKind, call: object) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.kind is kind, caught.value
    return caught.value


def in_status(event: NetworkEvent) -> bool:
    return event.data["chat_jid"] == jids.STATUS_BROADCAST_JID


def readers(network: SimulatedNetwork, message_id: str) -> list[str]:
    """The phones whose inbox shows the story."""
    phones = (CONTACT, THIRD, FOURTH, STRANGER)
    return [p for p in phones if any(s["message_id"] == message_id for s in network.inbox(p)["statuses"])]


def with_contacts(network: SimulatedNetwork) -> None:
    """Bob wrote to the device's account, it wrote to Carol, it added Dan; Eve is nobody to it."""
    for phone in (CONTACT, THIRD, FOURTH, STRANGER):
        network.create_account(phone)
    network.send_from_account(CONTACT, JID, "hi")
    network.send_from_account(PHONE, THIRD_JID, "hello")
    network.add_contacts(PHONE, [FOURTH])


def test_contacts_are_who_the_account_messaged_either_way_and_who_it_added() -> None:
    # Given messages both ways, a contact added, and a group message from a stranger
    network = fast_network()
    network.create_account(PHONE)
    with_contacts(network)
    group = network.groups.create(STRANGER, "Club", [PHONE])["jid"]
    network.send_from_account(STRANGER, group, "welcome")
    # When the account's contacts are read
    contacts = network.contacts_of(PHONE)
    # Then they are Bob, Carol and Dan: a group message makes nobody a contact
    assert contacts == sorted([CONTACT_JID, THIRD_JID, jids.user_jid(FOURTH)])
    # And adding is one-way: Dan's contacts do not name the account
    assert network.contacts_of(FOURTH) == []


def test_a_story_reaches_every_contact_by_default_and_their_devices_in_status_broadcast(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        # Given the device's account with contacts, Bob's own phone linked to a gateway device
        network = fast_network()
        session, _ = await paired(network, tmp_path / "a")
        with_contacts(network)
        bob, bob_events = await paired(network, tmp_path / "b", "dev-bob", CONTACT)
        assert (await session.status.get_status_privacy()) == StatusPrivacy(PrivacyType.CONTACTS, ())
        # When the device publishes a text story
        story = TextStatus("Good morning", background_color="#1A2B3C", font=6)
        sent = await session.status.publish_status(story)
        # Then it answers the story's id in status@broadcast
        assert sent.chat_jid == jids.STATUS_BROADCAST_JID
        # And every contact's inbox shows it, the stranger's does not
        assert readers(network, sent.message_id) == [CONTACT, THIRD, FOURTH]
        shown = network.inbox(THIRD)["statuses"][-1]
        assert shown["from"] == JID
        assert (shown["type"], shown["text"], shown["caption"], shown["media"]) == (
            "text",
            "Good morning",
            None,
            None,
        )
        assert shown["at"].endswith("Z")
        # And Bob's device sees it as whatsmeow hands a contact's story over
        received = (await bob_events.wait_for("message.received", where=in_status)).data
        assert received["message_id"] == sent.message_id
        assert (received["chat_jid"], received["from"], received["to"]) == (
            jids.STATUS_BROADCAST_JID,
            JID,
            CONTACT_JID,
        )
        assert (received["message_type"], received["content"], received["is_group"]) == (
            "text",
            "Good morning",
            False,
        )
        await session.close()
        await bob.close()

    asyncio.run(scenario())


def test_whitelist_and_blacklist_choose_among_the_contacts(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given the device's account with three contacts
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        with_contacts(network)
        # When it shares only with Bob and the stranger (who is no contact)
        only = StatusPrivacy(PrivacyType.WHITELIST, (CONTACT_JID, jids.user_jid(STRANGER), CONTACT_JID))
        assert await session.status.set_status_privacy(only) == StatusPrivacy(
            PrivacyType.WHITELIST, (CONTACT_JID, jids.user_jid(STRANGER))
        )
        first = await session.status.publish_status(TextStatus("for Bob"))
        # Then only Bob sees it: a whitelist never reaches beyond the contacts
        assert readers(network, first.message_id) == [CONTACT]
        # When it shares with every contact but Bob
        await session.status.set_status_privacy(StatusPrivacy(PrivacyType.BLACKLIST, (CONTACT_JID,)))
        second = await session.status.publish_status(TextStatus("not for Bob"))
        # Then Carol and Dan see it, and the setting reads back
        assert readers(network, second.message_id) == [THIRD, FOURTH]
        assert (await session.status.get_status_privacy()).type is PrivacyType.BLACKLIST
        await session.close()

    asyncio.run(scenario())


def test_a_media_story_shows_its_media_and_keeps_the_bytes_by_sha256(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given the device's account with contacts, Bob's phone linked to a gateway device
        network = fast_network()
        session, _ = await paired(network, tmp_path / "a")
        with_contacts(network)
        bob, bob_events = await paired(network, tmp_path / "b", "dev-bob", CONTACT)
        data = b"\x00\x00\x00\x18ftypmp42 a short video"
        # When it publishes a video story with a caption
        sent = await session.status.publish_status(MediaStatus(data, "video/mp4", caption="look"))
        # Then the inbox shows the media, not the bytes, which the network keeps by sha256
        shown = network.inbox(CONTACT)["statuses"][-1]
        digest = hashlib.sha256(data).hexdigest()
        assert (shown["type"], shown["text"], shown["caption"]) == ("video", None, "look")
        assert shown["media"] == {"mimetype": "video/mp4", "size": len(data), "sha256": digest}
        assert network.status_media(digest) == data
        # And Bob's device gets a video message with neonize's media object
        received = (await bob_events.wait_for("message.received", where=in_status)).data
        assert (received["message_id"], received["message_type"]) == (sent.message_id, "video")
        assert received["media"] == {
            "mime_type": "video/mp4",
            "caption": "look",
            "file_length": len(data),
            "media_path": None,
        }
        await session.close()
        await bob.close()

    asyncio.run(scenario())


def test_refused_inputs_and_faults_send_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given the device's account with contacts
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        with_contacts(network)
        sent_before = len(network.inbox(PHONE)["sent"])
        # When inputs break the rules, Then each is INVALID
        for privacy in (
            StatusPrivacy(PrivacyType.WHITELIST, ()),
            StatusPrivacy(PrivacyType.CONTACTS, (CONTACT_JID,)),
            StatusPrivacy(PrivacyType.BLACKLIST, ("120363000000000001@g.us",)),
        ):
            await fails(ErrorKind.INVALID, session.status.set_status_privacy(privacy))
        for content in (
            TextStatus(""),
            TextStatus("hi", background_color="red"),
            TextStatus("hi", font=4),
            MediaStatus(b"", "image/jpeg"),
            MediaStatus(b"%PDF", "application/pdf"),
        ):
            await fails(ErrorKind.INVALID, session.status.publish_status(content))
        # And an injected fault fails the publish
        network.inject_fault("publish_status", "rate_limited")
        await fails(ErrorKind.RATE_LIMITED, session.status.publish_status(TextStatus("hi")))
        # Then nothing reached anyone and the setting is still the default
        assert len(network.inbox(PHONE)["sent"]) == sent_before
        assert all(network.inbox(p)["statuses"] == [] for p in (CONTACT, THIRD, FOURTH))
        assert (await session.status.get_status_privacy()).type is PrivacyType.CONTACTS
        # And a closed session is NOT_CONNECTED
        await session.close()
        await fails(ErrorKind.NOT_CONNECTED, session.status.publish_status(TextStatus("hi")))

    asyncio.run(scenario())


def test_the_contacts_route_adds_and_lists_contacts(client: TestClient, network: SimulatedNetwork) -> None:
    # Given three accounts, Bob having written to the first
    for phone in (PHONE, CONTACT, THIRD):
        network.create_account(phone)
    network.send_from_account(CONTACT, JID, "hi")
    # When the first adds Carol through the control API
    added = client.post(f"/_simulator/accounts/{PHONE}/contacts", json={"phones": [THIRD]}, headers=MASTER)
    # Then it answers every contact, Bob included, and GET lists the same
    assert added.status_code == 200, added.text
    assert added.json() == {"success": True, "contacts": [CONTACT_JID, THIRD_JID]}
    listed = client.get(f"/_simulator/accounts/{PHONE}/contacts", headers=MASTER)
    assert listed.json() == added.json()
    # And a phone without an account is not found, a bad phone fails validation
    missing = client.post(
        f"/_simulator/accounts/{PHONE}/contacts", json={"phones": [STRANGER]}, headers=MASTER
    )
    assert (missing.status_code, missing.json()["error_code"]) == (404, "ACCOUNT_NOT_FOUND")
    bad = client.post(f"/_simulator/accounts/{PHONE}/contacts", json={"phones": ["+1"]}, headers=MASTER)
    assert (bad.status_code, bad.json()["error_code"]) == (400, "VALIDATION_ERROR")
    assert (
        client.post(f"/_simulator/accounts/{PHONE}/contacts", json={"phones": []}, headers=MASTER).status_code
        == 400
    )


def test_the_setting_survives_a_restart_and_each_operation_has_a_fault(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a network saved to a file, the device's account on a blacklist and a contact
        state = tmp_path / "network.json"
        network = SimulatedNetwork(state, qr_lifetimes=(5.0,), reconnect_delay=0.05)
        session, _ = await paired(network, tmp_path / "host")
        network.create_account(CONTACT)
        network.add_contacts(PHONE, [CONTACT])
        blacklist = StatusPrivacy(PrivacyType.BLACKLIST, (CONTACT_JID,))
        await session.status.set_status_privacy(blacklist)
        await session.close()
        # When the network starts again from its file
        again = SimulatedNetwork(state, qr_lifetimes=(5.0,), reconnect_delay=0.05)
        # Then the setting and the contacts are still there
        session, _ = await paired_again(again, tmp_path / "host")
        assert await session.status.get_status_privacy() == blacklist
        assert again.contacts_of(PHONE) == [CONTACT_JID]
        # And a fault on each status operation fails it
        for operation in ("get_status_privacy", "set_status_privacy", "publish_status"):
            again.inject_fault(operation, "network")
        await fails(ErrorKind.NETWORK, session.status.get_status_privacy())
        await fails(ErrorKind.NETWORK, session.status.set_status_privacy(blacklist))
        await fails(ErrorKind.NETWORK, session.status.publish_status(TextStatus("hi")))
        assert again.pending_faults() == []
        await session.close()

    asyncio.run(scenario())


async def paired_again(network: SimulatedNetwork, data_dir: Path) -> tuple[SimulatedSession, RecordingSink]:
    """The device paired earlier, resuming from its stored credentials."""
    session, recorder = open_session(network, data_dir)
    await session.connect()
    await recorder.wait_for("device.connected")
    return session, recorder
