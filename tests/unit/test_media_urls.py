"""The media ``url`` check: whatever string a caller sends, a refusal with a message (the routes'
400 ``VALIDATION_ERROR``), never an exception of the parser (a 500), in every mode.

A malformed URL is refused before any name is resolved, so these tests make no DNS query.
"""

from __future__ import annotations

import random

import pytest

from gateway.media.errors import MediaError, MediaUrlRefused
from gateway.media.urls import check_url

MALFORMED = [
    "http://[::1",
    "https://[::1/x",
    "https://[zz::1]/",
    "https://[::1]x/",
    "https://exa mple.com/x",
    "https://a b/",
    "https://%zz/",
    "https://exa%20mple.com/",
    "https://a:99999/",
    "https://a:x/",
    "https://a:-1/",
    "https://a:0/",
    "https://a\x00b/",
    "https://exa\tmple.com/",
    "https://exa\nmple.com/",
    "https://\ud800.com/",
    "https://ex\uff03ample.com/",  # a full-width '#' (NFKC makes it a delimiter)
    "https://\u200b/",
    "https://\u0301a.com/",
    "https://ex\u00adample.com/",
    "https://例え..テスト/",
    "https://" + "a" * 64 + ".com/",  # a label over 63 characters
    "https://" + "a." * 127 + "com/",  # a name over 253 characters
    "https://a..b/",
    "https://.a.com/",
    "https://*.a.com/",
]
NOT_FETCHABLE = [
    "https:///x",
    "https:\\\\example.com",
    "//example.com/x",
    "javascript:alert(1)",
    "ftp://a.org/x",
]
CREDENTIALS = ["https://user:pass@example.com/x", "https://user@example.com/x"]


@pytest.mark.parametrize("local_mode", [True, False])
@pytest.mark.parametrize("url", MALFORMED + NOT_FETCHABLE + CREDENTIALS)
def test_a_url_that_cannot_be_fetched_is_refused_with_a_reason(url: str, local_mode: bool) -> None:
    with pytest.raises(MediaUrlRefused) as refused:
        check_url(url, allow_http=True, local_mode=local_mode)
    assert str(refused.value).startswith("url ")


@pytest.mark.parametrize(
    "url",
    [
        "https://bücher.example/a.png",  # a non-ASCII name, fetched in its IDNA form
        "https://example.com/a.png",
        "HTTPS://Example.COM./a.png",
        "https://ex%41mple.com/a.png",
        "https://a_b.example.com/x",
        "http://127.0.0.1:8000/x",
        "https://[::1]:8443/x",
        "https://example.com/" + "a" * 2000,
    ],
)
def test_a_well_formed_url_passes_where_any_host_may_be_fetched(url: str) -> None:
    check_url(url, allow_http=True, local_mode=True)


def test_plain_http_is_refused_unless_allowed() -> None:
    with pytest.raises(MediaUrlRefused, match="https"):
        check_url("http://example.com/a.png", allow_http=False, local_mode=True)
    check_url("http://example.com/a.png", allow_http=True, local_mode=True)


PIECES = [
    "http://", "https://", "HTTPS://", "//", ":", "::", "[", "]", "[::1]", "%", "%zz", "%41", "@", "user:pw@",
    "#", "?", "/", "\\", " ", "\t", "\n", "\x00", ".", "..", "*", "-", "_", "a", "example", "com", "xn--",
    "例え", "ü", "\u200b", "\ud800", "\uff03", "\u0301", "\uff1a", "\uff18", "65536", "0", "80", "1.2.3.4",
    "a" * 70,
]  # fmt: skip


def test_any_string_is_either_taken_or_refused_with_a_reason() -> None:
    # Given strings stitched from the pieces URL parsers trip on (seeded: the same every run)
    rng = random.Random(22)
    urls = ["".join(rng.choices(PIECES, k=rng.randint(1, 9))) for _ in range(3000)]
    # When each is checked as a media url
    # Then each passes or is refused as a media error, never with another exception
    outcomes = set()
    for url in urls:
        try:
            check_url(url, allow_http=True, local_mode=True)
            outcomes.add("taken")
        except MediaError:
            outcomes.add("refused")
    assert outcomes == {"taken", "refused"}
