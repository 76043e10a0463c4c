"""The retry policies (gateway/retries.py): each one bounded, and a worker's loop ended by its
own life, never retried forever."""

from __future__ import annotations

import asyncio

import pytest

from gateway import retries
from gateway.retries import RetryPolicy


class Outage(Exception):
    """A call that keeps failing."""


def policies() -> dict[str, RetryPolicy]:
    return {name: value for name, value in vars(retries).items() if isinstance(value, RetryPolicy)}


def test_a_policy_without_a_bound_cannot_retry_unless_its_caller_gives_one() -> None:
    # Given a policy with neither attempts nor a total delay
    endless = RetryPolicy(wait=retries.wait_none())

    # When a retry is made with it, without an end: Then it is refused
    with pytest.raises(ValueError, match="unbounded"):
        endless.retrying(Outage)

    # And with an end it stops when told, quietly
    calls: list[int] = []

    def failing() -> None:
        calls.append(1)
        raise Outage

    assert endless.retrying(Outage, until=lambda: len(calls) >= 3)(failing) is None
    assert len(calls) == 3


@pytest.mark.parametrize("name", sorted(name for name, policy in policies().items() if policy.attempts))
def test_a_call_that_keeps_failing_is_tried_the_policys_attempts_then_its_error_raised(name: str) -> None:
    # Given a call that always fails
    policy = policies()[name].without_waits()
    calls: list[int] = []

    async def failing() -> None:
        calls.append(1)
        raise Outage

    # When it is retried with the policy: Then the error comes out after exactly its attempts
    with pytest.raises(Outage):
        asyncio.run(policy.async_retrying(Outage)(failing))
    assert len(calls) == policy.attempts


def test_every_named_policy_is_bounded_or_meant_for_a_worker_loop() -> None:
    # Worker loops (no attempts, no total delay: bounded by the life of the loop) are the three
    # named for them; every other is bounded
    unbounded = {
        name for name, policy in policies().items() if policy.attempts is None and policy.within is None
    }
    assert unbounded == {"WORKER_STEP", "COMMAND_RECEIVE", "EVENT_PUBLISH"}


def test_an_error_not_named_is_not_retried() -> None:
    calls: list[int] = []

    def refused() -> None:
        calls.append(1)
        raise KeyError("not transient")

    with pytest.raises(KeyError):
        retries.SESSION_RECORD_WRITE.without_waits().retrying(Outage)(refused)
    assert len(calls) == 1
