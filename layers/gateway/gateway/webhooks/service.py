"""Webhook configuration: the operations behind POST/GET/DELETE /webhook and POST /user/webhook.

A configuration belongs to one device (the request's authenticated device). POST /webhook
creates it (201) or updates it (200); fields an update leaves out keep their stored values,
so a client that cannot read the secret back does not lose it by changing something else.
The receiver's credentials (the secret, custom header values) follow its URL, though: an
update that changes ``webhook_url`` keeps them only when it gives them again, so whoever may
configure a device (its owner, say) cannot point another's receiver's secret and bearer
token at a server of their own (decisions, "Hostile conditions").
Of concurrent updates the last one written wins; concurrent creations make one configuration.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import HttpUrl, TypeAdapter, ValidationError
from pynamodb.expressions.condition import Condition

from gateway.accounts.roles import Principal
from gateway.config import get_settings
from gateway.devices import store as device_store
from gateway.devices.access import device_not_found
from gateway.errors import ApiError, conflict, invalid_token, not_found, validation_error
from gateway.failures.codes import ErrorCode
from gateway.models import DeviceModel, WebhookModel
from gateway.observability import logger
from gateway.timestamps import iso_utc
from gateway.webhooks import store
from gateway.webhooks.addresses import UnsafeUrl, check_url
from gateway.webhooks.catalog import CATALOG, SUBSCRIBABLE, unknown_names
from gateway.webhooks.schemas import PendingWebhookRequest, WebhookRequest
from gateway.webhooks.views import HEADER_VALUE_MASK, plain_headers, webhook_view

_URL = TypeAdapter(HttpUrl)
_WRITE_ATTEMPTS = 3
_OPTIONAL_FIELDS = ("enabled", "retry_attempts", "timeout", "secret", "headers")
_CREDENTIAL_FIELDS = frozenset({"secret", "headers"})
"""Optional fields an update that changes ``webhook_url`` does not keep when left out."""


def webhook_not_configured() -> ApiError:
    return not_found(ErrorCode.WEBHOOK_NOT_CONFIGURED, "Webhook not configured")


def deliverable_url(url: str) -> None:
    """Raise :class:`UnsafeUrl` unless the gateway may deliver to ``url`` in this deployment.

    HTTPS, or plain HTTP where the deployment allows it (``ALLOW_HTTP_WEBHOOKS``, or local
    mode); outside local mode the host must be, and resolve only to, public addresses.
    """
    try:
        _URL.validate_python(url)
    except ValidationError:
        raise UnsafeUrl("webhook_url is not a valid http(s) URL") from None
    settings = get_settings()
    try:
        check_url(
            url,
            allow_http=settings.allow_http_webhooks or settings.local_mode,
            local_mode=settings.local_mode,
        )
    except UnsafeUrl:
        raise
    except ValueError as error:  # urlsplit: a malformed IPv6 host or port
        raise UnsafeUrl(f"webhook_url is not a valid URL ({error})") from None


def checked_webhook_url(url: str) -> str:
    """``url`` if the gateway may deliver to it, else 400 VALIDATION_ERROR naming ``webhook_url``."""
    try:
        deliverable_url(url)
    except UnsafeUrl as error:
        raise validation_error("webhook_url", str(error), url) from None
    return url


def known_events(names: list[str]) -> set[str]:
    """The names, all known; else 400 VALIDATION_ERROR listing every valid name."""
    unknown = set(unknown_names(names))
    if unknown:
        items = [
            {
                "field": f"enabled_events.{index}",
                "message": "unknown event name; GET /webhook/events lists the valid names",
                "value": name,
            }
            for index, name in enumerate(names)
            if name in unknown
        ]
        raise ApiError(
            400,
            ErrorCode.VALIDATION_ERROR,
            "enabled_events: unknown event names: " + ", ".join(sorted(unknown)),
            validation=items,
            extra={"available_events": list(SUBSCRIBABLE)},
        )
    return set(names)


def configure(device: DeviceModel, request: WebhookRequest) -> tuple[dict[str, Any], bool]:
    """Create or update the device's configuration; the stored configuration and whether it
    was created."""
    events = known_events(request.enabled_events)
    url = checked_webhook_url(request.webhook_url)  # after the cheap checks: it may resolve a name
    for _ in range(_WRITE_ATTEMPTS):
        current = store.get_config(device.tenant_id, device.device_id)
        config = _merged(device, request, url, events, current)
        condition: Condition
        if current is None:
            condition = WebhookModel.device_id.does_not_exist()
        else:  # still the configuration read: one deleted (or re-created) meanwhile starts over
            condition = WebhookModel.webhook_id == current.webhook_id
        if store.put_config(config, condition):
            break
    else:
        raise conflict(
            ErrorCode.CONFLICT, "the webhook configuration was deleted and created again meanwhile; retry"
        )
    _keep_only_if_device_lives(device, config)
    logger.info(
        "webhook configured",
        extra={"tenant_id": device.tenant_id, "device_id": device.device_id, "new_config": current is None},
    )
    return webhook_view(config), current is None


def _keep_only_if_device_lives(device: DeviceModel, config: WebhookModel) -> None:
    """Settle the device (its owner's pending URL no longer applies: it has a configuration of
    its own), and make sure it still exists: one deleted while the configuration was written
    takes the configuration with it (404)."""
    if device.pending_webhook_settled_at is None:
        alive = store.settle(device.tenant_id, device.device_id, config.updated_at, first=False)
    else:
        alive = device_store.get_device(device.tenant_id, device.device_id) is not None
    if not alive:
        store.delete_config(device.tenant_id, device.device_id, config.webhook_id)
        raise device_not_found()


def _merged(
    device: DeviceModel, request: WebhookRequest, url: str, events: set[str], current: WebhookModel | None
) -> WebhookModel:
    """The configuration to store: the request, with what an update left out taken from
    ``current`` (or the defaults when creating, and for credentials when the URL changes)."""
    now = iso_utc()
    given = request.model_fields_set
    moved = current is not None and url != current.webhook_url
    optional = {
        name: getattr(current, name)
        if current is not None and name not in given and not (moved and name in _CREDENTIAL_FIELDS)
        else getattr(request, name)  # given, or its default
        for name in _OPTIONAL_FIELDS
    }
    return WebhookModel(
        device.tenant_id,
        device.device_id,
        webhook_id=current.webhook_id if current is not None else str(uuid.uuid4()),
        webhook_url=url,
        enabled_events=events,
        enabled=optional["enabled"],
        retry_attempts=optional["retry_attempts"],
        timeout=optional["timeout"],
        secret=optional["secret"],
        headers=_unmasked(plain_headers(optional["headers"]), current, moved),
        created_at=current.created_at if current is not None else now,
        updated_at=now,
    )


def _unmasked(headers: dict[str, str], current: WebhookModel | None, moved: bool) -> dict[str, str]:
    """The headers to store: a value given as the mask (what GET shows) keeps the value stored
    under that name (names compare case-insensitively), so a configuration read, changed and
    posted back keeps its header values. A mask is 400 for a header not stored, and for every
    header when the update changes the URL (``moved``): a value is kept for its URL only."""
    stored_headers = plain_headers(current.headers) if current is not None and not moved else {}
    stored = {name.lower(): value for name, value in stored_headers.items()}
    resolved = {}
    for name, value in headers.items():
        if value == HEADER_VALUE_MASK:
            if name.lower() not in stored:
                reason = (
                    "only while webhook_url stays the same; give the value" if moved else "and none is stored"
                )
                raise validation_error(
                    f"headers.{name}", f"{HEADER_VALUE_MASK} keeps a stored value, {reason}"
                )
            value = stored[name.lower()]
        resolved[name] = value
    return resolved


def get(device: DeviceModel) -> dict[str, Any]:
    config = store.get_config(device.tenant_id, device.device_id)
    if config is None:
        raise webhook_not_configured()
    return webhook_view(config)


def delete(device: DeviceModel) -> None:
    """Delete the configuration; delivery stops at once (the delivery function reads it
    consistently). The delivery log stays until it expires."""
    if not store.delete_config(device.tenant_id, device.device_id):
        raise webhook_not_configured()
    logger.info("webhook deleted", extra={"tenant_id": device.tenant_id, "device_id": device.device_id})


def set_pending_url(caller: Principal, request: PendingWebhookRequest) -> dict[str, Any]:
    """Store the caller's pending URL, applied with every catalog event to each device of the
    caller when it first connects without a configuration of its own."""
    url = checked_webhook_url(request.webhook_url)
    if not store.set_pending_url(caller.tenant_id, caller.user_id, url, iso_utc()):
        raise invalid_token()  # the user was deleted after its token was read
    return {"webhook_url": url, "available_events": list(CATALOG), "events_count": len(CATALOG)}
