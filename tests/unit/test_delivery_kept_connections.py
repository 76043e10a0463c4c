"""The idle connections the delivery transport keeps: per origin, and in all."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from gateway.webhooks.delivery import transport
from gateway.webhooks.delivery.constants import DELIVERY_THREADS
from gateway.webhooks.delivery.transport import _Kept


class Idle:
    """A kept connection's stand-in: an open socket the other end has not closed."""

    def __init__(self) -> None:
        self.sock, self._peer = socket.socketpair()
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.sock.close()
        self._peer.close()


@pytest.fixture
def made() -> Iterator[list[Idle]]:
    connections: list[Idle] = []
    yield connections
    for connection in connections:
        if not connection.closed:
            connection.close()


def idle(made: list[Idle]) -> Idle:
    made.append(Idle())
    return made[-1]


def test_a_batch_to_one_receiver_keeps_a_connection_per_thread(made: list[Idle]) -> None:
    kept = _Kept()
    origin = ("http", "receiver.example", 80)
    given = [idle(made) for _ in range(transport.CONNECTIONS_PER_ORIGIN + 1)]
    for connection in given:
        kept.give_back(origin, connection)  # type: ignore[arg-type]

    # Then one per thread is kept, the extra one closed, and the kept ones are handed out again
    assert transport.CONNECTIONS_PER_ORIGIN == DELIVERY_THREADS
    assert [c.closed for c in given] == [False] * transport.CONNECTIONS_PER_ORIGIN + [True]
    taken = [kept.take(origin) for _ in range(transport.CONNECTIONS_PER_ORIGIN)]
    assert {id(c) for c in taken} == {id(c) for c in given[:-1]}
    assert kept.take(origin) is None


def test_idle_connections_in_all_are_bounded_least_recently_used_origin_first(
    made: list[Idle], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transport, "IDLE_CONNECTIONS_KEPT", 3)
    kept = _Kept()
    old, recent = ("http", "old.example", 80), ("http", "recent.example", 80)
    old_ones = [idle(made), idle(made)]
    recent_ones = [idle(made), idle(made)]
    for connection in old_ones:
        kept.give_back(old, connection)  # type: ignore[arg-type]
    for connection in recent_ones:
        kept.give_back(recent, connection)  # type: ignore[arg-type]

    # Then the fourth idle connection closed one of the least recently used origin's
    assert [c.closed for c in old_ones + recent_ones] == [True, False, False, False]
    assert kept.take(old) is old_ones[1]
    assert kept.take(old) is None
    assert {id(kept.take(recent)), id(kept.take(recent))} == {id(c) for c in recent_ones}


def test_a_connection_the_receiver_closed_while_idle_is_not_handed_out(made: list[Idle]) -> None:
    kept = _Kept()
    origin = ("http", "receiver.example", 80)
    dropped = idle(made)
    kept.give_back(origin, dropped)  # type: ignore[arg-type]
    dropped._peer.close()  # the receiver closes it

    assert kept.take(origin) is None
    assert dropped.closed
