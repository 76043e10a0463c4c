"""Delivery rules without I/O: which configuration delivers an event, the request headers, and
the retry delay."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from standardwebhooks import Webhook

from gateway.models.webhooks import WebhookModel
from gateway.webhooks.delivery import batch, service
from gateway.webhooks.delivery.batch import Target, target_of
from gateway.webhooks.events_queue import EventEnvelope, IncomingEvent
from gateway.webhooks.signing import body_bytes, signed_envelope

TENANT, DEVICE = "t-1", "dev-1"


def incoming(event: str = "message.received", attempt: int = 1, device_id: str = DEVICE) -> IncomingEvent:
    return IncomingEvent(
        envelope=EventEnvelope.model_validate(
            {
                "id": "e1" * 16,
                "event": event,
                "timestamp": 1767225600,
                "device_id": device_id,
                "data": {"content": "hi"},
            }
        ),
        tenant_id=TENANT,
        attempt=attempt,
        redelivery=False,
        receipt_handle="rh",
        queue_url="https://sqs.eu-west-1.amazonaws.com/123456789012/events",
    )


def config(**overrides: Any) -> WebhookModel:
    values: dict[str, Any] = {
        "webhook_id": "w-1",
        "webhook_url": "https://hooks.example.com/in",
        "enabled_events": {"message"},
        "enabled": True,
        "retry_attempts": 3,
        "timeout": 10,
        "secret": None,
        "headers": {},
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        **overrides,
    }
    return WebhookModel(TENANT, DEVICE, **values)


class StandInStore:
    """``store.get_config`` and ``pending.apply_pending_webhook`` answering from memory for
    :data:`TENANT`; any other tenant's call goes to the real ones (the process may also run a
    local stack's delivery, whose reads must neither count here nor get this test's answer)."""

    def __init__(self, stored: WebhookModel | None, pending: WebhookModel | None = None) -> None:
        self.stored = stored
        self.pending = pending
        self.reads = 0
        self.pending_calls = 0
        self._real_get_config = batch.store.get_config
        self._real_apply_pending = batch.pending.apply_pending_webhook

    def get_config(self, tenant_id: str, device_id: str) -> WebhookModel | None:
        if tenant_id != TENANT:
            return self._real_get_config(tenant_id, device_id)
        self.reads += 1
        time.sleep(0.01)  # concurrent callers overlap
        return self.stored

    def apply_pending_webhook(self, tenant_id: str, device_id: str) -> WebhookModel | None:
        if tenant_id != TENANT:
            return self._real_apply_pending(tenant_id, device_id)
        self.pending_calls += 1
        applied, self.pending = self.pending, None
        return applied


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> StandInStore:
    store = StandInStore(config())
    monkeypatch.setattr(batch.store, "get_config", store.get_config)
    monkeypatch.setattr(batch.pending, "apply_pending_webhook", store.apply_pending_webhook)
    return store


async def on_a_thread(function: Callable[..., Any], *args: Any) -> Any:
    """The invocation's ``in_pool``: the blocking call on a thread."""
    return await asyncio.to_thread(function, *args)


def look_up(configurations: batch.Configurations, event: IncomingEvent) -> Target | None:
    return asyncio.run(configurations.subscribed(event, on_a_thread))


@pytest.mark.parametrize(
    ("event", "enabled_events", "delivered"),
    [
        ("message.received", {"message"}, True),
        ("message.read", {"message.ack"}, True),
        ("message.delivered", {"message.ack"}, True),
        ("message.received", {"message.ack"}, False),
        ("device.connected", {"message"}, False),
        ("device.connected", {"device.connected", "message.sent"}, True),
    ],
)
def test_only_subscribed_events_are_delivered_with_aliases_expanded(
    stand_in: StandInStore, event: str, enabled_events: set[str], delivered: bool
) -> None:
    stand_in.stored = config(enabled_events=enabled_events)
    found = look_up(batch.Configurations(), incoming(event))
    assert (found is not None) is delivered


def test_a_disabled_or_missing_configuration_delivers_nothing(stand_in: StandInStore) -> None:
    stand_in.stored = config(enabled=False)
    assert look_up(batch.Configurations(), incoming()) is None
    stand_in.stored = None
    assert look_up(batch.Configurations(), incoming()) is None
    assert stand_in.pending_calls == 0  # only device.connected applies a pending URL


