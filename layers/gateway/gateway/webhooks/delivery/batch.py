"""What the records of one invocation share: their configurations, each read once, and the
count of their outcomes, published once as metrics."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from gateway.models.webhooks import WebhookModel
from gateway.observability import logger, metrics
from gateway.webhooks import pending, store
from gateway.webhooks.catalog import EventName, expand
from gateway.webhooks.delivery.incoming import IncomingEvent
from gateway.webhooks.delivery.target import Target, target_of

PENDING_WEBHOOK_EVENT = EventName.DEVICE_CONNECTED
"""The event that applies a user's pending webhook URL to a device without a configuration."""


InPool = Callable[..., Awaitable[Any]]
"""Runs a blocking function on the invocation's threads: ``await in_pool(function, *args)``."""


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
