"""neonize's media sends and received media against the real library's types: uploads from
bytes with the gateway's MIME type, the protobufs of each kind, downloads beside the event."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from adapter_backends import Backend, running
from fakes_neonize import (
    CTX,
    FAST,
    PEER_PHONE,
    FakeNetwork,
    connected,
    deliver,
    execute,
    message_event,
    patched_client,
    run,
    source,
)
from neonize.proto.Neonize_pb2 import Message as MessageEv
from neonize.proto.Neonize_pb2 import MessageInfo, Receipt
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ButtonsMessage, ImageMessage, Message
from neonize.utils.enum import MediaType
from waiting import PROMPTLY

from gateway.failures.kinds import ErrorKind
from gateway.media.limits import URL_MAX_BYTES
from session_host.network.media_types import ContactCard, Location, MediaKind, OutgoingMedia
from session_host.network.neonize import events
from session_host.network.port import NetworkError

BOB = "15550000002@s.whatsapp.net"
OGG = b"OggS\x00\x02" + b"\x00" * 8
PDF = b"%PDF-1.4\n"


def on_neonize(tmp_path: Path, scenario: Any) -> None:
    async def main() -> None:
        async with running("neonize", tmp_path) as backend:
            await scenario(backend)

    run(main())


def _sent(net: Backend) -> Message:
    return net.network.client.send_message.call_args.args[1]  # type: ignore[attr-defined]


def test_media_is_uploaded_from_bytes_with_its_type_and_sent_as_given(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        client = net.network.client  # type: ignore[attr-defined]
        # When the device sends a voice note and a named document
        await net.session.sending.send_media(
            BOB, OutgoingMedia(MediaKind.AUDIO, OGG, "audio/ogg; codecs=opus", ptt=True)
        )
        audio = _sent(net).audioMessage
        await net.session.sending.send_media(
            BOB, OutgoingMedia(MediaKind.DOCUMENT, PDF, "application/pdf", caption="q3", filename="q3.pdf")
        )
        document = _sent(net).documentMessage
        # Then each upload got the bytes (never a path or URL) and the kind's media type
        uploads = [(c.args[0], c.args[1]) for c in client.upload.call_args_list]
        assert uploads == [(OGG, MediaType.MediaAudio), (PDF, MediaType.MediaDocument)]
        # And the messages carry the gateway's MIME type, ptt, caption and file name, and the upload's hashes
        assert (audio.mimetype, audio.PTT, audio.fileLength) == ("audio/ogg; codecs=opus", True, len(OGG))
        assert audio.fileSHA256 == hashlib.sha256(OGG).digest()
        assert (document.mimetype, document.caption, document.fileName) == ("application/pdf", "q3", "q3.pdf")
        # And the library's builders, which re-detect types and fetch strings, were not used
        assert client.build_document_message.call_count == client.build_audio_message.call_count == 0

    on_neonize(tmp_path, scenario)


def test_places_and_contacts_are_their_protobufs(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # When the device sends a place and a contact
        await net.session.sending.send_location(BOB, Location(-23.5, -46.6, "Office"))
        place = _sent(net).locationMessage
        await net.session.sending.send_contact(BOB, ContactCard("Ana", "5511988887777"))
        card = _sent(net).contactMessage
        # Then they are a LocationMessage and a ContactMessage with a vCard the phones link
        assert (place.degreesLatitude, place.degreesLongitude, place.name) == (-23.5, -46.6, "Office")
        assert not place.HasField("address")
        assert card.displayName == "Ana"
        assert "waid=5511988887777" in card.vcard

    on_neonize(tmp_path, scenario)


def test_a_failed_upload_is_a_network_error_and_nothing_is_sent(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given the media servers refuse the upload
        client = net.network.client  # type: ignore[attr-defined]
        client.upload.side_effect = RuntimeError("upload failed: 500")
        # When the device sends an image
        with pytest.raises(NetworkError) as caught:
            await net.session.sending.send_media(
                BOB, OutgoingMedia(MediaKind.IMAGE, b"\xff\xd8", "image/jpeg")
            )
        # Then it fails as the network, and no message went out
        assert caught.value.kind is ErrorKind.NETWORK
        assert client.send_message.call_count == 0

    on_neonize(tmp_path, scenario)


def test_received_media_that_cannot_be_downloaded_is_still_reported(tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given downloads fail
        net.network.client.download_any.side_effect = RuntimeError("media gone")  # type: ignore[attr-defined]
        # When a contact sends an image
        received = await net.media_from(BOB, "image", b"\xff\xd8\xff", "image/jpeg", "hi")
        # Then message.received describes it, without an attachment, and says why
        assert (received.data["message_type"], received.data["media"]["size"]) == ("image", 3)
        assert received.attachment is None
        assert (received.data["media"]["media_path"], received.data["media"]["error"]) == (
            None,
            "download_failed",
        )

    on_neonize(tmp_path, scenario)


def test_a_received_buttons_message_is_a_template() -> None:
    # Given a buttons message from a business
    buttons = ButtonsMessage(
        contentText="Confirm?",
        footerText="reply below",
        buttons=[
            ButtonsMessage.Button(
                buttonID="yes", buttonText=ButtonsMessage.Button.ButtonText(displayText="Yes")
            )
        ],
    )
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(buttonsMessage=buttons))
    # When it is mapped
    event = events.message_received(CTX, ev)
    # Then it is a template with its buttons and footer
    assert event is not None
    data = event.data
    assert (data["message_type"], data["content"], data["footer"]) == ("template", "Confirm?", "reply below")
    assert data["buttons"] == [{"id": "yes", "text": "Yes"}]


def _image_event(length: int, message_id: str) -> MessageEv:
    image = ImageMessage(mimetype="image/jpeg", URL="https://mmg.whatsapp.net/x", fileLength=length)
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(imageMessage=image))
    ev.Info.ID = message_id
    # the required fields Go's encoder always sets, so the event crosses neonize's callback
    ev.Info.MergeFrom(
        MessageInfo(ServerID=0, Type="media", Category="", Multicast=False, MediaType="image", Edit="")
    )
    for flag in (
        "IsEphemeral",
        "IsViewOnce",
        "IsViewOnceV2",
        "IsViewOnceV2Extension",
        "IsDocumentWithCaption",
    ):
        setattr(ev, flag, False)
    ev.IsLottieSticker = ev.IsEdit = False
    ev.UnavailableRequestID, ev.RetryCount = "", 0
    return ev


def test_media_declared_over_the_limit_is_reported_too_large_and_never_downloaded(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session, sink = await connected(tmp_path, fake)
            # When a contact sends an image declared one byte over the 16 MB limit
            await deliver(fake.client, _image_event(URL_MAX_BYTES + 1, "3EB0BIG"))
            # Then it is reported, too large, and the library was never asked to download it
            (event,) = sink.named("message.received")
            media = event.data["media"]
            assert (media["media_path"], media["error"], media["size"]) == (
                None,
                "too_large",
                URL_MAX_BYTES + 1,
            )
            assert event.attachment is None
            fake.client.download_any.assert_not_called()
            await session.close()

    run(scenario())


def test_a_download_past_the_deadline_is_a_timeout_and_later_events_keep_their_order(tmp_path: Path) -> None:
    fake = FakeNetwork()
    release = threading.Event()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a device whose downloads hang in the library (a silent media server)
            session, sink = await connected(tmp_path, fake, timings=replace(FAST, media_deadline=0.3))
            fake.client.download_any.side_effect = lambda _message: release.wait(30) and b""
            try:
                started = time.monotonic()
                # When an image arrives, then a receipt right behind it, on the client's one
                # event thread (as the Go side delivers them: one after the other)
                receipt = Receipt(
                    MessageSource=source(PEER_PHONE, PEER_PHONE),
                    MessageIDs=["3EB0MINE"],
                    Type=Receipt.READ,
                    Timestamp=1,
                )

                def go_thread() -> None:
                    execute(fake.client, _image_event(1000, "3EB0SLOW"))
                    execute(fake.client, receipt)

                await asyncio.to_thread(go_thread)
                elapsed = time.monotonic() - started
                # Then the image is reported at its deadline, without bytes, as a timeout
                (event,) = sink.named("message.received")
                assert (event.data["media"]["media_path"], event.data["media"]["error"]) == (None, "timeout")
                assert 0.3 <= elapsed < PROMPTLY
                # And the receipt, which happened after it, was published after it
                names = [e.name for e in sink.events if e.name in ("message.received", "message.read")]
                assert names == ["message.received", "message.read"]
            finally:
                release.set()
            await session.close()

    run(scenario())


def test_bytes_over_the_limit_despite_a_smaller_declared_size_are_too_large(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session, sink = await connected(tmp_path, fake)
            # Given a sender that declared a small image but whose file is over the 16 MB limit
            fake.client.download_any.return_value = b"\0" * (URL_MAX_BYTES + 1)
            # When it arrives
            await deliver(fake.client, _image_event(1000, "3EB0LIAR"))
            # Then the bytes are dropped and the message reported as too large
            (event,) = sink.named("message.received")
            assert (event.data["media"]["error"], event.attachment) == ("too_large", None)
            fake.client.download_any.assert_called_once()
            await session.close()

    run(scenario())
