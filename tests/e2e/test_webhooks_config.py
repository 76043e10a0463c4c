"""Webhook configuration over HTTP: POST/GET/DELETE /webhook, GET /webhook/events and
POST /user/webhook, with their validation, roles and the X-Device-Id rule."""

from __future__ import annotations

from typing import Any

import pytest
from webhooks_steps import WEBHOOK_FIELDS, configure, new_device, webhook_body

from gateway.webhooks.catalog import CATALOG, SUBSCRIBABLE

pytestmark = pytest.mark.e2e

INVALID_TOKEN = {"error": "Invalid token"}


@pytest.fixture
def owner(api: Any) -> tuple[str, str]:
    """A tenant admin with exactly one device: (token, device id)."""
    tenant = api.register()
    return tenant.admin_token, new_device(api, tenant.admin_token)


# --- POST /webhook ------------------------------------------------------------------------


def test_first_post_creates_and_the_next_updates(api, owner, is_uuid4, is_rfc3339_utc):
    token, _ = owner
    # Given a device without a webhook configuration
    # When its owner configures one, with a secret
    body = webhook_body(enabled_events=["message.received", "device.connected"], secret="s3cret-key-0123456")
    created = api.request("POST", "/webhook", token, json=body)
    # Then 201 with the stored configuration and its defaults, the secret not shown
    assert created.status_code == 201, created.text
    data = created.json()
    assert set(data) == {"success", "message", "webhook"}
    assert data["success"] is True
    assert data["message"]
    webhook = data["webhook"]
    assert set(webhook) == WEBHOOK_FIELDS
    assert is_uuid4(webhook["id"])
    assert webhook["webhook_url"] == "https://hooks.example.com/gateway"
    assert webhook["enabled_events"] == ["message.received", "device.connected"]
    assert (webhook["enabled"], webhook["retry_attempts"], webhook["timeout"]) == (True, 3, 10)
    assert webhook["headers"] == {}
    assert webhook["has_secret"] is True
    assert is_rfc3339_utc(webhook["created_at"])
    assert webhook["updated_at"] == webhook["created_at"]
    assert "s3cret-key-0123456" not in created.text
    # When it posts again with other values
    again = api.request(
        "POST", "/webhook", token, json=webhook_body(webhook_url="https://other.example.com/in", timeout=30)
    )
    # Then 200: the same configuration (same id, same creation time), updated
    assert again.status_code == 200, again.text
    updated = again.json()["webhook"]
    assert updated["id"] == webhook["id"]
    assert updated["created_at"] == webhook["created_at"]
    assert updated["updated_at"] > webhook["updated_at"]
    assert updated["webhook_url"] == "https://other.example.com/in"
    assert updated["enabled_events"] == ["message.received"]
    assert updated["timeout"] == 30
    # And GET /webhook shows exactly that
    assert api.request("GET", "/webhook", token).json() == {"success": True, "webhook": updated}


def test_an_update_keeps_what_it_leaves_out(api, owner):
    token, _ = owner
    # Given a configuration with every optional field set
    configure(
        api,
        token,
        enabled=False,
        retry_attempts=7,
        timeout=5,
        secret="keep-me-0123456789",
        headers={"Authorization": "Bearer abc", "X-Tenant": "acme"},
    )
    # When an update gives only the required fields
    kept = configure(api, token, enabled_events=["message"])
    # Then the others keep their stored values, the secret included
    assert (kept["enabled"], kept["retry_attempts"], kept["timeout"]) == (False, 7, 5)
    assert kept["has_secret"] is True
    assert kept["headers"] == {"Authorization": "***", "X-Tenant": "***"}
    # When an update sets the secret to null and the headers to an empty object
    cleared = configure(api, token, secret=None, headers={})
    # Then the secret is removed and the headers cleared
    assert cleared["has_secret"] is False
    assert cleared["headers"] == {}


