"""Status operations against a stand-in bus: the rules checked before anything is sent, the
command each sends, how failures are answered (lowercase for privacy, standard for
publishing), and inline media stored before only their id goes on the bus."""

from __future__ import annotations

import base64
import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError
from stand_in_bus import StandInBus, install

from gateway.bus import BusTimeout, CommandName, Reply
from gateway.devices import commands
from gateway.errors import ApiError, OperationError
from gateway.failures.kinds import ErrorKind
from gateway.media.limits import INLINE_MAX_BYTES, STATUS_VIDEO_MAX_BYTES
from gateway.messages import sending
from gateway.models import DeviceModel
from gateway.status import service
from gateway.status.schemas import STORY_FONTS, MediaStatusRequest, StatusPrivacyRequest, TextStatusRequest
from gateway.web.idempotency import Unclear
from session_host.network.status_types import STORY_FONTS as PORT_FONTS

FRIEND = "15551234567@s.whatsapp.net"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
MP4 = b"\x00\x00\x00\x18ftypisom" + b"\x00" * 32


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> StandInBus:
    return install(monkeypatch, commands, Reply(command_id="c", ok=True))


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, bytes, str]]:
    puts: list[tuple[str, str, bytes, str]] = []

    def put(tenant_id: str, device_id: str, data: bytes, mimetype: str) -> SimpleNamespace:
        puts.append((tenant_id, device_id, data, mimetype))
        return SimpleNamespace(media_id="a" * 32)

    monkeypatch.setattr(service.store, "put", put)
    return puts


def device(status: str = "connected") -> DeviceModel:
    return DeviceModel(
        "tenant-1",
        str(uuid.uuid4()),
        owner_user_id="owner",
        name="phone",
        status=status,
        created_at="2026-01-01T00:00:00.000Z",
        updated_at="2026-01-01T00:00:00.000Z",
    )


def privacy(kind: str, *people: str) -> StatusPrivacyRequest:
    return StatusPrivacyRequest(type=kind, list=list(people))


def test_the_fonts_are_the_ports() -> None:
    assert set(STORY_FONTS) == set(PORT_FONTS)


# --- privacy ----------------------------------------------------------------------------------


def test_a_whitelist_of_phones_goes_out_as_user_jids_without_repeats(bus: StandInBus) -> None:
    bus.result({"type": "whitelist", "list": [FRIEND]})
    answer = service.set_privacy(device(), privacy("whitelist", "15551234567", FRIEND))
    assert bus.sent[0]["name"] is CommandName.SET_STATUS_PRIVACY
    assert bus.sent[0]["args"] == {"type": "whitelist", "list": [FRIEND]}
    assert answer.model_dump() == {"success": True, "type": "whitelist", "count": 1, "list": [FRIEND]}


@pytest.mark.parametrize(
    ("kind", "people"),
    [("whitelist", ()), ("contacts", ("15551234567",))],
    ids=["empty whitelist", "contacts list"],
)
def test_rules_joining_type_and_list_are_invalid_request_and_send_nothing(
    bus: StandInBus, kind: str, people: tuple[str, ...]
) -> None:
    with pytest.raises(OperationError) as raised:
        service.set_privacy(device(), privacy(kind, *people))
    assert (raised.value.status, raised.value.code) == (400, "invalid_request")
    assert bus.sent == []


def test_an_entry_that_is_no_person_fails_field_validation() -> None:
    with pytest.raises(ValidationError):
        privacy("blacklist", "120363000000000001@g.us")


def test_a_device_not_connected_is_device_disconnected_without_a_command(bus: StandInBus) -> None:
    with pytest.raises(OperationError) as raised:
        service.get_privacy(device("disconnected"))
    assert (raised.value.status, raised.value.code) == (503, "device_disconnected")
    assert bus.sent == []


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("invalid", 400, "invalid_request"),
        ("not_connected", 503, "device_disconnected"),
        ("not_running", 503, "device_disconnected"),
        ("unsupported", 501, "unsupported_operation"),
        ("network", 502, "privacy_update_failed"),
        ("timeout", 504, "privacy_update_timeout"),
        ("rate_limited", 429, "rate_limited"),
        ("host_error", 500, "device_error"),
    ],
)
def test_privacy_failures_are_answered_lowercase(bus: StandInBus, kind: str, status: int, code: str) -> None:
    bus.fail(kind, "the host's words")
    with pytest.raises(OperationError) as raised:
        service.set_privacy(device(), privacy("blacklist"))
    assert (raised.value.status, raised.value.code) == (status, code)
    if kind == "host_error":
        assert "the host's words" not in raised.value.message


