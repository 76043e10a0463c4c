"""The media and rich send routes end to end: HTTP → messages function (media stored in the
bucket) → outbox and command bus → session host (media read back, or fetched from a url) →
simulated network, where the recipient's inbox shows what was sent, byte for byte."""

from __future__ import annotations

import base64
import hashlib
import io
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from device_flows import simulator
from group_flows import Phone, connected_device, contact
from PIL import Image
from waiting import wait_until

from gateway.media import fetch as fetch_module
from gateway.media import urls as urls_module
from gateway.webhooks.addresses import is_public_address

pytestmark = pytest.mark.e2e


def image(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (20, 140, 220)).save(out, format=fmt)
    return out.getvalue()


PNG = image("PNG")
JPEG = image("JPEG")
MP4 = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + bytes(range(256)) * 4
OGG = b"OggS\x00\x02" + bytes(range(200))
PDF = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<<>>\n%%EOF\n"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


@pytest.fixture
def device(api: Any, tenant: Any) -> Phone:
    return connected_device(api, tenant.admin_token)


def send(api: Any, device: Phone, kind: str, body: Any, key: str | None = None) -> requests.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return device.call(api, "POST", f"/send/{kind}", json={"disablePresence": True, **body}, headers=headers)


def received(api: Any, recipient: Phone, sender: Phone) -> list[dict[str, Any]]:
    inbox = simulator(api, "GET", f"/accounts/{recipient.phone}/inbox")
    return [message for message in inbox["messages"] if message["from"] == sender.jid]


def only_message(api: Any, recipient: Phone, sender: Phone) -> dict[str, Any]:
    wait_until(lambda: received(api, recipient, sender), 10, what="the message in the recipient's inbox")
    (message,) = received(api, recipient, sender)
    return message


def sent(response: requests.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["success"], body["status"]) == (True, "sent")
    return body


@pytest.mark.parametrize(
    ("kind", "data", "extra", "mimetype"),
    [
        ("image", PNG, {"caption": "a blue square"}, "image/png"),
        ("video", MP4, {"caption": "a clip"}, "video/mp4"),
        ("audio", OGG, {"ptt": True}, "audio/ogg"),
        ("document", PDF, {"filename": "report.pdf", "caption": "the report"}, "application/pdf"),
    ],
)
def test_inline_media_arrive_byte_for_byte(
    api: Any, device: Phone, kind: str, data: bytes, extra: dict[str, Any], mimetype: str
) -> None:
    # Given a connected device and a contact
    ana = contact(api, "Ana")
    # When it sends media inline
    sent(send(api, device, kind, {"number": ana.phone, "data_base64": b64(data), **extra}))
    # Then the contact's phone has them, with their type, caption, size and hash
    message = only_message(api, ana, device)
    assert message["type"] == kind
    assert message["caption"] == extra.get("caption")
    media = message["media"]
    assert (media["mimetype"], media["size"], media["sha256"]) == (mimetype, len(data), sha256(data))
    assert media["filename"] == extra.get("filename")
    if kind == "audio":
        assert media["ptt"] is True


def test_a_png_sticker_arrives_as_the_webp_it_was_converted_to(api: Any, device: Phone) -> None:
    ana = contact(api, "Ana")
    sent(send(api, device, "sticker", {"number": ana.phone, "data_base64": b64(PNG)}))
    message = only_message(api, ana, device)
    assert (message["type"], message["media"]["mimetype"]) == ("sticker", "image/webp")
    # The bytes stored are the conversion's: the same conversion gives the same hash
    from gateway.media.kinds import to_webp_sticker

    webp = to_webp_sticker(PNG)
    assert (message["media"]["size"], message["media"]["sha256"]) == (len(webp), sha256(webp))


