"""A tenant whose receiver hangs, with an event in every batch, against everyone else's deliveries,
on the local stack: its configuration is marked slow and its events pile up in the slow lane's
queue (a worker and an instance cap of its own, as SlowWebhookDeliveryFunction on Lambda), while
another tenant's events keep arriving within the batching window and 1 s of their publication.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from device_flows import create_device, subscribe
from hostile_receivers import hanging
from test_webhook_delivery import publish
from waiting import wait_until
from webhook_receiver import Receiver

from gateway.bus.queues import sqs_client
from gateway.config import get_settings
from gateway.webhooks import store
from local_stack.delivery_worker import template_event_source

pytestmark = pytest.mark.e2e

ROUNDS = 8  # batching windows, each with hostile events and one event of the other tenant
HOSTILE_PER_ROUND = 20
TIMEOUT = 2  # seconds, the hanging receiver's configured timeout
ALLOWANCE = 1.0  # what the hanging receiver may add to another configuration's delivery


def queued(queue_url: str) -> int:
    """Messages on the queue, visible or not (in flight, or waiting out a retry delay)."""
    attributes = sqs_client().get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def test_a_hanging_tenant_piles_up_in_the_slow_lane_and_delays_no_other_tenant(
    api: Any, receiver: Receiver
) -> None:
    # Given a tenant whose device's receiver hangs (2 s timeout, 3 retries), and another tenant
    # whose receiver answers at once
    hostile_tenant, other_tenant = api.register(), api.register()
    other_device = create_device(api, other_tenant.admin_token)
    other_path = receiver.path()
    subscribe(api, other_tenant.admin_token, other_device, receiver.url(other_path), ["message.received"])
    window = template_event_source().batching_window_seconds
    settings = get_settings()
    with hanging() as hung:
        hostile_device = create_device(api, hostile_tenant.admin_token)
        subscribe(
            api,
            hostile_tenant.admin_token,
            hostile_device,
            f"http://127.0.0.1:{hung.port}/in",
            ["message.received"],
            timeout=TIMEOUT,
            retry_attempts=3,
        )

        # When, eight times a batching window apart, the hostile tenant publishes twenty events
        # and the other tenant one
        published: dict[str, float] = {}
        for _ in range(ROUNDS):
            for _ in range(HOSTILE_PER_ROUND):
                publish(hostile_tenant.id, hostile_device)
            published[publish(other_tenant.id, other_device)["id"]] = time.monotonic()
            time.sleep(window + 0.2)
        arrived = receiver.wait_for(other_path, lambda found: len(found) >= ROUNDS, timeout=30)
        latencies = {r.envelope["id"]: r.received_at - published[r.envelope["id"]] for r in arrived}

        # Then every event of the other tenant arrived within the window and 1 s of its publication
        assert set(latencies) == set(published)
        assert max(latencies.values()) < window + ALLOWANCE, sorted(latencies.values())
        # And the hostile configuration is marked slow, its events have left the main lane and
        # pile up in the slow one (attempted there, their retries waiting), the receiver called
        config = store.get_config(hostile_tenant.id, hostile_device)
        assert config is not None
        assert config.slow_until is not None
        assert config.slow_until > time.time()
        wait_until(lambda: queued(settings.events_queue_url) == 0, timeout=10)
        assert queued(settings.slow_events_queue_url) > 0
        assert hung.accepted >= 1
