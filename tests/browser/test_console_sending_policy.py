"""The console's Sending policy panel: a device's limits, warm-up and jitter saved and read back
through the API, what it sent today kept current as it sends, a value out of range refused
with the API's error and nothing saved, a limit cleared, and the pause the network's rate
refusal brings."""

from __future__ import annotations

import re
from typing import Any

import pytest
from console_panels_steps import assert_usable, connected_device, open_device
from e2e.device_flows import new_phone, simulator
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

POLICY = ("daily_send_limit", "new_chat_daily_limit", "warmup_days", "send_jitter_seconds")


def read_device(api: Any, token: str, device_id: str) -> dict[str, Any]:
    response = api.request("GET", f"/devices/{device_id}", token)
    assert response.status_code == 200, response.text
    device: dict[str, Any] = response.json()["device"]
    return device


def test_the_sending_policy_is_saved_its_usage_shown_and_a_value_out_of_range_refused(console, api) -> None:
    console.expect_refusals(400)  # the limit out of range
    # Given a connected device with no policy (every field off), opened in the console
    token, device_id = connected_device(api, "policy phone")
    ana = simulator(api, "POST", "/accounts", phone=new_phone(), name="Ana")
    page = open_device(console, token, "policy phone")
    section = page.get_by_role("region", name="Sending policy")
    form = section.get_by_role("form", name="Sending policy")
    usage = section.get_by_label("Sending today").locator("dd")
    day = read_device(api, token, device_id)["usage_today"]["day"]
    expect(section.get_by_label("Sending today").locator("dt").first).to_have_text(f"Sent today ({day}, UTC)")
    expect(usage).to_have_text(["0 (no limit)", "0 (no limit)", "not paused"])
    expect(form.get_by_label("Messages a UTC day (")).to_have_value("")
    expect(form.get_by_label("Warm-up days")).to_have_value("0")

    # When the user sets both limits, a warm-up and a jitter
    form.get_by_label("Messages a UTC day (").fill("200")
    form.get_by_label("Messages a UTC day to new chats").fill("20")
    form.get_by_label("Warm-up days").fill("10")
    form.get_by_label("Random extra seconds between sends").fill("3")
    form.get_by_role("button", name="Save sending policy").click()

    # Then they are saved on the device, and today's limits are shown after the warm-up
    expect(section.get_by_role("status")).to_have_text(
        "Saved: at most 200 a day; at most 20 a day to new chats; warm-up over 10 days; up to 3 s of jitter."
    )
    device = read_device(api, token, device_id)
    assert [device[name] for name in POLICY] == [200, 20, 10, 3]
    today = device["usage_today"]
    assert today["daily_limit"] is not None
    assert today["daily_limit"] < 200, "the warm-up lowers today's limit"
    expect(usage).to_have_text(
        [f"0 of {today['daily_limit']}", f"0 of {today['new_chat_limit']}", "not paused"]
    )

    # When the device sends a text to a new chat
    body = {"number": ana["phone"], "text": "hello", "disablePresence": True}
    sent = api.request("POST", "/send/text", token, json=body, headers={"X-Device-Id": device_id})
    assert sent.status_code == 200, sent.text

    # Then the panel shows it in today's usage, by the device's own polling
    expect(usage).to_have_text(
        [f"1 of {today['daily_limit']}", f"1 of {today['new_chat_limit']}", "not paused"]
    )

    # When the user saves a daily limit out of range
    form.get_by_label("Messages a UTC day (").fill("20000")
    form.get_by_role("button", name="Save sending policy").click()

    # Then the API's refusal is shown, naming the field, and nothing changed
    alert = section.get_by_role("alert")
    expect(alert).to_contain_text("VALIDATION_ERROR: ")
    expect(alert).to_contain_text("daily_send_limit")
    expect(form.get_by_label("Messages a UTC day (")).to_have_value("20000")
    assert read_device(api, token, device_id)["daily_send_limit"] == 200

    # When the user empties the daily limit and the warm-up
    form.get_by_label("Messages a UTC day (").fill("")
    form.get_by_label("Warm-up days").fill("")
    form.get_by_role("button", name="Save sending policy").click()

    # Then the device has no daily limit and no warm-up any more; the rest is kept
    expect(section.get_by_role("status")).to_have_text(
        "Saved: no daily limit; at most 20 a day to new chats; no warm-up; up to 3 s of jitter."
    )
    device = read_device(api, token, device_id)
    assert [device[name] for name in POLICY] == [None, 20, 0, 3]
    expect(usage).to_have_text(["1 (no limit)", "1 of 20", "not paused"])

    # When the network refuses a send to a new chat for rate
    ben = simulator(api, "POST", "/accounts", phone=new_phone(), name="Ben")
    simulator(api, "POST", "/faults", device_id=device_id, operation="send_text", error="rate_limited")
    body = {"number": ben["phone"], "text": "hello Ben", "disablePresence": True}
    held = api.request("POST", "/send/text", token, json=body, headers={"X-Device-Id": device_id})
    assert held.status_code == 202, held.text

    # Then the panel shows the device's sends to new chats paused, until when the API says
    paused_until = read_device(api, token, device_id)["sending_paused_until"]
    assert paused_until is not None
    expect(usage.last).to_have_text(re.compile("^paused by the network until "))
    expect(usage.last.locator("time")).to_have_attribute("datetime", paused_until)

    # And every control of the panel is named and within reach, wide and at 360 px
    assert_usable(section, 1280)
    assert_usable(section, 360)
