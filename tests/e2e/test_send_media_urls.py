"""Malformed media ``url``s over HTTP: each gets the 400 ``VALIDATION_ERROR`` envelope on every
route that takes a url (they answered 500). Plain HTTP: test_send_media.py."""

from __future__ import annotations

from typing import Any

import pytest
from group_flows import Phone, connected_device, contact
from test_send_media import received, send

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
