"""A vote's options named from the outbox: neonize names an option it cannot read as
``sha256:<hex>``; for a poll the gateway sent, the session host names it from the send."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from botocore.exceptions import EndpointConnectionError
from fakes_sending import FakeOutbox

from gateway.messages import outbox
from gateway.messages.sends import SendState
from session_host.aws_calls import AwsCalls
from session_host.network import payloads
from session_host.network.reply_types import option_hash, option_texts
from session_host.outbox_names import PollVoteNamer

HASHED = option_texts([option_hash("Tue"), option_hash("Mon")], None)


def vote(options: list[str], poll_id: str = "3EB0POLL") -> Any:
    return payloads.poll_vote(
        message_id=poll_id,
        chat_jid="1@s.whatsapp.net",
        voter="1@s.whatsapp.net",
        selected_options=options,
        at=1.0,
    )


def named(monkeypatch: pytest.MonkeyPatch, event: Any, find: Any) -> list[str]:
    """The options ``event`` goes on with, ``find`` standing in for the outbox's lookup."""
    monkeypatch.setattr(outbox, "find", find)

    async def run() -> list[str]:
        aws = AwsCalls(1, "test-polls")
        try:
            out = await PollVoteNamer(aws).named(event, "t1", "d1")
        finally:
            aws.shutdown()
        return list(out.data["selected_options"])

    return asyncio.run(run())


def a_poll(store: FakeOutbox, options: list[str]) -> Any:
    return dataclasses.replace(
        store.add("Which?"),
        kind="poll",
        payload={"question": "Which?", "options": options, "multiple_answers": True},
        state=SendState.SENT,
        network_message_id="3EB0POLL",
    )


def test_the_options_of_a_poll_the_gateway_sent_are_named_from_the_outbox(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    poll = a_poll(FakeOutbox(), ["Mon", "Tue", "Wed"])
    assert HASHED[0].startswith("sha256:")
    assert named(monkeypatch, vote(HASHED), lambda *_: poll) == ["Tue", "Mon"]


def test_a_poll_the_gateway_does_not_know_keeps_the_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert named(monkeypatch, vote(HASHED), lambda *_: None) == HASHED


def test_an_outbox_that_cannot_be_read_keeps_the_vote_as_it_came(monkeypatch: pytest.MonkeyPatch) -> None:
    def down(*_: Any) -> None:
        raise EndpointConnectionError(endpoint_url="http://dynamodb")

    assert named(monkeypatch, vote(HASHED), down) == HASHED


def test_a_vote_already_named_is_not_looked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: Any) -> None:
        raise AssertionError("looked up")

    assert named(monkeypatch, vote(["Mon"]), never) == ["Mon"]