class _Files(BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}

    def do_GET(self) -> None:
        body = self.files.get(self.path)
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def file_server() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A loopback HTTP server of ``files`` (path → bytes); local mode may fetch from it."""
    files: dict[str, bytes] = {}
    handler = type("Files", (_Files,), {"files": files})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", files
    finally:
        server.shutdown()
        server.server_close()


def test_media_by_url_are_fetched_by_the_host_and_arrive(
    api: Any, device: Phone, file_server: tuple[str, dict[str, bytes]]
) -> None:
    base, files = file_server
    files["/photo.jpg"] = JPEG
    ana = contact(api, "Ana")
    sent(send(api, device, "image", {"number": ana.phone, "url": f"{base}/photo.jpg", "caption": "fetched"}))
    message = only_message(api, ana, device)
    assert (message["type"], message["caption"]) == ("image", "fetched")
    assert (message["media"]["mimetype"], message["media"]["sha256"]) == ("image/jpeg", sha256(JPEG))


def test_a_png_sticker_by_url_is_converted_by_the_host(
    api: Any, device: Phone, file_server: tuple[str, dict[str, bytes]]
) -> None:
    from gateway.media.kinds import to_webp_sticker

    base, files = file_server
    files["/sticker.png"] = PNG
    ana = contact(api, "Ana")
    sent(send(api, device, "sticker", {"number": ana.phone, "url": f"{base}/sticker.png"}))
    message = only_message(api, ana, device)
    assert (message["type"], message["media"]["mimetype"]) == ("sticker", "image/webp")
    assert message["media"]["sha256"] == sha256(to_webp_sticker(PNG))


def test_a_url_that_does_not_fetch_fails_the_send_with_400(
    api: Any, device: Phone, envelope: Any, file_server: tuple[str, dict[str, bytes]]
) -> None:
    base, files = file_server
    files["/not-an-image"] = PDF
    ana = contact(api, "Ana")
    missing = send(api, device, "image", {"number": ana.phone, "url": f"{base}/missing.png"})
    body = envelope(missing, 400, "VALIDATION_ERROR")
    assert "404" in body["error"]
    wrong = send(api, device, "image", {"number": ana.phone, "url": f"{base}/not-an-image"})
    body = envelope(wrong, 400, "VALIDATION_ERROR")
    assert "image must be" in body["error"]
    assert received(api, ana, device) == []


def test_inline_media_refused_up_front(api: Any, device: Phone, envelope: Any) -> None:
    ana = contact(api, "Ana")
    envelope(
        send(api, device, "image", {"number": ana.phone, "data_base64": b64(PDF)}), 400, "VALIDATION_ERROR"
    )
    envelope(send(api, device, "image", {"number": ana.phone}), 400, "VALIDATION_ERROR")
    too_large = b"\xff\xd8\xff" + bytes(4 * 1024 * 1024)
    body = envelope(
        send(api, device, "image", {"number": ana.phone, "data_base64": b64(too_large)}),
        413,
        "PAYLOAD_TOO_LARGE",
    )
    assert "url" in body["error"]
    assert received(api, ana, device) == []


def test_location_contact_and_template_arrive_with_their_sub_objects(api: Any, device: Phone) -> None:
    ana = contact(api, "Ana")
    sent(
        send(
            api,
            device,
            "location",
            {
                "number": ana.phone,
                "latitude": 52.5163,
                "longitude": 13.3777,
                "name": "Gate",
                "address": "Berlin",
            },
        )
    )
    sent(
        send(
            api,
            device,
            "contact",
            {"number": ana.phone, "contact_name": "Bob", "contact_number": "+15557654321"},
        )
    )
    buttons = [{"id": "yes", "text": "Yes"}, {"id": "no", "text": "No"}]
    sent(
        send(
            api,
            device,
            "template",
            {"number": ana.phone, "text": "Tonight?", "footer": "tap", "buttons": buttons},
        )
    )
    wait_until(lambda: len(received(api, ana, device)) == 3, 10, what="three messages")
    place, card, template = received(api, ana, device)
    assert place["type"] == "location"
    assert place["location"] == {
        "latitude": 52.5163,
        "longitude": 13.3777,
        "name": "Gate",
        "address": "Berlin",
    }
    assert card["type"] == "contact"
    assert (card["contact"]["name"], card["contact"]["phone"]) == ("Bob", "15557654321")
    assert (template["type"], template["text"], template["buttons"]) == ("template", "Tonight?", buttons)
    assert template["footer"] == "tap"


def test_an_image_repeated_with_its_idempotency_key_is_sent_once(api: Any, device: Phone) -> None:
    ana = contact(api, "Ana")
    key = str(uuid.uuid4())
    body = {"number": ana.phone, "data_base64": b64(PNG), "caption": "once"}
    first = sent(send(api, device, "image", body, key=key))
    again = send(api, device, "image", body, key=key)
    assert again.status_code == 200, again.text
    assert again.json()["message_id"] == first["message_id"]
    wait_until(lambda: received(api, ana, device), 10, what="the image")
    assert len(received(api, ana, device)) == 1


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/photo.jpg",
        "https://127.0.0.1/photo.jpg",
        "https://[::1]/photo.jpg",
        "https://[::ffff:127.0.0.1]/photo.jpg",
        "https://169.254.169.254/latest/meta-data",
        "https://localhost/photo.jpg",  # a name that resolves to a private address
    ],
)
def test_a_url_to_a_private_address_is_refused_outside_local_mode(
    api: Any, device: Phone, envelope: Any, settings_override: Any, url: str
) -> None:
    # Given a deployment that is not the local one (HTTPS only, public addresses only)
    settings_override(GATEWAY_LOCAL_MODE="false", ALLOW_HTTP_WEBHOOKS="false")
    ana = contact(api, "Ana")

    # When an image is sent by a url that points inside the network
    response = send(api, device, "image", {"number": ana.phone, "url": url})

    # Then it is refused for where it leads, and nothing reaches the contact
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert "non-public address" in body["error"], body
    assert received(api, ana, device) == []


def test_a_url_larger_than_the_limit_is_refused_without_being_read_to_the_end(
    api: Any, device: Phone, envelope: Any
) -> None:
    from gateway.media.limits import URL_MAX_BYTES

    # Given a server that streams far more than the limit, without announcing its length
    total = URL_MAX_BYTES * 4
    served = {"bytes": 0}

    class Endless(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = JPEG[:2] + bytes(64 * 1024 - 2)
            try:
                while served["bytes"] < total:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    served["bytes"] += len(chunk)
                self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass  # the gateway hung up: what this test wants

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ana = contact(api, "Ana")
        url = f"http://127.0.0.1:{server.server_port}/huge.jpg"

        # When an image is sent by that url
        response = send(api, device, "image", {"number": ana.phone, "url": url})

        # Then it is refused as too large, and the body was not read to the end
        body = envelope(response, 400, "VALIDATION_ERROR")
        assert "MB" in body["error"], body
        assert served["bytes"] < total / 2, served
        assert received(api, ana, device) == []
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def deployed_with_loopback_public(settings_override: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A deployment that is not the local one, where 127.0.0.1 (the test's server) counts as a
    public address for both the API's check and the host's fetch; ``(allow_http)`` sets the
    one setting both read."""
    for module in (urls_module, fetch_module):
        monkeypatch.setattr(
            module, "is_public_address", lambda a: str(a) == "127.0.0.1" or is_public_address(a)
        )

    def deploy(*, allow_http: bool) -> None:
        settings_override(GATEWAY_LOCAL_MODE="false", ALLOW_HTTP_WEBHOOKS=str(allow_http).lower())

    return deploy


