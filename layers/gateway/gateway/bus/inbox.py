"""The reply queue of one API process, shared by every request thread of that process.

No background thread (a Lambda container is frozen between invocations): the waiting threads
take turns. One of them long-polls the queue and hands every reply it reads to the thread
that expects it; the others sleep until a reply arrives for them or the poller steps down.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from gateway.bus.contracts import CommandResult
from gateway.bus.messages import Reply, UnreadableReply, read_reply

logger = logging.getLogger(__name__)

_MAX_WAIT_SECONDS = 20  # the longest long poll SQS allows


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
