"""The event sink of the tests that open network sessions themselves: it records every event.

Shared by the neonize adapter's unit tests (``tests/unit/session_host``) and its real-library
tier (``tests/real_neonize``); ``tests/`` is on the path of every test folder.
"""

from __future__ import annotations

from typing import Any

from session_host.network.port import NetworkEvent


class RecordingSink:
    """A session's event sink: records every event in order."""

    def __init__(self) -> None:
        self.events: list[NetworkEvent] = []

    async def __call__(self, event: NetworkEvent) -> None:
        self.events.append(event)

    def named(self, *names: str) -> list[NetworkEvent]:
        return [event for event in self.events if event.name in names]

    def pairs(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, data) of every event, in order."""
        return [(event.name, dict(event.data)) for event in self.events]
