"""The everyday device work in the console: pairing by phone code, the send spacing, a test
message and its errors, the simulator's contact and message, logging out and deleting; and
the layout at 360 px wide."""

from __future__ import annotations

import re

import pytest
from console_panels_steps import open_device
from console_steps import create_device, device_status, give_master_token, new_phone, paired_device, simulator
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_pair_by_phone_shows_the_code_the_phone_enters(console, api) -> None:
    # Given a connected device waiting to pair
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)
    create_device(page, "By code")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(device_status(page)).to_have_text("pairing")

    # When the user asks a pair code for a phone number
    phone = new_phone()
    page.get_by_label("Phone number to pair").fill(phone)
    page.get_by_role("button", name="Get pair code").click()

    # Then the code is shown, and it is the one the phone enters to link the device
    code = page.get_by_test_id("pair-code")
    expect(code).to_have_text(re.compile(r"\S+"))
    simulator(api, "POST", "/pair-code", phone=phone, code=code.inner_text())
    expect(device_status(page)).to_have_text("connected")


def test_send_spacing_test_message_and_simulated_contact(console, api) -> None:
    # Given a paired device, opened from the list
    tenant = api.register()
    phone, contact = new_phone(), new_phone()
    device_id = paired_device(api, tenant.admin_token, "Sales", phone)
    page = console.sign_in(tenant.admin_token)
    page.get_by_role("button", name="Sales connected").click()
    expect(device_status(page)).to_have_text("connected")

    # When the send spacing is set
    page.get_by_label("Minimum seconds between sends").fill("7")
    page.get_by_role("button", name="Save settings").click()

    # Then it is saved on the device
    expect(page.get_by_text("Saved: sends at least 7 s apart;")).to_be_visible()
    device = api.request("GET", f"/devices/{device_id}", tenant.admin_token).json()["device"]
    assert device["min_send_interval_seconds"] == 7
    page.get_by_label("Minimum seconds between sends").fill("0")
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_text("Saved: sends at least 0 s apart;")).to_be_visible()

    # When the simulator makes a contact and the user sends it a test message
    give_master_token(page, api.master_token)
    page.get_by_label("Contact phone number").fill(contact)
    page.get_by_label("Contact name").fill("Ana")
    page.get_by_role("button", name="Create contact").click()
    expect(page.get_by_text(f"{contact}@s.whatsapp.net")).to_be_visible()
    page.get_by_label("Recipient (phone digits or JID)").fill(contact)
    page.get_by_label("Text to send").fill("hello from the console")
    page.get_by_role("button", name="Send test message").click()

    # Then the answer is shown and the contact's phone has the message
    expect(page.get_by_text("Sent (sent)")).to_be_visible()
    inbox = simulator(api, "GET", f"/accounts/{contact}/inbox")
    assert [m["text"] for m in inbox["messages"]] == ["hello from the console"]

    # When the contact writes to the device from the simulator panel
    page.get_by_label("Sender phone number").fill(contact)
    page.get_by_label("Text from the contact").fill("hi device")
    page.get_by_role("button", name="Send to device").click()

    # Then the network took it, and the device's account has it
    simulator_panel = page.get_by_role("region", name="Simulator")
    send_button = page.get_by_role("button", name="Send to device")
    send_action = simulator_panel.locator(".sim-action", has=send_button)
    expect(send_action.get_by_text('"message_id"')).to_be_visible()
    sent = simulator(api, "GET", f"/accounts/{contact}/inbox")["sent"]
    assert [(m["to"], m["text"]) for m in sent] == [(f"{phone}@s.whatsapp.net", "hi device")]


PROXY_PASSWORD = "pr0xy-pass-never-shown"


