"""Received media: the bytes go to the media bucket, the event goes on without them.

An adapter reports a media message with its bytes in :attr:`.NetworkEvent.attachment`. Before
the event is published, :class:`ReceivedMediaKeeper` stores them under the device (on the
host's AWS threads, with a few retries) and fills ``data.media.media_path`` with
``/media/<media_id>``, the path of GET /media/{media_id}. The events queue never carries the
bytes. When S3 keeps failing, the event is still published, with ``media_path: null`` and an
error logged: the message is not lost, only its media. A media message the adapter could not
download (neonize) has no attachment and gets ``media_path: null`` too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from gateway.media import store
from gateway.media.store import StoredMedia
from gateway.observability import logger
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network.port import NetworkEvent

StoreMedia = Callable[[str, str, bytes, str, str | None], StoredMedia]
"""``store.put``'s shape: (tenant_id, device_id, data, mimetype, filename) -> StoredMedia."""

STORE_ATTEMPTS = 3
_BACKOFF_SECONDS = 0.2


def media_path(media_id: str) -> str:
    """Where the API hands out a stored media (GET /media/{media_id})."""
    return f"/media/{media_id}"


class ReceivedMediaKeeper:
    """Turns an event with an attachment into one without, its media stored."""

    def __init__(
        self, aws: AwsCalls, put: StoreMedia | None = None, *, backoff_seconds: float = _BACKOFF_SECONDS
    ) -> None:
        self._aws = aws
        self._put = put
        self._backoff = backoff_seconds

    async def without_bytes(self, event: NetworkEvent, tenant_id: str, device_id: str) -> NetworkEvent:
        """``event`` as it is published: no attachment, ``media.media_path`` set (or null)."""
        described = event.data.get("media")
        if event.attachment is None:
            if (
                event.name == "message.received"
                and isinstance(described, dict)
                and "media_path" not in described
            ):
                # The adapter could not get the bytes (a failed neonize download): nothing stored.
                return replace(event, data={**event.data, "media": {**described, "media_path": None}})
            return event
        stored = await self._store(event, tenant_id, device_id)
        media = dict(described) if isinstance(described, dict) else {}
        media["media_path"] = media_path(stored.media_id) if stored is not None else None
        return replace(event, data={**event.data, "media": media}, attachment=None)

    async def _store(self, event: NetworkEvent, tenant_id: str, device_id: str) -> StoredMedia | None:
        attachment = event.attachment
        assert attachment is not None
        put = self._put or store.put  # looked up per call: the store module's, unless given one
        for attempt in range(1, STORE_ATTEMPTS + 1):
            try:
                return await self._aws(
                    put, tenant_id, device_id, attachment.data, attachment.mimetype, attachment.filename
                )
            except (*AWS_ERRORS, ValueError) as error:
                if isinstance(error, ValueError) or attempt == STORE_ATTEMPTS:
                    logger.error(
                        "received media not stored; the event is published with media_path null",
                        extra={
                            "device_id": device_id,
                            "event": event.name,
                            "message_id": event.data.get("message_id"),
                            "size": attachment.size,
                            "error": str(error),
                        },
                    )
                    return None
                await asyncio.sleep(self._backoff * attempt)
        return None
