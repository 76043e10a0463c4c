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
from gateway.web.idempotency import StoredResponse
from local_stack.stack import LocalStack

REQUEST = {"number": "4915112345678", "text": "hello"}


class Work:
    """Counts its runs and answers ``answer`` (or raises ``error``)."""

    def __init__(self, answer: StoredResponse | None = None) -> None:
        self.runs = 0
        self.answer = answer or StoredResponse(202, {"success": True, "status": "scheduled"})
        self.error: BaseException | None = None

    def __call__(self) -> StoredResponse:
        self.runs += 1
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.fixture
def key(stack: LocalStack) -> str:
    return str(uuid.uuid4())


def once(
    key: str | None, work: Work, *, scope: tuple[str, ...] = ("t1", "d1"), **overrides: Any
) -> StoredResponse:
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
    assert first == second == StoredResponse(202, {"success": True, "status": "scheduled"})
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

    def slow() -> StoredResponse:
        started.set()
        assert release.wait(10)
        return StoredResponse(200, {"success": True})

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
    def repeat() -> StoredResponse | None:
        try:
            return once(key, work, in_progress_seconds=1)
        except ApiError as error:
            if error.code != "IDEMPOTENCY_KEY_IN_PROGRESS":
                raise
            return None

    assert repeat() is None
    assert wait_until(repeat, 10, interval=0.2, what="the stale record to stop blocking")
    assert work.runs == 2


def test_an_unclear_failure_keeps_the_key_bound_and_a_repeat_gets_the_error_without_running(key: str) -> None:
    # Given a request whose work ended without a clear outcome
    work = Work()
    work.error = idempotency.Unclear(ApiError(503, "SERVICE_UNAVAILABLE", "no answer in time"))
    with pytest.raises(ApiError) as first:
        once(key, work)
    # When it is repeated with the same key, the work now able to succeed
    work.error = None
    repeated = once(key, work)
    # Then the first got the error, saying the key stays bound; the repeat got it again, stored,
    # and the work never ran a second time
    assert (first.value.status, first.value.code) == (503, "SERVICE_UNAVAILABLE")
    assert first.value.message.startswith("no answer in time. The outcome is unclear")
    assert not isinstance(first.value, idempotency.Unclear)
    assert repeated.status_code == 503
    assert repeated.body["error_code"] == "SERVICE_UNAVAILABLE"
    assert repeated.body["error"] == first.value.message
    assert work.runs == 1


def test_a_repeat_of_a_bound_answer_gets_the_state_now(key: str) -> None:
    # Given a request answered 202 and bound to what it started, and one that failed unclearly
    scheduled = StoredResponse(202, {"status": "scheduled"}, bound={"send_key": "k1"})
    looked_up: list[dict[str, Any]] = []

    def now(bound: dict[str, Any]) -> StoredResponse | None:
        looked_up.append(bound)
        return StoredResponse(200, {"status": "sent"}) if bound["send_key"] == "k1" else None

    once(key, Work(scheduled), now=now)
    unclear_key = str(uuid.uuid4())
    failing = Work()
    failing.error = idempotency.Unclear(
        ApiError(500, "DEVICE_ERROR", "host failed"), bound={"send_key": "k2"}
    )
    with pytest.raises(ApiError):
        once(unclear_key, failing, now=now)

    # When both are repeated
    sent = once(key, Work(), now=now)
    unknown = once(unclear_key, Work(), now=now)

    # Then the first is answered as it is now, and the second (nothing known) as it was
    assert sent == StoredResponse(200, {"status": "sent"})
    assert (unknown.status_code, unknown.body["error_code"]) == (500, "DEVICE_ERROR")
    assert looked_up == [{"send_key": "k1"}, {"send_key": "k2"}]


def test_a_failure_of_the_state_now_is_the_repeats_answer(key: str) -> None:
    # Given a bound answer whose work has failed since
    once(key, Work(StoredResponse(202, {"status": "scheduled"}, bound={"send_key": "k"})))

    def now(_bound: dict[str, Any]) -> StoredResponse | None:
        raise ApiError(500, "SEND_FAILED", "the network failed it")

    # When it is repeated, twice
    for _ in range(2):
        with pytest.raises(ApiError) as failed:
            once(key, Work(), now=now)
        # Then each repeat answers the failure, and the key stays bound (nothing runs)
        assert failed.value.code == "SEND_FAILED"


def test_forget_deletes_the_records_of_one_device_or_one_tenant(stack: LocalStack) -> None:
    # Given records of two devices of a tenant, and of another tenant
    tenant, other = str(uuid.uuid4()), str(uuid.uuid4())
    keys = {scope: str(uuid.uuid4()) for scope in ((tenant, "d1"), (tenant, "d2"), (other, "d1"))}
    work = Work()
    for scope, key in keys.items():
        once(key, work, scope=scope)

    # When the first device's records are forgotten, then the whole tenant's
    forgot_device = idempotency.forget(tenant, "d1")
    again = [
        once(keys[(tenant, "d1")], work, scope=(tenant, "d1")),
        once(keys[(tenant, "d2")], work, scope=(tenant, "d2")),
    ]
    forgot_tenant = idempotency.forget(tenant)

    # Then only those were deleted: the device's key ran again, its sibling's did not
    assert forgot_device == 1
    assert forgot_tenant == 2
    assert work.runs == 4
    assert again[0] == again[1]
    once(keys[(other, "d1")], work, scope=(other, "d1"))
    assert work.runs == 4
