"""Which webhook URLs the gateway may call (server-side request forgery guard).

Outside local mode a receiver must be on the public internet: a URL whose host is, or
resolves to, a loopback, private, link-local, multicast, reserved or otherwise non-global
address is refused, in every spelling (IPv4, IPv6, IPv4-mapped and IPv4-compatible IPv6,
6to4 and Teredo embeddings). The same check runs at configuration time on every address the
name resolves to, and at delivery time on the address actually connected to.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeUrl(ValueError):
    """The URL may not be called; the message says why (safe to show to the caller)."""


def is_public_address(address: str | IPAddress) -> bool:
    """True only for a global unicast address, looking through IPv6 forms that embed IPv4."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip.packed[:12] == bytes(12):  # IPv4-compatible ::a.b.c.d
            embedded = ipaddress.IPv4Address(ip.packed[12:])
        if embedded is not None and not is_public_address(embedded):
            return False
    return bool(ip.is_global) and not ip.is_multicast and not ip.is_reserved


def check_url(url: str, *, allow_http: bool, local_mode: bool) -> None:
    """Raise :class:`UnsafeUrl` unless the gateway may deliver to ``url``.

    HTTPS always; plain HTTP only when the deployment allows it. In local mode any host is
    accepted (receivers on loopback are the point of local development).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http"):
        raise UnsafeUrl("webhook_url must be an https URL")
    if parts.scheme == "http" and not allow_http:
        raise UnsafeUrl("webhook_url must use https")
    if not parts.hostname:
        raise UnsafeUrl("webhook_url has no host")
    if parts.username or parts.password:
        raise UnsafeUrl("webhook_url must not carry credentials")
    if local_mode:
        return
    for address in resolve(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)):
        if not is_public_address(address):
            raise UnsafeUrl(f"webhook_url resolves to a non-public address ({address})")


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (a literal address resolves to itself)."""
    try:
        return [str(ipaddress.ip_address(host.strip("[]")))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise UnsafeUrl(f"webhook_url host {host!r} does not resolve") from error
    return sorted({str(info[4][0]).split("%", 1)[0] for info in infos})
