"""Data access for webhook configurations and the delivery log.

Configuration reads are strongly consistent: a configuration just deleted stops delivery at
once, and one just written is delivered to at once.

Every write is a single conditional write, each atomic on its own (no transactions: the few
races there are resolve with one write winning, and a transaction cancelled under moto rolls
back whole tables). A configuration written for a device that is being deleted is noticed by
the writer, which then deletes it again (see ``service`` and ``pending``).
"""

from __future__ import annotations

from typing import Any

from pynamodb.exceptions import DeleteError, DoesNotExist, PutError, UpdateError
from pynamodb.expressions.condition import Condition

from gateway.models import DeliveryModel, DeviceModel, UserModel, WebhookModel
from gateway.models.base import delete_partition
from gateway.pagination import Listing, Page, PageRequest, read_page

EVENT_PREFIX = "event#"
ATTEMPT_PREFIX = "attempt#"
DELIVERIES = "deliveries"
_FILTERED_PAGE_SIZE = 200
_CONDITION_FAILED = "ConditionalCheckFailedException"


def get_config(tenant_id: str, device_id: str) -> WebhookModel | None:
    """The device's configuration as it is now, or None."""
    try:
        return WebhookModel.get(tenant_id, device_id, consistent_read=True)
    except DoesNotExist:
        return None


def put_config(config: WebhookModel, condition: Condition) -> bool:
    """Save ``config`` if ``condition`` holds; False when it does not."""
    try:
        config.save(condition=condition)
    except PutError as error:
        if error.cause_response_code == _CONDITION_FAILED:
            return False
        raise
    return True


def settle(tenant_id: str, device_id: str, settled_at: str, *, first: bool) -> bool:
    """Mark the device so its owner's pending URL never applies to it (``gateway.webhooks.pending``).

    False when the device is gone, or, with ``first``, when it was settled already.
    """
    condition = DeviceModel.device_id.exists()
    if first:
        condition &= DeviceModel.pending_webhook_settled_at.does_not_exist()
    try:
        DeviceModel(tenant_id, device_id).update(
            actions=[DeviceModel.pending_webhook_settled_at.set(settled_at)], condition=condition
        )
    except UpdateError as error:
        if error.cause_response_code == _CONDITION_FAILED:
            return False
        raise
    return True


def set_pending_url(tenant_id: str, user_id: str, url: str, updated_at: str) -> bool:
    """Store the user's pending webhook URL; False when the user is gone."""
    try:
        UserModel(tenant_id, user_id).update(
            actions=[UserModel.pending_webhook_url.set(url), UserModel.updated_at.set(updated_at)],
            condition=UserModel.user_id.exists(),
        )
    except UpdateError as error:
        if error.cause_response_code == _CONDITION_FAILED:
            return False
        raise
    return True


def delete_config(tenant_id: str, device_id: str, webhook_id: str | None = None) -> bool:
    """Delete the device's configuration (only if it is still ``webhook_id``, when given);
    False when there was none to delete."""
    condition = WebhookModel.device_id.exists()
    if webhook_id is not None:
        condition &= WebhookModel.webhook_id == webhook_id
    try:
        WebhookModel(tenant_id, device_id).delete(condition=condition)
    except DeleteError as error:
        if error.cause_response_code == _CONDITION_FAILED:
            return False
        raise
    return True


def mark_slow(tenant_id: str, device_id: str, webhook_url: str, until: float) -> bool:
    """Mark the configuration slow until ``until`` (epoch seconds), if it still sends to
    ``webhook_url``; False when it does not (changed or deleted meanwhile)."""
    condition = WebhookModel.device_id.exists() & (WebhookModel.webhook_url == webhook_url)
    return _update_config(tenant_id, device_id, [WebhookModel.slow_until.set(until)], condition)


def unmark_slow(tenant_id: str, device_id: str, marked_until: float) -> bool:
    """Lift the configuration's slow mark, if it is still the one read (``marked_until``): a
    mark set anew meanwhile, by a slow attempt elsewhere, stays. False when it was not lifted."""
    condition = WebhookModel.slow_until == marked_until
    return _update_config(tenant_id, device_id, [WebhookModel.slow_until.remove()], condition)


def _update_config(tenant_id: str, device_id: str, actions: list[Any], condition: Condition) -> bool:
    try:
        WebhookModel(tenant_id, device_id).update(actions=actions, condition=condition)
    except UpdateError as error:
        if error.cause_response_code == _CONDITION_FAILED:
            return False
        raise
    return True


def delete_tenant_configs(tenant_id: str) -> int:
    """Delete every configuration of the tenant; how many there were."""
    return delete_partition(WebhookModel, tenant_id)


def delete_delivery_log(device_id: str) -> None:
    """Delete the device's delivery log: its events and their attempts."""
    delete_partition(DeliveryModel, device_id)


def get_logged_event(tenant_id: str, device_id: str, event_id: str) -> DeliveryModel | None:
    """The delivery log's record of one event of the device (with its envelope), or None."""
    try:
        item = DeliveryModel.get(device_id, EVENT_PREFIX + event_id, consistent_read=True)
    except DoesNotExist:
        return None
    return item if item.tenant_id == tenant_id else None


def attempts_page(
    tenant_id: str, device_id: str, request: PageRequest, status: str | None
) -> Page[DeliveryModel]:
    """A page of the device's delivery attempts, newest first, of ``status`` if given.

    Attempt keys start with the attempt's epoch milliseconds, so a descending Query on the
    prefix is newest first. With a status filter each read evaluates more items, since fewer
    of them match.
    """
    condition = DeliveryModel.tenant_id == tenant_id
    if status is not None:
        condition &= DeliveryModel.status == status
    return read_page(
        Listing(DELIVERIES, DeliveryModel, partition=device_id, range_prefix=ATTEMPT_PREFIX),
        request,
        filter_condition=condition,
        newest_first=True,
        read_size=None if status is None else _FILTERED_PAGE_SIZE,
    )
