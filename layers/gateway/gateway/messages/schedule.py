"""``send_at``: when a send (or a status) is to go out, as the request names it.

ISO 8601 with a timezone (``2026-12-01T09:00:00Z``, ``...+02:00``), at most
:data:`MAX_AHEAD_SECONDS` ahead; anything else is 400 ``VALIDATION_ERROR`` on ``send_at``.
A moment that is not in the future (now, or past) asks for nothing later: the send goes out
at once, exactly as without ``send_at`` (:func:`due_at` answers None).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gateway import clock
from gateway.errors import validation_error
from gateway.web.fields import omittable

MAX_AHEAD_SECONDS = 30 * 24 * 3600
"""The furthest ahead a send may be planned: the outbox keeps an unfinished send 30 days."""


def send_at_field() -> Any:
    """The ``send_at`` field of every send and status publish request."""
    return omittable(
        {"format": "date-time"},
        max_length=64,
        description="Send at this moment instead of now: ISO 8601 with a timezone, at most 30 days "
        "ahead (else 400 `VALIDATION_ERROR`). Answered 202 `scheduled` at once; the send waits in "
        "the device's outbox (GET /sends) and can be canceled until it goes out. A moment not in "
        "the future sends at once (docs/messages.md#planned-sends)",
        examples=["2026-12-01T09:00:00Z"],
    )


def due_at(send_at: str | None, now: float | None = None) -> float | None:
    """The epoch seconds ``send_at`` names when it is in the future, else None (send now);
    raises 400 ``VALIDATION_ERROR`` for a malformed moment or one too far ahead."""
    if send_at is None:
        return None
    try:
        moment = datetime.fromisoformat(send_at.strip())
        due = moment.timestamp() if moment.tzinfo is not None else None
    except ValueError:
        raise validation_error("send_at", "not an ISO 8601 date and time", send_at) from None
    if due is None:
        raise validation_error("send_at", "give a timezone (Z or +hh:mm)", send_at)
    now = clock.now() if now is None else now
    if due - now > MAX_AHEAD_SECONDS:
        raise validation_error("send_at", "at most 30 days ahead", send_at)
    return due if due > now else None
