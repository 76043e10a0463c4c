"""The simulated network's own new-chat cap, as the real network's reachout timelock (463).

Off by default. ``PUT /_simulator/devices/{device_id}/new_chat_cap {"limit", "lock_seconds"}``
sets one for a device: from then on the device may start ``limit`` new one-to-one chats (with
people its account never wrote to or heard from on the network); the next new chat is refused
and locks every new chat for ``lock_seconds``, each refusal naming when the lock ends. When the
lock ends the count starts again. Chats the account already has keep working throughout, and
groups are never capped (a group the account is in is no reach-out).

Pure: the network (:class:`~.core.NetworkCore`) keeps one :class:`NewChatCap` per device under
its lock, reads the time from its clock and decides which chats are known.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..payloads import iso_utc_or_none


@dataclass
class NewChatCap:
    """One device's cap: ``started`` holds the new chats let through since it was set (or
    since its last lock ended); ``locked_until`` the end of a lock in force (epoch seconds)."""

    limit: int
    lock_seconds: float
    started: list[str] = field(default_factory=list)
    locked_until: float | None = None

    def admit(self, chat: str, now: float) -> float | None:
        """A send to the new chat ``chat`` at ``now``: None when it may go (it then counts),
        else when the lock that refuses it ends."""
        if self.locked_until is not None and now >= self.locked_until:
            self.locked_until = None
            self.started.clear()
        if self.locked_until is not None:
            return self.locked_until
        if len(self.started) >= self.limit:
            self.locked_until = now + self.lock_seconds
            return self.locked_until
        self.started.append(chat)
        return None

    def view(self, now: float) -> dict[str, Any]:
        """The cap as the control API shows it: its settings, the new chats started in the
        current count, and the end of a lock in force (ISO 8601, or null)."""
        locked = self.locked_until is not None and now < self.locked_until
        return {
            "limit": self.limit,
            "lock_seconds": self.lock_seconds,
            "new_chats": 0 if self.locked_until is not None and not locked else len(self.started),
            "locked_until": iso_utc_or_none(self.locked_until if locked else None),
        }