def test_call_rejection_and_proxy_settings_are_saved_and_the_password_never_shown(console, api) -> None:
    console.expect_refusals(400)  # the proxy URL the API refuses
    # Given a device, opened in the console
    tenant = api.register()
    device_id = api.request("POST", "/devices", tenant.admin_token, json={"name": "Front desk"}).json()[
        "device"
    ]["id"]
    page = open_device(console, tenant.admin_token, "Front desk")
    settings = page.get_by_role("form", name="Device settings")
    expect(settings.get_by_test_id("proxy-shown")).to_have_text("No proxy: the connection goes out directly.")

    # When the user rejects calls with a text and sets a proxy with a password
    settings.get_by_label("Reject every call").check()
    settings.get_by_label("Text a rejected caller gets").fill("No calls here, please write.")
    proxy = settings.get_by_label("New proxy URL")
    proxy.fill(f"socks5://alice:{PROXY_PASSWORD}@203.0.113.7:1080")
    settings.get_by_role("button", name="Save settings").click()

    # Then they are saved, the proxy is shown with its password masked, and the page no longer holds it
    masked = "socks5://alice:***@203.0.113.7:1080"
    expect(page.get_by_role("status").filter(has_text="Saved:")).to_have_text(
        f"Saved: sends at least 0 s apart; calls rejected with a message; proxy {masked}."
    )
    expect(settings.get_by_test_id("proxy-shown")).to_have_text(f"Proxy: {masked}")
    expect(proxy).to_have_value("")
    assert PROXY_PASSWORD not in page.content()
    device = api.request("GET", f"/devices/{device_id}", tenant.admin_token).json()["device"]
    assert (device["reject_calls"], device["reject_calls_message"], device["proxy_url"]) == (
        True,
        "No calls here, please write.",
        masked,
    )

    # When only the spacing is changed, the calls and the proxy are kept
    settings.get_by_label("Minimum seconds between sends").fill("2")
    settings.get_by_role("button", name="Save settings").click()
    expect(
        page.get_by_text("Saved: sends at least 2 s apart; calls rejected with a message;")
    ).to_be_visible()
    device = api.request("GET", f"/devices/{device_id}", tenant.admin_token).json()["device"]
    assert (device["min_send_interval_seconds"], device["reject_calls"], device["proxy_url"]) == (
        2,
        True,
        masked,
    )

    # When a proxy URL the API refuses is saved, the error names the field and does not repeat it
    proxy.fill(f"ftp://alice:{PROXY_PASSWORD}@203.0.113.7:21")
    settings.get_by_role("button", name="Save settings").click()
    alert = page.get_by_role("alert").filter(has_text="VALIDATION_ERROR")
    expect(alert).to_contain_text("proxy_url")
    assert PROXY_PASSWORD not in alert.inner_text()

    # When calls are let through again and the proxy is removed
    proxy.fill("")
    settings.get_by_label("Reject every call").uncheck()
    settings.get_by_label("Remove the proxy").check()
    settings.get_by_role("button", name="Save settings").click()

    # Then the device has neither, as the API tells
    expect(settings.get_by_test_id("proxy-shown")).to_have_text("No proxy: the connection goes out directly.")
    device = api.request("GET", f"/devices/{device_id}", tenant.admin_token).json()["device"]
    assert (device["reject_calls"], device["proxy_url"]) == (False, None)


def test_errors_are_shown_in_words_with_their_code(console, api) -> None:
    console.expect_refusals(400, 503)  # the refusals this story shows to the user
    # Given a device that was never connected
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)
    create_device(page, "Idle")

    # When a test message is sent through it
    page.get_by_label("Recipient (phone digits or JID)").fill("4917000000001")
    page.get_by_label("Text to send").fill("hello")
    page.get_by_role("button", name="Send test message").click()

    # Then the error envelope is shown in words, with its code
    expect(page.get_by_role("alert")).to_contain_text("DEVICE_NOT_READY")

    # When a pair code is asked for a number the gateway refuses
    page.get_by_label("Phone number to pair").fill("+49 170")
    page.get_by_role("button", name="Get pair code").click()

    # Then the validation error names the field, once
    alert = page.get_by_role("alert").filter(has_text="VALIDATION_ERROR")
    expect(alert).to_contain_text("phone")
    assert alert.inner_text().count("phone:") == 1, alert.inner_text()


