"""The outbox as a device's dispatcher sees it, and the media its sends carry: awaitable
calls, swappable in unit tests."""

from __future__ import annotations

from typing import Protocol

from pynamodb.exceptions import DoesNotExist

from gateway.failures.kinds import ErrorKind
from gateway.media import store as media_store
from gateway.media.kinds import CheckedMedia, Kind
from gateway.messages import outbox
from gateway.messages.sends import Send
from gateway.models import DeviceModel
from session_host.aws_calls import AwsCalls
from session_host.sending import network_calls


class OutboxStore(Protocol):
    async def unfinished(self, tenant_id: str, device_id: str) -> list[Send]: ...
    async def get(self, tenant_id: str, device_id: str, send_key: str) -> Send | None: ...
    async def claim(self, send: Send, epoch: int) -> bool: ...
    async def requeue(self, send: Send, epoch: int) -> bool: ...
    async def mark_sent(self, send: Send, epoch: int, network_message_id: str, sent_at: float) -> bool: ...
    async def mark_failed(
        self, send: Send, error: str, *, kind: ErrorKind, epoch: int | None = None
    ) -> bool: ...
    async def min_interval(self, tenant_id: str, device_id: str) -> float: ...
    async def last_sent_at(self, tenant_id: str, device_id: str) -> float | None: ...
    async def find(self, tenant_id: str, device_id: str, message_id: str) -> Send | None: ...
    async def mark_revoked(self, send: Send, at: float) -> bool: ...
    async def mark_deleted_for_me(self, send: Send, at: float) -> bool: ...
    async def stored_media(self, tenant_id: str, device_id: str, media_id: str) -> bytes: ...
    async def fetched_media(
        self, kind: Kind, url: str, declared: str | None, *, status: bool = False
    ) -> CheckedMedia: ...


class HostOutbox:
    """:mod:`gateway.messages.outbox` on the host's AWS threads."""

    def __init__(self, aws: AwsCalls) -> None:
        self._aws = aws

    async def unfinished(self, tenant_id: str, device_id: str) -> list[Send]:
        return await self._aws(outbox.unfinished, tenant_id, device_id)

    async def get(self, tenant_id: str, device_id: str, send_key: str) -> Send | None:
        return await self._aws(outbox.get, tenant_id, device_id, send_key)

    async def claim(self, send: Send, epoch: int) -> bool:
        return await self._aws(outbox.claim, send, epoch)

    async def requeue(self, send: Send, epoch: int) -> bool:
        return await self._aws(outbox.requeue, send, epoch)

    async def mark_sent(self, send: Send, epoch: int, network_message_id: str, sent_at: float) -> bool:
        return await self._aws(outbox.mark_sent, send, epoch, network_message_id, sent_at)

    async def mark_failed(self, send: Send, error: str, *, kind: ErrorKind, epoch: int | None = None) -> bool:
        return await self._aws(outbox.mark_failed, send, error, kind=kind, epoch=epoch)

    async def last_sent_at(self, tenant_id: str, device_id: str) -> float | None:
        return await self._aws(outbox.last_sent_at, tenant_id, device_id)

    async def find(self, tenant_id: str, device_id: str, message_id: str) -> Send | None:
        return await self._aws(outbox.find, tenant_id, device_id, message_id)

    async def mark_revoked(self, send: Send, at: float) -> bool:
        return await self._aws(outbox.mark_revoked, send, at)

    async def mark_deleted_for_me(self, send: Send, at: float) -> bool:
        return await self._aws(outbox.mark_deleted_for_me, send, at)

    async def stored_media(self, tenant_id: str, device_id: str, media_id: str) -> bytes:
        """The bytes of a media send the API stored (``MediaNotFound`` when they are gone)."""
        return await self._aws(media_store.get, tenant_id, device_id, media_id)

    async def fetched_media(
        self, kind: Kind, url: str, declared: str | None, *, status: bool = False
    ) -> CheckedMedia:
        """The media at a send's ``url``, fetched and checked for its kind (a story's limits
        when ``status``)."""
        return await self._aws(network_calls.fetch_checked, kind, url, declared, status=status)

    async def min_interval(self, tenant_id: str, device_id: str) -> float:
        """The device's ``min_send_interval_seconds`` (0 when unset or the record is gone)."""
        return await self._aws(_min_interval, tenant_id, device_id)


def _min_interval(tenant_id: str, device_id: str) -> float:
    try:
        record = DeviceModel.get(tenant_id, device_id, attributes_to_get=["min_send_interval_seconds"])
    except DoesNotExist:
        return 0.0
    return float(record.min_send_interval_seconds or 0)
