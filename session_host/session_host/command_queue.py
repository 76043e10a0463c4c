"""The host's side of the command queues: reading them, and each command from its message
to its reply.

Reading: a long poll on a daemon thread (so a poll under way never holds up the process's
exit) hands what it receives to the event loop, where each message is handled in a task of its
own. At most ``capacity`` messages are handled at once; beyond that the poller waits before
receiving more. Messages are deleted in the background, in batches, off the path of the reply.
After :meth:`QueueConsumer.stop`, a poll still under way may yet receive messages: they go to
``on_late`` (from the poll thread) instead of being handled, so another host gets them at once
rather than after their visibility timeout.

Handling (:class:`CommandDispatcher`): parse, drop if expired, execute under the device's lock
(or forward to the device's host), reply, delete. The reply goes out before the message is
deleted, and nothing but what the command needs runs in between: ``ping`` is answered at once,
and a command on a session this host runs touches AWS only if executing it does.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tenacity import RetryCallState

from gateway.bus import Command, CommandName, Reply
from gateway.bus.contracts.sessions import Pong
from gateway.bus.messages import Unreadable, UnreadableCommand, read_command
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from gateway.retries import COMMAND_RECEIVE, failed_with
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.commands import CommandExecutor, Forward, Later
from session_host.ownership import Ownership

MAX_WAIT_SECONDS = 20  # the longest long poll SQS allows
_BATCH = 10


@dataclass(frozen=True)
class Received:
    body: str
    receipt: str
    consumer: QueueConsumer


LateHandler = Callable[[list[dict[str, Any]]], None]


class QueueConsumer:
    """Consumes one command queue; ``handle`` gets each message (and deletes it when done)."""

    def __init__(
        self,
        *,
        name: str,
        queue_url: str,
        sqs: Any,
        aws: AwsCalls,
        handle: Callable[[Received], Awaitable[None]],
        on_late: LateHandler,
        capacity: int,
    ) -> None:
        self.name = name
        self.queue_url = queue_url
        self.deleter = MessageDeleter(sqs, queue_url, aws)
        self._sqs = sqs
        self._handle = handle
        self._on_late = on_late
        self._capacity = capacity
        self._stopped = threading.Event()
        self._room = threading.Condition()
        self._in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        poll = functools.partial(contextvars.copy_context().run, self._poll)  # the host's context
        threading.Thread(target=poll, name=f"poll-{self.name}", daemon=True).start()

    def stop(self) -> None:
        """Receive nothing more; safe to call from any thread."""
        self._stopped.set()
        with self._room:
            self._room.notify_all()

    async def wait_handled(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) for the messages being handled."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    # --- the poll thread ----------------------------------------------------------------

    def _poll(self) -> None:
        receiving = COMMAND_RECEIVE.retrying(
            AWS_ERRORS, until=self._stopped.is_set, before_sleep=self._receive_failed, sleep=self._pause
        )
        while not self._stopped.is_set():
            with self._room:
                while self._in_flight >= self._capacity and not self._stopped.is_set():
                    self._room.wait(1.0)
            response = receiving(
                self._sqs.receive_message,
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=_BATCH,
                WaitTimeSeconds=MAX_WAIT_SECONDS,
            )
            messages = list(response.get("Messages", [])) if response else []
            if messages:
                self._pass_on(messages)

    def _pause(self, seconds: float) -> None:
        """The pause after a failed receive, cut short by a stop."""
        self._stopped.wait(seconds)

    def _receive_failed(self, retry_state: RetryCallState) -> None:
        logger.warning(
            "receiving commands failed", extra={"queue": self.name, "error": str(failed_with(retry_state))}
        )

    def _pass_on(self, messages: list[dict[str, Any]]) -> None:
        if self._stopped.is_set() or self._loop is None:
            self._late(messages)
            return
        with self._room:
            self._in_flight += len(messages)
        try:
            self._loop.call_soon_threadsafe(self._accept, messages)
        except RuntimeError:  # the loop is closed
            self._late(messages)

    def _late(self, messages: list[dict[str, Any]]) -> None:
        try:
            self._on_late(messages)
        except Exception:
            logger.exception("commands received after the stop not handed on", extra={"queue": self.name})

    # --- on the loop --------------------------------------------------------------------

    def _accept(self, messages: list[dict[str, Any]]) -> None:
        for message in messages:
            received = Received(message["Body"], message["ReceiptHandle"], self)
            task = asyncio.get_running_loop().create_task(self._run(received))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, received: Received) -> None:
        try:
            await self._handle(received)
        except Exception:
            logger.exception("handling a command failed", extra={"queue": self.name})
        finally:
            with self._room:
                self._in_flight -= 1
                self._room.notify_all()


class MessageDeleter:
    """Deletes handled messages in batches of up to 10, in the background.

    A delete that fails only means the message comes back after its visibility timeout; by
    then its deadline has passed and it is dropped unexecuted.
    """

    def __init__(self, sqs: Any, queue_url: str, aws: AwsCalls) -> None:
        self._sqs = sqs
        self._queue_url = queue_url
        self._aws = aws
        self._receipts: list[str] = []
        self._flushing: asyncio.Task[None] | None = None

    def delete(self, receipt: str) -> None:
        self._receipts.append(receipt)
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.get_running_loop().create_task(self._flush())

    async def drain(self) -> None:
        while self._flushing is not None and not self._flushing.done():
            await asyncio.shield(self._flushing)

    async def _flush(self) -> None:
        while self._receipts:
            batch, self._receipts = self._receipts[:_BATCH], self._receipts[_BATCH:]
            entries = [{"Id": str(index), "ReceiptHandle": receipt} for index, receipt in enumerate(batch)]
            try:
                response = await self._aws(
                    self._sqs.delete_message_batch, QueueUrl=self._queue_url, Entries=entries
                )
            except AWS_ERRORS as error:
                logger.warning(
                    "deleting handled commands failed", extra={"error": str(error), "count": len(batch)}
                )
                continue
            for failure in response.get("Failed", []):
                logger.warning("a handled command was not deleted", extra={"failure": failure})


def release_to_queue(sqs: Any, queue_url: str) -> LateHandler:
    """``on_late`` for a shared queue: make the messages visible again to every host."""

    def release(messages: list[dict[str, Any]]) -> None:
        for start in range(0, len(messages), _BATCH):
            batch = messages[start : start + _BATCH]
            sqs.change_message_visibility_batch(
                QueueUrl=queue_url,
                Entries=[
                    {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"], "VisibilityTimeout": 0}
                    for index, message in enumerate(batch)
                ],
            )

    return release


def move_to_queue(sqs: Any, from_url: str, to_url: str) -> LateHandler:
    """``on_late`` for the host's own queue, which is going away: move the messages to the
    shared queue, where any host takes them."""

    def move(messages: list[dict[str, Any]]) -> None:
        for start in range(0, len(messages), _BATCH):
            batch = messages[start : start + _BATCH]
            sqs.send_message_batch(
                QueueUrl=to_url,
                Entries=[
                    {"Id": str(index), "MessageBody": message["Body"]} for index, message in enumerate(batch)
                ],
            )
            sqs.delete_message_batch(
                QueueUrl=from_url,
                Entries=[
                    {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
                    for index, message in enumerate(batch)
                ],
            )

    return move


class CommandDispatcher:
    def __init__(
        self, sqs: Any, aws: AwsCalls, ownership: Ownership, executor: CommandExecutor, host_id: str
    ) -> None:
        self._sqs = sqs
        self._aws = aws
        self._ownership = ownership
        self._executor = executor
        self._host_id = host_id

    async def handle(self, received: Received) -> None:
        """Handle one message of a command queue, then delete it."""
        try:
            command = read_command(received.body)
        except UnreadableCommand as unreadable:
            await self._refuse(unreadable, len(received.body))
        else:
            if command.expired():
                logger.info("expired command dropped unexecuted", extra=_about(command))
            elif command.name is CommandName.PING:
                await self._reply(command, Reply.success(command, Pong(host_id=self._host_id), None))
            else:
                await self._execute(command, received.body)
        received.consumer.deleter.delete(received.receipt)

    async def _execute(self, command: Command[Any], body: str) -> None:
        later: Later | None = None
        try:
            async with self._ownership.locks.hold(command.device_id):
                outcome = await self._executor.execute(command)
            if isinstance(outcome, Later):  # its reply comes without the device's lock
                later = outcome
                outcome = await self._executor.finish(command, outcome)
        except Exception:
            logger.exception("command failed on the host", extra=_about(command))
            outcome = Reply.failure(
                command, ErrorKind.HOST_ERROR, "unexpected failure on the session host", None
            )
        if outcome is None:
            logger.info("expired command dropped unexecuted", extra=_about(command))
        elif isinstance(outcome, Forward):
            await self._forward(command, body, outcome.queue_url)
        else:
            try:
                await self._reply(command, outcome)
            finally:
                if later is not None and later.replied is not None:
                    later.replied()

    async def _forward(self, command: Command[Any], body: str, queue_url: str) -> None:
        """Send the same message to the host that runs the device; it replies itself."""
        try:
            await self._aws(self._sqs.send_message, QueueUrl=queue_url, MessageBody=body)
        except AWS_ERRORS as error:
            logger.warning(
                "command not forwarded", extra={**_about(command), "to": queue_url, "error": str(error)}
            )
            message = "the host that runs the device does not answer"
            await self._reply(command, Reply.failure(command, ErrorKind.HOST_ERROR, message, None))
            return
        logger.info("command forwarded to the device's host", extra={**_about(command), "to": queue_url})

    async def _reply(self, command: Command[Any], reply: Reply[Any]) -> None:
        if command.reply_to:
            await self._send_reply(command.reply_to, reply)

    async def _refuse(self, unreadable: UnreadableCommand, chars: int) -> None:
        """A command this host cannot read: answered when it says where to and in time, else
        dropped. A version or a command this host does not know is ``unsupported`` (a newer
        API may send what this host cannot do yet); arguments that are not the command's
        contract are ``host_error`` (the API and the host disagree on it: a fault, not the
        caller's input)."""
        # Which command, never its arguments (a send's are the tenant's message).
        about = {
            "command_id": unreadable.command_id,
            "command": unreadable.name,
            "device_id": unreadable.device_id,
            "why": str(unreadable),
            "chars": chars,
        }
        logger.warning("unreadable command refused", extra=about)
        command_id, reply_to, deadline = unreadable.command_id, unreadable.reply_to, unreadable.deadline
        if command_id is None or reply_to is None or deadline is None or deadline <= time.time():
            return
        kind = ErrorKind.HOST_ERROR if unreadable.why is Unreadable.ARGS else ErrorKind.UNSUPPORTED
        reply: Reply[Any] = Reply(command_id, ok=False, error_kind=kind, error_message=str(unreadable))
        await self._send_reply(reply_to, reply)

    async def _send_reply(self, reply_to: str, reply: Reply[Any]) -> None:
        try:
            await self._aws(self._sqs.send_message, QueueUrl=reply_to, MessageBody=reply.to_json())
        except AWS_ERRORS as error:  # the sender is gone; it has answered 503 by now
            logger.warning("reply not sent", extra={"command_id": reply.command_id, "error": str(error)})


def _about(command: Command[Any]) -> dict[str, Any]:
    return {"command": command.name.value, "command_id": command.id, "device_id": command.device_id}
