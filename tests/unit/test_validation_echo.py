"""Echoed validation values are bounded: a long string is cut to 200 characters with a marker."""

from __future__ import annotations

from gateway.errors import MAX_ECHOED_CHARS, TRUNCATION_MARKER, validation_error
from gateway.web.validation import standard_validation_error


def failure(value: object, loc: tuple[str, ...] = ("body", "email"), msg: str = "not an email") -> dict:
    return {"type": "value_error", "loc": loc, "msg": msg, "input": value}


def test_a_value_of_the_limit_is_echoed_whole() -> None:
    value = "x" * MAX_ECHOED_CHARS
    item = standard_validation_error([failure(value)]).validation[0]
    assert item["value"] == value


def test_a_longer_value_is_cut_with_the_marker() -> None:
    value = "ab" * 1_000_000
    item = standard_validation_error([failure(value)]).validation[0]
    assert item["value"] == value[:MAX_ECHOED_CHARS] + TRUNCATION_MARKER


def test_a_long_dict_key_in_the_field_and_the_message_is_cut() -> None:
    key = "K" * 100_000
    error = failure(5, loc=("body", "headers", key), msg=f"Value error, {key!r} is not a valid header name")
    item = standard_validation_error([error]).validation[0]
    assert item["field"] == "headers." + key[:MAX_ECHOED_CHARS] + TRUNCATION_MARKER
    assert len(item["message"]) < 600
    assert item["value"] == 5


def test_values_named_by_the_gateway_are_bounded_too() -> None:
    url = "https://example.com/" + "p" * 5000
    item = validation_error("webhook_url", "not deliverable", url).validation[0]
    assert item["value"] == url[:MAX_ECHOED_CHARS] + TRUNCATION_MARKER
