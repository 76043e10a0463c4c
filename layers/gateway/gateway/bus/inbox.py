"""The reply queue of one API process, shared by every request thread of that process.

No background thread (a Lambda container is frozen between invocations): the waiting threads
take turns. One of them long-polls the queue and hands every reply it reads to the thread
that expects it; the others sleep until a reply arrives for them or the poller steps down.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from gateway.bus.messages import Reply

logger = logging.getLogger(__name__)

_MAX_WAIT_SECONDS = 20  # the longest long poll SQS allows


class ReplyInbox:
    """Replies for the commands this process sent, keyed by command id."""

    def __init__(self, sqs: Any, queue_url: str) -> None:
        self.queue_url = queue_url
        self._sqs = sqs
        self._changed = threading.Condition()
        self._expected: dict[str, Reply | None] = {}
        self._polling = False

    def expect(self, command_id: str) -> None:
        """Register before sending, so a reply that comes back at once is not dropped."""
        with self._changed:
            self._expected[command_id] = None

    def discard(self, command_id: str) -> None:
        """Stop expecting a reply that will not be waited for (its command was never sent)."""
        with self._changed:
            self._expected.pop(command_id, None)

    def wait(self, command_id: str, deadline: float) -> Reply | None:
        """The reply to ``command_id``, or ``None`` once ``deadline`` (epoch seconds) passes."""
        try:
            while True:
                with self._changed:
                    reply = self._expected.get(command_id)
                    if reply is not None:
                        return reply
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
                try:
                    reply = Reply.from_json(message["Body"])
                except (ValueError, KeyError, TypeError):
                    about = {
                        "sqs_message_id": message.get("MessageId"),
                        "chars": len(message.get("Body", "")),
                    }
                    logger.warning("dropped a malformed reply", extra=about)
                    continue
                if reply.command_id in self._expected:
                    self._expected[reply.command_id] = reply
                else:  # its sender stopped waiting (deadline passed)
                    logger.info("late reply dropped", extra={"command_id": reply.command_id})
            self._changed.notify_all()
