"""The delivery log over HTTP: GET /webhook/deliveries and POST /webhook/deliveries/{id}/redeliver,
through the real delivery path (session host → events queue → delivery worker → receiver)."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, subscribe
from webhook_receiver import always
from webhooks_steps import configure, new_device, wait_until

pytestmark = pytest.mark.e2e

ATTEMPT_FIELDS = {
    "id",
    "event",
    "attempt",
    "status",
    "status_code",
    "duration_ms",
    "error",
    "webhook_url",
    "attempted_at",
}


def deliveries(api: Any, token: str, **params: Any) -> list[dict[str, Any]]:
    response = api.request("GET", "/webhook/deliveries", token, params=params)
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True
    return response.json()["deliveries"]


def failed_connection_event(api: Any, receiver: Any, retry_attempts: int) -> tuple[str, str, str, str]:
    """A device whose device.connected exhausted its attempts against a receiver answering 500:
    (token, device id, receiver path, event id)."""
    token = api.register().admin_token
    device_id = create_device(api, token)
    path = receiver.path(always(500))
    subscribe(
        api,
        token,
        device_id,
        receiver.url(path),
        enabled_events=["device.connected"],
        retry_attempts=retry_attempts,
    )
    pair_by_qr(api, token, device_id, new_phone())
    attempts = wait_until(lambda: len(found := deliveries(api, token)) == retry_attempts + 1 and found)
    return token, device_id, path, attempts[0]["id"]


def test_attempts_are_listed_newest_first_and_a_failed_event_is_redelivered(api, receiver, is_rfc3339_utc):
    # Given a device whose device.connected failed twice at a receiver answering 500 (one retry)
    token, _, path, event_id = failed_connection_event(api, receiver, retry_attempts=1)
    # When the delivery log is read
    failed = deliveries(api, token)
    # Then it lists both attempts of that event, newest first, with what the receiver answered
    assert [item["attempt"] for item in failed] == [2, 1]
    for item in failed:
        assert set(item) == ATTEMPT_FIELDS
        assert (item["id"], item["event"], item["status"], item["status_code"]) == (
            event_id,
            "device.connected",
            "failed",
            500,
        )
        assert isinstance(item["duration_ms"], int)
        assert item["error"]
        assert item["webhook_url"] == receiver.url(path)
        assert is_rfc3339_utc(item["attempted_at"])
    assert failed[0]["attempted_at"] >= failed[1]["attempted_at"]
    # When the receiver is fixed and the event is redelivered
    receiver.behave(path, always(200))
    response = api.request("POST", f"/webhook/deliveries/{event_id}/redeliver", token)
    # Then 202, and the receiver gets the same envelope again, with the same id
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["success"] is True
    assert (body["id"], body["event"], body["status"]) == (event_id, "device.connected", "queued")
    requests = receiver.wait_for(path, lambda found: any(r.ok for r in found))
    assert {r.envelope["id"] for r in requests} == {event_id}
    assert requests[-1].envelope == requests[0].envelope
    # And the log shows the successful attempt first, counted afresh
    latest = wait_until(lambda: (found := deliveries(api, token))[0]["status"] == "delivered" and found)
    assert [(item["attempt"], item["status"]) for item in latest] == [
        (1, "delivered"),
        (2, "failed"),
        (1, "failed"),
    ]
    assert latest[0]["status_code"] == 200
    assert latest[0]["error"] is None
    # And the filters pick by outcome and count
    assert [item["status"] for item in deliveries(api, token, status="failed")] == ["failed", "failed"]
    assert [item["status"] for item in deliveries(api, token, status="delivered")] == ["delivered"]
    assert deliveries(api, token, limit=1) == latest[:1]


def test_redelivery_is_refused_when_it_would_deliver_nothing(api, receiver, envelope):
    # Given a device with an exhausted event in its log
    token, _, _, event_id = failed_connection_event(api, receiver, retry_attempts=0)
    redeliver = f"/webhook/deliveries/{event_id}/redeliver"
    # When the configuration no longer wants that event
    configure(api, token, webhook_url="https://hooks.example.com/", enabled_events=["message"])
    # Then 409 EVENT_NOT_SUBSCRIBED
    envelope(api.request("POST", redeliver, token), 409, "EVENT_NOT_SUBSCRIBED")
    # When the configuration is disabled
    configure(api, token, enabled_events=["device.connected"], enabled=False)
    # Then 409 WEBHOOK_DISABLED
    envelope(api.request("POST", redeliver, token), 409, "WEBHOOK_DISABLED")
    # When the configuration is deleted
    api.request("DELETE", "/webhook", token)
    # Then 404 WEBHOOK_NOT_CONFIGURED, and the log is still there to read
    body = envelope(api.request("POST", redeliver, token), 404, "WEBHOOK_NOT_CONFIGURED")
    assert body["error"] == "Webhook not configured"
    assert [item["id"] for item in deliveries(api, token)] == [event_id]


def test_an_event_of_another_device_or_unknown_is_not_found(api, receiver, envelope):
    # Given a user's event logged for one of its devices, and a second device
    token, device_id, _, event_id = failed_connection_event(api, receiver, retry_attempts=0)
    other_device = new_device(api, token)
    configure(api, token, other_device, enabled_events=["device.connected"])
    # When the event is redelivered through the other device, or an unknown id is given
    through_other = api.request(
        "POST", f"/webhook/deliveries/{event_id}/redeliver", token, headers={"X-Device-Id": other_device}
    )
    unknown = api.request(
        "POST", f"/webhook/deliveries/{'0' * 32}/redeliver", token, headers={"X-Device-Id": device_id}
    )
    # Then 404 EVENT_NOT_FOUND for both, and the other device's log is empty
    envelope(through_other, 404, "EVENT_NOT_FOUND")
    envelope(unknown, 404, "EVENT_NOT_FOUND")
    listed = api.request("GET", "/webhook/deliveries", token, headers={"X-Device-Id": other_device})
    assert listed.json()["deliveries"] == []


def test_a_device_without_deliveries_lists_none(api):
    # Given a configured device that produced no event yet
    token = api.register().admin_token
    new_device(api, token)
    configure(api, token)
    # When its delivery log is read
    # Then it is empty
    assert deliveries(api, token) == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"status": "pending"}, "status"),
        ({"status": "FAILED"}, "status"),
    ],
)
def test_invalid_list_parameters_are_refused(api, envelope, params, field):
    # Given a caller with a device
    token = api.register().admin_token
    new_device(api, token)
    # When it lists deliveries with an invalid parameter
    response = api.request("GET", "/webhook/deliveries", token, params=params)
    # Then 400 VALIDATION_ERROR names it
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in body["validation"]] == [field]


def test_the_limit_range_is_accepted(api):
    # Given a caller with a device
    token = api.register().admin_token
    new_device(api, token)
    # Then the bounds of limit are accepted
    assert deliveries(api, token, limit=1) == []
    assert deliveries(api, token, limit=200) == []
