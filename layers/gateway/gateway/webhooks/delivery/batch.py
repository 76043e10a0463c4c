"""What the records of one invocation share: their configurations, each read once and worked
out once as the :class:`Target` every attempt needs (reading a PynamoDB model's attributes,
filtering the custom headers and setting up the HMAC key cost more than the rest of an
attempt's own work), and the count of their outcomes, published once as metrics."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
from pynamodb.attributes import MapAttribute

from gateway.config import get_settings
from gateway.models.webhooks import WebhookModel
from gateway.observability import logger, metrics
from gateway.webhooks import pending, store
from gateway.webhooks.catalog import EventName, expand
from gateway.webhooks.delivery.constants import RESERVED_HEADERS, USER_AGENT
from gateway.webhooks.events_queue import IncomingEvent
from gateway.webhooks.signing import Signer

PENDING_WEBHOOK_EVENT = EventName.DEVICE_CONNECTED
"""The event that applies a user's pending webhook URL to a device without a configuration."""


InPool = Callable[..., Awaitable[Any]]
"""Runs a blocking function on the invocation's threads: ``await in_pool(function, *args)``."""


PLAIN_HTTP_REFUSED = "refused: plain HTTP is not allowed"


@dataclass(frozen=True)
class Target:
    """A webhook configuration as a batch delivers to it: where and how its events are sent."""

    webhook_url: str
    timeout: float  # seconds, for the whole attempt
    retry_attempts: int
    headers: Mapping[str, str]  # the custom headers allowed, then User-Agent and Content-Type
    signer: Signer | None  # None: no secret, nothing signed
    refusal: str | None  # why no attempt is made at all, or None
    slow_until: float = 0.0  # epoch seconds until which it is marked slow (slow_lane.py)


def target_of(config: WebhookModel) -> Target:
    """The configuration's target as the deployment's settings allow it now."""
    settings = get_settings()
    url = str(config.webhook_url)
    http_allowed = settings.allow_http_webhooks or settings.local_mode
    plain_refused = urlsplit(url).scheme == "http" and not http_allowed
    return Target(
        webhook_url=url,
        timeout=float(config.timeout),
        retry_attempts=int(config.retry_attempts),
        headers=_fixed_headers(config.headers),
        signer=Signer(config.secret) if config.secret else None,
        refusal=PLAIN_HTTP_REFUSED if plain_refused else None,  # configured while it was allowed
        slow_until=float(config.slow_until or 0),
    )


def _fixed_headers(custom: MapAttribute[str, str] | Mapping[str, str] | None) -> dict[str, str]:
    """The configuration's custom headers, less those the gateway sets itself (which they
    cannot replace), then the gateway's headers that are the same for every event."""
    given = custom.as_dict() if isinstance(custom, MapAttribute) else (custom or {})
    headers = {name: str(value) for name, value in given.items() if name.lower() not in RESERVED_HEADERS}
    if not any(name.lower() == "user-agent" for name in headers):
        headers["User-Agent"] = USER_AGENT
    headers["Content-Type"] = "application/json"
    return headers


class Configurations:
    """The webhook configurations of one batch, each read once (consistently) for the batch.

    A batch usually holds several events of one device; its records are delivered at the same
    time, so one read per device serves them all (the others wait for it on the event loop,
    holding no thread) and sees the configuration as it is when the batch starts: a
    configuration deleted or disabled before then delivers nothing.
    """

    def __init__(self) -> None:
        self._slots: dict[tuple[str, str], _Slot] = {}

    async def subscribed(self, incoming: IncomingEvent, in_pool: InPool) -> Target | None:
        """The device's configuration, as the batch delivers to it, if it is enabled and
        subscribed to this event.

        A ``device.connected`` of a device with no configuration first applies its owner's
        pending webhook URL, so that very event is delivered to it. Redeliveries follow the
        same rules: the current configuration, its ``enabled`` flag and ``enabled_events``.
        """
        key = (incoming.tenant_id, incoming.device_id)
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot()
        async with slot.lock:
            if not slot.read:  # marked read only once read: a failed read is tried again
                slot.use(await in_pool(store.get_config, incoming.tenant_id, incoming.device_id))
                slot.read = True
            if slot.target is None and incoming.event == PENDING_WEBHOOK_EVENT:
                slot.use(await in_pool(pending.apply_pending_webhook, incoming.tenant_id, incoming.device_id))
            target, events = slot.target, slot.events
        if target is None or incoming.event not in events:
            logger.debug(
                "event not delivered: no subscription",
                extra={
                    "device_id": incoming.device_id,
                    "event": incoming.event,
                    "configured": target is not None,
                    "redelivery": incoming.redelivery,
                },
            )
            return None
        return target


def _subscribed_events(config: WebhookModel | None) -> frozenset[str]:
    """The events an enabled configuration delivers (none when disabled or absent)."""
    if config is None or not config.enabled:
        return frozenset()
    return expand(config.enabled_events or ())


@dataclass
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    read: bool = False
    target: Target | None = None  # the configuration, worked out once for the batch
    events: frozenset[str] = frozenset()  # what it delivers, expanded once for the batch

    def use(self, config: WebhookModel | None) -> None:
        self.target = None if config is None else target_of(config)
        self.events = _subscribed_events(config)


class Outcomes:
    """How the batch's events ended, counted across its threads and published at the end of
    the invocation as EMF metrics, one value per name. The metrics object is the invocation's
    own: Powertools' shared one is not safe to add to from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def publish(self) -> None:
        if not self._counts:
            return
        emf = EphemeralMetrics(namespace=metrics.namespace, service=metrics.service)
        for name, value in self._counts.items():
            emf.add_metric(name=name, unit=MetricUnit.Count, value=value)
        emf.flush_metrics()


@dataclass
class Batch:
    """The per-invocation state the records of a batch share."""

    configurations: Configurations = field(default_factory=Configurations)
    outcomes: Outcomes = field(default_factory=Outcomes)
