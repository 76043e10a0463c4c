"""A tenant's hostile receivers against everyone else's deliveries, on the local stack: events
queue → local delivery worker → the delivery function → receivers on loopback.

The local worker is what users test their receivers against, so it isolates as Lambda does:
every batch is invoked as soon as it is gathered, and every attempt ends at its own timeout.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Any

import pytest
from device_flows import create_device, subscribe
from hostile_receivers import closed_port, hanging, trickling_tls
from test_webhook_delivery import publish
from webhook_receiver import Receiver

from local_stack.delivery_worker import template_event_source

pytestmark = pytest.mark.e2e

ROUNDS = 6  # of one event per hostile receiver and one of the other tenant
TIMEOUT = 10  # seconds, the hostile configurations' timeout (the default)
ALLOWANCE = 1.0  # what the hostile receivers may add to another configuration's delivery


def test_a_tenants_hostile_receivers_delay_no_other_tenants_events(api: Any, receiver: Receiver) -> None:
    # Given a tenant whose three devices' receivers hang, trickle their TLS handshake and refuse
    # connections (10 s timeout, 3 retries), and another tenant whose receiver answers at once
    hostile_tenant, other_tenant = api.register(), api.register()
    other_device = create_device(api, other_tenant.admin_token)
    other_path = receiver.path()
    subscribe(api, other_tenant.admin_token, other_device, receiver.url(other_path), ["message.received"])
    window = template_event_source().batching_window_seconds
    with ExitStack() as stack:
        hung = stack.enter_context(hanging())
        trickler = stack.enter_context(trickling_tls())
        urls = (
            f"http://127.0.0.1:{hung.port}/in",
            f"https://localhost:{trickler.port}/in",
            f"http://127.0.0.1:{closed_port()}/in",
        )
        hostile_devices = []
        for url in urls:
            device_id = create_device(api, hostile_tenant.admin_token)
            subscribe(
                api,
                hostile_tenant.admin_token,
                device_id,
                url,
                ["message.received"],
                timeout=TIMEOUT,
                retry_attempts=3,
            )
            hostile_devices.append(device_id)

        # When, six times, an event of each hostile device and one of the other tenant are
        # published, a batching window apart (so the hostile attempts hold batch after batch)
        published: dict[str, float] = {}
        for _ in range(ROUNDS):
            for device_id in hostile_devices:
                publish(hostile_tenant.id, device_id)
            published[publish(other_tenant.id, other_device)["id"]] = time.monotonic()
            time.sleep(window + 0.2)
        arrived = receiver.wait_for(other_path, lambda found: len(found) >= ROUNDS, timeout=30)
        latencies = {r.envelope["id"]: r.received_at - published[r.envelope["id"]] for r in arrived}
        calls = (hung.accepted, trickler.accepted)

    # Then each of the other tenant's events arrived within the batching window (its own time,
    # the receiver answering at once) and 1 s more of its publication
    assert set(latencies) == set(published)
    assert max(latencies.values()) < window + ALLOWANCE, sorted(latencies.values())
    # And the hostile receivers were being called meanwhile (the attack was on): every round's
    # attempts until their configurations were marked slow (an attempt running 5 s), then the
    # slow lane's, whose capped instances they share (tests/e2e/test_webhook_slow_lane.py)
    assert min(calls) >= ROUNDS // 2
