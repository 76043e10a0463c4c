"""The outbox as a device's dispatcher sees it, the device record's sending fields (the
interval and the policy in one read, the day's usage, the pause), its known chats, and the media
its sends carry: awaitable calls, swappable in unit tests. The blocking calls they make
(PynamoDB, S3) run on the host's AWS threads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from gateway.devices import known_chats
from gateway.devices.sending_policy import POLICY_SETTINGS, SendingPolicy
from gateway.failures.kinds import ErrorKind
from gateway.media import store as media_store
from gateway.media.kinds import CheckedMedia, Kind
from gateway.messages import outbox
from gateway.messages.sends import Send
from gateway.models import DeviceModel
from gateway.timestamps import iso_utc
from session_host.aws_calls import AwsCalls
from session_host.sending import network_calls


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
        return await self._aws(_read_policy, tenant_id, device_id)

    async def count_send(self, tenant_id: str, device_id: str, day: str, *, new_chat: bool) -> bool:
        return await self._aws(_count_send, tenant_id, device_id, day, new_chat=new_chat)

    async def pause_new_chats(self, tenant_id: str, device_id: str, until: float) -> bool:
        return await self._aws(_pause_new_chats, tenant_id, device_id, until)

    async def chat_known(self, tenant_id: str, device_id: str, chat_jid: str) -> bool:
        return await self._aws(known_chats.is_known, tenant_id, device_id, chat_jid)

    async def remember_chat(self, tenant_id: str, device_id: str, chat_jid: str) -> bool:
        """Record the chat as known; True when it was new."""
        return await self._aws(known_chats.remember, tenant_id, device_id, chat_jid)


# --- the device record's sending fields (blocking) -------------------------------------

POLICY_ATTRIBUTES = [
    "min_send_interval_seconds",
    *POLICY_SETTINGS,
    "paired_at",
    "created_at",
    "sending_paused_until",
    "usage_day",
    "usage_sent",
    "usage_new_chats",
]


def _read_policy(tenant_id: str, device_id: str) -> tuple[float, SendingPolicy]:
    """The device's ``min_send_interval_seconds`` and sending policy (0 and none when the
    record is gone)."""
    try:
        record = DeviceModel.get(
            tenant_id, device_id, consistent_read=True, attributes_to_get=POLICY_ATTRIBUTES
        )
    except DoesNotExist:
        return 0.0, SendingPolicy()
    return float(record.min_send_interval_seconds or 0), SendingPolicy.of(record)


def _count_send(tenant_id: str, device_id: str, day: str, *, new_chat: bool) -> bool:
    """Count one message sent on ``day`` (UTC) on the record (one to a new chat when
    ``new_chat``): added to the day's counts, or starting them when the record's are of an
    earlier day. False when the device is gone (or the record is of a later day)."""
    record = DeviceModel(tenant_id, device_id)
    added = int(new_chat)
    same_day = DeviceModel.usage_day == day
    other_day = DeviceModel.usage_day.does_not_exist() | (DeviceModel.usage_day != day)
    add = [DeviceModel.usage_sent.add(1), DeviceModel.usage_new_chats.add(added)]
    first = [
        DeviceModel.usage_day.set(day),
        DeviceModel.usage_sent.set(1),
        DeviceModel.usage_new_chats.set(added),
    ]
    # Twice at most: a count of the same send's day may start the day between the two tries.
    return any(_update(record, add, same_day) or _update(record, first, other_day) for _ in range(2))


def _pause_new_chats(tenant_id: str, device_id: str, until: float) -> bool:
    """Show the pause of the device's new-chat sends (``sending_paused_until``)."""
    return _update(
        DeviceModel(tenant_id, device_id), [DeviceModel.sending_paused_until.set(iso_utc(until))], None
    )


def _update(record: DeviceModel, actions: Sequence[Action], condition: Condition | None) -> bool:
    exists = DeviceModel.device_id.exists()
    try:
        record.update(actions=list(actions), condition=exists if condition is None else exists & condition)
    except UpdateError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True