def test_no_answer_in_time_is_privacy_update_timeout(bus: StandInBus) -> None:
    bus.answer = BusTimeout("late")
    with pytest.raises(OperationError) as raised:
        service.get_privacy(device())
    assert (raised.value.status, raised.value.code) == (504, "privacy_update_timeout")


def test_an_incomplete_answer_is_device_error(bus: StandInBus) -> None:
    bus.result({"type": "contacts"})
    with pytest.raises(OperationError) as raised:
        service.get_privacy(device())
    assert (raised.value.status, raised.value.code) == (500, "device_error")


# --- publishing ------------------------------------------------------------------------------


def test_a_text_story_sends_its_fields(bus: StandInBus) -> None:
    bus.result({"message_id": "NET1", "chat_jid": "status@broadcast", "timestamp": 1.0})
    answer = service.publish_text(device(), TextStatusRequest(text="hi", background_color="#112233", font=2))
    assert bus.sent[0]["name"] is CommandName.PUBLISH_STATUS
    assert bus.sent[0]["args"] == {
        "text": "hi",
        "kind": "text",
        "caption": "",
        "background_color": "#112233",
        "font": 2,
    }
    assert (answer.status_code, answer.body) == (200, {"success": True, "message_id": "NET1"})


@pytest.mark.parametrize(
    "body", [{"text": "  "}, {"text": "x", "font": 4}, {"text": "x", "background_color": "red"}]
)
def test_text_fields_fail_validation(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        TextStatusRequest(**body)


@pytest.mark.parametrize("body", [{}, {"url": "https://example.org/a.png", "data_base64": "AAAA"}])
def test_a_media_story_takes_exactly_one_source(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        MediaStatusRequest(**body)


def test_inline_media_are_stored_and_only_their_id_travels(bus: StandInBus, stored: list[Any]) -> None:
    bus.result({"message_id": "NET2", "chat_jid": "status@broadcast", "timestamp": 1.0})
    phone = device()
    body = MediaStatusRequest(data_base64=base64.b64encode(PNG).decode(), caption="look")
    service.publish_media(phone, "image", body)
    assert stored == [(phone.tenant_id, phone.device_id, PNG, "image/png")]
    assert bus.sent[0]["args"] == {"media_id": "a" * 32, "kind": "image", "caption": "look"}


def test_an_image_that_is_a_video_is_refused_before_storing(bus: StandInBus, stored: list[Any]) -> None:
    body = MediaStatusRequest(data_base64=base64.b64encode(MP4).decode())
    with pytest.raises(ApiError) as raised:
        service.publish_media(device(), "image", body)
    assert (raised.value.status, raised.value.code) == (400, "VALIDATION_ERROR")
    assert (stored, bus.sent) == ([], [])


def test_a_video_over_16_mb_is_a_validation_error(bus: StandInBus, stored: list[Any]) -> None:
    data = MP4 + b"\x00" * (STATUS_VIDEO_MAX_BYTES + 1 - len(MP4))
    with pytest.raises(ApiError) as raised:
        service.inline_media("video", base64.b64encode(data).decode())
    assert (raised.value.status, raised.value.code) == (400, "VALIDATION_ERROR")


def test_inline_media_over_the_inline_limit_say_to_use_url() -> None:
    data = PNG + b"\x00" * INLINE_MAX_BYTES
    with pytest.raises(ApiError) as raised:
        service.inline_media("image", base64.b64encode(data).decode())
    assert raised.value.status == 413
    assert "use url" in raised.value.message


def test_bad_base64_is_a_validation_error() -> None:
    with pytest.raises(ApiError) as raised:
        service.inline_media("image", "not base64!")
    assert (raised.value.status, raised.value.code) == (400, "VALIDATION_ERROR")


@pytest.fixture
def checked_urls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """URLs given to ``check_url``, which passes them (no DNS in unit tests)."""
    urls: list[str] = []
    monkeypatch.setattr(service.urls, "check_url", lambda url, **_: urls.append(url))
    return urls


def test_a_url_is_checked_and_sent_for_the_host_to_fetch(
    bus: StandInBus, stored: list[Any], checked_urls: list[str]
) -> None:
    bus.result({"message_id": "NET3", "chat_jid": "status@broadcast", "timestamp": 1.0})
    service.publish_media(device(), "video", MediaStatusRequest(url="https://example.org/v.mp4"))
    assert (stored, checked_urls) == ([], ["https://example.org/v.mp4"])
    assert bus.sent[0]["args"] == {"url": "https://example.org/v.mp4", "kind": "video", "caption": ""}


def test_a_url_with_credentials_is_refused(bus: StandInBus) -> None:
    with pytest.raises(ApiError) as raised:
        service.publish_media(device(), "image", MediaStatusRequest(url="https://u:p@example.org/a.png"))
    assert (raised.value.status, raised.value.code) == (400, "VALIDATION_ERROR")
    assert bus.sent == []


@pytest.mark.usefixtures("checked_urls")
def test_a_publish_refused_by_the_host_is_a_validation_error(bus: StandInBus) -> None:
    bus.fail("invalid", "the media at url is over 16 MB")
    with pytest.raises(ApiError) as raised:
        service.publish_media(device(), "video", MediaStatusRequest(url="https://example.org/v.mp4"))
    assert (raised.value.status, raised.value.code) == (400, "VALIDATION_ERROR")
    assert "16 MB" in raised.value.message


def test_publishing_needs_a_connected_device(bus: StandInBus) -> None:
    with pytest.raises(ApiError) as raised:
        service.publish_text(device("connecting"), TextStatusRequest(text="hi"))
    assert raised.value.status == 503
    assert bus.sent == []


@pytest.mark.parametrize(
    ("answer", "status", "code", "unclear"),
    [
        (Reply(command_id="c", ok=False, error_kind=ErrorKind.NETWORK), 502, "NETWORK_ERROR", False),
        (Reply(command_id="c", ok=False, error_kind=ErrorKind.NOT_RUNNING), 503, "DEVICE_NOT_READY", False),
        (Reply(command_id="c", ok=False, error_kind=ErrorKind.RATE_LIMITED), 429, "RATE_LIMITED", False),
        (Reply(command_id="c", ok=False, error_kind=ErrorKind.TIMEOUT), 503, "SERVICE_UNAVAILABLE", True),
        (Reply(command_id="c", ok=False, error_kind=ErrorKind.HOST_ERROR), 500, "DEVICE_ERROR", True),
        (Reply(command_id="c", ok=True, result={}), 500, "DEVICE_ERROR", True),
        (BusTimeout("no answer"), 503, "SERVICE_UNAVAILABLE", True),
        (RuntimeError("SQS answered 500"), 500, "INTERNAL_ERROR", True),
    ],
)
def test_a_failed_publish_is_unclear_unless_nothing_can_have_gone_out(
    bus: StandInBus, answer: Reply | Exception, status: int, code: str, unclear: bool
) -> None:
    # Given a publish that fails this way
    bus.answer = answer
    # When a text story is published
    with pytest.raises(ApiError) as raised:
        service.publish_text(device(), TextStatusRequest(text="hi"))
    # Then its answer; unclear (the story may be out) unless refused or never started
    assert (raised.value.status, raised.value.code) == (status, code)
    assert isinstance(raised.value, Unclear) is unclear


def test_a_planned_story_tells_the_host_the_devices_send_spacing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a device whose sends go out at least 5 s apart
    phone = device()
    phone.min_send_interval_seconds = 5
    told = install(monkeypatch, sending)
    monkeypatch.setattr(sending.outbox, "store", lambda _send: None)
    # When it plans a story for tomorrow
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    answer = service.publish_text(phone, TextStatusRequest(text="hi", send_at=tomorrow.isoformat()))
    # Then it is scheduled, and its command carries the spacing (a 0 would clear the host's)
    assert answer.body["status"] == "scheduled"
    assert told.args()["min_send_interval_seconds"] == 5
