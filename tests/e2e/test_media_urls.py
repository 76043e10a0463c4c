"""Media ``url``s over HTTP: a malformed one gets the 400 ``VALIDATION_ERROR`` envelope on every
route that takes one (it answered 500), and plain HTTP is taken by the API exactly when the
session host will fetch it: both read one setting (``ALLOW_HTTP_WEBHOOKS``; docs/media.md)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from group_flows import Phone, connected_device, contact
from test_send_media import JPEG, only_message, received, send, sent

from gateway.media import fetch as fetch_module
from gateway.media import urls as urls_module
from gateway.webhooks.addresses import is_public_address

pytestmark = pytest.mark.e2e

MALFORMED = [
    "http://[::1",
    "https://exa mple.com/x.jpg",
    "https://%zz/x.jpg",
    "https://a:99999/x.jpg",
    "https://\ud800.com/x.jpg",  # a lone surrogate, sent as a JSON escape
    "https://ex\uff03ample.com/x.jpg",  # a full-width '#': the parser before raised on it
    "https://例え..テスト/x.jpg",
    "https://" + "a" * 64 + ".com/x.jpg",
    "https:///x.jpg",
    "https://example.com/" + "x" * 2100,  # over the 2,048 characters of the schema
    "",
]


@pytest.fixture
def device(api: Any) -> Phone:
    return connected_device(api, api.register().admin_token)


def test_a_malformed_media_url_gets_the_validation_envelope(api: Any, device: Phone, envelope: Any) -> None:
    # Given a connected device and a contact
    ana = contact(api, "Ana")
    for url in MALFORMED:
        # When media are sent, or a story published, by a malformed url
        for response in (
            send(api, device, "image", {"number": ana.phone, "url": url}),
            device.call(api, "POST", "/status/image", {"url": url}),
        ):
            # Then each answer is the 400 envelope naming url, and nothing is sent
            body = envelope(response, 400, "VALIDATION_ERROR")
            assert body["validation"][0]["field"] == "url", (url, body)
    assert received(api, ana, device) == []


@pytest.fixture
def photo_server() -> Iterator[tuple[str, list[str]]]:
    """A loopback server of one JPEG at ``/photo.jpg``; the list records the paths asked for."""
    asked: list[str] = []

    class Photo(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(JPEG)))
            self.end_headers()
            self.wfile.write(JPEG)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Photo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/photo.jpg", asked
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


def test_plain_http_refused_by_the_api_is_never_fetched(
    api: Any, device: Phone, envelope: Any, deployed_with_loopback_public: Any, photo_server: Any
) -> None:
    # Given a deployment that keeps to HTTPS
    deployed_with_loopback_public(allow_http=False)
    url, asked = photo_server
    ana = contact(api, "Ana")
    # When an image is sent by a plain-HTTP url
    response = send(api, device, "image", {"number": ana.phone, "url": url})
    # Then the API refuses it for its scheme, and nobody fetched it
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert "https" in body["error"], body
    assert (asked, received(api, ana, device)) == ([], [])


def test_plain_http_taken_by_the_api_is_fetched_and_sent_by_the_host(
    api: Any, device: Phone, deployed_with_loopback_public: Any, photo_server: Any
) -> None:
    # Given a deployment that allows plain HTTP (ALLOW_HTTP_WEBHOOKS)
    deployed_with_loopback_public(allow_http=True)
    url, asked = photo_server
    ana = contact(api, "Ana")
    # When an image is sent by a plain-HTTP url
    sent(send(api, device, "image", {"number": ana.phone, "url": url, "caption": "over http"}))
    # Then the session host fetched it and the contact has it
    message = only_message(api, ana, device)
    assert (message["type"], message["caption"], asked) == ("image", "over http", ["/photo.jpg"])
