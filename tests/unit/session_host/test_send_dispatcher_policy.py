"""The send dispatcher under a sending policy: sends over a limit held (their callers told
when they go) without blocking those allowed, new chats looked up once, usage counted,
jitter within its bounds, and the pause after a rate refusal (short real times)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

from fakes_sending import Rig

from gateway import clock
from gateway.devices.sending_policy import SendingPolicy, Usage, next_utc_day, utc_day
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import SendState
from gateway.webhooks.catalog import EventName
from session_host.network.port import NetworkError, RateLimit
from session_host.sending import Dispatched

KNOWN = "15550002222@s.whatsapp.net"
NEW = "15550003333@s.whatsapp.net"


def today(sent: int = 0, new_chats: int = 0) -> Usage:
    return Usage(utc_day(clock.now()), sent, new_chats)


def test_a_send_over_the_daily_limit_is_held_for_the_next_utc_day_and_its_caller_told() -> None:
    async def scenario() -> tuple[Rig, Dispatched]:
        # Given a device that sent its 1 message of today, and a send waited on
        rig = Rig()
        rig.store.policy = SendingPolicy(daily_send_limit=1, usage=today(sent=1))
        send = rig.store.add("over")
        rig.start()
        # When the dispatcher looks at it
        outcome = await asyncio.wait_for(rig.sender.watch(send.send_key), 2)
        await rig.stop()
        return rig, outcome

    rig, outcome = asyncio.run(scenario())
    # Then its caller is told it goes at the next UTC midnight, and nothing went out
    assert outcome.scheduled_for == next_utc_day(clock.now())
    assert outcome.error is None
    assert rig.session.texts() == []
    assert all(send.state is SendState.QUEUED for send in rig.store.items.values())


def test_new_chats_over_their_limit_wait_while_known_chats_go_on() -> None:
    async def scenario() -> Rig:
        # Given a device that wrote to its 1 new chat of today, a new chat's send first,
        # then two sends to a chat it knows
        rig = Rig()
        rig.store.policy = SendingPolicy(new_chat_daily_limit=1, usage=today(sent=1, new_chats=1))
        rig.store.chats.add(KNOWN)
        rig.store.add("to new", chat_jid=NEW)
        rig.store.add("known 1", chat_jid=KNOWN)
        rig.store.add("known 2", chat_jid=KNOWN)
        # When the dispatcher runs
        rig.start()
        await rig.until(lambda: len(rig.store.counted) == 2)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then the known chat's sends went, the new chat's stays queued behind nobody
    assert rig.session.texts() == ["known 1", "known 2"]
    held = next(send for send in rig.store.items.values() if send.chat_jid == NEW)
    assert held.state is SendState.QUEUED
    # And each chat was looked up once, each send counted (neither to a new chat)
    assert sorted(rig.store.lookups) == sorted([NEW, KNOWN])
    assert rig.store.counted == [(utc_day(clock.now()), False)] * 2
    assert rig.sender.rules.policy.usage == today(sent=3, new_chats=1)


def test_without_a_policy_nothing_is_looked_up_and_a_first_send_to_a_chat_counts_as_new() -> None:
    async def scenario() -> Rig:
        # Given a device without policy, two sends to a chat it never wrote to
        rig = Rig()
        rig.store.add("one", chat_jid=NEW)
        rig.store.add("two", chat_jid=NEW)
        # When they go out
        rig.start()
        await rig.until(lambda: len(rig.store.counted) == 2)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then no chat was looked up before a dispatch; the record of the first send found the chat new
    assert rig.session.texts() == ["one", "two"]
    assert rig.store.lookups == []
    assert rig.store.chats == {NEW}
    assert [new for _, new in rig.store.counted] == [True, False]
    assert rig.sender.rules.policy.usage == today(sent=2, new_chats=1)


def test_jitter_adds_a_drawn_time_between_zero_and_its_bound_to_the_interval() -> None:
    draws: list[tuple[float, float]] = []

    def draw(low: float, high: float) -> float:
        draws.append((low, high))
        return high

    async def scenario() -> Rig:
        # Given an interval of 0.1 s and a jitter of up to 1 s, drawn at a fifth of its bound
        rig = Rig(draw=lambda low, high: draw(low, high) * 0.2)
        rig.store.interval = 0.1
        rig.store.policy = SendingPolicy(send_jitter_seconds=1)
        for text in "abc":
            rig.store.add(text)
        # When they are dispatched
        rig.start()
        await rig.until(lambda: len(rig.session.texts()) == 3)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then each gap drew its jitter between 0 and the bound, and the sends are that much further apart
    assert set(draws) == {(0.0, 1.0)}
    times = [rig.session.at(text) for text in "abc"]
    assert all(later - earlier >= 0.29 for earlier, later in itertools.pairwise(times))


def test_a_rate_refusal_pauses_new_chats_requeues_the_send_for_the_end_and_known_chats_go_on() -> None:
    async def scenario() -> tuple[Rig, Dispatched, float, list[str]]:
        # Given a device that knows one chat, and the network refusing the next send for
        # rate (a 463 until 0.6 s from now)
        rig = Rig()
        rig.store.chats.add(KNOWN)
        until = clock.now() + 0.6
        rig.session.fail_with = NetworkError.rate_limited("463", RateLimit.REACHOUT_TIMELOCK, until)
        refused = rig.store.add("to new", chat_jid=NEW)
        watched = rig.sender.watch(refused.send_key)
        rig.start()
        outcome = await asyncio.wait_for(watched, 2)
        rig.session.fail_with = None
        # When a known chat's and another new chat's sends follow during the pause
        rig.sender.offer(rig.store.add("known", chat_jid=KNOWN))
        rig.sender.offer(rig.store.add("other new", chat_jid="15550004444@s.whatsapp.net"))
        await rig.until(lambda: rig.session.texts()[:1] == ["known"])
        during = list(rig.session.texts())
        # Then after the pause the new chats' sends go out too
        await rig.until(lambda: len(rig.session.texts()) == 3)
        await rig.stop()
        return rig, outcome, until, during

    rig, outcome, until, during = asyncio.run(scenario())
    # The refused send's caller was told it goes at the end of the pause, not a failure
    assert (outcome.scheduled_for, outcome.error) == (until, None)
    # During the pause only the known chat's send went
    assert during == ["known"]
    assert sorted(rig.session.texts()[1:]) == ["other new", "to new"]
    # The pause was recorded and announced with the network's reason and time
    assert rig.store.paused_until == until
    (limited,) = [event for event in rig.published if event.name is EventName.DEVICE_SEND_LIMITED]
    assert limited.data["reason"] == "reachout_timelock"
    assert limited.data["device_id"] == rig.owned.device_id
    # And the refused send was never failed
    assert all(send.state is SendState.SENT for send in rig.store.items.values())


def test_a_rate_refusal_that_names_no_time_pauses_for_an_hour() -> None:
    async def scenario() -> tuple[Rig, Dispatched, float]:
        rig = Rig()
        rig.session.fail_with = NetworkError(ErrorKind.RATE_LIMITED, "rate-overlimit")
        send = rig.store.add("refused", chat_jid=NEW)
        watched = rig.sender.watch(send.send_key)
        started = clock.now()
        rig.start()
        outcome = await asyncio.wait_for(watched, 2)
        await rig.stop()
        return rig, outcome, started

    rig, outcome, started = asyncio.run(scenario())
    assert outcome.scheduled_for is not None
    assert 3599 < outcome.scheduled_for - started < 3602
    (send,) = rig.store.items.values()
    assert (send.state, send.not_before) == (SendState.QUEUED, outcome.scheduled_for)
    (limited,) = [event for event in rig.published if event.name is EventName.DEVICE_SEND_LIMITED]
    assert limited.data["reason"] == "rate_overlimit"


def test_a_policy_a_command_brings_applies_from_the_next_dispatch() -> None:
    rig = Rig()
    rig.sender.apply(replace(SendingPolicy(), daily_send_limit=5, send_jitter_seconds=3))
    assert (rig.sender.rules.policy.daily_send_limit, rig.sender.rules.policy.send_jitter_seconds) == (5, 3)
