"""Webhook delivery end to end: events queue → delivery worker → the delivery function's handler
→ a real HTTP receiver on loopback, with the configuration and the delivery log over HTTP.

Some tests publish envelopes straight to the events queue, as the session host does, to
control exactly which events exist and when; the first one goes through the whole path, from
a simulated contact's message.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import uuid
from collections import Counter
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, subscribe
from waiting import wait_until
from webhook_receiver import Answer, Receiver, always, failing_first

from local_stack.delivery_worker import template_event_source

pytestmark = pytest.mark.e2e

SECRET = "receiver-shared-secret-ü"
CUSTOM_HEADERS = {"Authorization": "Bearer receiver-token", "X-Tenant-Ref": "acme-42"}


@pytest.fixture
def tenant(api: Any) -> Any:
    return api.register()


def independent_signature(secret: str, payload: bytes) -> str:
    """HMAC-SHA256 computed here, without the gateway's signing module."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), payload, hashlib.sha256).hexdigest()


def envelope_signature_payload(envelope: dict[str, Any]) -> bytes:
    """What the decisions say the envelope signature covers: no signature, sorted, compact, UTF-8."""
    unsigned = {key: value for key, value in envelope.items() if key != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def publish(tenant_id: str, device_id: str, event: str = "message.received") -> dict[str, Any]:
    """One envelope on the events queue, in the form and with the attributes the host uses."""
    from gateway.bus.queues import sqs_client
    from gateway.config import get_settings

    envelope = {
        "id": uuid.uuid4().hex,
        "event": event,
        "timestamp": int(time.time()),
        "device_id": device_id,
        "data": {"message_id": uuid.uuid4().hex.upper(), "content": "hi"},
    }
    sqs_client().send_message(
        QueueUrl=get_settings().events_queue_url,
        MessageBody=json.dumps(envelope),
        MessageAttributes={
            "tenant_id": {"DataType": "String", "StringValue": tenant_id},
            "event": {"DataType": "String", "StringValue": event},
        },
    )
    return envelope


def event_status(device_id: str, event_id: str) -> str | None:
    """Where the delivery log says the event stands: delivered, pending (retrying) or failed."""
    return event_statuses(device_id).get(event_id)


def event_statuses(device_id: str) -> dict[str, str]:
    from gateway.models import DeliveryModel

    items = DeliveryModel.query(
        device_id, DeliveryModel.delivery_key.startswith("event#"), consistent_read=True
    )
    return {item.event_id: item.status for item in items}


def attempts_of(api: Any, token: str, device_id: str, event_id: str, **query: Any) -> list[dict[str, Any]]:
    response = api.request(
        "GET", "/webhook/deliveries", token, params=query, headers={"X-Device-Id": device_id}
    )
    assert response.status_code == 200, response.text
    return [attempt for attempt in response.json()["deliveries"] if attempt["id"] == event_id]


def wait_for_attempts(
    api: Any, token: str, device_id: str, event_id: str, count: int, timeout: float = 15.0
) -> list[dict[str, Any]]:
    return wait_until(
        lambda: len(found := attempts_of(api, token, device_id, event_id)) >= count and found,
        timeout,
        what=f"{count} attempts logged",
    )


def gaps(times: list[float]) -> list[float]:
    return [later - earlier for earlier, later in itertools.pairwise(times)]


LATE_SLACK = template_event_source().batching_window_seconds + 1.5
"""How late a retry may come: once its delay is over it waits up to the batching window for its
batch (on AWS too), plus 1.5 s for a local stack sharing two cores with the rest of the suite."""


def assert_backoff(measured: list[float], expected: list[float], slack: float = LATE_SLACK) -> None:
    """Each retry comes no sooner than planned and at most ``slack`` seconds later."""
    assert len(measured) == len(expected), measured
    for got, planned in zip(measured, expected, strict=True):
        assert planned - 0.02 <= got <= planned + slack, f"retry gaps {measured}, expected {expected}"


def epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_an_inbound_message_reaches_the_receiver_signed_with_the_custom_headers(
    api: Any, tenant: Any, receiver: Receiver
) -> None:
    # Given a device subscribed to `message` with a secret and custom headers, at a receiver
    # that answers 500 to the first attempt of every event
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path(failing_first(1))
    subscribe(
        api,
        tenant.admin_token,
        device_id,
        receiver.url(path),
        enabled_events=["message"],
        secret=SECRET,
        headers=CUSTOM_HEADERS,
        retry_attempts=3,
    )
    device_phone, contact_phone = new_phone(), new_phone()
    device = pair_by_qr(api, tenant.admin_token, device_id, device_phone)
    contact = simulator(api, "POST", "/accounts", phone=contact_phone)

    # When a contact writes to the device's account
    sent = simulator(
        api, "POST", f"/accounts/{contact_phone}/messages", to=device["messaging_jid"], text="grüße ✓"
    )

    # Then message.received arrives, is refused once, and arrives again with the same id
    receiver.wait_for(path, lambda found: any(r.ok for r in found))
    requests = receiver.requests(path, "message.received")
    first, second = requests
    envelope = second.envelope
    assert first.status == 500
    assert first.envelope["id"] == envelope["id"]
    assert first.body == second.body
    assert envelope["event"] == "message.received"
    assert envelope["device_id"] == device_id
    data = envelope["data"]
    assert (data["message_id"], data["from"], data["content"]) == (
        sent["message_id"],
        contact["jid"],
        "grüße ✓",
    )

    # And both signatures verify with an HMAC computed independently
    assert hmac.compare_digest(
        envelope["signature"], independent_signature(SECRET, envelope_signature_payload(envelope))
    )
    for request in requests:
        assert hmac.compare_digest(
            request.headers["x-webhook-signature-256"], independent_signature(SECRET, request.body)
        )

    # And every attempt carries the gateway's headers and the custom ones
    for request in requests:
        assert request.headers["content-type"] == "application/json"
        assert request.headers["x-webhook-id"] == envelope["id"]
        assert request.headers["x-webhook-event"] == "message.received"
        assert request.headers["x-webhook-timestamp"] == str(envelope["timestamp"])
        assert request.headers["authorization"] == CUSTOM_HEADERS["Authorization"]
        assert request.headers["x-tenant-ref"] == CUSTOM_HEADERS["X-Tenant-Ref"]

    # And only the subscribed events were delivered (no qr.generated, no device.connected)
    assert {r.envelope["event"] for r in receiver.requests(path)} <= {
        "message.received",
        "message.sent",
        "message.delivered",
        "message.read",
    }

    # And the delivery log lists both attempts, newest first
    attempts = wait_for_attempts(api, tenant.admin_token, device_id, envelope["id"], 2)
    assert [(a["attempt"], a["status"], a["status_code"]) for a in attempts] == [
        (2, "delivered", 200),
        (1, "failed", 500),
    ]
    assert attempts[1]["error"]
    assert attempts[0]["webhook_url"] == receiver.url(path)


def test_failed_attempts_are_retried_after_1_2_and_3_seconds(
    api: Any, tenant: Any, receiver: Receiver
) -> None:
    # Given three devices whose receivers fail their first three attempts: one answers 500,
    # one does not answer within the 1 s timeout, one refuses connections
    token = tenant.admin_token
    erroring, slow, refused = (create_device(api, token, name) for name in ("500", "slow", "refused"))
    erroring_path = receiver.path(failing_first(3, status=500))
    slow_path = receiver.path(failing_first(3, status=200, delay=1.6))
    down = Receiver().start()
    down.stop()
    refused_path = down.path()
    for device_id, url in (
        (erroring, receiver.url(erroring_path)),
        (slow, receiver.url(slow_path)),
        (refused, down.url(refused_path)),
    ):
        subscribe(
            api, token, device_id, url, enabled_events=["message.received"], retry_attempts=3, timeout=1
        )

    # When an event of each is published
    events = {device_id: publish(tenant.id, device_id) for device_id in (erroring, slow, refused)}

    # Then the refused deliveries are logged 1 s and 2 s apart, and once the receiver listens
    # again the fourth attempt, 3 s after the third, succeeds
    refused_id = events[refused]["id"]
    failures = wait_for_attempts(api, token, refused, refused_id, 3)
    down.start()
    try:
        (delivered,) = down.wait_for(refused_path, lambda found: len(found) == 1, timeout=10)
    finally:
        down.stop()
    assert delivered.ok
    assert delivered.envelope["id"] == refused_id
    # (an attempt is logged after it ends, with others of its batch: wait for the fourth's line)
    logged = wait_for_attempts(api, token, refused, refused_id, 4)
    assert [(a["attempt"], a["status"]) for a in logged] == [
        (4, "delivered"),
        (3, "failed"),
        (2, "failed"),
        (1, "failed"),
    ]
    assert all(a["status_code"] is None and "connection failed" in a["error"] for a in failures)
    assert_backoff(gaps([epoch(a["attempted_at"]) for a in reversed(logged)]), [1, 2, 3])

    # And the receiver answering 500 got its attempts 1 s, 2 s and 3 s apart, the last one a success
    requests = receiver.wait_for(erroring_path, lambda found: len(found) == 4)
    assert [r.status for r in requests] == [500, 500, 500, 200]
    assert {r.envelope["id"] for r in requests} == {events[erroring]["id"]}
    assert_backoff(gaps([r.received_at for r in requests]), [1, 2, 3])

    # And the slow receiver got its attempts 1 s (its timeout) plus 1 s, 2 s and 3 s apart
    requests = receiver.wait_for(slow_path, lambda found: len(found) == 4, timeout=20)
    assert {r.envelope["id"] for r in requests} == {events[slow]["id"]}
    assert_backoff(gaps([r.received_at for r in requests]), [2, 3, 4])
    logged = wait_for_attempts(api, token, slow, events[slow]["id"], 4)
    assert [a["status"] for a in logged] == ["delivered", "failed", "failed", "failed"]
    assert all("timed out" in a["error"] for a in logged[1:])


def test_an_exhausted_event_is_listed_as_failed_and_redelivered(
    api: Any, tenant: Any, receiver: Receiver
) -> None:
    # Given a device with one retry, at a receiver that answers 500
    device_id = create_device(api, tenant.admin_token)
    path = receiver.path(always(500))
    subscribe(
        api, tenant.admin_token, device_id, receiver.url(path), enabled_events=["message"], retry_attempts=1
    )

    # When an event is published
    envelope = publish(tenant.id, device_id)

    # Then it is attempted twice (1 s apart), and then, its attempts exhausted, logged as
    # failed and taken off the queue, so that no third attempt can come
    requests = receiver.wait_for(path, lambda found: len(found) == 2)
    wait_until(lambda: event_status(device_id, envelope["id"]) == "failed", what="the event logged failed")
    assert len(receiver.requests(path)) == 2
    assert_backoff(gaps([r.received_at for r in requests]), [1])

    # And the delivery log lists the exhausted attempts as failed, newest first
    failed = attempts_of(api, tenant.admin_token, device_id, envelope["id"], status="failed")
    assert [(a["attempt"], a["status"], a["status_code"]) for a in failed] == [
        (2, "failed", 500),
        (1, "failed", 500),
    ]
    assert all(a["event"] == "message.received" and a["duration_ms"] >= 0 for a in failed)

    # When the receiver is fixed and the event is redelivered
    receiver.behave(path, always(200))
    response = api.request(
        "POST",
        f"/webhook/deliveries/{envelope['id']}/redeliver",
        tenant.admin_token,
        headers={"X-Device-Id": device_id},
    )
    assert response.status_code == 202, response.text

    # Then it arrives again, the same envelope with the same id, and is logged as delivered
    requests = receiver.wait_for(path, lambda found: len(found) == 3)
    assert requests[-1].ok
    assert requests[-1].body == requests[0].body
    assert requests[-1].envelope["id"] == envelope["id"]
    latest = wait_for_attempts(api, tenant.admin_token, device_id, envelope["id"], 3)[0]
    assert (latest["attempt"], latest["status"], latest["status_code"]) == (1, "delivered", 200)


def test_a_thousand_events_are_all_delivered_once_though_a_third_of_first_attempts_fail(
    api: Any, tenant: Any, receiver: Receiver
) -> None:
    # Given a receiver that fails the first attempt of a third of the events
    def fail_a_third(envelope: dict[str, Any], earlier: int) -> Answer:
        return Answer(500) if earlier == 0 and int(envelope["id"], 16) % 3 == 0 else Answer(200)

    device_id = create_device(api, tenant.admin_token)
    path = receiver.path(fail_a_third)
    subscribe(api, tenant.admin_token, device_id, receiver.url(path), enabled_events=["message"])

    # When 1,000 events are published at once
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        published = list(pool.map(lambda _: publish(tenant.id, device_id)["id"], range(1000)))

    # Then each is delivered successfully exactly once
    receiver.wait_for(path, lambda found: sum(r.ok for r in found) >= 1000, timeout=90)
    wait_until(  # every event logged delivered: its message is done with, nothing more can come
        lambda: event_statuses(device_id) == dict.fromkeys(published, "delivered"),
        timeout=30,
        what="every event logged delivered",
    )
    requests = receiver.requests(path)
    delivered = Counter(r.envelope["id"] for r in requests if r.ok)
    assert set(delivered) == set(published)
    assert set(delivered.values()) == {1}

    # And the failing third was attempted exactly twice, the others exactly once
    attempts = Counter(r.envelope["id"] for r in requests)
    for event_id in published:
        assert attempts[event_id] == (2 if int(event_id, 16) % 3 == 0 else 1), event_id


def test_the_owners_pending_url_gets_the_first_device_connected(api: Any, receiver: Receiver) -> None:
    # Given a tenant registered with a webhook URL and a device of its admin, not subscribed
    path = receiver.path()
    tenant = api.register(webhook_url=receiver.url(path))
    device_id = create_device(api, tenant.admin_token)

    # When the device connects for the first time
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # Then the URL receives that very device.connected (events of the pairing that the
    # delivery function handles after it may follow it there), and the device now has the
    # configuration
    def connected(found: list[Any]) -> list[Any]:
        return [r for r in found if r.envelope.get("event") == "device.connected"]

    (request,) = connected(receiver.wait_for(path, connected))
    assert request.envelope["device_id"] == device_id
    webhook = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id}).json()
    assert webhook["webhook"]["webhook_url"] == receiver.url(path)
