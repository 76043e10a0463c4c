"""A map that keeps only the latest keys written: what a session remembers of its recent
messages, polls, sends and calls, bounded so a long-lived session never grows without end."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LatestMap(Generic[K, V]):
    """The values of the latest ``capacity`` keys written (a key written again is the latest);
    the oldest is forgotten first. Safe across threads (neonize's handlers write from the
    client's thread, the loop reads)."""

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._items.get(key)
