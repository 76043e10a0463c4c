"""The neonize adapter's status operations against an autospec ``NewClient``: the audience
read from whatsmeow's answer, no setter (``UNSUPPORTED``), stories to ``status@broadcast``."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes_neonize import FakeNetwork, connected, patched_client, run
from neonize.exc import GetStatusPrivacyError
from neonize.proto.Neonize_pb2 import JID, SendResponse
from neonize.proto.Neonize_pb2 import StatusPrivacy as NeonizeStatusPrivacy
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ExtendedTextMessage, ImageMessage, Message, VideoMessage
from neonize.utils.jid import build_jid
from PIL import UnidentifiedImageError

from gateway import jids
from gateway.failures.kinds import ErrorKind
from session_host.network.port import NetworkError
from session_host.network.status_types import STORY_FONTS, MediaStatus, PrivacyType, StatusPrivacy, TextStatus

BOB = "5511999998888@s.whatsapp.net"
CAROL = "5511999997777@s.whatsapp.net"
STATUS = build_jid("status", "broadcast")


def person(jid: str) -> JID:
    user, server = jid.split("@")
    return build_jid(user, server)


async def fails(kind: ErrorKind, call: object) -> NetworkError:
    with pytest.raises(NetworkError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.kind is kind, caught.value
    return caught.value


def test_the_story_fonts_are_whatsmeows_font_types() -> None:
    # Given whatsmeow's ExtendedTextMessage.FontType, Then the port's fonts are exactly its values
    whatsmeow = {value.number: value.name for value in ExtendedTextMessage.FontType.DESCRIPTOR.values}
    assert whatsmeow == STORY_FONTS


def test_the_audience_in_force_is_the_entry_whatsmeow_marks_default(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given whatsmeow's answer: one entry per type, the blacklist in force
            session, _ = await connected(tmp_path, fake)
            fake.client.get_status_privacy.return_value = [
                NeonizeStatusPrivacy(Type=NeonizeStatusPrivacy.CONTACTS),
                NeonizeStatusPrivacy(Type=NeonizeStatusPrivacy.BLACKLIST, List=[person(BOB)], IsDefault=True),
                NeonizeStatusPrivacy(Type=NeonizeStatusPrivacy.WHITELIST, List=[person(CAROL)]),
            ]
            # When the device reads it, Then it is the blacklist with its own people
            assert await session.status.get_status_privacy() == StatusPrivacy(PrivacyType.BLACKLIST, (BOB,))
            # And an answer with nothing marked reads as contacts
            fake.client.get_status_privacy.return_value = []
            assert await session.status.get_status_privacy() == StatusPrivacy(PrivacyType.CONTACTS)
            # And a library failure is a NETWORK error with whatsmeow's words
            fake.client.get_status_privacy.side_effect = GetStatusPrivacyError("info query timed out")
            await fails(ErrorKind.TIMEOUT, session.status.get_status_privacy())
            await session.close()

    run(scenario())


def test_changing_the_audience_is_unsupported_and_sends_nothing(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            # When it changes the audience, Then it is UNSUPPORTED, a bad one INVALID first
            error = await fails(
                ErrorKind.UNSUPPORTED,
                session.status.set_status_privacy(StatusPrivacy(PrivacyType.WHITELIST, (BOB,))),
            )
            assert "neonize" in str(error)
            await fails(
                ErrorKind.INVALID,
                session.status.set_status_privacy(StatusPrivacy(PrivacyType.WHITELIST)),
            )
            # And the library was never asked
            fake.client.set_privacy_setting.assert_not_called()
            fake.client.send_message.assert_not_called()
            await session.close()

    run(scenario())


def test_a_text_story_is_an_extended_text_with_background_and_font(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.return_value = SendResponse(ID="3EB0STORY", Timestamp=1_700_000_300)
            # When it publishes a text story
            sent = await session.status.publish_status(
                TextStatus("Hello", background_color="#1a2B3c", font=9)
            )
            # Then whatsmeow sends the story's message to status@broadcast
            expected = ExtendedTextMessage(
                text="Hello", backgroundArgb=0xFF1A2B3C, font=ExtendedTextMessage.EXO2_EXTRABOLD
            )
            fake.client.send_message.assert_called_once_with(STATUS, Message(extendedTextMessage=expected))
            assert (sent.message_id, sent.chat_jid, sent.timestamp) == (
                "3EB0STORY",
                jids.STATUS_BROADCAST_JID,
                1_700_000_300,
            )
            # And a plain text story sets neither
            await session.status.publish_status(TextStatus("Plain"))
            plain = fake.client.send_message.call_args.args[1].extendedTextMessage
            assert not plain.HasField("backgroundArgb")
            assert not plain.HasField("font")
            await session.close()

    run(scenario())


def test_media_stories_are_built_from_bytes_by_the_librarys_builders(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose builders upload and answer messages
            session, _ = await connected(tmp_path, fake)
            client = fake.client
            image = Message(imageMessage=ImageMessage(caption="pic", mimetype="image/jpeg"))
            video = Message(videoMessage=VideoMessage(mimetype="video/mp4"))
            client.build_image_message.return_value = image
            client.build_video_message.return_value = video
            client.send_message.return_value = SendResponse(ID="3EB0MEDIA", Timestamp=0)
            # When it publishes an image with a caption and a video without
            await session.status.publish_status(MediaStatus(b"\xff\xd8jpeg", "image/jpeg", caption="pic"))
            await session.status.publish_status(MediaStatus(b"\x00mp4", "video/mp4"))
            # Then each builder got bytes (never a str: a path or URL), each story to status@broadcast
            client.build_image_message.assert_called_once_with(b"\xff\xd8jpeg", caption="pic")
            client.build_video_message.assert_called_once_with(b"\x00mp4", caption=None)
            assert type(client.build_image_message.call_args.args[0]) is bytes
            assert [c.args for c in client.send_message.call_args_list] == [(STATUS, image), (STATUS, video)]
            await session.close()

    run(scenario())


def test_an_unreadable_image_is_invalid_and_a_disconnected_device_sends_nothing(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose image builder cannot read the bytes
            session, _ = await connected(tmp_path, fake)
            fake.client.build_image_message.side_effect = UnidentifiedImageError("cannot identify image file")
            # When it publishes them, Then it is INVALID and nothing is sent
            await fails(ErrorKind.INVALID, session.status.publish_status(MediaStatus(b"nope", "image/png")))
            # And a bad colour never reaches the library
            await fails(
                ErrorKind.INVALID,
                session.status.publish_status(TextStatus("x", background_color="#12")),
            )
            fake.client.send_message.assert_not_called()
            # When the session is closed, Then publishing is NOT_CONNECTED
            await session.close()
            await fails(ErrorKind.NOT_CONNECTED, session.status.publish_status(TextStatus("late")))
            fake.client.send_message.assert_not_called()

    run(scenario())