def test_aliases_and_every_catalog_name_are_accepted(api, owner):
    token, _ = owner
    # When a device subscribes with the aliases and every catalog name, some twice
    stored = configure(api, token, enabled_events=["message.ack", *CATALOG, "message", "message.read"])
    # Then each name is stored once, in catalog order, aliases last
    assert stored["enabled_events"] == list(SUBSCRIBABLE)


def test_unknown_event_names_are_refused_with_the_valid_ones(api, owner):
    token, _ = owner
    # When a device subscribes to names outside the catalog
    body = webhook_body(enabled_events=["message.received", "message.recieved", "everything"])
    response = api.request("POST", "/webhook", token, json=body)
    # Then 400 VALIDATION_ERROR naming each unknown one, with every valid name in available_events
    assert response.status_code == 400, response.text
    data = response.json()
    assert data["success"] is False
    assert data["error_code"] == "VALIDATION_ERROR"
    assert "message.recieved" in data["error"]
    assert data["available_events"] == list(SUBSCRIBABLE)
    assert data["validation"] == [
        {
            "field": "enabled_events.1",
            "message": data["validation"][0]["message"],
            "value": "message.recieved",
        },
        {"field": "enabled_events.2", "message": data["validation"][1]["message"], "value": "everything"},
    ]
    # And nothing was stored
    assert api.request("GET", "/webhook", token).status_code == 404


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"webhook_url": None}, "webhook_url"),
        ({"webhook_url": ""}, "webhook_url"),
        ({"webhook_url": "ftp://files.example.com/x"}, "webhook_url"),
        ({"webhook_url": "hooks.example.com/no-scheme"}, "webhook_url"),
        ({"webhook_url": "https://user:pw@hooks.example.com/"}, "webhook_url"),
        ({"webhook_url": "https://[::1/"}, "webhook_url"),
        ({"enabled_events": []}, "enabled_events"),
        ({"enabled_events": "message.received"}, "enabled_events"),
        ({"enabled": "yes"}, "enabled"),
        ({"retry_attempts": 11}, "retry_attempts"),
        ({"retry_attempts": -1}, "retry_attempts"),
        ({"retry_attempts": "3"}, "retry_attempts"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": 31}, "timeout"),
        ({"timeout": 2.5}, "timeout"),
        ({"secret": ""}, "secret"),
        ({"secret": "x" * 257}, "secret"),
        ({"secret": "x" * 15}, "secret"),
        ({"secret": "whsec_" + "A" * 28 + "AA=="}, "secret"),
        ({"secret": "whsec_" + "A" * 31 + "!"}, "secret"),
        ({"headers": {"webhook-signature": "v1,forged"}}, "headers"),
        ({"headers": {f"X-H{i}": "v" for i in range(21)}}, "headers"),
        ({"headers": {"Bad Header": "v"}}, "headers"),
        ({"headers": {"X-Webhook-Signature-256": "forged"}}, "headers"),
        ({"headers": {"x-webhook-custom": "v"}}, "headers"),
        ({"headers": {"Content-Type": "text/plain"}}, "headers"),
        ({"headers": {"Host": "elsewhere.example.com"}}, "headers"),
        ({"headers": {"Content-Length": "0"}}, "headers"),
        ({"headers": {"X-Split": "a\r\nInjected: yes"}}, "headers"),
        ({"headers": {"X-A": "1", "x-a": "2"}}, "headers"),
        ({"headers": {"X-Number": 5}}, "headers.X-Number"),
    ],
    ids=lambda value: str(value)[:40] if isinstance(value, dict) else value,
)
def test_invalid_configuration_is_refused(api, owner, envelope, change, field):
    token, _ = owner
    # When a configuration with one invalid field is posted
    response = api.request("POST", "/webhook", token, json=webhook_body(**change))
    # Then 400 VALIDATION_ERROR names the field, and nothing is stored
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert field in {item["field"] for item in body["validation"]}, body
    assert api.request("GET", "/webhook", token).status_code == 404


