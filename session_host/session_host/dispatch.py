"""From a received command message to its reply: parse, drop if expired, execute under the
device's lock (or forward to the device's host), reply, delete.

The reply goes out before the message is deleted (the delete is batched in the background),
and nothing but what the command needs runs in between: ``ping`` is answered at once, and a
command on a session this host runs touches AWS only if executing it does.
"""

from __future__ import annotations

import time
from typing import Any

from gateway.bus import Command, CommandName, Reply
from gateway.bus.contracts.sessions import Pong
from gateway.bus.messages import Unreadable, UnreadableCommand, read_command
from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.commands import CommandExecutor, Forward, Later
from session_host.consumer import Received
from session_host.ownership import Ownership


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
