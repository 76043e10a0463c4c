"""One contract, two adapters: media, places, contacts and templates (``adapter_backends``).

Each kind a device sends reaches the recipient with the same type, caption, size and
sha256 on both adapters; what the network refuses is ``INVALID`` on both, before anything
is sent; media someone sends the device arrives as ``message.received`` with its bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from adapter_backends import Backend
from test_adapter_contract_groups import ADAPTERS, BOB, JPEG, PNG, on

from gateway.failures.kinds import ErrorKind
from session_host.network.media_types import (
    MB,
    ContactCard,
    Location,
    MediaKind,
    OutgoingMedia,
    QuickReply,
    Template,
)
from session_host.network.port import NetworkError

WEBP = b"RIFF\x00\x00\x00\x00WEBPVP8 " + b"\x00" * 8
PDF = b"%PDF-1.4\n" + b"\x00" * 16

SENDS = {
    "image": OutgoingMedia(MediaKind.IMAGE, JPEG, "image/jpeg", caption="look"),
    "video": OutgoingMedia(MediaKind.VIDEO, b"\x00\x00\x00\x18ftypmp42", "video/mp4", caption="clip"),
    "voice-note": OutgoingMedia(MediaKind.AUDIO, b"OggS\x00\x02", "audio/ogg; codecs=opus", ptt=True),
    "document": OutgoingMedia(MediaKind.DOCUMENT, PDF, "application/pdf", caption="q3", filename="q3.pdf"),
    "document-without-name": OutgoingMedia(MediaKind.DOCUMENT, PDF, "application/pdf"),
    "sticker": OutgoingMedia(MediaKind.STICKER, WEBP, "image/webp"),
}


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("case", list(SENDS))
def test_each_media_kind_reaches_the_recipient_described_alike(
    adapter: str, case: str, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        bob, _ = net.person(BOB)
        media = SENDS[case]
        # When the device sends it media
        sent = await net.session.sending.send_media(bob, media)
        # Then the network answers an id in the chat, and the contact sees the kind, the
        # caption and what the bytes are
        assert (sent.chat_jid, bool(sent.message_id)) == (bob, True)
        described = {
            "mimetype": media.mimetype,
            "size": len(media.data),
            "sha256": hashlib.sha256(media.data).hexdigest(),
            "filename": media.filename,
        }
        if media.kind is MediaKind.AUDIO:
            described["ptt"] = media.ptt
        [got] = net.received(bob)
        assert got == {
            "type": str(media.kind),
            "caption": media.caption,
            "media": described,
            "location": None,
            "contact": None,
        }

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_place_and_a_contact_card_reach_the_recipient(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        bob, _ = net.person(BOB)
        # When the device sends a place and a contact card
        await net.session.sending.send_location(bob, Location(-23.5, -46.6, "Office", "Av. Paulista 1000"))
        await net.session.sending.send_contact(bob, ContactCard("Ana", "5511988887777"))
        # Then the contact sees both as the network carries them
        place, card = net.received(bob)
        assert (place["type"], place["location"]) == (
            "location",
            {"latitude": -23.5, "longitude": -46.6, "name": "Office", "address": "Av. Paulista 1000"},
        )
        assert (card["type"], card["contact"]) == ("contact", {"name": "Ana", "phone": "5511988887777"})

    on(adapter, tmp_path, scenario)


TEMPLATE = Template("Confirm?", "reply below", (QuickReply("yes", "Yes"), QuickReply("no", "No")))


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_template_shows_its_buttons_where_the_network_can(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        bob, _ = net.person(BOB)
        before = net.put_on_network()
        # When the device sends a template with quick replies
        if adapter == "neonize":
            # Then the real network cannot show them: UNSUPPORTED, nothing sent
            with pytest.raises(NetworkError) as caught:
                await net.session.sending.send_template(bob, TEMPLATE)
            assert caught.value.kind is ErrorKind.UNSUPPORTED
            assert net.put_on_network() == before
            return
        await net.session.sending.send_template(bob, TEMPLATE)
        # Then the simulated contact sees the text and its buttons
        [message] = net.network.inbox(BOB)["messages"]  # type: ignore[attr-defined]
        assert (message["type"], message["text"], message["footer"]) == (
            "template",
            "Confirm?",
            "reply below",
        )
        assert message["buttons"] == [{"id": "yes", "text": "Yes"}, {"id": "no", "text": "No"}]

    on(adapter, tmp_path, scenario)


REFUSED = {
    "empty": lambda s: s.sending.send_media(BOB, OutgoingMedia(MediaKind.IMAGE, b"", "image/jpeg")),
    "sticker-not-webp": lambda s: s.sending.send_media(
        BOB, OutgoingMedia(MediaKind.STICKER, PNG, "image/png")
    ),
    "image-as-video": lambda s: s.sending.send_media(BOB, OutgoingMedia(MediaKind.IMAGE, JPEG, "video/mp4")),
    "no-mime-type": lambda s: s.sending.send_media(BOB, OutgoingMedia(MediaKind.DOCUMENT, PDF, "")),
    "video-too-large": lambda s: s.sending.send_media(
        BOB, OutgoingMedia(MediaKind.VIDEO, b"\x00" * (16 * MB + 1), "video/mp4")
    ),
    "ptt-image": lambda s: s.sending.send_media(
        BOB, OutgoingMedia(MediaKind.IMAGE, JPEG, "image/jpeg", ptt=True)
    ),
    "off-the-earth": lambda s: s.sending.send_location(BOB, Location(91.0, 0.0)),
    "contact-bad-phone": lambda s: s.sending.send_contact(BOB, ContactCard("Ana", "+55 11")),
    "contact-no-name": lambda s: s.sending.send_contact(BOB, ContactCard(" ", "5511988887777")),
    "template-four-buttons": lambda s: s.sending.send_template(
        BOB, Template("Pick", None, tuple(QuickReply(str(i), f"#{i}") for i in range(4)))
    ),
    "template-same-ids": lambda s: s.sending.send_template(
        BOB, Template("Pick", None, (QuickReply("a", "A"), QuickReply("a", "B")))
    ),
    "template-no-buttons": lambda s: s.sending.send_template(BOB, Template("Pick", None, ())),
}


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("case", list(REFUSED))
def test_what_the_network_refuses_is_invalid_on_both_and_nothing_is_sent(
    adapter: str, case: str, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        net.person(BOB)
        before = net.put_on_network()
        # When the device sends something the network refuses
        with pytest.raises(NetworkError) as caught:
            await REFUSED[case](net.session)
        # Then it is INVALID and nothing went out
        assert caught.value.kind is ErrorKind.INVALID
        assert net.put_on_network() == before

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_media_someone_sends_arrives_with_its_bytes_beside_the_event(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        bob, _ = net.person(BOB)
        # When the contact sends the device a captioned image
        received = await net.media_from(bob, "image", JPEG, "image/jpeg", "for you")
        # Then message.received describes it, without the bytes, and carries them beside
        digest = hashlib.sha256(JPEG).hexdigest()
        assert (received.data["message_type"], received.data["content"]) == ("image", "for you")
        media = received.data["media"]
        assert {key: media[key] for key in ("mime_type", "caption", "size", "sha256", "filename")} == {
            "mime_type": "image/jpeg",
            "caption": "for you",
            "size": len(JPEG),
            "sha256": digest,
            "filename": None,
        }
        attachment = received.attachment
        assert attachment is not None
        assert (attachment.kind, attachment.data, attachment.sha256) == (MediaKind.IMAGE, JPEG, digest)

    on(adapter, tmp_path, scenario)