@pytest.mark.parametrize(
    "secret",
    ["s" * 300, "short-s3cret", "whsec_c2hvcnQtczNjcmV0LWtleQ=="],
    ids=["long", "short", "whsec-short"],
)
def test_secret_is_never_echoed_in_a_validation_error(api, owner, envelope, secret):
    token, _ = owner
    # When a too long, too short or too weak secret is refused
    response = api.request("POST", "/webhook", token, json=webhook_body(secret=secret))
    # Then the error names the field but does not carry the secret
    body = envelope(response, 400, "VALIDATION_ERROR")
    assert [(item["field"], item["value"]) for item in body["validation"]] == [("secret", None)]
    assert secret not in response.text
    assert secret[len("whsec_") :] not in response.text


def test_plain_http_is_accepted_where_the_deployment_allows_it(api, owner):
    token, _ = owner
    # Given the local stack, which allows plain HTTP for loopback receivers
    # When a device is configured with an http URL on loopback
    stored = configure(api, token, webhook_url="http://127.0.0.1:9/hook")
    # Then it is stored as given
    assert stored["webhook_url"] == "http://127.0.0.1:9/hook"


# --- GET and DELETE /webhook --------------------------------------------------------------


def test_get_and_delete_without_a_configuration_are_404(api, owner, envelope):
    token, _ = owner
    # Given a device that was never configured
    # When its configuration is read or deleted
    # Then 404 with the text the specification gives
    for method in ("GET", "DELETE"):
        body = envelope(api.request(method, "/webhook", token), 404, "WEBHOOK_NOT_CONFIGURED")
        assert body["error"] == "Webhook not configured"


def test_delete_removes_the_configuration(api, owner, envelope):
    token, _ = owner
    # Given a configured device
    configure(api, token)
    # When its configuration is deleted
    response = api.request("DELETE", "/webhook", token)
    # Then 200 with a message, and it is gone
    assert response.status_code == 200, response.text
    assert response.json()["success"] is True
    assert response.json()["message"]
    envelope(api.request("GET", "/webhook", token), 404, "WEBHOOK_NOT_CONFIGURED")
    envelope(api.request("DELETE", "/webhook", token), 404, "WEBHOOK_NOT_CONFIGURED")
    # And configuring again creates a new one (201, a new id)
    again = api.request("POST", "/webhook", token, json=webhook_body())
    assert again.status_code == 201, again.text


# --- GET /webhook/events ------------------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "manager", "user"])
def test_events_lists_the_catalog_and_the_aliases(api, role):
    # Given a caller of any role, even one without a device
    tenant = api.register()
    token = tenant.admin_token if role == "admin" else api.create_user(tenant, role)[1]
    # When it lists the subscribable events
    response = api.request("GET", "/webhook/events", token)
    # Then every catalog event is there, plus message and message.ack
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "events": list(SUBSCRIBABLE)}
    assert len(CATALOG) == 65  # the specification's 62, message.reaction, poll.vote and device.send_limited
    assert set(response.json()["events"]) == {*CATALOG, "message", "message.ack"}


# --- POST /user/webhook -------------------------------------------------------------------


def test_user_webhook_stores_the_pending_url(api):
    # Given a plain user without any device
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    # When it sets its pending webhook URL
    response = api.request(
        "POST", "/user/webhook", token, json={"webhook_url": "https://hooks.example.com/u"}
    )
    # Then 200 with the URL and every catalog event it will be subscribed to
    assert response.status_code == 200, response.text
    data = response.json()
    assert set(data) == {"success", "message", "data"}
    assert data["success"] is True
    assert data["message"]
    assert data["data"] == {
        "webhook_url": "https://hooks.example.com/u",
        "available_events": list(CATALOG),
        "events_count": len(CATALOG),
    }


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"webhook_url": None},
        {"webhook_url": 42},
        {"webhook_url": "ftp://x.example.com"},
        {"webhook_url": "nope"},
    ],
    ids=["missing", "null", "number", "ftp", "not a URL"],
)
def test_user_webhook_validation_uses_the_standard_envelope(api, envelope, body):
    # Given a user
    tenant = api.register()
    # When it posts an invalid pending URL
    response = api.request("POST", "/user/webhook", tenant.admin_token, json=body)
    # Then 400 VALIDATION_ERROR on webhook_url
    result = envelope(response, 400, "VALIDATION_ERROR")
    assert [item["field"] for item in result["validation"]] == ["webhook_url"]


