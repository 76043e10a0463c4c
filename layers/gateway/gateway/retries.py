"""Every retry policy of the gateway and the session host, named in one place.

A call that may fail for a moment (throttling, an outage, a concurrent write) is tried again
through tenacity with one of the policies below: how many attempts, for how long at most, and
the pause between them. Every retry is bounded: by its attempts, by a total delay, or, for a
worker's loop that must outlive any failure, by the worker's own life (``until``).

botocore already retries each AWS call a few times on throttling and transient errors (its
retry configuration, per client); these policies cover what it does not: a result that says
"not yet" (a conflicting transaction, unprocessed items), or an outage that outlasts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TypedDict

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    stop_any,
    wait_exponential,
    wait_incrementing,
    wait_none,
    wait_random_exponential,
)
from tenacity.retry import retry_base
from tenacity.stop import stop_base
from tenacity.wait import wait_base

Errors = type[BaseException] | tuple[type[BaseException], ...]
"""The exceptions worth another attempt."""
Retryable = Errors | Callable[[BaseException], bool]
"""Those exceptions, or a predicate that tells them apart."""
Notify = Callable[[RetryCallState], None]
"""Told of each failed attempt before the pause (to log it)."""


class _Options(TypedDict):
    """What tenacity's ``Retrying`` and ``AsyncRetrying`` are made with."""

    stop: stop_base
    wait: wait_base
    retry: retry_base
    reraise: bool
    before_sleep: Notify | None
    retry_error_callback: Callable[[RetryCallState], None] | None


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently one kind of call is tried.

    ``attempts`` and ``within`` (seconds since the first attempt) bound it; a policy with
    neither is for a worker's loop, bounded by the ``until`` its caller gives.
    """

    wait: wait_base
    attempts: int | None = None
    within: float | None = None

    def without_waits(self) -> RetryPolicy:
        """The same bounds without the pauses: for a caller that must not wait (tests)."""
        return replace(self, wait=wait_none())

    def retrying(
        self,
        retry: Retryable,
        *,
        until: Callable[[], bool] | None = None,
        before_sleep: Notify | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> Retrying:
        """A tenacity ``Retrying`` for blocking calls; the last error is raised when the
        bounds are reached (or nothing, when ``until`` ended it)."""
        retrying = Retrying(**self._options(retry, until, before_sleep))
        return retrying if sleep is None else retrying.copy(sleep=sleep)

    def async_retrying(
        self,
        retry: Retryable,
        *,
        until: Callable[[], bool] | None = None,
        before_sleep: Notify | None = None,
    ) -> AsyncRetrying:
        """The same for coroutines, pausing with ``asyncio.sleep``."""
        return AsyncRetrying(**self._options(retry, until, before_sleep))

    def _options(
        self, retry: Retryable, until: Callable[[], bool] | None, before_sleep: Notify | None
    ) -> _Options:
        return _Options(
            stop=self._stop(until),
            wait=self.wait,
            retry=_retry_condition(retry),
            reraise=True,
            before_sleep=before_sleep,
            # A worker's loop ended by its own life ends quietly, whatever the last attempt raised.
            retry_error_callback=None if until is None else _ended,
        )

    def _stop(self, until: Callable[[], bool] | None) -> stop_base:
        stops: list[stop_base] = []
        if self.attempts is not None:
            stops.append(stop_after_attempt(self.attempts))
        if self.within is not None:
            stops.append(stop_after_delay(self.within))
        if until is not None:
            stops.append(_Until(until))
        if not stops:
            raise ValueError("an unbounded retry: give the policy attempts or within, or the call until")
        return stop_any(*stops) if len(stops) > 1 else stops[0]


class _Until(stop_base):
    """Stop once the caller's condition holds (a tenure over, a consumer stopped)."""

    def __init__(self, condition: Callable[[], bool]) -> None:
        self._condition = condition

    def __call__(self, _retry_state: RetryCallState) -> bool:
        return self._condition()


def _retry_condition(retry: Retryable) -> retry_base:
    if isinstance(retry, (type, tuple)):
        return retry_if_exception_type(retry)
    return retry_if_exception(retry)


def _ended(_retry_state: RetryCallState) -> None:
    return None


def failed_with(retry_state: RetryCallState) -> BaseException | None:
    """The exception of the attempt that just failed, for a ``before_sleep`` that logs it."""
    outcome = retry_state.outcome
    return None if outcome is None else outcome.exception()


# --- the policies -----------------------------------------------------------------------------

CONFLICTING_TRANSACTION = RetryPolicy(attempts=6, wait=wait_random_exponential(multiplier=0.02, max=1.0))
"""A DynamoDB transaction cancelled by a concurrent one on the same item (a tenant's device
count): tried again soon, with full jitter so the writers spread out (``devices/store.py``)."""

DELIVERY_LOG_WRITE = RetryPolicy(attempts=5, wait=wait_exponential(multiplier=0.05))
"""The delivery log's BatchWriteItem while DynamoDB leaves items unprocessed: 50 ms doubling
(to 400 ms), then the events go back to their queue (``webhooks/delivery/recorder.py``)."""

SESSION_RECORD_WRITE = RetryPolicy(attempts=3, wait=wait_incrementing(start=0.2, increment=0.2))
"""A write the session host makes for a network event (its device record, a received media
object): a few quick tries, then the event goes on without it, logged (``sink.py``,
``received_media.py``); an event must not wait long for it."""

SENT_MARK = RetryPolicy(attempts=5, wait=wait_incrementing(start=0.5, increment=0.5))
"""Marking a message the network took as sent (``sending/sender.py``): more patient, as a
send left unmarked is later reported interrupted."""

EVENT_PUBLISH = RetryPolicy(wait=wait_exponential(multiplier=0.1, max=5.0))
"""A batch of events the events queue did not take (``publisher.py``): 0.1 s doubling to 5 s,
for as long as the publisher runs (an event is never dropped for an outage); its stop logs
those still unsent."""

WORKER_STEP = RetryPolicy(wait=wait_exponential(multiplier=0.5, max=30.0))
"""A failed step of a send dispatcher (``sending/sender.py``): 0.5 s doubling to 30 s, for
as long as its tenure lasts; a step that succeeds starts the pauses over."""

COMMAND_RECEIVE = RetryPolicy(wait=wait_exponential(multiplier=1.0, max=20.0))
"""ReceiveMessage on a command queue that failed (``consumer.py``): 1 s doubling to 20 s (one
long poll), for as long as the consumer runs."""

__all__ = [
    "COMMAND_RECEIVE",
    "CONFLICTING_TRANSACTION",
    "DELIVERY_LOG_WRITE",
    "EVENT_PUBLISH",
    "SENT_MARK",
    "SESSION_RECORD_WRITE",
    "WORKER_STEP",
    "RetryPolicy",
    "failed_with",
    "wait_none",
]
