"""Poll votes: the options a vote chose, named by their texts before ``poll.vote`` goes out.

The real network names the options of a vote by their SHA-256 only. neonize's adapter maps
them back from the polls its session remembers; an option it cannot name arrives as
``sha256:<hex>`` (:data:`~session_host.network.reply_types.UNKNOWN_OPTION_PREFIX`). For a
poll the gateway sent, the outbox keeps the options with the send (its ``payload``, for as
long as it keeps sent messages): :class:`PollVoteNamer` looks the poll up there, by its
network id, and names them. A poll the gateway did not send keeps the hashes; so does a
vote when the outbox cannot be read (logged: the vote is still published).
"""

from __future__ import annotations

from dataclasses import replace

from gateway.messages import outbox
from gateway.messages.send_kinds import POLL
from gateway.observability import logger
from gateway.webhooks.catalog import EventName
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network.port import NetworkEvent
from session_host.network.reply_types import UNKNOWN_OPTION_PREFIX, option_texts


class PollVoteNamer:
    """Names a ``poll.vote``'s unknown options from the outbox, on the host's AWS threads."""

    def __init__(self, aws: AwsCalls) -> None:
        self._aws = aws

    async def named(self, event: NetworkEvent, tenant_id: str, device_id: str) -> NetworkEvent:
        """``event`` with its options named where the outbox knows the poll; else as it is."""
        if event.name != EventName.POLL_VOTE:
            return event
        selected: list[str] = list(event.data.get("selected_options") or [])
        if not any(option.startswith(UNKNOWN_OPTION_PREFIX) for option in selected):
            return event
        poll_id = str(event.data.get("message_id") or "")
        try:
            send = await self._aws(outbox.find, tenant_id, device_id, poll_id) if poll_id else None
        except AWS_ERRORS as error:
            logger.warning(
                "poll vote published with unnamed options: outbox not readable",
                extra={"device_id": device_id, "message_id": poll_id, "error": str(error)},
            )
            return event
        if send is None or send.kind != POLL or not send.payload:
            return event
        options = [str(option) for option in send.payload.get("options", [])]
        named = [
            option_texts([bytes.fromhex(option.removeprefix(UNKNOWN_OPTION_PREFIX))], options)[0]
            if option.startswith(UNKNOWN_OPTION_PREFIX)
            else option
            for option in selected
        ]
        return replace(event, data={**event.data, "selected_options": named})