# --- who may configure, and which device --------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "manager", "user"])
def test_every_role_configures_its_own_device(api, role):
    # Given a caller of each role with a device of its own
    tenant = api.register()
    token = tenant.admin_token if role == "admin" else api.create_user(tenant, role)[1]
    new_device(api, token)
    # When it configures, reads and deletes the webhook
    stored = configure(api, token)
    # Then each step succeeds
    assert api.request("GET", "/webhook", token).json()["webhook"] == stored
    assert api.request("DELETE", "/webhook", token).status_code == 200


def test_x_device_id_selects_the_device_and_configurations_are_per_device(api, envelope):
    # Given a user with two devices
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    first, second = new_device(api, token), new_device(api, token)
    # When it names no device
    # Then it must name one
    envelope(api.request("POST", "/webhook", token, json=webhook_body()), 400, "DEVICE_ID_REQUIRED")
    envelope(api.request("GET", "/webhook", token), 400, "DEVICE_ID_REQUIRED")
    # When it configures each device through X-Device-Id
    one = configure(api, token, first, webhook_url="https://one.example.com/")
    two = configure(api, token, second, webhook_url="https://two.example.com/")
    # Then each device has its own configuration
    assert one["id"] != two["id"]
    read = api.request("GET", "/webhook", token, headers={"X-Device-Id": second})
    assert read.json()["webhook"]["webhook_url"] == "https://two.example.com/"
    # And deleting one leaves the other
    assert api.request("DELETE", "/webhook", token, headers={"X-Device-Id": first}).status_code == 200
    assert api.request("GET", "/webhook", token, headers={"X-Device-Id": second}).status_code == 200


def test_devices_the_caller_cannot_see_are_not_found(api, envelope):
    # Given a plain user, another user's device in its tenant, and a device of another tenant
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    _, colleague = api.create_user(tenant, "user")
    colleagues_device = new_device(api, colleague)
    foreign_device = new_device(api, api.register().admin_token)
    # When the user names those devices, or has none and names none
    # Then 404 DEVICE_NOT_FOUND, and nothing is configured on them
    for device_id in (colleagues_device, foreign_device, None):
        headers = {"X-Device-Id": device_id} if device_id else None
        for method, path, body in (
            ("POST", "/webhook", webhook_body()),
            ("GET", "/webhook", None),
            ("DELETE", "/webhook", None),
            ("GET", "/webhook/deliveries", None),
        ):
            response = api.request(method, path, token, json=body, headers=headers)
            envelope(response, 404, "DEVICE_NOT_FOUND")
    assert api.request("GET", "/webhook", colleague).status_code == 404


def test_managers_and_admins_configure_a_users_device_by_id(api):
    # Given a user's device
    tenant = api.register()
    _, user_token = api.create_user(tenant, "user")
    device_id = new_device(api, user_token)
    _, manager_token = api.create_user(tenant, "manager")
    # When a manager configures it through X-Device-Id
    stored = configure(api, manager_token, device_id)
    # Then the user sees that configuration on its device
    assert api.request("GET", "/webhook", user_token).json()["webhook"] == stored


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/webhook", webhook_body()),
        ("GET", "/webhook", None),
        ("DELETE", "/webhook", None),
        ("GET", "/webhook/events", None),
        ("POST", "/user/webhook", {"webhook_url": "https://hooks.example.com/"}),
        ("GET", "/webhook/deliveries", None),
        ("POST", "/webhook/deliveries/0123456789abcdef0123456789abcdef/redeliver", None),
    ],
)
def test_every_webhook_route_needs_a_token(api, method, path, body):
    # When a webhook route is called without a token
    response = api.request(method, path, json=body)
    # Then 401 Invalid token
    assert response.status_code == 401
    assert response.json() == INVALID_TOKEN
