"""Reading a receiver's answer: its status, and a connection kept only after an answer whose
end is known and was read (so the next answer on it is the next request's)."""

from __future__ import annotations

import io
from http.client import HTTPException, RemoteDisconnected

import pytest

from gateway.webhooks.delivery.answer import MAX_HEADERS, read_answer
from gateway.webhooks.delivery.constants import MAX_RESPONSE_BYTES


def answer(raw: bytes) -> tuple[tuple[int, bool], bytes]:
    """What read_answer says of ``raw``, and what it left unread."""
    reader = io.BufferedReader(io.BytesIO(raw))
    return read_answer(reader), reader.read()


NEXT = b"HTTP/1.1 204 No Content\r\n\r\n"  # the next request's answer, on the same connection


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"HTTP/1.1 204 No Content\r\nServer: x\r\nDate: y\r\n\r\n", 204),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200),
        (b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", 200),
        (b"HTTP/1.1 503 Busy\r\nContent-Length: 2\r\n\r\nno", 503),
        (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", 202),
        (b"HTTP/1.1 200\nContent-Length: 2\n\nok", 200),  # bare line feeds, no reason phrase
    ],
)
def test_an_answer_whose_end_is_known_is_read_to_its_end_and_keeps_the_connection(
    raw: bytes, status: int
) -> None:
    assert answer(raw + NEXT) == ((status, True), NEXT)


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 200),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 200),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 200),
        (b"HTTP/1.1 200 OK\r\n\r\nuntil the receiver closes", 200),
        (f"HTTP/1.1 200 OK\r\nContent-Length: {MAX_RESPONSE_BYTES + 1}\r\n\r\n".encode(), 200),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 200),  # closed mid-body
        (b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 200),
        (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", 101),
        (b"HTTP/1.1 301 Moved\r\nLocation: /else\r\nConnection: close\r\n\r\n", 301),
    ],
)
def test_any_other_answer_gives_its_status_and_the_connection_is_not_kept(raw: bytes, status: int) -> None:
    (found, keep), _ = answer(raw)
    assert (found, keep) == (status, False)


def test_no_answer_at_all_is_a_disconnection() -> None:
    with pytest.raises(RemoteDisconnected):
        answer(b"")


@pytest.mark.parametrize(
    "raw",
    [
        b"garbage\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/1.1 OK\r\n\r\n",
        b"ICY 200 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * (MAX_HEADERS + 1) + b"\r\n",
        b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n",
    ],
)
def test_a_malformed_answer_is_refused(raw: bytes) -> None:
    with pytest.raises(HTTPException):
        answer(raw)
