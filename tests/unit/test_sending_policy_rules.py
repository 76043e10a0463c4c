"""The sending policy's rules (gateway.devices.sending_policy): UTC days, the warm-up ramp,
until when a send over a limit or to a new chat during a pause waits."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gateway.devices.sending_policy import (
    SendingPolicy,
    Usage,
    effective,
    next_utc_day,
    utc_day,
    warmup_share,
)


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


LATE = at("2026-12-01T23:59:30")
MIDNIGHT = at("2026-12-02T00:00:00")


def test_days_are_utc_days_and_the_next_one_starts_at_midnight() -> None:
    # Given a moment 30 s before midnight UTC (but past it in UTC+1)
    # Then its day is the UTC one, and the next day starts 30 s later
    assert utc_day(LATE) == "2026-12-01"
    assert next_utc_day(LATE) == MIDNIGHT
    assert utc_day(MIDNIGHT) == "2026-12-02"
    assert next_utc_day(MIDNIGHT) == at("2026-12-03T00:00:00")


@pytest.mark.parametrize(
    ("days_since_pairing", "share"),
    [(0, 0.1), (1, 0.1 + 0.9 / 14), (7, 0.55), (13, 0.1 + 0.9 * 13 / 14), (14, 1.0), (40, 1.0)],
)
def test_warm_up_ramps_linearly_from_ten_percent_by_whole_utc_days(
    days_since_pairing: int, share: float
) -> None:
    # Given a device paired at 23:00 UTC, with a 14-day warm-up
    paired = at("2026-12-01T23:00:00")
    # When its share is asked that many days later, at 23:30
    now = paired + days_since_pairing * 86400 + 1800
    # Then it is 10 % plus the linear part of the whole UTC days since
    assert warmup_share(14, paired, now) == pytest.approx(share)


def test_the_warm_up_day_turns_at_midnight_utc_not_a_day_after_pairing() -> None:
    # Given a device paired an hour before midnight UTC: an hour later is its second day
    paired = MIDNIGHT - 3600
    assert warmup_share(10, paired, MIDNIGHT - 1) == pytest.approx(0.1)
    assert warmup_share(10, paired, MIDNIGHT + 1) == pytest.approx(0.19)


def test_without_warm_up_or_a_pairing_time_the_limits_are_whole() -> None:
    assert warmup_share(0, LATE, LATE) == 1.0
    assert warmup_share(14, None, LATE) == 1.0


def test_a_limit_after_warm_up_is_rounded_down_but_never_below_one() -> None:
    assert effective(200, 0.1) == 20
    assert effective(5, 0.1) == 1
    assert effective(30, 0.55) == 16
    assert effective(None, 0.1) is None


def test_a_send_over_the_daily_limit_waits_for_the_next_utc_day() -> None:
    # Given a device that sent its 2 messages of today
    policy = SendingPolicy(daily_send_limit=2, usage=Usage("2026-12-01", 2, 0))
    # Then any send waits for midnight, to a known chat or not
    assert policy.hold(LATE, new_chat=False) == MIDNIGHT
    assert policy.hold(LATE, new_chat=True) == MIDNIGHT
    # And after midnight the day's count starts again: it may go
    assert policy.hold(MIDNIGHT + 1, new_chat=False) is None
    assert policy.today(MIDNIGHT + 1) == Usage("2026-12-02", 0, 0)


def test_the_new_chat_limit_holds_only_sends_to_new_chats() -> None:
    # Given a device that wrote to its 1 new chat of today, with room for more messages
    policy = SendingPolicy(daily_send_limit=10, new_chat_daily_limit=1, usage=Usage("2026-12-01", 3, 1))
    # Then a new chat waits for midnight, a known chat goes now
    assert policy.hold(LATE, new_chat=True) == MIDNIGHT
    assert policy.hold(LATE, new_chat=False) is None


def test_warm_up_lowers_the_limits_of_the_day() -> None:
    # Given a device paired today with a 10-day warm-up: 10 % of 30 = 3 a day
    policy = SendingPolicy(
        daily_send_limit=30, warmup_days=10, paired_at=LATE - 3600, usage=Usage("2026-12-01", 3)
    )
    # Then its fourth message of the day waits, and today's limits say why
    assert policy.limits(LATE) == (3, None)
    assert policy.hold(LATE, new_chat=False) == MIDNIGHT
    assert policy.usage_today(LATE) == {
        "day": "2026-12-01",
        "sent": 3,
        "new_chats": 0,
        "daily_limit": 3,
        "new_chat_limit": None,
    }


def test_a_pause_holds_new_chats_until_its_end_and_nothing_else() -> None:
    # Given a device paused for 10 minutes, no limit set
    policy = SendingPolicy(paused_until=LATE + 600)
    # Then new chats wait for the end of the pause, known chats go
    assert policy.holds_any(LATE)
    assert policy.hold(LATE, new_chat=True) == LATE + 600
    assert policy.hold(LATE, new_chat=False) is None
    # And once it is over nothing holds any send
    assert not policy.holds_any(LATE + 601)


def test_a_pause_past_midnight_and_a_spent_new_chat_limit_wait_for_the_later() -> None:
    policy = SendingPolicy(
        new_chat_daily_limit=1, paused_until=MIDNIGHT + 3600, usage=Usage("2026-12-01", 1, 1)
    )
    assert policy.hold(LATE, new_chat=True) == MIDNIGHT + 3600


def test_no_policy_holds_nothing() -> None:
    policy = SendingPolicy(usage=Usage("2026-12-01", 10_000, 10_000))
    assert not policy.holds_any(LATE)
    assert policy.hold(LATE, new_chat=True) is None


def test_two_views_of_the_counts_keep_the_larger_of_the_later_day() -> None:
    assert Usage("2026-12-01", 3, 1).merged(Usage("2026-12-01", 2, 2)) == Usage("2026-12-01", 3, 2)
    assert Usage("2026-12-01", 9, 9).merged(Usage("2026-12-02", 1, 0)) == Usage("2026-12-02", 1, 0)
    assert Usage("2026-12-01", 1, 0).counted(new_chat=True) == Usage("2026-12-01", 2, 1)
