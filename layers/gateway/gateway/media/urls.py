"""Whether the ``url`` of a media send may be fetched, checked before anything is sent.

Apart from :mod:`gateway.media.fetch` (which checks every hop again), so that the API
functions, which only check, do not import an HTTP client on their cold start.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from gateway.media.errors import MediaNotFetched, MediaUrlRefused
from gateway.webhooks.addresses import UnsafeUrl, is_public_address, resolve


def check_url(url: str, *, allow_http: bool, local_mode: bool) -> None:
    """Raise :class:`MediaUrlRefused` unless ``url`` may be fetched (before connecting)."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http"):
        raise MediaUrlRefused("url must be an https URL")
    if parts.scheme == "http" and not allow_http:
        raise MediaUrlRefused("url must use https")
    if not parts.hostname:
        raise MediaUrlRefused("url has no host")
    if parts.username or parts.password:
        raise MediaUrlRefused("url must not carry credentials")
    if local_mode:
        return
    try:
        addresses = resolve(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except UnsafeUrl as error:
        raise MediaNotFetched(f"the host of url ({parts.hostname}) does not resolve") from error
    for address in addresses:
        if not is_public_address(address):
            raise MediaUrlRefused(f"url leads to a non-public address ({address})")