def test_plain_http_refused_by_the_api_is_never_sent(
    api: Any, device: Phone, envelope: Any, deployed_with_loopback_public: Any, file_server: Any
) -> None:
    # Given a deployment that keeps to HTTPS, and an image served over plain HTTP
    deployed_with_loopback_public(allow_http=False)
    base, files = file_server
    files["/photo.jpg"] = JPEG
    ana = contact(api, "Ana")
    # When it is sent by its url
    response = send(api, device, "image", {"number": ana.phone, "url": f"{base}/photo.jpg"})
    # Then the API refuses it for its scheme, and nothing reaches the contact
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert "https" in body["error"], body
    assert received(api, ana, device) == []


def test_plain_http_taken_by_the_api_is_fetched_and_sent_by_the_host(
    api: Any, device: Phone, deployed_with_loopback_public: Any, file_server: Any
) -> None:
    # Given a deployment that allows plain HTTP (ALLOW_HTTP_WEBHOOKS), and an image served over it
    deployed_with_loopback_public(allow_http=True)
    base, files = file_server
    files["/photo.jpg"] = JPEG
    ana = contact(api, "Ana")
    # When it is sent by its url
    sent(
        send(api, device, "image", {"number": ana.phone, "url": f"{base}/photo.jpg", "caption": "over http"})
    )
    # Then the session host fetched it (outside local mode) and the contact has it
    message = only_message(api, ana, device)
    assert (message["type"], message["caption"]) == ("image", "over http")
