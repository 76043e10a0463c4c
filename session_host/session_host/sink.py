"""What happens to each event a session reports: record update, then publication.

One sink per tenure. The adapters await it for every event, in order, so each device's
record is written in the order its events happened, and an envelope is published only
after the record shows the state it announces.
"""

from __future__ import annotations

from collections.abc import Callable

from gateway import jids
from gateway.devices import known_chats
from gateway.observability import logger
from gateway.retries import SESSION_RECORD_WRITE
from gateway.webhooks.catalog import EventName
from session_host import records
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.device_tenure import OwnedDevice
from session_host.network.port import EventSink, NetworkEvent
from session_host.outbox_names import PollVoteNamer, with_gateway_ids
from session_host.publisher import EventPublisher, envelope
from session_host.received_media import ReceivedMediaKeeper

SESSION_ENDING_EVENTS = frozenset({EventName.CONNECTION_PAIR_ERROR, EventName.DEVICE_LOGGED_OUT})
"""After these the session has nothing left to run: the host ends the tenure (so does a
permanent ``connection.failure``, as the supervisor says)."""


class Sinks:
    """Builds the sink of each tenure.

    ``on_session_end(owned)`` is called (without awaiting) when a session reports an end the
    host did not ask for: the pairing window closed, or the phone unlinked the device.
    ``on_published(owned, event)`` (without awaiting) once each event is published: what the
    host does about an event (a call rejected at once) follows the event.
    """

    def __init__(
        self,
        *,
        aws: AwsCalls,
        publisher: EventPublisher,
        queue_url: Callable[[], str],
        on_session_end: Callable[[OwnedDevice], None],
        on_published: Callable[[OwnedDevice, NetworkEvent], None],
        media: ReceivedMediaKeeper | None = None,
    ) -> None:
        self._aws = aws
        self._media = media or ReceivedMediaKeeper(aws)
        self._polls = PollVoteNamer(aws)
        self._publisher = publisher
        self._queue_url = queue_url
        self._on_session_end = on_session_end
        self._on_published = on_published

    def sink_for(self, owned: OwnedDevice) -> EventSink:
        async def sink(event: NetworkEvent) -> None:
            if not owned.active:
                logger.info(
                    "event of a session this host no longer runs ignored",
                    extra={"device_id": owned.device_id, "event": event.name},
                )
                return
            owned.notify()
            event, ends = owned.supervisor.observe(event)
            changes = records.event_changes(event)
            if changes:
                await self._write(owned, event, changes)
            await self._heard(owned, event)
            # Media bytes go to S3, never on the events queue.
            event = await self._media.without_bytes(event, owned.tenant_id, owned.device_id)
            event = await self._polls.named(event, owned.tenant_id, owned.device_id)
            event = await with_gateway_ids(
                event, owned.recent_sends, self._aws, owned.tenant_id, owned.device_id
            )
            await self._publisher.publish(envelope(event, owned.device_id), owned.tenant_id)
            self._on_published(owned, event)
            if (ends or event.name in SESSION_ENDING_EVENTS) and not owned.ending:
                owned.ending = True
                self._on_session_end(owned)

        return sink

    async def _heard(self, owned: OwnedDevice, event: NetworkEvent) -> None:
        """A message in a chat makes the chat known to the sending policy (no longer a new
        chat): recorded once per tenure (best effort: a chat not recorded stays new)."""
        chat = event.data.get("chat_jid")
        if event.name != EventName.MESSAGE_RECEIVED or not isinstance(chat, str) or chat in owned.known_chats:
            return
        if chat == jids.STATUS_BROADCAST_JID:  # stories: no chat to write to
            return
        try:
            await self._aws(known_chats.remember, owned.tenant_id, owned.device_id, chat)
        except AWS_ERRORS as error:
            logger.warning(
                "a chat heard from was not recorded",
                extra={"device_id": owned.device_id, "error": str(error)},
            )
            return
        owned.known_chats.add(chat)

    async def _write(self, owned: OwnedDevice, event: NetworkEvent, changes: dict[str, object]) -> None:
        try:
            written: bool = await SESSION_RECORD_WRITE.async_retrying(AWS_ERRORS)(
                self._aws, records.apply_changes, owned.tenant_id, owned.device_id, self._queue_url(), changes
            )
        except AWS_ERRORS as error:
            logger.error(
                "device record not updated for an event",
                extra={"device_id": owned.device_id, "event": event.name, "error": str(error)},
            )
            return
        if not written:
            logger.info(
                "device record gone or claimed by another host; event not recorded",
                extra={"device_id": owned.device_id, "event": event.name},
            )
