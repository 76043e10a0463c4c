"""moto's SQS keeps a message sent while another delete is under way (local_stack.moto_fixes).

Unfixed, a delete copying the queue's message list while another delete replaced it and a send
appended to the new one drops the sent message: the delivery bench saw 1,999 of 2,000 events
arrive, the missing one never received, never logged, in no dead-letter queue."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from moto import mock_aws
from moto.sqs import models

from local_stack import moto_fixes


@pytest.fixture
def backend() -> Iterator[models.SQSBackend]:
    with mock_aws():
        moto_fixes.apply()
        sqs = models.sqs_backends["123456789012"]["us-east-1"]
        sqs.create_queue("events")
        yield sqs


def test_a_message_sent_during_two_concurrent_deletes_is_kept(
    backend: models.SQSBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    for body in ("x", "y", "z"):
        backend.send_message("events", body)
    handles = {m.body: m.receipt_handle for m in backend.receive_message("events", 10, 0, 360)}
    paused, resume = threading.Event(), threading.Event()
    checked = models.Message.had_receipt_handle
    calls = iter(range(100))

    def pausing(message: models.Message, handle: str) -> bool:
        """Holds the slow delete as its copy of the list begins (after it found ``y``)."""
        if threading.current_thread().name == "slow" and next(calls) == 2:
            paused.set()
            resume.wait(5)
        return checked(message, handle)

    monkeypatch.setattr(models.Message, "had_receipt_handle", pausing)
    slow = threading.Thread(target=backend.delete_message, args=("events", handles["y"]), name="slow")
    slow.start()
    assert paused.wait(5)

    def delete_then_send() -> None:
        backend.delete_message("events", handles["x"])
        backend.send_message("events", "sent meanwhile")

    other = threading.Thread(target=delete_then_send)
    other.start()
    other.join(0.5)  # unfixed it finishes here; fixed it waits for the slow delete
    resume.set()
    slow.join(5)
    other.join(5)

    bodies = sorted(m.body for m in backend.get_queue("events")._messages)
    assert bodies == ["sent meanwhile", "z"]
