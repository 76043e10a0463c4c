"""A device's sending policy and its rules (docs/sending-policy.md): the one owner of what a
day is, how warm-up ramps the limits, and until when a send over a limit waits.

Days are UTC days. ``daily_send_limit`` caps the messages a device sends in a day,
``new_chat_daily_limit`` those to chats it never wrote to or heard from; ``warmup_days``
ramps both linearly from 10 % on the day of pairing to 100 % that many days later (a step
per UTC day, so a day's limits hold all day and a send over one waits for the next day).
While the network's rate refusal pauses the device (``sending_paused_until``), sends to new
chats wait for the pause to end. Every field is off by default.

Pure functions of the record's fields and "now" (:mod:`gateway.clock`): the API shows them
(``usage_today``), the session host's dispatcher applies them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

WARMUP_START_SHARE = 0.1
"""The share of the limits a device in warm-up has on the day it paired."""
DEFAULT_PAUSE_SECONDS = 3600.0
"""How long new-chat sends pause after a rate refusal that does not say until when."""
MAX_LIMIT = 10_000
MAX_WARMUP_DAYS = 90
MAX_JITTER_SECONDS = 60
POLICY_SETTINGS = ("daily_send_limit", "new_chat_daily_limit", "warmup_days", "send_jitter_seconds")
"""The policy's fields PATCH /devices/{id} sets (the record's attributes of the same name)."""


def utc_day(at: float) -> str:
    """The UTC day of ``at`` (epoch seconds), ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(at, UTC).date().isoformat()


def next_utc_day(at: float) -> float:
    """The first moment of the UTC day after the one of ``at``."""
    day = datetime.fromtimestamp(at, UTC).date() + timedelta(days=1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def epoch_of(iso: str | None) -> float | None:
    """Epoch seconds of an ISO 8601 time as the record keeps it (None stays None)."""
    return datetime.fromisoformat(iso).timestamp() if iso else None


def warmup_share(warmup_days: int, paired_at: float | None, now: float) -> float:
    """The share of the limits in force on the UTC day of ``now``: 10 % on the day of
    pairing, rising linearly by whole days to 100 % ``warmup_days`` days later."""
    if warmup_days <= 0 or paired_at is None:
        return 1.0
    days = (datetime.fromtimestamp(now, UTC).date() - datetime.fromtimestamp(paired_at, UTC).date()).days
    if days >= warmup_days:
        return 1.0
    return WARMUP_START_SHARE + (1 - WARMUP_START_SHARE) * max(days, 0) / warmup_days


def effective(limit: int | None, share: float) -> int | None:
    """A limit after warm-up: at least 1 (a device in warm-up still sends), None = no limit."""
    return None if limit is None else max(1, math.floor(limit * share + 1e-9))


@dataclass(frozen=True)
class Usage:
    """What the device sent on one UTC day: messages, and messages to new chats."""

    day: str = ""
    sent: int = 0
    new_chats: int = 0

    def on(self, day: str) -> Usage:
        """This usage if it is of ``day``, else a day with nothing sent yet."""
        return self if self.day == day else Usage(day)

    def counted(self, *, new_chat: bool) -> Usage:
        return replace(self, sent=self.sent + 1, new_chats=self.new_chats + int(new_chat))

    def merged(self, other: Usage) -> Usage:
        """The larger count of each, of the later day (two views of one device's counters)."""
        if self.day != other.day:
            return max(self, other, key=lambda usage: usage.day)
        return Usage(self.day, max(self.sent, other.sent), max(self.new_chats, other.new_chats))


@dataclass(frozen=True)
class SendingPolicy:
    """A device's sending policy and where it stands (the record's fields, times as epochs)."""

    daily_send_limit: int | None = None
    new_chat_daily_limit: int | None = None
    warmup_days: int = 0
    send_jitter_seconds: int = 0
    paired_at: float | None = None
    paused_until: float | None = None
    usage: Usage = Usage()

    @classmethod
    def of(cls, record: Any) -> SendingPolicy:
        """The policy of a device record (``gateway.models.DeviceModel``, or a read of some of
        its attributes). A device paired before pairing was recorded counts from its
        creation: it cannot have paired earlier, and most pair within minutes."""
        paired = getattr(record, "paired_at", None) or getattr(record, "created_at", None)
        return cls(
            **settings_of(record),
            paired_at=epoch_of(paired),
            paused_until=epoch_of(record.sending_paused_until),
            usage=Usage(
                record.usage_day or "",
                _integer(record.usage_sent) or 0,
                _integer(record.usage_new_chats) or 0,
            ),
        )

    def with_settings(self, settings: Any) -> SendingPolicy:
        """This policy with the four settings of ``settings`` (as a send's command carries them)."""
        return replace(self, **{name: getattr(settings, name) for name in POLICY_SETTINGS})

    def limits(self, now: float) -> tuple[int | None, int | None]:
        """Today's limits after warm-up: (daily, new-chat); None = no limit."""
        share = warmup_share(self.warmup_days, self.paired_at, now)
        return effective(self.daily_send_limit, share), effective(self.new_chat_daily_limit, share)

    def today(self, now: float) -> Usage:
        return self.usage.on(utc_day(now))

    def paused(self, now: float) -> bool:
        return self.paused_until is not None and self.paused_until > now

    def watches_new_chats(self, now: float) -> bool:
        """Whether it matters now that a chat is new (a new-chat limit, or a pause)."""
        return self.new_chat_daily_limit is not None or self.paused(now)

    def holds_any(self, now: float) -> bool:
        """Whether any send may have to wait (a limit, or a pause): else no rule is looked at."""
        return self.daily_send_limit is not None or self.watches_new_chats(now)

    def hold(self, now: float, *, new_chat: bool) -> float | None:
        """Until when a send (to a new chat when ``new_chat``) must wait; None: it may go now.
        Over a day's limit it waits for the next UTC day; a new chat also for the pause."""
        daily, new_chats = self.limits(now)
        used = self.today(now)
        until: list[float] = []
        if daily is not None and used.sent >= daily:
            until.append(next_utc_day(now))
        if new_chat:
            if new_chats is not None and used.new_chats >= new_chats:
                until.append(next_utc_day(now))
            if self.paused_until is not None and self.paused_until > now:
                until.append(self.paused_until)
        return max(until, default=None)

    def usage_today(self, now: float) -> dict[str, Any]:
        """``usage_today`` as the device shows it."""
        used = self.today(now)
        daily, new_chats = self.limits(now)
        return {
            "day": used.day,
            "sent": used.sent,
            "new_chats": used.new_chats,
            "daily_limit": daily,
            "new_chat_limit": new_chats,
        }


def settings_of(record: Any) -> dict[str, Any]:
    """The four settings of a device record, by name (absent: off)."""
    return {
        "daily_send_limit": _integer(record.daily_send_limit),
        "new_chat_daily_limit": _integer(record.new_chat_daily_limit),
        "warmup_days": _integer(record.warmup_days) or 0,
        "send_jitter_seconds": _integer(record.send_jitter_seconds) or 0,
    }


def _integer(value: Any) -> int | None:
    return None if value is None else int(value)
