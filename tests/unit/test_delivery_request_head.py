"""The request the delivery transport writes: what http.client would write for the same POST
(less its Accept-Encoding), in one piece, and nothing that could split it into two requests."""

from __future__ import annotations

import http.client

import pytest

from gateway.webhooks.delivery.transport import _host_header, _request_head, _route

HEADERS = {
    "User-Agent": "messaging-gateway-webhooks",
    "Content-Type": "application/json",
    "X-Webhook-Id": "e1",
}


class Recorded(http.client.HTTPConnection):
    """http.client's own request, recorded instead of sent."""

    def __init__(self, host: str, port: int | None) -> None:
        super().__init__(host, port)
        self.written = b""

    def send(self, data: bytes) -> None:  # type: ignore[override]
        self.written += data


@pytest.mark.parametrize(
    ("url", "host", "port"),
    [
        ("http://hooks.example.com/in", "hooks.example.com", None),
        ("https://hooks.example.com:8443/in?x=1", "hooks.example.com", 8443),
        ("http://127.0.0.1:9000/", "127.0.0.1", 9000),
        ("http://[::1]:9000/a", "::1", 9000),
    ],
)
def test_the_request_is_the_one_http_client_writes(url: str, host: str, port: int | None) -> None:
    body = b'{"id":"e1"}'
    origin, target = _route(url)
    recorded = Recorded(host, port if port is not None else origin[2])
    recorded.request("POST", target, body, HEADERS)
    expected = recorded.written.replace(b"Accept-Encoding: identity\r\n", b"")

    written = _request_head(origin, target, HEADERS, len(body)) + body

    # http.client writes Host and Content-Length in its own order; the rest must match exactly
    assert sorted(written.split(b"\r\n")) == sorted(expected.split(b"\r\n"))
    assert written.startswith(f"POST {target} HTTP/1.1\r\n".encode())
    assert written.endswith(b"\r\n\r\n" + body)


def test_host_headers_leave_out_the_default_port_and_bracket_ipv6() -> None:
    assert _host_header(("https", "hooks.example.com", 443)) == "hooks.example.com"
    assert _host_header(("http", "hooks.example.com", 443)) == "hooks.example.com:443"
    assert _host_header(("http", "::1", 80)) == "[::1]"
    assert _host_header(("https", "bücher.example", 443)) == "xn--bcher-kva.example"


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Custom": "a\r\nX-Injected: 1"},
        {"X-Custom": "a\nb"},
        {"X-Custom": "a\x00b"},
        {"X Custom": "a"},
        {"X-Custom:": "a"},
        {"": "a"},
    ],
)
def test_a_header_that_could_split_the_request_is_refused(headers: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="invalid header"):
        _request_head(("http", "hooks.example.com", 80), "/in", headers, 2)


def test_a_target_with_spaces_or_control_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="control characters or spaces"):
        _route("http://hooks.example.com/in HTTP/1.1\r\nX-Injected: 1")
