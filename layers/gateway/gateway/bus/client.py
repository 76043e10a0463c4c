"""The API side of the bus: send a device command and wait for the session host's reply.

Replies come back on the reply queue of the API process (:class:`ReplyInbox`), shared by
every request thread of that process. No background thread (a Lambda container is frozen
between invocations): the waiting threads take turns. One of them long-polls the queue and
hands every reply it reads to the thread that expects it; the others sleep until a reply
arrives for them or the poller steps down.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from botocore.exceptions import ClientError

from gateway.bus import queues
from gateway.bus.contracts import A, CommandResult, Contract, R
from gateway.bus.messages import Command, Reply, UnreadableReply, read_reply
from gateway.config import get_settings
from gateway.context_pool import ContextThreadPool

logger = logging.getLogger(__name__)

_PARALLEL_SENDS = 8  # SendMessage calls in flight at once for a command sent to many devices
_MAX_WAIT_SECONDS = 20  # the longest long poll SQS allows


@dataclass(frozen=True)
class Target:
    """A device a command goes to, and the queue of the host that runs it (None: any host)."""

    tenant_id: str
    device_id: str
    host_queue_url: str | None = None


class BusTimeout(Exception):
    """No reply before the deadline; the host will not execute the command afterwards."""


class CommandFailed(Exception):
    """The host answered with an error; ``reply`` has its kind, message and the device state."""

    def __init__(self, reply: Reply[Any]) -> None:
        super().__init__(reply.error_message or reply.error_kind or "command failed")
        self.reply = reply
        self.kind = reply.error_kind or ""


class CommandBus:
    """Sends commands to session hosts; one per process (see :func:`get_bus`).

    The reply queue is created on the first command (one CreateQueue per process) and its
    heartbeat is refreshed at most every few minutes, on use.
    """

    def __init__(self, sqs: Any, command_queue_url: str) -> None:
        self._sqs = sqs
        self._command_queue_url = command_queue_url
        self._owner_id = uuid.uuid4().hex[:16]
        self._inbox: ReplyInbox | None = None
        self._last_heartbeat = 0.0
        self._lock = threading.Lock()

    def request(
        self,
        contract: Contract[A, R],
        args: A | None = None,
        *,
        tenant_id: str,
        device_id: str,
        host_queue_url: str | None = None,
        timeout: float | None = None,
    ) -> Reply[R]:
        """Send the command of ``contract`` for the device and return the host's reply
        (success or failure), its result parsed as the contract's.

        ``args`` are the contract's (None: a command that takes none). ``host_queue_url`` is
        the queue of the host that runs the device, from the device record; without it (or
        when that host's queue is gone) the command goes to the shared queue. Raises
        :class:`BusTimeout` when no reply arrives within ``timeout`` seconds.
        """
        inbox = self._ready_inbox()
        timeout = get_settings().command_timeout_seconds if timeout is None else timeout
        command = _command(contract, args, tenant_id, device_id, timeout, reply_to=inbox.queue_url)
        inbox.expect(command.id, contract.result)
        self._send(command, host_queue_url)
        reply = inbox.wait(command.id, command.deadline)
        if reply is None:
            raise BusTimeout(f"no answer from the session host within {timeout:g} s")
        return reply

    def tell(
        self,
        contract: Contract[A, R],
        args: A,
        *,
        tenant_id: str,
        device_id: str,
        host_queue_url: str | None = None,
        timeout: float | None = None,
    ) -> None:
        """Send the command of ``contract`` for the device without waiting for an answer (it
        names no reply queue, so the host sends none); it expires after ``timeout`` seconds
        on the queue, as a :meth:`request` would."""
        timeout = get_settings().command_timeout_seconds if timeout is None else timeout
        self._send(_command(contract, args, tenant_id, device_id, timeout), host_queue_url)

    def request_all(
        self, contract: Contract[A, R], targets: Sequence[Target], *, timeout: float | None = None
    ) -> list[Reply[R] | None]:
        """Send the command of ``contract`` (one that takes no arguments) to every target at
        once and wait for all replies under one deadline.

        The replies in the order of ``targets``; None for a device whose host did not answer
        within ``timeout`` seconds (it will not execute the command afterwards). However many
        targets, the wait is bounded by ``timeout``: the commands run side by side on the hosts.
        """
        if not targets:
            return []
        inbox = self._ready_inbox()
        timeout = get_settings().command_timeout_seconds if timeout is None else timeout
        deadline = time.time() + timeout
        args = contract.args()
        commands = [
            Command(
                name=contract.name,
                tenant_id=target.tenant_id,
                device_id=target.device_id,
                deadline=deadline,
                args=args,
                reply_to=inbox.queue_url,
            )
            for target in targets
        ]
        for command in commands:
            inbox.expect(command.id, contract.result)
        try:
            with ContextThreadPool(max_workers=min(_PARALLEL_SENDS, len(commands))) as pool:
                list(pool.map(self._send, commands, [target.host_queue_url for target in targets]))
        except Exception:
            for command in commands:
                inbox.discard(command.id)
            raise
        return [inbox.wait(command.id, deadline) for command in commands]

    def call(self, contract: Contract[A, R], args: A | None = None, **kwargs: Any) -> Reply[R]:
        """Like :meth:`request`, but a failure reply raises :class:`CommandFailed`."""
        reply = self.request(contract, args, **kwargs)
        if not reply.ok:
            raise CommandFailed(reply)
        return reply

    def _send(self, command: Command[Any], host_queue_url: str | None) -> None:
        body = command.to_json()
        if host_queue_url:
            try:
                self._sqs.send_message(QueueUrl=host_queue_url, MessageBody=body)
                return
            except ClientError as error:
                if not queues.is_missing_queue(error):
                    raise
                # That host is gone and its queue swept: any live host takes the command.
        self._sqs.send_message(QueueUrl=self._command_queue_url, MessageBody=body)

    def _ready_inbox(self) -> ReplyInbox:
        with self._lock:
            now = time.time()
            if self._inbox is None:
                url = queues.create_dynamic_queue(queues.REPLY_QUEUE, self._owner_id, now=now)
                self._inbox = ReplyInbox(self._sqs, url)
                self._last_heartbeat = now
            elif now - self._last_heartbeat > queues.HEARTBEAT_EVERY_SECONDS:
                if not queues.heartbeat(self._inbox.queue_url, now=now):  # swept while idle
                    # SQS refuses a deleted queue's name for 60 s: start under a new one.
                    self._owner_id = uuid.uuid4().hex[:16]
                    url = queues.create_dynamic_queue(queues.REPLY_QUEUE, self._owner_id, now=now)
                    self._inbox = ReplyInbox(self._sqs, url)
                self._last_heartbeat = now
            return self._inbox


def _command(
    contract: Contract[A, R],
    args: A | None,
    tenant_id: str,
    device_id: str,
    timeout: float,
    reply_to: str | None = None,
) -> Command[A]:
    """The command of ``contract`` for the device, expiring ``timeout`` seconds from now."""
    return Command(
        name=contract.name,
        tenant_id=tenant_id,
        device_id=device_id,
        deadline=time.time() + timeout,
        args=contract.args() if args is None else args,
        reply_to=reply_to,
    )


@lru_cache(maxsize=1)
def get_bus() -> CommandBus:
    return CommandBus(queues.sqs_client(), get_settings().command_queue_url)


@dataclass
class _Waiting:
    """A command whose reply is expected: the model of its result, and the reply once read."""

    result: type[CommandResult]
    reply: Reply[Any] | None = None


class ReplyInbox:
    """Replies for the commands this process sent, keyed by command id."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self.queue_url = queue_url
        self._sqs = sqs
        self._changed = threading.Condition()
        self._expected: dict[str, _Waiting] = {}
        self._polling = False

    def expect(self, command_id: str, result: type[CommandResult]) -> None:
        """Register before sending, so a reply that comes back at once is not dropped;
        ``result`` is the model its result is parsed as (the command's contract)."""
        with self._changed:
            self._expected[command_id] = _Waiting(result)

    def discard(self, command_id: str) -> None:
        """Stop expecting a reply that will not be waited for (its command was never sent)."""
        with self._changed:
            self._expected.pop(command_id, None)

    def wait(self, command_id: str, deadline: float) -> Reply[Any] | None:
        """The reply to ``command_id``, or ``None`` once ``deadline`` (epoch seconds) passes."""
        try:
            while True:
                with self._changed:
                    waiting = self._expected.get(command_id)
                    if waiting is not None and waiting.reply is not None:
                        return waiting.reply
                    remaining = deadline - time.time()
                    if remaining <= 0:
                        return None
                    if self._polling:
                        self._changed.wait(remaining)
                        continue
                    self._polling = True
                try:
                    messages = self._receive(remaining)
                finally:
                    with self._changed:
                        self._polling = False
                        self._changed.notify_all()
                self._dispatch(messages)
        finally:
            with self._changed:
                self._expected.pop(command_id, None)

    def _receive(self, remaining: float) -> list[dict[str, Any]]:
        response = self._sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=min(_MAX_WAIT_SECONDS, max(1, math.ceil(remaining))),
        )
        return list(response.get("Messages", []))

    def _dispatch(self, messages: list[dict[str, Any]]) -> None:
        with self._changed:
            for message in messages:
                self._read(message)
            self._changed.notify_all()

    def _read(self, message: dict[str, Any]) -> None:
        """File one reply with the command that waits for it (the caller holds the lock)."""
        body = message.get("Body", "")
        try:
            raw = json.loads(body)
            command_id = str(raw["command_id"])
        except (ValueError, KeyError, TypeError):
            about = {"sqs_message_id": message.get("MessageId"), "chars": len(body)}
            logger.warning("dropped a malformed reply", extra=about)
            return
        waiting = self._expected.get(command_id)
        if waiting is None:  # its sender stopped waiting (deadline passed)
            logger.info("late reply dropped", extra={"command_id": command_id})
            return
        try:
            waiting.reply = read_reply(raw, waiting.result)
        except UnreadableReply as unreadable:
            about = {"command_id": command_id, "why": str(unreadable)}
            logger.error("unreadable reply", extra=about)
            waiting.reply = unreadable.as_reply()
