"""The outbox as a resource (GET/DELETE /sends) against the local stack's SendsTable (moto):
planned sends, their pages by state, and a cancel racing the dispatcher's claim."""

from __future__ import annotations

import time
import uuid

import pytest

from gateway.errors import ApiError
from gateway.messages import outbox
from gateway.messages.sends import Send, SendState
from gateway.pagination import PageRequest
from local_stack.stack import LocalStack

TENANT = "tenant-outbox-planned"
CHAT = "15550002222@s.whatsapp.net"


@pytest.fixture
def device_id(stack: LocalStack) -> str:
    return f"device-{uuid.uuid4().hex}"


def stored(device_id: str, text: str, requested_at: float, send_at: float | None = None) -> Send:
    send = outbox.new_send(
        TENANT, device_id, chat_jid=CHAT, text=text, requested_at=requested_at, send_at=send_at
    )
    outbox.store(send)
    return send


def test_a_planned_send_is_due_at_its_time_plus_its_delay(device_id: str) -> None:
    # Given a send planned an hour ahead with a 5 s delay
    now = time.time()
    send = outbox.new_send(
        TENANT, device_id, chat_jid=CHAT, text="later", delay_seconds=5, send_at=now + 3600
    )
    outbox.store(send)

    # When it is read back
    found = outbox.get(TENANT, device_id, send.send_key)

    # Then it waits, queued, until then (the pacing applies from its time)
    assert found is not None
    assert found.state is SendState.QUEUED
    assert found.not_before == pytest.approx(now + 3605)
    assert [item.message_id for item in outbox.unfinished(TENANT, device_id)] == [send.message_id]


def test_a_canceled_send_is_never_claimed_and_a_claimed_one_is_never_canceled(device_id: str) -> None:
    # Given two queued sends
    t0 = time.time()
    canceled = stored(device_id, "one", t0, send_at=t0 + 60)
    claimed = stored(device_id, "two", t0 + 1, send_at=t0 + 60)

    # When the first is canceled and the second claimed, then each is tried the other way
    assert outbox.cancel(canceled)
    assert outbox.claim(claimed, 1)

    # Then the first cannot be claimed (it never goes out), the second cannot be canceled,
    # and a canceled send leaves the dispatcher's index
    assert not outbox.claim(canceled, 1)
    assert not outbox.cancel(claimed)
    assert not outbox.cancel(canceled)
    now = outbox.get(TENANT, device_id, canceled.send_key)
    assert now is not None
    assert now.state is SendState.CANCELED
    assert [item.message_id for item in outbox.unfinished(TENANT, device_id)] == [claimed.message_id]


def test_pages_come_newest_first_and_a_state_filter_keeps_only_that_state(device_id: str) -> None:
    # Given five sends: two sent, one canceled, two still scheduled
    t0 = time.time()
    sends = [stored(device_id, f"m{index}", t0 + index) for index in range(5)]
    for index in (0, 2):
        assert outbox.claim(sends[index], 1)
        assert outbox.mark_sent(sends[index], 1, f"NET{index}", t0 + 10)
    assert outbox.cancel(sends[3])

    # When every page of two is read, then every page of the scheduled ones
    def walk(states: tuple[SendState, ...]) -> list[str]:
        seen: list[str] = []
        cursor = None
        while True:
            page = outbox.page(TENANT, device_id, PageRequest(limit=2, cursor=cursor), states)
            seen += [send.text for send in page.items]
            if page.next is None:
                return seen
            cursor = page.next

    # Then every send comes once, newest first, and the filter keeps only its state
    assert walk(()) == ["m4", "m3", "m2", "m1", "m0"]
    assert walk((SendState.QUEUED,)) == ["m4", "m1"]
    assert walk((SendState.CANCELED,)) == ["m3"]


def test_a_cursor_of_another_device_is_refused(device_id: str) -> None:
    # Given a page of one device with a next page
    t0 = time.time()
    for index in range(3):
        stored(device_id, f"m{index}", t0 + index)
    cursor = outbox.page(TENANT, device_id, PageRequest(limit=1)).next
    assert cursor is not None

    # When another device's listing is given that cursor, then it is refused (400 on cursor)
    with pytest.raises(ApiError) as refused:
        outbox.page(TENANT, f"other-{device_id}", PageRequest(limit=1, cursor=cursor))
    assert refused.value.status == 400
