"""Fetching the ``url`` of a media send, under the webhook address rules.

Outside local mode only HTTPS is fetched (plain HTTP when the deployment allows it for
webhooks), and only from public addresses (:func:`gateway.webhooks.addresses.is_public_address`,
the one owner of that rule): every name is resolved and refused when any of its addresses is
not public, and the address each connection actually reaches (the socket's peer) is checked
again before a byte is sent, which also defeats DNS rebinding. Redirects are followed a few
times, each hop checked like the first URL. Proxies from the environment are not used.

A fetch never reads more than its limit: a Content-Length over it is refused before the body
is read, and the body is counted as it streams in and dropped the moment it passes the limit.
The whole fetch, redirects included, is bounded by one deadline; a watchdog shuts the
connection down when it passes, so a server trickling bytes cannot hold the send.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError

from gateway.config import get_settings
from gateway.media.errors import MediaNotFetched, MediaTooLarge, MediaUrlRefused
from gateway.media.limits import FETCH_MAX_REDIRECTS, FETCH_TIMEOUT_SECONDS, MB
from gateway.media.urls import check_url
from gateway.observability import logger
from gateway.webhooks.addresses import is_public_address

_CHUNK_BYTES = 64 * 1024


@dataclass(frozen=True)
class FetchedMedia:
    """The body of a fetched URL and the type its server gave (not trusted: sniff the bytes)."""

    data: bytes
    content_type: str | None


class _RefusedPeer(Exception):
    """A connection reached a non-public address. Not an ``OSError``, so urllib3 and requests
    let it through instead of retrying another address."""


@dataclass
class _FetchState:
    """The sockets of one fetch, so the watchdog (another thread) can shut them down."""

    check_peer: bool
    sockets: list[socket.socket] = field(default_factory=list)
    cut: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def opened(self, sock: socket.socket) -> socket.socket:
        if self.check_peer:
            peer = str(sock.getpeername()[0]).split("%", 1)[0]
            if not is_public_address(peer):
                sock.close()
                raise _RefusedPeer(f"url leads to a non-public address ({peer})")
        with self.lock:
            self.sockets.append(sock)
            if self.cut:
                _shut(sock)
        return sock

    def cut_all(self) -> None:
        with self.lock:
            self.cut = True
            for sock in self.sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


class _GuardedAdapter(HTTPAdapter):
    """Connections that report to the fetch's state (peer check, watchdog) right after connecting."""

    def __init__(self, state: _FetchState) -> None:
        self._state = state  # read by init_poolmanager, which HTTPAdapter.__init__ calls
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        state = self._state

        class GuardedHTTPConnection(HTTPConnection):
            def _new_conn(self) -> socket.socket:
                return state.opened(super()._new_conn())

        class GuardedHTTPSConnection(HTTPSConnection):
            def _new_conn(self) -> socket.socket:
                return state.opened(super()._new_conn())

        class GuardedHTTPPool(HTTPConnectionPool):
            ConnectionCls = GuardedHTTPConnection

        class GuardedHTTPSPool(HTTPSConnectionPool):
            ConnectionCls = GuardedHTTPSConnection

        self.poolmanager.pool_classes_by_scheme = {"http": GuardedHTTPPool, "https": GuardedHTTPSPool}


def fetch(url: str, max_bytes: int, *, timeout: float = FETCH_TIMEOUT_SECONDS) -> FetchedMedia:
    """GET ``url`` and return its body (at most ``max_bytes``) within ``timeout`` seconds.

    Raises :class:`MediaUrlRefused`, :class:`MediaTooLarge` or :class:`MediaNotFetched`.
    """
    settings = get_settings()
    local_mode = settings.local_mode
    allow_http = settings.http_urls_allowed
    state = _FetchState(check_peer=not local_mode)
    deadline = time.monotonic() + timeout
    watchdog = threading.Timer(timeout, state.cut_all)
    watchdog.daemon = True
    watchdog.start()
    try:
        with requests.Session() as session:
            session.trust_env = False  # no proxies or .netrc from the environment
            adapter = _GuardedAdapter(state)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            fetched = _follow(session, url, max_bytes, deadline, allow_http=allow_http, local_mode=local_mode)
        if state.cut:  # a body without a length ends quietly when its connection is shut down
            raise requests.Timeout("the watchdog cut the connection")
        return fetched
    except _RefusedPeer as refused:
        logger.warning("media url refused at connection", extra={"reason": str(refused)})
        raise MediaUrlRefused(str(refused)) from None
    except (requests.RequestException, HTTPError, OSError) as failed:  # urllib3's, when requests lets them by
        if state.cut or time.monotonic() >= deadline:
            raise MediaNotFetched(f"url was not fetched within {timeout:g} s") from None
        raise MediaNotFetched(f"url could not be fetched ({type(failed).__name__})") from None
    finally:
        watchdog.cancel()


def _follow(
    session: requests.Session,
    url: str,
    max_bytes: int,
    deadline: float,
    *,
    allow_http: bool,
    local_mode: bool,
) -> FetchedMedia:
    for _ in range(FETCH_MAX_REDIRECTS + 1):
        check_url(url, allow_http=allow_http, local_mode=local_mode)
        remaining = max(deadline - time.monotonic(), 0.001)
        response = session.get(
            url,
            stream=True,
            allow_redirects=False,
            timeout=(remaining, remaining),
            headers={"Accept-Encoding": "identity"},
        )
        with response:
            if response.is_redirect:
                url = urljoin(url, response.headers["Location"])
                continue
            if response.status_code != 200:
                raise MediaNotFetched(f"the server of url answered HTTP {response.status_code}")
            return FetchedMedia(_read(response, max_bytes, deadline), response.headers.get("Content-Type"))
    raise MediaNotFetched(f"url redirects more than {FETCH_MAX_REDIRECTS} times")


def _read(response: requests.Response, max_bytes: int, deadline: float) -> bytes:
    """The body, refused from its Content-Length or as soon as it passes ``max_bytes``."""
    too_large = f"the media at url are larger than {_size(max_bytes)}, the limit for this send"
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise MediaTooLarge(too_large)
    body = bytearray()
    for chunk in response.iter_content(_CHUNK_BYTES):
        body += chunk
        if len(body) > max_bytes:
            raise MediaTooLarge(too_large)
        if time.monotonic() >= deadline:
            raise requests.Timeout("deadline passed while reading")
    return bytes(body)


def _size(n: int) -> str:
    return f"{n // MB} MB" if n % MB == 0 else f"{n} bytes"
