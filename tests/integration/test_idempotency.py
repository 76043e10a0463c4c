"""The Idempotency-Key module against the local stack's IdempotencyTable (moto): the first
answer is returned to repeats, other requests and repeats in progress are refused, and a
failure leaves no record."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from waiting import wait_until

from gateway.errors import ApiError
from gateway.web import idempotency
from gateway.web.idempotency import Answer
from local_stack.stack import LocalStack

REQUEST = {"number": "4915112345678", "text": "hello"}


class Work:
    """Counts its runs and answers ``answer`` (or raises ``error``)."""

    def __init__(self, answer: Answer | None = None) -> None:
        self.runs = 0
        self.answer = answer or Answer(202, {"success": True, "status": "scheduled"})
        self.error: BaseException | None = None

    def __call__(self) -> Answer:
        self.runs += 1
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.fixture
def key(stack: LocalStack) -> str:
    return str(uuid.uuid4())


def once(key: str | None, work: Work, *, scope: tuple[str, ...] = ("t1", "d1"), **overrides: Any) -> Answer:
    arguments: dict[str, Any] = {
        "scope": scope,
        "operation": "send_text",
        "request": REQUEST,
        "run": work,
        "in_progress_seconds": 30,
    }
    return idempotency.once(key, **{**arguments, **overrides})


def test_a_repeat_gets_the_first_answer_and_runs_nothing(key: str) -> None:
    # Given a request answered 202 under a key
    work = Work()
    first = once(key, work)
    # When it is repeated with the same key and request
    second = once(key, work)
    # Then the repeat gets the stored status and body, and the work ran once
    assert first == second == Answer(202, {"success": True, "status": "scheduled"})
    assert work.runs == 1


def test_without_a_key_every_request_runs(stack: LocalStack) -> None:
    work = Work()
    once(None, work)
    once(None, work)
    assert work.runs == 2


def test_the_key_with_another_request_or_operation_is_reused(key: str) -> None:
    work = Work()
    once(key, work)
    for overrides in ({"request": {**REQUEST, "text": "other"}}, {"operation": "send_image"}):
        with pytest.raises(ApiError) as refused:
            once(key, work, **overrides)
        assert (refused.value.status, refused.value.code) == (409, "IDEMPOTENCY_KEY_REUSED")
    assert work.runs == 1


def test_the_same_key_in_another_scope_is_another_request(key: str) -> None:
    work = Work()
    once(key, work, scope=("t1", "d1"))
    once(key, work, scope=("t1", "d2"))
    once(key, work, scope=("t2", "d1"))
    assert work.runs == 3


def test_a_failed_request_leaves_no_record_so_a_retry_runs(key: str) -> None:
    # Given a request whose work failed
    work = Work()
    work.error = ApiError(500, "SEND_FAILED", "network")
    with pytest.raises(ApiError):
        once(key, work)
    # When it is retried with the same key, and then repeated
    work.error = None
    retried = once(key, work)
    repeated = once(key, work)
    # Then the retry ran, and only the repeat was answered from the record
    assert retried == repeated
    assert work.runs == 2


def test_a_repeat_while_the_first_runs_is_refused_in_progress(key: str) -> None:
    # Given a first request still running
    release, started = threading.Event(), threading.Event()

    def slow() -> Answer:
        started.set()
        assert release.wait(10)
        return Answer(200, {"success": True})

    with ThreadPoolExecutor(max_workers=1) as pool:
        first = pool.submit(
            idempotency.once,
            key,
            scope=("t", "d"),
            operation="send_text",
            request=REQUEST,
            run=slow,
            in_progress_seconds=30,
        )
        assert started.wait(10)
        # When it is repeated meanwhile
        with pytest.raises(ApiError) as refused:
            idempotency.once(
                key,
                scope=("t", "d"),
                operation="send_text",
                request=REQUEST,
                run=slow,
                in_progress_seconds=30,
            )
        release.set()
        # Then 409 in progress; the first is answered as usual
        assert (refused.value.status, refused.value.code) == (409, "IDEMPOTENCY_KEY_IN_PROGRESS")
        assert first.result().status_code == 200


class Died(BaseException):
    """A process ending mid-request: no handler runs, the record stays in progress."""


def test_a_record_left_in_progress_stops_blocking_after_its_bound(key: str) -> None:
    # Given a request whose process died while it ran, bounded to 1 s
    work = Work()
    work.error = Died()
    with pytest.raises(Died):
        once(key, work, in_progress_seconds=1)
    work.error = None

    # When the request is repeated: at first it is in progress, after the bound it runs
    def repeat() -> Answer | None:
        try:
            return once(key, work, in_progress_seconds=1)
        except ApiError as error:
            if error.code != "IDEMPOTENCY_KEY_IN_PROGRESS":
                raise
            return None

    assert repeat() is None
    assert wait_until(repeat, 10, interval=0.2, what="the stale record to stop blocking")
    assert work.runs == 2
