"""The send outbox: messages a device was asked to send, until they are sent (or failed).

Written through :mod:`gateway.messages.outbox`: the API enqueues, the session host that runs
the device dispatches and marks each item with conditional writes.
"""

from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, JSONAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex, KeysOnlyProjection

from gateway.models.base import GatewayModel, table_meta


class PendingIndex(GlobalSecondaryIndex["SendModel"]):
    """The sends not finished yet (sparse: only items with a ``pending_key``), in request order,
    so a dispatcher's read costs what is waiting, not the device's whole recent history."""

    class Meta:
        index_name = "pending"
        projection = AllProjection()

    device_key = UnicodeAttribute(hash_key=True)
    pending_key = UnicodeAttribute(range_key=True)


class SendsByMessageId(GlobalSecondaryIndex["SendModel"]):
    """A device's sends by the gateway's id (the one POST /send/* answered with)."""

    class Meta:
        index_name = "by_message_id"
        projection = KeysOnlyProjection()

    device_key = UnicodeAttribute(hash_key=True)
    message_id = UnicodeAttribute(range_key=True)


class SendsByNetworkId(GlobalSecondaryIndex["SendModel"]):
    """A device's sent messages by the network's id (``message.sent``'s ``message_id``);
    sparse: only items that went out have one."""

    class Meta:
        index_name = "by_network_message_id"
        projection = KeysOnlyProjection()

    device_key = UnicodeAttribute(hash_key=True)
    network_message_id = UnicodeAttribute(range_key=True)


class SendModel(GatewayModel):
    """One message to send. ``device_key`` is ``<tenant_id>#<device_id>``; ``send_key`` is
    ``<requested_at in ms, 13 digits>#<message_id>``, so a Query reads a device's sends in
    request order. ``expires_at`` (epoch seconds) is the TTL that clears finished items.
    The two indexes find one send by either of its ids (keys only: the item is then read
    consistently from the table)."""

    Meta = table_meta("sends_table")

    device_key = UnicodeAttribute(hash_key=True)
    send_key = UnicodeAttribute(range_key=True)
    message_id = UnicodeAttribute()  # the gateway's own id, answered to the client
    chat_jid = UnicodeAttribute()
    text = UnicodeAttribute()
    delay_seconds = NumberAttribute(default=0)
    typing_seconds = NumberAttribute(default=0)
    disable_presence = BooleanAttribute(default=False)
    requested_at = NumberAttribute()  # epoch seconds
    not_before = NumberAttribute()  # requested_at + delay
    state = UnicodeAttribute()  # queued | sending | sent | failed | canceled
    sending_epoch = NumberAttribute(null=True)  # lease epoch of the host that made the network call
    network_message_id = UnicodeAttribute(null=True)
    sent_at = NumberAttribute(null=True)
    error = UnicodeAttribute(null=True)
    error_kind = UnicodeAttribute(null=True)  # the host's error kind of a failed send (network, timeout...)
    expires_at = NumberAttribute(null=True)
    pending_key = UnicodeAttribute(null=True)  # the send_key while queued or sending, then removed
    kind = UnicodeAttribute(null=True)  # text (also when absent), image, location, ...
    payload = JSONAttribute(null=True)  # what a kind other than text needs (media: its S3 key)
    revoked_at = NumberAttribute(null=True)  # deleted for everyone (DELETE /messages/{id})
    deleted_for_me_at = NumberAttribute(null=True)  # deleted from the account's own view
    reply_to = UnicodeAttribute(null=True)  # the message it quotes, as the request named it (replies)

    pending = PendingIndex()
    by_message_id = SendsByMessageId()
    by_network_message_id = SendsByNetworkId()
