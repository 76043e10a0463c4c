"""The console's Webhooks panel: configuring a device's webhook to a loopback receiver (the
local stack is in local mode, so plain HTTP to loopback is accepted), the secret and the
header values that the page never shows yet keeps, and the delivery log with redelivery."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from typing import Any

import pytest
from console_panels_steps import assert_usable, open_device, panel
from e2e.device_flows import create_device, new_phone, pair_by_qr, simulator, subscribe
from e2e.webhook_receiver import Receiver
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SECRET = "s3cret-never-shown"
RECEIVER_TOKEN = "Bearer receiver-token-never-shown"


@pytest.fixture(scope="module")
def receiver(stack: Any) -> Iterator[Receiver]:
    server = Receiver().start()
    yield server
    server.stop()


def test_a_webhook_configured_in_the_console_delivers_and_redelivers(console, api, receiver) -> None:
    # Given a user's device, not connected yet, and a receiver on loopback
    tenant = api.register()
    # GET /webhook before it is configured, the empty form saved; and the pairing view may
    # ask for the QR code just as the phone scans it (409 ALREADY_LOGGED_IN).
    console.expect_refusals(404, 400, 409)
    device_id = create_device(api, tenant.admin_token, "hooks phone")
    path = receiver.path()
    page = open_device(console, tenant.admin_token, "hooks phone")
    webhooks = panel(page, "Webhooks")
    form = webhooks.get_by_role("form", name="Webhook configuration")
    expect(form.get_by_text("Not configured")).to_be_visible()
    # And the events offered are the catalog's, its latest included
    catalog = api.request("GET", "/webhook/events", tenant.admin_token).json()["events"]
    expect(form.get_by_role("group", name="Events").get_by_role("checkbox")).to_have_count(len(catalog))
    for name in ("poll.vote", "message.reaction"):
        expect(form.get_by_label(name, exact=True)).to_be_attached()

    # When the user saves the empty form, the error is shown with its code and its words
    form.get_by_role("button", name="Save webhook").click()
    expect(form.get_by_role("alert")).to_contain_text("VALIDATION_ERROR")
    expect(form.get_by_role("alert")).to_contain_text("enabled_events")

    # When the user configures the receiver's URL, one event, a secret and a custom header
    form.get_by_label("Webhook URL").fill(receiver.url(path))
    form.get_by_label("device.connected", exact=True).check()
    form.get_by_label("Secret (write-only").fill(SECRET)
    form.get_by_role("button", name="Add header").click()
    form.get_by_label("New header 1 name").fill("Authorization")
    form.get_by_label("New header 1 value").fill(RECEIVER_TOKEN)
    form.get_by_role("button", name="Save webhook").click()

    # Then it is created, and the page shows neither the secret nor the header's value
    expect(form.get_by_role("status")).to_have_text("Webhook created.")
    expect(form.get_by_text("signed with a secret")).to_be_visible()
    expect(form.get_by_label("Secret (write-only")).to_have_value("")
    expect(form.get_by_label("Value of header Authorization")).to_have_value("")
    assert SECRET not in page.content()
    assert RECEIVER_TOKEN not in page.content()

    # When the user changes the timeout and saves, leaving the secret and the value empty
    form.get_by_label("Timeout in seconds").fill("5")
    form.get_by_role("button", name="Save webhook").click()
    expect(form.get_by_role("status")).to_have_text("Webhook saved.")

    # Then both were kept, as the API tells
    stored = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id}).json()
    assert stored["webhook"]["timeout"] == 5
    assert stored["webhook"]["has_secret"] is True
    assert stored["webhook"]["headers"] == {"Authorization": "***"}

    # When the device connects (a phone scans its QR code)
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())

    # Then the receiver gets device.connected, signed with the secret, with the real header
    first = receiver.wait_for(path, lambda found: len(found) >= 1, expected="device.connected")[0]
    assert first.envelope["event"] == "device.connected"
    assert first.headers["authorization"] == RECEIVER_TOKEN
    signature = "sha256=" + hmac.new(SECRET.encode(), first.body, hashlib.sha256).hexdigest()
    assert first.headers["x-webhook-signature-256"] == signature
    # And the delivery appears in the log without a reload, delivered with status 200
    log = webhooks.get_by_role("region", name="Delivery attempts")
    row = log.get_by_role("row").filter(has=page.get_by_role("cell", name="device.connected", exact=True))
    expect(row).to_have_count(1)
    expect(row.get_by_role("cell", name="delivered", exact=True)).to_be_visible()
    expect(row.get_by_role("cell", name="200", exact=True)).to_be_visible()

    # When the user redelivers it
    event_id = first.envelope["id"]
    webhooks.get_by_role("button", name=f"Redeliver device.connected (event {event_id})").click()

    # Then it is queued, the receiver gets the same event a second time, and the log shows it
    expect(webhooks.get_by_text("device.connected queued for redelivery")).to_be_visible()
    receiver.wait_for(
        path,
        lambda found: [request.envelope["id"] for request in found] == [event_id, event_id],
        expected="the redelivery",
    )
    expect(row).to_have_count(2)
    # And every control of the panel is named and within reach, wide and at 360 px
    assert_usable(webhooks, 1280)
    assert_usable(webhooks, 360)


def test_the_secret_and_a_header_are_removed_and_the_webhook_deleted(console, api, receiver) -> None:
    # Given a device whose webhook has a secret and a custom header, set through the API
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token, "quiet phone")
    subscribe(
        api,
        tenant.admin_token,
        device_id,
        receiver.url(receiver.path()),
        ["message"],
        secret=SECRET,
        headers={"X-Receiver-Key": RECEIVER_TOKEN},
    )
    console.expect_refusals(404)  # GET /webhook once it is deleted
    page = open_device(console, tenant.admin_token, "quiet phone")
    form = panel(page, "Webhooks").get_by_role("form", name="Webhook configuration")

    # Then the panel shows the configuration, with the alias explained and the header by name only
    expect(form.get_by_text("signed with a secret")).to_be_visible()
    expect(form.get_by_label("message (every message.* event)")).to_be_checked()
    expect(form.get_by_label("Header name X-Receiver-Key")).to_have_value("X-Receiver-Key")
    expect(form.get_by_label("Value of header X-Receiver-Key")).to_have_value("")
    assert RECEIVER_TOKEN not in page.content()

    # When the user removes the secret and the header, and saves
    form.get_by_label("Remove the secret").check()
    form.get_by_role("button", name="Remove header X-Receiver-Key").click()
    form.get_by_role("button", name="Save webhook").click()

    # Then both are gone
    expect(form.get_by_role("status")).to_have_text("Webhook saved.")
    expect(form.get_by_text("no secret")).to_be_visible()
    stored = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id}).json()
    assert stored["webhook"]["has_secret"] is False
    assert stored["webhook"]["headers"] == {}

    # When the user deletes the webhook, confirming
    form.get_by_role("button", name="Delete webhook").click()
    form.get_by_role("button", name="Confirm delete").click()

    # Then it is not configured any more
    expect(form.get_by_text("Not configured")).to_be_visible()
    gone = api.request("GET", "/webhook", tenant.admin_token, headers={"X-Device-Id": device_id})
    assert gone.status_code == 404


def test_the_delivery_log_shows_older_pages_on_demand(console, api, receiver) -> None:
    # Given a connected device whose webhook got 55 messages from a contact
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token, "busy phone")
    phone = new_phone()
    pair_by_qr(api, tenant.admin_token, device_id, phone)
    path = receiver.path()
    subscribe(api, tenant.admin_token, device_id, receiver.url(path), ["message.received"])
    contact = new_phone()
    simulator(api, "POST", "/accounts", phone=contact, name="Ana")
    for number in range(55):
        simulator(api, "POST", f"/accounts/{contact}/messages", to=phone, text=f"order {number}")
    receiver.wait_for(path, lambda found: len(found) >= 55, expected="55 deliveries")

    # When the user opens the Webhooks panel
    page = open_device(console, tenant.admin_token, "busy phone")
    log = panel(page, "Webhooks").get_by_role("region", name="Delivery attempts")
    attempts = log.get_by_role("cell", name="message.received", exact=True)

    # Then the log shows the newest 50 attempts, and the rest on demand
    expect(attempts).to_have_count(50)
    page.get_by_role("button", name="Load older deliveries").click()
    expect(attempts).to_have_count(55)
    expect(page.get_by_role("button", name="Load older deliveries")).to_be_hidden()

    # When the user refreshes, the log is back to its first page
    page.get_by_role("button", name="Refresh deliveries").click()
    expect(attempts).to_have_count(50)
