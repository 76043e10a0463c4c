"""The simulated network's media: the control API's media sends, the inbox's description of
media, media kept once by sha256 (and across restarts), faults on the rich sends, groups."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from pathlib import Path

import pytest
from fakes_control_groups import MASTER, fake_master
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, THIRD_JID, fast_network, paired
from fastapi.testclient import TestClient
from test_simulated_network import Signals, pair_device

from gateway.failures.kinds import ErrorKind
from gateway.web import create_app
from session_host.network.group_types import GroupOptions
from session_host.network.media_types import (
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    QuickReply,
    Template,
)
from session_host.network.port import NetworkError
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.control import control_router

JPEG = b"\xff\xd8\xff\xe0" + b"\x01" * 32
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
IMAGE = OutgoingMedia(MediaKind.IMAGE, JPEG, "image/jpeg", caption="look")


def _message(client: TestClient, phone: str, body: dict) -> tuple[int, dict]:
    answer = client.post(f"/_simulator/accounts/{phone}/messages", json=body, headers=MASTER)
    return answer.status_code, answer.json()


def test_a_phone_sends_media_to_a_device_through_the_control_api(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device and a contact, and the control API
        network = fast_network()
        session, recorder = await paired(network, tmp_path)
        network.create_account(CONTACT, "Bob")
        with TestClient(create_app(control_router(network, fake_master))) as client:
            # When the contact sends an image, its text as the caption
            media = {"kind": "image", "data_base64": base64.b64encode(JPEG).decode()}
            status, answer = _message(client, CONTACT, {"to": JID, "text": "for you", "media": media})
            assert status == 200, answer
            # Then the device gets message.received with the bytes beside it
            received = await recorder.wait_for("message.received")
            assert (received.data["message_type"], received.data["content"]) == ("image", "for you")
            assert received.attachment is not None
            assert (received.attachment.data, received.attachment.mimetype) == (JPEG, "image/jpeg")
            # And the account's inbox describes the media, without its bytes
            inbox = client.get(f"/_simulator/accounts/{PHONE}/inbox", headers=MASTER).json()
        [message] = inbox["messages"]
        assert (message["message_id"], message["type"], message["caption"]) == (
            answer["message_id"],
            "image",
            "for you",
        )
        assert message["media"] == {
            "mimetype": "image/jpeg",
            "size": len(JPEG),
            "sha256": hashlib.sha256(JPEG).hexdigest(),
            "filename": None,
        }
        assert base64.b64encode(JPEG).decode() not in str(inbox)
        await session.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (
            {
                "to": CONTACT_JID,
                "media": {
                    "kind": "sticker",
                    "data_base64": base64.b64encode(PNG).decode(),
                    "mimetype": "image/png",
                },
            },
            400,
        ),
        ({"to": CONTACT_JID, "media": {"kind": "image", "data_base64": "not base64!"}}, 400),
        ({"to": CONTACT_JID, "media": {"kind": "hologram", "data_base64": "AAAA"}}, 400),
        ({"to": CONTACT_JID}, 400),
        (
            {
                "to": CONTACT_JID,
                "text": "x",
                "media": {"kind": "image", "data_base64": "/9j/", "caption": "y"},
            },
            400,
        ),
    ],
    ids=["sticker-not-webp", "bad-base64", "unknown-kind", "nothing-to-send", "two-captions"],
)
def test_the_control_api_refuses_media_the_network_refuses(
    client: TestClient, network: SimulatedNetwork, body: dict, status: int
) -> None:
    # Given two accounts
    network.create_account(PHONE)
    network.create_account(CONTACT)
    # When a phone sends what the network does not take
    got, answer = _message(client, PHONE, body)
    # Then it is refused as a validation error, and nothing reached the contact
    assert got == status, answer
    assert answer["error_code"] == "VALIDATION_ERROR"
    assert network.inbox(CONTACT)["messages"] == []


def test_media_is_kept_once_by_sha256_and_survives_a_restart(tmp_path: Path) -> None:
    # Given a persistent network and a device offline
    state = tmp_path / "network.json"
    network = SimulatedNetwork(state)
    network.create_account(CONTACT)
    credentials = pair_device(network)
    # When a contact sends the same image twice
    for _ in range(2):
        network.send_from_account(CONTACT, JID, None, IMAGE)
    # Then the network keeps its bytes once
    with network.reading() as world:
        assert list(world.media) == [hashlib.sha256(JPEG).hexdigest()]
    # And after a restart the device still gets both, with the bytes named by their sha256
    restarted = SimulatedNetwork(state)
    signals = Signals()
    assert restarted.resume("dev-1", credentials, signals) is not None
    attachments = [p["attachment"] for kind, p in signals.received if kind == "event" and "attachment" in p]
    assert [a["sha256"] for a in attachments] == [hashlib.sha256(JPEG).hexdigest()] * 2
    assert restarted.media_bytes(attachments[0]["sha256"]) == JPEG


SENDS = {
    "send_media": lambda s: s.sending.send_media(CONTACT_JID, IMAGE),
    "send_location": lambda s: s.sending.send_location(CONTACT_JID, Location(1.0, 2.0)),
    "send_contact": lambda s: s.sending.send_contact(CONTACT_JID, ContactCard("Ana", "5511988887777")),
    "send_template": lambda s: s.sending.send_template(
        CONTACT_JID, Template("Ok?", None, (QuickReply("y", "Yes"),))
    ),
}


@pytest.mark.parametrize("operation", list(SENDS))
def test_each_rich_send_is_a_fault_operation(operation: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device, a contact, and a rate limit injected on the operation
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        network.create_account(CONTACT)
        network.inject_fault(operation, "rate_limited")
        # When the device sends, Then the fault answers and nothing reaches the contact
        with pytest.raises(NetworkError) as caught:
            await SENDS[operation](session)
        assert caught.value.kind is ErrorKind.RATE_LIMITED
        assert network.inbox(CONTACT)["messages"] == []
        # And the next send goes through
        await SENDS[operation](session)
        assert len(network.inbox(CONTACT)["messages"]) == 1
        await session.close()

    asyncio.run(scenario())


def test_media_sent_to_a_group_reaches_every_other_member(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device in a group with two contacts
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        network.create_account(CONTACT)
        network.create_account(THIRD)
        group = (
            await session.groups.create_group("Team", [CONTACT_JID, THIRD_JID], GroupOptions())
        ).group.jid
        # When the device sends an image to the group
        sent = await session.sending.send_media(group, IMAGE)
        # Then each member's inbox shows it in the group's chat, and the sender's record names the kind
        for phone in (CONTACT, THIRD):
            [message] = network.inbox(phone)["messages"]
            assert (message["chat"], message["type"], message["caption"]) == (group, "image", "look")
        assert network.inbox(PHONE)["sent"][-1]["type"] == "image"
        assert sent.chat_jid == group
        await session.close()

    asyncio.run(scenario())


def test_a_media_message_deleted_for_everyone_shows_no_media(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device that sent a contact an image
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        network.create_account(CONTACT)
        sent = await session.sending.send_media(CONTACT_JID, IMAGE)
        # When it deletes it for everyone
        await session.messages.revoke_message(CONTACT_JID, sent.message_id)
        # Then the contact's inbox shows it revoked, without caption or media
        [message] = network.inbox(CONTACT)["messages"]
        assert (message["revoked"], message["type"], message["caption"], message["media"]) == (
            True,
            "image",
            None,
            None,
        )
        await session.close()

    asyncio.run(scenario())


def test_an_unknown_media_kind_is_invalid(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device and a contact
        network = fast_network()
        session, _ = await paired(network, tmp_path)
        network.create_account(CONTACT)
        # When it sends media of a kind the network does not know, Then it is INVALID
        with pytest.raises(NetworkError) as caught:
            await session.sending.send_media(CONTACT_JID, OutgoingMedia("hologram", JPEG, "image/jpeg"))  # type: ignore[arg-type]
        assert caught.value.kind is ErrorKind.INVALID
        await session.close()

    asyncio.run(scenario())


def test_a_phone_taps_a_quick_reply_of_a_template_the_device_sent(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device that sent a contact a template
        network = fast_network()
        session, recorder = await paired(network, tmp_path)
        network.create_account(CONTACT)
        await session.sending.send_template(
            CONTACT_JID, Template("Ok?", "tap one", (QuickReply("y", "Yes"),))
        )
        with TestClient(create_app(control_router(network, fake_master))) as client:
            # When the contact taps "Yes"
            status, answer = _message(
                client, CONTACT, {"to": JID, "button_reply": {"id": "y", "text": "Yes"}}
            )
            assert status == 200, answer
            # And a reply with text too is refused
            refused, _ = _message(
                client, CONTACT, {"to": JID, "text": "x", "button_reply": {"id": "y", "text": "Yes"}}
            )
            assert refused == 400
        # Then the device gets message.received of type button_reply naming the button
        received = await recorder.wait_for("message.received")
        assert (received.data["message_type"], received.data["content"]) == ("button_reply", "Yes")
        assert received.data["button_reply"] == {"id": "y", "text": "Yes"}
        await session.close()

    asyncio.run(scenario())