def test_device_connected_without_configuration_applies_the_pending_url_first(
    stand_in: StandInStore,
) -> None:
    # Given a device without a configuration whose owner has a pending URL (every event)
    stand_in.stored = None
    stand_in.pending = config(enabled_events={"device.connected", "message.received"})
    configurations = batch.Configurations()

    # When its device.connected is delivered, and then a message of the same batch
    first = look_up(configurations, incoming("device.connected"))
    second = look_up(configurations, incoming("message.received"))

    # Then the pending configuration delivers both, and was applied once
    assert first is not None
    assert first.webhook_url == "https://hooks.example.com/in"
    assert second is first
    assert stand_in.pending_calls == 1


def test_a_batch_reads_each_devices_configuration_once(stand_in: StandInStore) -> None:
    # Given one batch's configurations and ten events of one device and one of another
    configurations = batch.Configurations()
    events = [incoming() for _ in range(10)] + [incoming(device_id="dev-2")]

    # When they are looked up at the same time, as the batch's records are, each read on a thread
    async def all_at_once() -> None:
        await asyncio.gather(*(configurations.subscribed(event, on_a_thread) for event in events))

    asyncio.run(all_at_once())

    # Then the table was read once per device
    assert stand_in.reads == 2


def test_a_failed_configuration_read_is_tried_again_by_the_next_event(
    stand_in: StandInStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a batch whose first read of the device's configuration fails
    configurations = batch.Configurations()
    failing = [True]

    def get_config(tenant_id: str, device_id: str) -> WebhookModel | None:
        if tenant_id == TENANT and (failing.pop() if failing else False):
            raise RuntimeError("DynamoDB is unavailable")
        return stand_in.get_config(tenant_id, device_id)

    monkeypatch.setattr(batch.store, "get_config", get_config)

    # When two of its events are looked up, one after the other
    with pytest.raises(RuntimeError):
        look_up(configurations, incoming())
    found = look_up(configurations, incoming())

    # Then the first one raised (it stays on the queue) and the second read the configuration
    assert found is not None
    assert stand_in.reads == 1


def test_headers_carry_the_event_the_signature_and_the_custom_headers() -> None:
    # Given a configuration with a secret (one stored before the minimum length) and custom
    # headers, two of them reserved names
    secret = "s3cret"
    custom = {"Authorization": "Bearer x", "content-type": "text/plain", "Webhook-Signature": "v1,forged"}
    webhook = config(secret=secret, headers=custom)
    event = incoming()
    body = body_bytes(signed_envelope(event.envelope.fields(), secret))

    # When the request headers are built
    before = int(time.time())
    headers = service.request_headers(event, target_of(webhook), body)
    after = int(time.time())

    # Then the gateway's headers are set and cannot be replaced, and the custom one is kept;
    # the Standard Webhooks timestamp is the attempt's time, not the event's
    attempted_at = int(headers["webhook-timestamp"])
    assert before <= attempted_at <= after
    assert headers == {
        "Authorization": "Bearer x",
        "User-Agent": "messaging-gateway-webhooks",
        "Content-Type": "application/json",
        "X-Webhook-Id": event.event_id,
        "X-Webhook-Event": "message.received",
        "X-Webhook-Timestamp": "1767225600",
        "X-Webhook-Signature-256": "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
        "webhook-id": event.event_id,
        "webhook-timestamp": str(attempted_at),
        "webhook-signature": headers["webhook-signature"],
    }
    # And the official library verifies the Standard Webhooks signature with the secret's bytes
    Webhook(secret.encode()).verify(body, headers)


def test_without_a_secret_there_is_no_signature_header() -> None:
    event = incoming()
    body = body_bytes(signed_envelope(event.envelope.fields(), None))
    headers = service.request_headers(event, target_of(config()), body)
    assert "X-Webhook-Signature-256" not in headers
    assert not {"webhook-id", "webhook-timestamp", "webhook-signature"} & set(headers)


def test_the_nth_failure_is_retried_n_seconds_later() -> None:
    assert [service.retry_delay(n) for n in range(1, 11)] == list(range(1, 11))


def test_a_batch_publishes_each_outcome_once_with_its_count(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a batch whose records ended in different ways, counted from several threads
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    outcomes = batch.Outcomes()
    names = ["WebhookEventsDelivered"] * 7 + ["WebhookAttemptsRetried"] * 2 + ["WebhookEventsUnsubscribed"]
    threads = [threading.Thread(target=outcomes.count, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # When the invocation ends
    outcomes.publish()

    # Then one EMF document carries each count once
    (line,) = capsys.readouterr().out.strip().splitlines()
    document = json.loads(line)
    assert document["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "MessagingGateway"
    assert (document["WebhookEventsDelivered"], document["WebhookAttemptsRetried"]) == ([7.0], [2.0])
    assert document["WebhookEventsUnsubscribed"] == [1.0]
