"""Received media: the bytes go to the media bucket, the event goes on without them.

An adapter reports a media message with its bytes in :attr:`.NetworkEvent.attachment`. Before
the event is published, :class:`ReceivedMediaKeeper` stores them under the device (on the
host's AWS threads, with a few retries) and fills ``data.media.media_path`` with
``/media/<media_id>``, the path of GET /media/{media_id}, and ``data.media.error`` with null.
The events queue never carries the bytes.

Whatever the adapter, the bytes are held to the send limits
(:func:`~session_host.network.media_types.received_max_bytes`: 16 MB, 64 MB for documents):
larger ones are not stored (``error: too_large``). They are uploaded with S3's managed
transfer (``upload_fileobj``'s transfer manager: multipart, parts in parallel, retried per
part), not one PutObject of everything. When S3 keeps failing, the event is still published
(``error: store_failed``): the message is not lost, only its media. A media message that
arrives without bytes keeps the adapter's ``error`` (neonize: ``too_large``, ``timeout``,
``download_failed``); ``media_path`` is null.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from gateway.config import get_settings
from gateway.context_pool import ContextThreadPool
from gateway.media import store
from gateway.media.store import StoredMedia
from gateway.observability import logger
from gateway.retries import SESSION_RECORD_WRITE, RetryPolicy
from gateway.webhooks.catalog import EventName
from session_host.aws_calls import AWS_ERRORS, AwsCalls
from session_host.network import payloads
from session_host.network.media_types import received_max_bytes
from session_host.network.port import NetworkEvent

_NOT_STORED: tuple[type[Exception], ...] = (*AWS_ERRORS, ValueError)
"""What leaves a received media unstored: AWS failing past the retries, or a refused upload."""

StoreMedia = Callable[[str, str, bytes, str, str | None], StoredMedia]
"""``store.put``'s shape: (tenant_id, device_id, data, mimetype, filename) -> StoredMedia."""


def media_path(media_id: str) -> str:
    """Where the API hands out a stored media (GET /media/{media_id})."""
    return f"/media/{media_id}"


@lru_cache(maxsize=1)
def _transfers(client: Any) -> Any:
    """The S3 transfer manager boto3's ``upload_fileobj`` uses, over the media store's client, one
    per client; its threads run each part in the context of the call that started the upload."""
    from boto3.s3.transfer import TransferConfig  # the host only: a costly import (bench/README.md)
    from s3transfer.manager import TransferManager

    return TransferManager(client, TransferConfig(), executor_cls=ContextThreadPool)


def upload(tenant_id: str, device_id: str, data: bytes, mimetype: str, filename: str | None) -> StoredMedia:
    """Store received bytes under a new media id with S3's managed transfer (``upload_fileobj``)."""
    stored, extra = store.prepare(tenant_id, device_id, data, mimetype, filename)
    bucket = get_settings().media_bucket
    _transfers(store.s3_client()).upload(io.BytesIO(data), bucket, stored.key, extra_args=extra).result()
    return stored


class ReceivedMediaKeeper:
    """Turns an event with an attachment into one without, its media stored."""

    def __init__(
        self, aws: AwsCalls, put: StoreMedia | None = None, *, retry: RetryPolicy = SESSION_RECORD_WRITE
    ) -> None:
        self._aws = aws
        self._put = put
        self._retry = retry

    async def without_bytes(self, event: NetworkEvent, tenant_id: str, device_id: str) -> NetworkEvent:
        """``event`` as it is published: no attachment, ``media.media_path`` and ``media.error`` set."""
        described = event.data.get("media")
        if event.name != EventName.MESSAGE_RECEIVED or not isinstance(described, dict):
            return replace(event, attachment=None) if event.attachment is not None else event
        attachment = event.attachment
        if attachment is None:
            # The adapter has no bytes for it (neonize: over the limit, timed out, refused).
            media = {**described, "media_path": None, "error": described.get("error")}
            return replace(event, data={**event.data, "media": media})
        limit = received_max_bytes(attachment.kind)
        if attachment.size > limit:
            logger.info(
                "received media over the limit not stored",
                extra={"device_id": device_id, "size": attachment.size, "limit": limit},
            )
            return payloads.media_not_kept(event, "too_large")
        stored = await self._store(event, tenant_id, device_id)
        if stored is None:
            return payloads.media_not_kept(event, "store_failed")
        media = {**described, "media_path": media_path(stored.media_id), "error": None}
        return replace(event, data={**event.data, "media": media}, attachment=None)

    async def _store(self, event: NetworkEvent, tenant_id: str, device_id: str) -> StoredMedia | None:
        attachment = event.attachment
        assert attachment is not None
        put = self._put or upload  # looked up per call: this module's, unless given one
        try:
            return await self._retry.async_retrying(AWS_ERRORS)(
                self._aws,
                put,
                tenant_id,
                device_id,
                attachment.data,
                attachment.mimetype,
                attachment.filename,
            )
        except _NOT_STORED as error:
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
