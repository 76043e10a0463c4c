"""The rules of a device's ``proxy_url``: what the API accepts, and how it is shown.

A device's network connection may go through a proxy of its own (``docs/devices.md``): an
``http://``, ``https://`` or ``socks5://`` URL with a host (a name or an IPv4 address: an
IPv6 proxy goes by its name) and a port, optional credentials
(``user:password@``) and nothing else. The URL is stored as given, with its password; every
view of it (the API, logs, the simulator) shows the password as ``***``.

Outside local mode the proxy's host must be, and resolve only to, public addresses (the
check of webhook and media URLs, ``gateway.webhooks.addresses``): a tenant may not make the
session hosts open connections inside the gateway's own network.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

from gateway.webhooks.addresses import UnsafeUrl, is_public_address, resolve

PROXY_SCHEMES = ("http", "https", "socks5")
MAX_PROXY_URL_LENGTH = 2048
REDACTED = "***"
PROXY_RULE = (
    "an http://, https:// or socks5:// URL with a host (a name or an IPv4 address) and a port, "
    "optional user:password@ "
    f"credentials, no path, query or fragment, at most {MAX_PROXY_URL_LENGTH} characters"
)
_CREDENTIAL = r"[A-Za-z0-9._~%!$&'()*+,;=-]"
_PORT = r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
PROXY_URL_PATTERN = (
    rf"^(?:{'|'.join(PROXY_SCHEMES)})://"
    rf"(?:{_CREDENTIAL}+(?::(?:{_CREDENTIAL}|:)*)?@)?"  # user, then an optional password
    r"(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?"  # a host name or an IPv4 address
    rf":{_PORT}/?$"
)
""":data:`PROXY_RULE` as a pattern (the API's schema shows it); the checks below say which
part a URL breaks."""
_PROXY_URL = re.compile(PROXY_URL_PATTERN)


class ProxyUrlError(ValueError):
    """The URL breaks :data:`PROXY_RULE`; the message says how."""


def check_proxy_url(value: str, *, local_mode: bool) -> str:
    """``value`` stripped, when it follows :data:`PROXY_RULE` (and, unless ``local_mode``,
    leads to public addresses only); else :class:`ProxyUrlError`."""
    url = value.strip()
    if not url or len(url) > MAX_PROXY_URL_LENGTH or not url.isascii() or not url.isprintable():
        raise ProxyUrlError(PROXY_RULE)
    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a port that is not a number from 0 to 65535
    except ValueError:
        raise ProxyUrlError(PROXY_RULE) from None
    if parts.scheme not in PROXY_SCHEMES:
        raise ProxyUrlError(f"the scheme must be one of {', '.join(PROXY_SCHEMES)}")
    if not port:
        raise ProxyUrlError("a port is required (e.g. :1080)")
    if not parts.hostname:
        raise ProxyUrlError("a host is required: a name or an IP address")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "?" in url or "#" in url:
        raise ProxyUrlError("no path, query or fragment")
    if parts.password is not None and not parts.username:
        raise ProxyUrlError("a password needs a user name")
    if _PROXY_URL.fullmatch(url) is None:
        raise ProxyUrlError(f"a host name or IPv4 address, credentials of URL characters: {PROXY_RULE}")
    if not local_mode:
        _check_public(parts.hostname, port)
    return url


def _check_public(host: str, port: int) -> None:
    try:
        addresses = resolve(host, port)
    except UnsafeUrl:
        raise ProxyUrlError(f"the proxy's host ({host}) does not resolve") from None
    for address in addresses:
        if not is_public_address(address):
            raise ProxyUrlError(f"the proxy's host leads to a non-public address ({address})")


def redacted(url: str | None) -> str | None:
    """``url`` with its password replaced by :data:`REDACTED` (the user name stays)."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.password is None:
        return url
    credentials, _, host = parts.netloc.rpartition("@")
    user = credentials.partition(":")[0]
    return urlunsplit((parts.scheme, f"{user}:{REDACTED}@{host}", parts.path, parts.query, parts.fragment))
