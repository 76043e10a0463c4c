"""``send_at``: what a planned send's moment may be."""

from __future__ import annotations

import pytest

from gateway.errors import ApiError
from gateway.messages.schedule import MAX_AHEAD_SECONDS, due_at

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z


def test_no_send_at_and_a_moment_not_in_the_future_send_now() -> None:
    assert due_at(None, NOW) is None
    assert due_at("2027-01-15T08:00:00Z", NOW) is None  # now
    assert due_at("2020-01-01T00:00:00+00:00", NOW) is None  # past


def test_a_future_moment_in_any_timezone_is_its_instant() -> None:
    assert due_at("2027-01-15T09:00:00Z", NOW) == NOW + 3600
    assert due_at("2027-01-15T11:00:00+02:00", NOW) == NOW + 3600
    assert due_at("2027-01-15T09:00:00.500Z", NOW) == NOW + 3600.5


@pytest.mark.parametrize(
    "value",
    [
        "tomorrow",
        "2027-01-15T09:00:00",  # no timezone
        "2027-13-01T00:00:00Z",
        "2027-01-15T09:00:00+25:00",  # no such offset
        "2027-02-15T08:00:01Z",  # over 30 days ahead
    ],
)
def test_a_malformed_moment_or_one_too_far_ahead_is_a_validation_error(value: str) -> None:
    with pytest.raises(ApiError) as refused:
        due_at(value, NOW)
    assert (refused.value.status, refused.value.code, refused.value.validation[0]["field"]) == (
        400,
        "VALIDATION_ERROR",
        "send_at",
    )


def test_thirty_days_ahead_is_accepted() -> None:
    assert due_at("2027-02-14T08:00:00Z", NOW) == NOW + MAX_AHEAD_SECONDS
