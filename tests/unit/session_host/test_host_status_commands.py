"""The session host's status commands: privacy read and set through the port; a story made
of stored media (read by id) or of a url (fetched by the host, limited and sniffed) with
nothing of the media on the bus; malformed arguments ``invalid`` without the network."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakes_sending import DEVICE, TENANT, CommandHost, FakeOutbox

from gateway.bus import CommandName, Reply
from gateway.failures.kinds import ErrorKind
from gateway.media import fetch, store
from gateway.media.errors import MediaNotFound, MediaTooLarge
from gateway.media.fetch import FetchedMedia
from gateway.media.limits import STATUS_VIDEO_MAX_BYTES
from session_host.network.port import NetworkError, SentMessage, SessionState
from session_host.network.status_types import MediaStatus, PrivacyType, StatusPrivacy, TextStatus

FRIEND = "15551234567@s.whatsapp.net"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
MP4 = b"\x00\x00\x00\x18ftypisom" + b"\x00" * 32


class _Session:
    """A connected session that is its own ``status`` family."""

    def __init__(self, error: NetworkError | None = None) -> None:
        self.status = self
        self.device_id = DEVICE
        self.state = SessionState.CONNECTED
        self.jid: str | None = "15550009999@s.whatsapp.net"
        self.error = error
        self.privacy = StatusPrivacy(PrivacyType.CONTACTS)
        self.published: list[Any] = []

    async def get_status_privacy(self) -> StatusPrivacy:
        return self.privacy

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        if self.error is not None:
            raise self.error
        self.privacy = privacy
        return privacy

    async def publish_status(self, content: Any) -> SentMessage:
        self.published.append(content)
        return SentMessage("NET1", "status@broadcast", 1.5)


class _Host(CommandHost):
    """A command host whose AWS calls run inline."""

    def __init__(self, session: _Session) -> None:
        super().__init__(session, FakeOutbox())

        async def aws(fn: Any, *args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        self.aws = aws


def _run(session: _Session, name: CommandName, **args: Any) -> Reply:
    return asyncio.run(_Host(session).run(name, **args))


def test_privacy_is_read_and_set_through_the_port() -> None:
    session = _Session()
    assert _run(session, CommandName.GET_STATUS_PRIVACY).result == {"type": "contacts", "list": []}
    reply = _run(session, CommandName.SET_STATUS_PRIVACY, type="whitelist", list=[FRIEND])
    assert reply.ok, reply
    assert reply.result == {"type": "whitelist", "list": [FRIEND]}
    assert session.privacy == StatusPrivacy(PrivacyType.WHITELIST, (FRIEND,))


def test_an_unsupported_setter_is_answered_unsupported() -> None:
    session = _Session(NetworkError(ErrorKind.UNSUPPORTED, "change it on the phone"))
    reply = _run(session, CommandName.SET_STATUS_PRIVACY, type="blacklist", list=[])
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.UNSUPPORTED)


def test_a_text_story_is_published() -> None:
    session = _Session()
    reply = _run(
        session, CommandName.PUBLISH_STATUS, kind="text", text="hi", background_color="#112233", font=2
    )
    assert reply.result == {"message_id": "NET1", "chat_jid": "status@broadcast", "timestamp": 1.5}
    assert session.published == [TextStatus("hi", "#112233", 2)]


def test_a_stored_media_is_read_by_id(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[tuple[str, ...]] = []

    def get(*key: str) -> bytes:
        reads.append(key)
        return PNG

    monkeypatch.setattr(store, "get", get)
    session = _Session()
    reply = _run(session, CommandName.PUBLISH_STATUS, kind="image", media_id="m1", caption="look")
    assert reply.ok, reply
    assert reads == [(TENANT, DEVICE, "m1")]
    assert session.published == [MediaStatus(PNG, "image/png", "look")]


def test_a_media_gone_is_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    def get(*_key: str) -> bytes:
        raise MediaNotFound("the media has expired")

    monkeypatch.setattr(store, "get", get)
    session = _Session()
    reply = _run(session, CommandName.PUBLISH_STATUS, kind="image", media_id="m1", caption="")
    assert (reply.ok, reply.error_kind, reply.error_message) == (
        False,
        ErrorKind.INVALID,
        "the media has expired",
    )
    assert session.published == []


def test_a_url_is_fetched_with_the_status_video_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    fetched: list[tuple[str, int]] = []

    def get(url: str, max_bytes: int, *, timeout: float) -> FetchedMedia:
        assert 0 < timeout <= 30
        fetched.append((url, max_bytes))
        return FetchedMedia(MP4, "application/octet-stream")

    monkeypatch.setattr(fetch, "fetch", get)
    session = _Session()
    reply = _run(session, CommandName.PUBLISH_STATUS, kind="video", url="https://example.org/v", caption="")
    assert reply.ok, reply
    assert fetched == [("https://example.org/v", STATUS_VIDEO_MAX_BYTES)]
    assert session.published == [MediaStatus(MP4, "video/mp4", "")]


def test_a_url_over_the_limit_is_invalid(monkeypatch: pytest.MonkeyPatch) -> None:
    def too_large(*_args: Any, **_kwargs: Any) -> FetchedMedia:
        raise MediaTooLarge("the media at url is over 16 MB, the limit for video media")

    monkeypatch.setattr(fetch, "fetch", too_large)
    session = _Session()
    reply = _run(session, CommandName.PUBLISH_STATUS, kind="video", url="https://example.org/v", caption="")
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.INVALID)
    assert "16 MB" in (reply.error_message or "")


def test_a_session_not_connected_is_refused() -> None:
    session = _Session()
    session.state = SessionState.DISCONNECTED
    reply = _run(session, CommandName.GET_STATUS_PRIVACY)
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_CONNECTED)
