"""Which chats a device already wrote to or heard from (the sending policy's "new chat"):
one item per device and chat, written when a send to the chat went out and when a message
from it arrived, read by the session host that runs the device (it caches them per tenure,
so a chat costs one read and one write per tenure at most). Deleted with the device.

These functions block (PynamoDB); the session host runs them on its AWS threads.
"""

from __future__ import annotations

from pynamodb.exceptions import DoesNotExist, PutError

from gateway import clock
from gateway.messages.outbox import device_key
from gateway.models import KnownChatModel
from gateway.models.base import delete_partition


def is_known(tenant_id: str, device_id: str, chat_jid: str) -> bool:
    """Whether the device ever wrote to or heard from ``chat_jid``."""
    try:
        KnownChatModel.get(device_key(tenant_id, device_id), chat_jid, consistent_read=True)
    except DoesNotExist:
        return False
    return True


def remember(tenant_id: str, device_id: str, chat_jid: str) -> bool:
    """Record the chat as known; True when it was new (one conditional put)."""
    item = KnownChatModel(device_key(tenant_id, device_id), chat_jid, first_at=clock.now())
    try:
        item.save(condition=KnownChatModel.chat_jid.does_not_exist())
    except PutError as error:
        if error.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def delete_device_chats(tenant_id: str, device_id: str) -> int:
    """Forget every chat of the device (it is being deleted); how many there were."""
    return delete_partition(KnownChatModel, device_key(tenant_id, device_id))