def test_disconnect_log_out_and_delete(console, api) -> None:
    # Given a paired device
    tenant = api.register()
    device_id = paired_device(api, tenant.admin_token, "Old phone", new_phone())
    page = console.sign_in(tenant.admin_token)
    page.get_by_role("button", name="Old phone connected").click()

    # When it is disconnected, then logged out
    page.get_by_role("button", name="Disconnect").click()
    expect(device_status(page)).to_have_text("disconnected")
    page.get_by_role("button", name="Log out").click()

    # Then it is logged out
    expect(device_status(page)).to_have_text("logged_out")
    expect(page.get_by_text("not paired", exact=True)).to_be_visible()

    # When it is deleted, after confirming
    page.get_by_role("button", name="Delete device").click()
    page.get_by_role("button", name="Yes, delete it").click()

    # Then it is gone from the console and from the API
    expect(page.get_by_role("button", name=re.compile("^Old phone"))).to_have_count(0)
    expect(page.get_by_text("No device yet.")).to_be_visible()
    assert api.request("GET", f"/devices/{device_id}", tenant.admin_token).status_code == 404


def test_the_console_fits_a_360_px_screen(console, api) -> None:
    console.expect_refusals(503)  # the test message through a device that is not paired
    # Given a phone-sized window
    console.page.set_viewport_size({"width": 360, "height": 740})
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)

    # When a device is created and connected
    create_device(page, "A rather long device name for a small screen")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(page.get_by_role("img", name="QR code to scan with the phone")).to_be_visible()

    # And an answer with long lines is shown
    page.get_by_label("Recipient (phone digits or JID)").fill("4917000000001")
    page.get_by_label("Text to send").fill("hello")
    page.get_by_role("button", name="Send test message").click()
    expect(page.get_by_role("alert")).to_contain_text("DEVICE_NOT_READY")

    # Then nothing is wider than the screen, and the controls are within reach
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    for name in ("Sign out", "Create device", "Disconnect", "Send test message", "Scan QR code"):
        button = page.get_by_role("button", name=name, exact=True)
        if name == "Scan QR code":
            give_master_token(page, api.master_token)
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None, name
        assert 0 <= box["x"] <= box["x"] + box["width"] <= 360, name


UNNAMED_CONTROLS = """() => [...document.querySelectorAll("button, input, textarea, select")]
    .filter((control) => control.offsetParent !== null)
    .filter((control) => !(control.getAttribute("aria-label") || (control.labels && control.labels.length)
        || (control.tagName === "BUTTON" && control.textContent.trim())))
    .map((control) => control.outerHTML)"""


def test_every_control_has_an_accessible_name(console, api) -> None:
    # Given every screen of a device, with the simulator panel open
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)
    create_device(page, "Named")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(page.get_by_role("img", name="QR code to scan with the phone")).to_be_visible()
    give_master_token(page, api.master_token)

    # Then no visible control lacks a name that assistive technology can read
    assert page.evaluate(UNNAMED_CONTROLS) == []


def test_the_simulator_panel_is_hidden_where_the_gateway_serves_no_simulator(console, api) -> None:
    # Given the API document a deployed gateway serves (the packaged one: no /_simulator)
    from gateway.web.openapi_document import PACKAGED_DOCUMENT

    console.page.route(
        "**/openapi.json",
        lambda route: route.fulfill(body=PACKAGED_DOCUMENT.read_bytes(), content_type="application/json"),
    )
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)

    # When a device is shown
    create_device(page, "Deployed")
    expect(page.get_by_role("region", name="Groups")).to_be_attached()

    # Then, once the console has read the document, the simulator panel stays hidden
    panel = page.locator("section.simulator")
    expect(panel).to_have_attribute("data-served", "false")
    expect(panel).to_be_hidden()
    expect(page.get_by_label("Master token")).to_have_count(0)
