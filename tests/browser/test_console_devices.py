"""The devices view in a real browser: create a device, connect it, see its QR code as an
image, let a simulated phone scan it from the simulator panel and see the device turn
connected without a reload; pair by phone code; the send spacing; a test message; the
session commands and deletion."""

from __future__ import annotations

import re

import pytest
from console_steps import create_device, device_status, give_master_token, new_phone
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

QR = "QR code to scan with the phone"


def qr_natural_width(page: Page) -> int:
    return page.get_by_role("img", name=QR).evaluate("image => image.complete ? image.naturalWidth : 0")


def test_pair_by_scanning_the_qr_from_the_simulator_panel(console, api) -> None:
    # Given a signed-in tenant admin with a new device
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)
    create_device(page, "Front desk")
    expect(device_status(page)).to_have_text("not_ready")
    page.evaluate("() => { window.notReloaded = true; }")

    # When the device is connected
    page.get_by_role("button", name="Connect", exact=True).click()

    # Then it is pairing and its QR code is drawn as an image, with its expiry
    expect(device_status(page)).to_have_text("pairing")
    expect(page.get_by_role("img", name=QR)).to_be_visible()
    page.wait_for_function(
        "name => { const image = document.querySelector(`img[alt='${name}']`);"
        " return image && image.complete && image.naturalWidth > 0; }",
        arg=QR,
    )
    assert qr_natural_width(page) > 0
    expect(page.get_by_text("Expires at")).to_be_visible()

    # When a simulated phone scans it from the simulator panel
    phone = new_phone()
    give_master_token(page, api.master_token)
    page.get_by_label("Scanning phone number").fill(phone)
    page.get_by_role("button", name="Scan QR code").click()

    # Then the device turns connected on the same page, paired with that phone's account
    expect(device_status(page)).to_have_text("connected")
    expect(page.get_by_text(f"{phone}@s.whatsapp.net", exact=True)).to_be_visible()
    expect(page.get_by_role("img", name=QR)).to_be_hidden()
    expect(page.get_by_role("button", name="Front desk connected")).to_be_visible()
    assert page.evaluate("() => window.notReloaded") is True
    # And the master token, like the user token, lives in sessionStorage only
    assert console.session_storage()["console.master"] == api.master_token

    # When the simulated network drops the connection (every status shown is recorded)
    page.get_by_test_id("device-status").evaluate(
        "badge => { window.statusesSeen = [];"
        " new MutationObserver(() => window.statusesSeen.push(badge.textContent))"
        ".observe(badge, {childList: true, characterData: true, subtree: true}); }"
    )
    page.get_by_role("button", name="Drop connection").click()

    # Then the device is seen disconnected, then connected again as its session reconnects
    page.wait_for_function("() => window.statusesSeen.includes('disconnected')")
    expect(device_status(page)).to_have_text("connected")


def test_the_qr_image_follows_the_network_rotating_the_code(console, api, stack, monkeypatch) -> None:
    # Given a network whose QR codes live one second each
    monkeypatch.setattr(stack.network, "qr_lifetimes", (1.0, 1.0, 1.0, 30.0))
    tenant = api.register()
    page = console.sign_in(tenant.admin_token)
    create_device(page, "Rotating")

    # When the device is connected and its first code is shown
    page.get_by_role("button", name="Connect", exact=True).click()
    image = page.get_by_role("img", name=QR)
    expect(image).to_have_attribute("data-code", re.compile(r".+"))
    first = image.get_attribute("data-code")

    # Then a new code replaces it once the network rotates it, still drawn as an image
    expect(image).not_to_have_attribute("data-code", first)
    assert qr_natural_width(page) > 0
