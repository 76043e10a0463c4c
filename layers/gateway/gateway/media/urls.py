"""Whether the ``url`` of a media send may be fetched, checked before anything is sent.

Apart from :mod:`gateway.media.fetch` (which checks every hop again), so that the API
functions, which only check, do not import an HTTP client on their cold start. The URL is
read by urllib3's parser, the one under the fetcher's HTTP client (and already loaded by
botocore): the host checked is the host the fetch connects to, and a URL that parser cannot
read (a broken IPv6 literal, a space or ``%`` in the host, a bad port, an impossible name) is
refused here, in every mode, rather than failing later.
"""

from __future__ import annotations

import re

from urllib3.exceptions import LocationParseError
from urllib3.util import Url, parse_url

from gateway.media.errors import MediaNotFetched, MediaUrlRefused
from gateway.webhooks.addresses import UnsafeUrl, is_public_address, resolve

_HOST_NAME = re.compile(r"(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?")
"""A host name as DNS takes it (IPv4 literals match too); an IPv6 literal is bracketed."""
_MAX_NAME_CHARS = 254  # 253, and a trailing dot


def check_url(url: str, *, allow_http: bool, local_mode: bool) -> None:
    """Raise :class:`MediaUrlRefused` unless ``url`` may be fetched (before connecting)."""
    parts = _parsed(url)
    if parts.scheme not in ("https", "http"):
        raise MediaUrlRefused("url must be an https URL")
    if parts.scheme == "http" and not allow_http:
        raise MediaUrlRefused("url must use https")
    if not parts.host:
        raise MediaUrlRefused("url has no host")
    if parts.auth:
        raise MediaUrlRefused("url must not carry credentials")
    if local_mode:
        return
    try:
        addresses = resolve(parts.host, parts.port or (443 if parts.scheme == "https" else 80))
    except UnsafeUrl as error:
        raise MediaNotFetched(f"the host of url ({parts.host}) does not resolve") from error
    for address in addresses:
        if not is_public_address(address):
            raise MediaUrlRefused(f"url leads to a non-public address ({address})")


def _parsed(url: str) -> Url:
    """``url`` as the fetcher will read it (a non-ASCII host in its IDNA form); refused when
    it cannot be, when its port is 0, or when its host is neither an address nor a name of
    letters, digits, ``-`` and ``_`` in dot-separated labels of 1 to 63 (253 in all)."""
    try:
        parts = parse_url(url)
    except LocationParseError:
        raise MediaUrlRefused("url is not a valid URL") from None
    host = parts.host or ""
    name_ok = len(host) <= _MAX_NAME_CHARS and _HOST_NAME.fullmatch(host) is not None
    if parts.port == 0 or (host and not host.startswith("[") and not name_ok):
        raise MediaUrlRefused("url is not a valid URL")
    return parts
