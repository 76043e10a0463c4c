"""The media and rich sends' logic (send_kinds + the one send path) against a stand-in bus,
outbox and media store: what each kind checks, stores and puts in the outbox's payload."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image
from stand_in_bus import StandInBus, install

from gateway.bus import Reply
from gateway.config import get_settings
from gateway.errors import ApiError
from gateway.failures.kinds import ErrorKind
from gateway.media.limits import INLINE_MAX_BYTES
from gateway.media.store import StoredMedia
from gateway.messages import outbox, send_kinds, sending
from gateway.messages.schemas import (
    SendAudioRequest,
    SendContactRequest,
    SendDocumentRequest,
    SendLocationRequest,
    SendMediaRequest,
    SendPollRequest,
    SendTemplateRequest,
    SendTextRequest,
)
from gateway.messages.sends import Send
from gateway.models import DeviceModel

HOLD = 25.0
PHONE = "4915112345678"
JID = f"{PHONE}@s.whatsapp.net"


def image_bytes(fmt: str = "PNG", size: tuple[int, int] = (40, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format=fmt)
    return out.getvalue()


PNG = image_bytes("PNG")
PDF = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> StandInBus:
    sent = {"status": "sent", "message_id": "M", "chat_jid": "c", "network_message_id": "3EB0N"}
    return install(monkeypatch, sending, Reply(command_id="c", ok=True, result=sent))


@pytest.fixture
def enqueued(monkeypatch: pytest.MonkeyPatch) -> list[Send]:
    sends: list[Send] = []
    monkeypatch.setattr(outbox, "store", sends.append)
    return sends


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bytes, str, str | None]]:
    """What was put in the media bucket: (bytes, mimetype, filename)."""
    puts: list[tuple[bytes, str, str | None]] = []

    def put(
        _tenant: str, _device: str, data: bytes, mimetype: str, filename: str | None = None
    ) -> StoredMedia:
        puts.append((data, mimetype, filename))
        return StoredMedia(f"{len(puts):032x}", "k", len(data), "h", mimetype)

    monkeypatch.setattr(sending.media_store, "put", put)
    return puts


@pytest.fixture
def deployment(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def configure(*, local_mode: bool) -> None:
        monkeypatch.setenv("GATEWAY_LOCAL_MODE", str(local_mode).lower())
        monkeypatch.setenv("ALLOW_HTTP_WEBHOOKS", "false")
        get_settings.cache_clear()

    yield configure
    monkeypatch.undo()
    get_settings.cache_clear()


def device(status: str = "connected") -> DeviceModel:
    return DeviceModel(
        "tenant-1", "device-1", owner_user_id="u", name="d", status=status, created_at="x", updated_at="x"
    )


def media_request(model: type[SendMediaRequest] = SendMediaRequest, **body: Any) -> Any:
    return model.model_validate({"number": PHONE, **body})


def send(message: send_kinds.Message, request: Any) -> Any:
    return sending.send(device(), request, message, hold_seconds=HOLD)


def error_of(call: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        call()
    return caught.value


# --- media ---------------------------------------------------------------------------------


def test_inline_image_is_stored_and_the_payload_names_it_never_the_bytes(
    bus: StandInBus, enqueued: list[Send], stored: list[Any]
) -> None:
    # Given an inline PNG with a caption
    request = media_request(data_base64=b64(PNG), caption="red", mimetype="image/whatever")
    # When it is sent as an image
    answer = send(send_kinds.media("image", request), request)
    # Then the bytes are stored with their sniffed type, and the send and its command carry
    # the media id, never the bytes
    assert stored == [(PNG, "image/png", None)]
    (item,) = enqueued
    assert (item.kind, item.text) == ("image", "red")
    assert item.payload == {
        "media_id": f"{1:032x}",
        "mimetype": "image/png",
        "caption": "red",
        "filename": None,
        "ptt": False,
    }
    assert b64(PNG) not in repr(bus.sent)
    assert bus.sent[0]["args"]["send"]["payload"] == item.payload
    assert answer.status_code == 200


def test_audio_carries_ptt_and_document_its_filename(
    bus: StandInBus, enqueued: list[Send], stored: list[Any]
) -> None:
    ogg = b"OggS" + b"\x00" * 60
    audio = media_request(SendAudioRequest, data_base64=b64(ogg), ptt=True)
    send(send_kinds.media("audio", audio), audio)
    document = media_request(SendDocumentRequest, data_base64=b64(PDF), filename="invoice.pdf")
    send(send_kinds.media("document", document), document)
    assert [(item.payload or {})["ptt"] for item in enqueued] == [True, False]
    assert (enqueued[1].payload or {})["filename"] == "invoice.pdf"
    assert stored[1] == (PDF, "application/pdf", "invoice.pdf")


def test_a_png_sticker_is_stored_as_a_512_webp(
    bus: StandInBus, enqueued: list[Send], stored: list[Any]
) -> None:
    request = media_request(data_base64=b64(PNG))
    send(send_kinds.media("sticker", request), request)
    ((data, mimetype, _),) = stored
    assert mimetype == "image/webp"
    assert data[8:12] == b"WEBP"
    with Image.open(io.BytesIO(data)) as sticker:
        assert sticker.size == (512, 512)


@pytest.mark.parametrize(
    ("kind", "data"),
    [("image", PDF), ("video", PNG), ("audio", PNG), ("sticker", PDF), ("image", b"not an image at all")],
)
def test_bytes_not_of_the_kind_are_400_and_nothing_is_stored(
    kind: Any, data: bytes, bus: StandInBus, enqueued: list[Send], stored: list[Any]
) -> None:
    request = media_request(data_base64=b64(data))
    error = error_of(lambda: send(send_kinds.media(kind, request), request))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert kind in error.message
    assert (stored, enqueued, bus.sent) == ([], [], [])


def test_inline_media_over_the_limit_are_413_saying_to_use_url(stored: list[Any]) -> None:
    request = media_request(data_base64=b64(b"\xff\xd8\xff" + b"\x00" * INLINE_MAX_BYTES))
    error = error_of(lambda: send_kinds.media("image", request))
    assert (error.status, error.code) == (413, "PAYLOAD_TOO_LARGE")
    assert "url" in error.message
    assert stored == []


@pytest.mark.parametrize("body", [{}, {"url": "https://example.com/a.png", "data_base64": b64(PNG)}])
def test_exactly_one_of_url_or_data_base64(body: dict[str, Any]) -> None:
    error = error_of(lambda: send_kinds.media("image", media_request(**body)))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert "exactly one of url or data_base64" in error.message


def test_data_base64_that_is_not_base64_is_400() -> None:
    error = error_of(lambda: send_kinds.media("image", media_request(data_base64="abc")))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")


def test_a_url_is_kept_in_the_payload_for_the_host_to_fetch(
    bus: StandInBus, enqueued: list[Send], stored: list[Any], deployment: Any
) -> None:
    deployment(local_mode=True)
    request = media_request(url="http://127.0.0.1:8000/cat.jpg", caption="cat")
    send(send_kinds.media("image", request), request)
    assert stored == []
    assert (enqueued[0].payload or {})["url"] == "http://127.0.0.1:8000/cat.jpg"


@pytest.mark.parametrize(
    "url",
    ["https://127.0.0.1/a.png", "https://10.0.0.8/a.png", "http://93.184.215.14/a.png", "ftp://x.org/a"],
)
def test_outside_local_mode_a_private_or_plain_http_url_is_refused_before_anything_is_sent(
    url: str, deployment: Any, bus: StandInBus, enqueued: list[Send]
) -> None:
    deployment(local_mode=False)
    request = media_request(url=url)
    error = error_of(lambda: send(send_kinds.media("image", request), request))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert error.message.startswith("url: ")
    assert (enqueued, bus.sent) == ([], [])


@pytest.mark.parametrize("body", [{"url": "https://10.0.0.8/a.png"}, {"data_base64": b64(PDF)}])
def test_content_no_schema_can_state_is_checked_after_the_device(
    body: dict[str, Any], deployment: Any, stored: list[Any]
) -> None:
    # A request valid by the document meets the device's state first (the contract test's rule)
    deployment(local_mode=False)
    request = media_request(**body)
    message = send_kinds.media("image", request)
    error = error_of(lambda: sending.send(device("disconnected"), request, message, hold_seconds=HOLD))
    assert error.status == 503
    assert stored == []


def test_a_host_refusing_fetched_media_names_the_url(
    bus: StandInBus, enqueued: list[Send], deployment: Any
) -> None:
    deployment(local_mode=True)
    bus.answer = Reply(
        command_id="c",
        ok=False,
        error_kind=ErrorKind.INVALID,
        error_message="invalid: the server of url answered HTTP 404",
    )
    request = media_request(url="http://127.0.0.1:9/missing.png")
    error = error_of(lambda: send(send_kinds.media("image", request), request))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert error.message.startswith("url: ")
    assert "HTTP 404" in error.message


def test_a_disconnected_device_stores_no_media(stored: list[Any], enqueued: list[Send]) -> None:
    request = media_request(data_base64=b64(PNG))
    message = send_kinds.media("image", request)
    error = error_of(lambda: sending.send(device("disconnected"), request, message, hold_seconds=HOLD))
    assert error.status == 503
    assert (stored, enqueued) == ([], [])


# --- location, contact, template -----------------------------------------------------------


def test_location_contact_and_template_payloads(bus: StandInBus, enqueued: list[Send]) -> None:
    place = SendLocationRequest.model_validate(
        {"number": PHONE, "latitude": 52.5, "longitude": 13.4, "name": "Gate"}
    )
    card = SendContactRequest.model_validate(
        {"number": PHONE, "contact_name": "Ana", "contact_number": "+15557654321"}
    )
    poll = SendTemplateRequest.model_validate(
        {"number": PHONE, "text": "Tonight?", "footer": "tap", "buttons": [{"id": "y", "text": "Yes"}]}
    )
    for message, request in (
        (send_kinds.location(place), place),
        (send_kinds.contact(card), card),
        (send_kinds.template(poll), poll),
    ):
        send(message, request)
    assert [(item.kind, item.text, item.payload, item.chat_jid) for item in enqueued] == [
        ("location", "Gate", {"latitude": 52.5, "longitude": 13.4, "name": "Gate", "address": None}, JID),
        ("contact", "Ana", {"name": "Ana", "phone": "15557654321"}, JID),
        ("template", "Tonight?", {"footer": "tap", "buttons": [{"id": "y", "text": "Yes"}]}, JID),
    ]


@pytest.mark.parametrize(
    ("build", "body", "code"),
    [
        (
            send_kinds.location,
            SendLocationRequest.model_validate({"number": PHONE, "latitude": 1}),
            "MISSING_REQUIRED_FIELDS",
        ),
        (
            send_kinds.contact,
            SendContactRequest.model_validate({"number": PHONE, "contact_name": " "}),
            "MISSING_REQUIRED_FIELDS",
        ),
        (
            send_kinds.contact,
            SendContactRequest.model_validate(
                {"number": PHONE, "contact_name": "A", "contact_number": "12ab"}
            ),
            "VALIDATION_ERROR",
        ),
        (
            send_kinds.template,
            SendTemplateRequest.model_validate({"number": PHONE, "text": "x"}),
            "MISSING_REQUIRED_FIELDS",
        ),
    ],
)
def test_rich_sends_check_their_fields(build: Any, body: Any, code: str) -> None:
    error = error_of(lambda: build(body))
    assert (error.status, error.code) == (400, code)


def test_a_templates_button_ids_are_unique(bus: StandInBus, enqueued: list[Send]) -> None:
    buttons = [{"id": "a", "text": "A"}, {"id": "a", "text": "B"}]
    request = SendTemplateRequest.model_validate({"number": PHONE, "text": "x", "buttons": buttons})
    error = error_of(lambda: send(send_kinds.template(request), request))
    assert (error.status, error.code) == (400, "VALIDATION_ERROR")
    assert enqueued == []


def test_a_template_takes_at_most_three_buttons() -> None:
    buttons = [{"id": str(n), "text": str(n)} for n in range(4)]
    with pytest.raises(ValueError, match="at most 3 items"):
        SendTemplateRequest.model_validate({"number": PHONE, "text": "x", "buttons": buttons})


# --- replies and polls ------------------------------------------------------------


def test_a_poll_keeps_its_options_with_the_send_for_its_votes(bus: StandInBus, enqueued: list[Send]) -> None:
    request = SendPollRequest.model_validate(
        {"number": PHONE, "question": "Lunch?", "options": ["Yes", "No"], "multiple_answers": True}
    )
    send(send_kinds.poll(request), request)
    [item] = enqueued
    assert (item.kind, item.text, item.payload, item.chat_jid) == (
        "poll",
        "Lunch?",
        {"question": "Lunch?", "options": ["Yes", "No"], "multiple_answers": True},
        JID,
    )


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"question": "Q?", "options": ["Same", "Same"]}, "VALIDATION_ERROR"),
        ({"options": ["A", "B"]}, "MISSING_REQUIRED_FIELDS"),
        ({"question": "Q?"}, "MISSING_REQUIRED_FIELDS"),
    ],
    ids=["repeated-option", "no-question", "no-options"],
)
def test_a_poll_without_its_parts_or_with_a_repeated_option_is_refused(
    bus: StandInBus, enqueued: list[Send], body: dict[str, Any], code: str
) -> None:
    request = SendPollRequest.model_validate({"number": PHONE, **body})
    error = error_of(lambda: send(send_kinds.poll(request), request))
    assert (error.status, error.code) == (400, code)
    assert enqueued == []


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["only"], "at least 2 items"),
        ([str(n) for n in range(13)], "at most 12 items"),
        (["A", " "], "pattern"),
    ],
)
def test_a_poll_takes_2_to_12_options_none_blank(options: list[str], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        SendPollRequest.model_validate({"number": PHONE, "question": "Q?", "options": options})


def test_reply_to_travels_with_the_send_whatever_its_kind(bus: StandInBus, enqueued: list[Send]) -> None:
    text = SendTextRequest.model_validate({"number": PHONE, "text": "yes", "reply_to": "3EB0AB"})
    place = SendLocationRequest.model_validate(
        {"number": PHONE, "latitude": 1, "longitude": 2, "reply_to": "G1"}
    )
    sending.send_text(device(), text, hold_seconds=HOLD)
    send(send_kinds.location(place), place)
    assert [item.reply_to for item in enqueued] == ["3EB0AB", "G1"]


@pytest.mark.parametrize("reply_to", ["", "two words", "x" * 129])
def test_reply_to_is_an_id(reply_to: str) -> None:
    with pytest.raises(ValueError, match="reply_to"):
        SendTextRequest.model_validate({"number": PHONE, "text": "x", "reply_to": reply_to})
