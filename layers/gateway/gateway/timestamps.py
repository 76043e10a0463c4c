"""The one form of every timestamp the gateway writes or answers with."""

from __future__ import annotations

from datetime import UTC, datetime


def iso_utc(epoch_seconds: float | None = None) -> str:
    """ISO 8601 / RFC 3339 UTC with milliseconds and ``Z``; now, unless ``epoch_seconds`` is given."""
    moment = datetime.now(UTC) if epoch_seconds is None else datetime.fromtimestamp(epoch_seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
