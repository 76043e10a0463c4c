"""The command bus on the local stack's SQS (moto): routing, concurrent waiters, late replies.

The test plays the session host by hand: a reader thread takes commands off a queue and
hands them to the test, which replies when and in the order it wants. The bus under test is
given a shared command queue of its own, so no session host of the local stack reads it.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from gateway.bus import (
    BusTimeout,
    Command,
    CommandBus,
    CommandFailed,
    CommandName,
    DeviceSnapshot,
    Reply,
    Target,
    contracts,
    queues,
)
from gateway.bus.contracts import CommandResult
from gateway.bus.contracts.sessions import PairCode, PairPhoneArgs, Pong
from gateway.bus.messages import read_command
from local_stack.stack import LocalStack


class QueueReader:
    """Takes every command off one queue and hands it to the test, with the queue it came from."""

    def __init__(self, queue_url: str) -> None:
        self.queue_url = queue_url
        self.commands: queue.Queue[Command[Any]] = queue.Queue()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bus-test-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        sqs = queues.sqs_client()
        while not self._stopped.is_set():
            response = sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
            for message in response.get("Messages", []):
                sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
                command = read_command(message["Body"])
                if not command.expired():  # left over by an earlier test: a host would drop it
                    self.commands.put(command)

    def next(self, timeout: float = 10.0) -> Command[Any]:
        return self.commands.get(timeout=timeout)

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)


def reply(command: Command[Any], result: CommandResult | str = "host-a") -> None:
    """Answer as a session host does: a success with ``result`` (a text: PING's host id), on
    the command's reply queue."""
    given = Pong(host_id=result) if isinstance(result, str) else result
    answer = Reply.success(command, given, DeviceSnapshot("connected", True, True, "1@s.whatsapp.net"))
    assert command.reply_to is not None
    queues.sqs_client().send_message(QueueUrl=command.reply_to, MessageBody=answer.to_json())


@pytest.fixture(scope="module")
def shared(stack: LocalStack) -> Iterator[QueueReader]:
    """The bus's shared command queue, read by the test instead of the session hosts."""
    # Outside the run-time queues' prefix, so a host's sweep of idle queues leaves it alone.
    name = f"bus-test-shared-{uuid.uuid4().hex[:8]}"
    url = queues.sqs_client().create_queue(QueueName=name)["QueueUrl"]
    reader = QueueReader(url)
    yield reader
    reader.stop()
    queues.delete_queue(url)


@pytest.fixture
def bus(shared: QueueReader) -> CommandBus:
    """A bus of its own (its own reply queue), as a fresh API process would have."""
    return CommandBus(queues.sqs_client(), shared.queue_url)


def request_in_background(bus: CommandBus, device_id: str, **kwargs: object) -> tuple[threading.Thread, dict]:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["reply"] = bus.request(contracts.PING, tenant_id="t", device_id=device_id, **kwargs)
        except BusTimeout as error:
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def test_a_command_reaches_the_shared_queue_and_its_reply_comes_back(
    bus: CommandBus, shared: QueueReader
) -> None:
    # Given a request for a device no host runs
    outcome: dict[str, object] = {}
    args = PairPhoneArgs(phone="15551234567")

    def run() -> None:
        outcome["reply"] = bus.request(contracts.PAIR_PHONE, args, tenant_id="t", device_id="device-1")

    thread = threading.Thread(target=run)
    thread.start()
    # When the command is read off the shared queue and answered
    command = shared.next()
    reply(command, PairCode(pair_code="ABCD-1234"))
    thread.join(timeout=15)
    # Then the command named the device, carried the typed args and a deadline, and the
    # reply came back with the typed result
    assert (command.name, command.tenant_id, command.device_id, command.args) == (
        CommandName.PAIR_PHONE,
        "t",
        "device-1",
        args,
    )
    assert command.deadline > time.time()
    answer = outcome["reply"]
    assert isinstance(answer, Reply)
    assert (answer.ok, answer.result, answer.command_id) == (
        True,
        PairCode(pair_code="ABCD-1234"),
        command.id,
    )
    assert answer.device == DeviceSnapshot("connected", True, True, "1@s.whatsapp.net")


def test_many_threads_wait_on_one_inbox_and_each_gets_its_own_reply(
    bus: CommandBus, shared: QueueReader
) -> None:
    # Given eight requests in flight at once from one process
    count = 8
    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = {
            f"device-{n}": pool.submit(bus.request, contracts.PING, tenant_id="t", device_id=f"device-{n}")
            for n in range(count)
        }
        commands = [shared.next() for _ in range(count)]
        # When the host answers them all, in the reverse order
        for command in reversed(commands):
            reply(command, command.device_id)
        replies = {device_id: future.result(timeout=15) for device_id, future in futures.items()}
    # Then every thread got the reply to its own command, all through the one reply queue
    assert {device_id: answer.result.host_id for device_id, answer in replies.items()} == {
        device_id: device_id for device_id in futures
    }
    assert len({command.reply_to for command in commands}) == 1


def test_a_late_reply_is_dropped_and_the_next_request_gets_its_own(
    bus: CommandBus, shared: QueueReader
) -> None:
    # Given a request that gave up waiting after one second
    started = time.monotonic()
    with pytest.raises(BusTimeout):
        bus.request(contracts.PING, tenant_id="t", device_id="slow", timeout=1)
    waited = time.monotonic() - started
    late = shared.next()
    assert 0.9 <= waited < 5
    # When the host answers it after all, while a new request waits
    thread, outcome = request_in_background(bus, "next")
    reply(late, "late")
    current = shared.next()
    reply(current, "current")
    thread.join(timeout=15)
    # Then the new request gets its own reply, not the late one
    answer = outcome["reply"]
    assert isinstance(answer, Reply)
    assert (answer.command_id, answer.result) == (current.id, Pong(host_id="current"))
    # And the command that timed out could no longer be executed by a host
    assert late.expired()


def test_a_command_goes_to_the_host_queue_named_on_the_record(bus: CommandBus, shared: QueueReader) -> None:
    # Given a live session host's own queue
    host_queue = queues.create_dynamic_queue(queues.HOST_QUEUE, uuid.uuid4().hex[:16])
    host = QueueReader(host_queue)
    try:
        # When a command is sent with that queue as the device's host
        thread, outcome = request_in_background(bus, "hosted", host_queue_url=host_queue)
        command = host.next()
        reply(command)
        thread.join(timeout=15)
        # Then the host got it on its own queue, and the shared queue got nothing
        assert command.device_id == "hosted"
        assert isinstance(outcome["reply"], Reply)
        assert shared.commands.empty()
    finally:
        host.stop()
        queues.delete_queue(host_queue)


def test_a_command_for_a_host_whose_queue_is_gone_goes_to_the_shared_queue(
    bus: CommandBus, shared: QueueReader
) -> None:
    # Given a device record naming a host queue that was deleted (the host died, its queue swept)
    gone = queues.create_dynamic_queue(queues.HOST_QUEUE, uuid.uuid4().hex[:16])
    queues.delete_queue(gone)
    # When a command is sent for that device
    thread, outcome = request_in_background(bus, "orphan", host_queue_url=gone)
    # Then it arrives on the shared queue, where any live host takes it, and is answered
    command = shared.next()
    reply(command)
    thread.join(timeout=15)
    assert command.device_id == "orphan"
    assert isinstance(outcome["reply"], Reply)


def test_call_raises_the_hosts_failure(bus: CommandBus, shared: QueueReader) -> None:
    # Given a request whose command the host refuses
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            bus.call(contracts.QR, tenant_id="t", device_id="refused")
        except CommandFailed as error:
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    command = shared.next()
    failure = Reply.failure(command, "not_running", "no session runs this device", None)
    queues.sqs_client().send_message(QueueUrl=command.reply_to, MessageBody=failure.to_json())
    thread.join(timeout=15)
    # Then the caller gets CommandFailed with the kind and message
    error = outcome["error"]
    assert isinstance(error, CommandFailed)
    assert (error.kind, str(error)) == ("not_running", "no session runs this device")


def test_request_all_sends_every_command_at_once_and_waits_under_one_deadline(
    bus: CommandBus, shared: QueueReader
) -> None:
    # Given a command for five devices, which the host receives all before answering any
    targets = [Target("t", f"many-{n}") for n in range(5)]
    outcome: dict[str, object] = {}

    def run() -> None:
        outcome["replies"] = bus.request_all(contracts.PING, targets, timeout=3)

    thread = threading.Thread(target=run)
    thread.start()
    commands = [shared.next() for _ in targets]
    # When the host answers all but the last one, in reverse order
    for command in reversed(commands):
        if command.device_id != "many-4":
            reply(command, command.device_id)
    thread.join(timeout=15)
    # Then every command was sent before any reply came, with one shared deadline
    assert {command.device_id for command in commands} == {target.device_id for target in targets}
    assert len({command.deadline for command in commands}) == 1
    # And the replies come in the order of the targets, None for the one not answered in time
    replies = outcome["replies"]
    assert isinstance(replies, list)
    assert [answer.result.host_id if answer else None for answer in replies] == [
        "many-0",
        "many-1",
        "many-2",
        "many-3",
        None,
    ]
