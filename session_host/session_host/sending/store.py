"""The outbox as a device's dispatcher sees it, and the media its sends carry: awaitable
calls, swappable in unit tests."""

from __future__ import annotations

from typing import Protocol

from gateway.devices import known_chats
from gateway.devices.sending_policy import SendingPolicy
from gateway.failures.kinds import ErrorKind
from gateway.media import store as media_store
from gateway.media.kinds import CheckedMedia, Kind
from gateway.messages import outbox
from gateway.messages.sends import Send
from session_host.aws_calls import AwsCalls
from session_host.sending import network_calls, policy_records


class OutboxStore(Protocol):
    async def unfinished(self, tenant_id: str, device_id: str) -> list[Send]: ...
    async def get(self, tenant_id: str, device_id: str, send_key: str) -> Send | None: ...
    async def claim(self, send: Send, epoch: int) -> bool: ...
    async def requeue(self, send: Send, epoch: int, not_before: float | None = None) -> bool: ...
    async def mark_sent(self, send: Send, epoch: int, network_message_id: str, sent_at: float) -> bool: ...
    async def mark_failed(
        self, send: Send, error: str, *, kind: ErrorKind, epoch: int | None = None
    ) -> bool: ...
    async def sending_policy(self, tenant_id: str, device_id: str) -> tuple[float, SendingPolicy]: ...
    async def count_send(self, tenant_id: str, device_id: str, day: str, *, new_chat: bool) -> bool: ...
    async def pause_new_chats(self, tenant_id: str, device_id: str, until: float) -> bool: ...
    async def chat_known(self, tenant_id: str, device_id: str, chat_jid: str) -> bool: ...
    async def remember_chat(self, tenant_id: str, device_id: str, chat_jid: str) -> bool: ...
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

    async def requeue(self, send: Send, epoch: int, not_before: float | None = None) -> bool:
        return await self._aws(outbox.requeue, send, epoch, not_before)

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

    async def sending_policy(self, tenant_id: str, device_id: str) -> tuple[float, SendingPolicy]:
        """The device's ``min_send_interval_seconds`` (0 when unset or the record is gone) and
        its sending policy, in one read."""
        return await self._aws(policy_records.read, tenant_id, device_id)

    async def count_send(self, tenant_id: str, device_id: str, day: str, *, new_chat: bool) -> bool:
        return await self._aws(policy_records.count_send, tenant_id, device_id, day, new_chat=new_chat)

    async def pause_new_chats(self, tenant_id: str, device_id: str, until: float) -> bool:
        return await self._aws(policy_records.pause_new_chats, tenant_id, device_id, until)

    async def chat_known(self, tenant_id: str, device_id: str, chat_jid: str) -> bool:
        return await self._aws(known_chats.is_known, tenant_id, device_id, chat_jid)

    async def remember_chat(self, tenant_id: str, device_id: str, chat_jid: str) -> bool:
        """Record the chat as known; True when it was new."""
        return await self._aws(known_chats.remember, tenant_id, device_id, chat_jid)
