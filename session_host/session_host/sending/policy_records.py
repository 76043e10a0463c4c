"""The device record's sending fields as the dispatcher reads and writes them: the
interval and the policy (one read), the day's usage (one update per send) and the pause.

These functions block (PynamoDB); the host runs them on its AWS threads.
"""

from __future__ import annotations

from collections.abc import Sequence

from pynamodb.exceptions import DoesNotExist, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action

from gateway.devices.sending_policy import POLICY_SETTINGS, SendingPolicy
from gateway.models import DeviceModel
from gateway.timestamps import iso_utc

ATTRIBUTES = [
    "min_send_interval_seconds",
    *POLICY_SETTINGS,
    "paired_at",
    "created_at",
    "sending_paused_until",
    "usage_day",
    "usage_sent",
    "usage_new_chats",
]


def read(tenant_id: str, device_id: str) -> tuple[float, SendingPolicy]:
    """The device's ``min_send_interval_seconds`` and sending policy (0 and none when the
    record is gone)."""
    try:
        record = DeviceModel.get(tenant_id, device_id, consistent_read=True, attributes_to_get=ATTRIBUTES)
    except DoesNotExist:
        return 0.0, SendingPolicy()
    return float(record.min_send_interval_seconds or 0), SendingPolicy.of(record)


def count_send(tenant_id: str, device_id: str, day: str, *, new_chat: bool) -> bool:
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


def pause_new_chats(tenant_id: str, device_id: str, until: float) -> bool:
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
