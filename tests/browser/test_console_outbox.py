"""The console's Outbox panel on the simulated network: a send gone out with its network id,
planned sends listed as they are planned, one canceled from the console (it never reaches the
contact) while the other goes out at its time, the state filter, a cancel that lost the race
to the dispatcher shown as the API answers it (409 ALREADY_SENT), and sends paged."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from console_panels_steps import assert_usable, connected_device, open_device, panel
from e2e.device_flows import new_phone, simulator
from playwright.sync_api import Locator, expect
from waiting import wait_until

pytestmark = pytest.mark.browser

# Far enough ahead for the console to show the planned sends and cancel one before its time
# on a loaded machine; near enough for the other to go out within the test.
PLANNED_AHEAD_S = 6


def at(seconds_ahead: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds_ahead)).isoformat()


def send_text(api: Any, token: str, device_id: str, body: dict[str, Any], status: int) -> dict[str, Any]:
    body = {**body, "disablePresence": True}
    response = api.request("POST", "/send/text", token, json=body, headers={"X-Device-Id": device_id})
    assert response.status_code == status, response.text
    return response.json()


def shown_send(api: Any, token: str, device_id: str, message_id: str) -> dict[str, Any]:
    response = api.request("GET", f"/sends/{message_id}", token, headers={"X-Device-Id": device_id})
    assert response.status_code == 200, response.text
    return response.json()


def received(api: Any, phone: str, text: str) -> list[dict[str, Any]]:
    inbox = simulator(api, "GET", f"/accounts/{phone}/inbox")["messages"]
    return [message for message in inbox if message["text"] == text]


def row(sends: Locator, message_id: str) -> Locator:
    return sends.get_by_role("row").filter(has_text=message_id)


def cell(sends: Locator, message_id: str, column: int) -> Locator:
    return row(sends, message_id).get_by_role("cell").nth(column)


def right_edge(locator: Locator) -> float:
    box = locator.bounding_box()
    assert box is not None
    return float(box["x"] + box["width"])


STATE, SCHEDULED_FOR, NETWORK_ID = 3, 4, 6


def test_the_outbox_lists_sends_cancels_a_planned_one_and_shows_a_cancel_that_lost(console, api) -> None:
    console.expect_refusals(409)  # the cancel that lost the race
    # Given a connected device, a contact, and the device's outbox open in the console
    token, device_id = connected_device(api, "outbox phone")
    ana = simulator(api, "POST", "/accounts", phone=new_phone(), name="Ana")
    page = open_device(console, token, "outbox phone")
    outbox = panel(page, "Outbox")
    expect(outbox.get_by_text("No send in this list")).to_be_visible()
    sends = outbox.get_by_role("region", name="Sends")

    # When a text is sent now through the API
    now = send_text(api, token, device_id, {"number": ana["phone"], "text": "right away"}, 200)

    # Then the outbox shows it sent, with the network's id for it
    network_id = shown_send(api, token, device_id, now["message_id"])["network_message_id"]
    assert network_id
    expect(cell(sends, now["message_id"], STATE)).to_have_text("sent")
    expect(cell(sends, now["message_id"], NETWORK_ID)).to_have_text(network_id)
    expect(row(sends, now["message_id"]).get_by_role("button")).to_have_count(0)

    # When two texts are planned for the same moment, and the user cancels one of them
    send_at = at(PLANNED_AHEAD_S)
    planned = {"number": ana["phone"], "send_at": send_at}
    kept = send_text(api, token, device_id, {**planned, "text": "kept"}, 202)
    dropped = send_text(api, token, device_id, {**planned, "text": "dropped"}, 202)
    expect(cell(sends, kept["message_id"], STATE)).to_have_text("scheduled")
    scheduled_for = cell(sends, kept["message_id"], SCHEDULED_FOR).locator("time")
    expect(scheduled_for).to_have_attribute("datetime", kept["scheduled_for"])
    outbox.get_by_role("button", name=f"Cancel send {dropped['message_id']}").click()

    # Then the console says so and shows it canceled, as the API does
    expect(outbox.get_by_role("status")).to_have_text(
        f"Send {dropped['message_id']} canceled: it will not go out."
    )
    expect(cell(sends, dropped["message_id"], STATE)).to_have_text("canceled")
    expect(row(sends, dropped["message_id"]).get_by_role("button")).to_have_count(0)
    assert shown_send(api, token, device_id, dropped["message_id"])["state"] == "canceled"

    # And at their time the other goes out, shown sent by the panel's own refresh, while the
    # canceled one never reaches the contact
    expect(cell(sends, kept["message_id"], STATE)).to_have_text(
        "sent", timeout=PLANNED_AHEAD_S * 1000 + 15_000
    )
    kept_id = shown_send(api, token, device_id, kept["message_id"])["network_message_id"]
    expect(cell(sends, kept["message_id"], NETWORK_ID)).to_have_text(kept_id)
    planned_time = datetime.fromisoformat(send_at).timestamp()
    wait_until(lambda: time.time() > planned_time + 2, 15, what="the planned time well passed")
    assert len(received(api, ana["phone"], "kept")) == 1
    assert received(api, ana["phone"], "dropped") == []

    # When the user shows the canceled sends only, then only that one is listed
    outbox.get_by_label("Show sends").select_option("canceled")
    expect(sends.get_by_role("row")).to_have_count(2)  # the header and the canceled send
    expect(cell(sends, dropped["message_id"], STATE)).to_have_text("canceled")
    outbox.get_by_label("Show sends").select_option("")

    # When the list stops refreshing itself and shows a send still scheduled which then goes out
    outbox.get_by_label("Refresh sends automatically").uncheck()
    late = send_text(api, token, device_id, {"number": ana["phone"], "text": "late", "send_at": at(1)}, 202)
    outbox.get_by_role("button", name="Refresh sends").click()
    expect(cell(sends, late["message_id"], STATE)).to_have_text("scheduled")

    # (And every control of the panel, a Cancel among them, is named and within reach at
    # 360 px and wide, where the test goes on)
    assert_usable(outbox, 360)
    assert_usable(outbox, 1280)
    # and at 1280 px the whole table, its Cancel included, is seen without scrolling it sideways
    cancel = outbox.get_by_role("button", name=f"Cancel send {late['message_id']}")
    assert right_edge(cancel) <= right_edge(sends)
    wait_until(
        lambda: shown_send(api, token, device_id, late["message_id"])["state"] == "sent",
        15,
        what="the late send gone out",
    )

    # And the user cancels it: the refusal says it went out, and the row is read again
    outbox.get_by_role("button", name=f"Cancel send {late['message_id']}").click()
    alert = outbox.get_by_role("alert")
    expect(alert).to_contain_text("ALREADY_SENT: ")
    expect(alert).to_contain_text(late["message_id"])
    expect(cell(sends, late["message_id"], STATE)).to_have_text("sent")
    assert len(received(api, ana["phone"], "late")) == 1


def test_the_outbox_shows_the_newest_fifty_sends_and_older_ones_on_demand(console, api) -> None:
    # Given a device with 52 sends planned an hour ahead, and one of them canceled
    token, device_id = connected_device(api, "busy outbox")
    ana = simulator(api, "POST", "/accounts", phone=new_phone(), name="Ana")
    send_at = at(3600)
    planned = [
        send_text(
            api, token, device_id, {"number": ana["phone"], "text": f"order {n}", "send_at": send_at}, 202
        )
        for n in range(52)
    ]
    oldest, canceled = planned[0]["message_id"], planned[-1]["message_id"]
    response = api.request("DELETE", f"/sends/{canceled}", token, headers={"X-Device-Id": device_id})
    assert response.status_code == 200, response.text

    # When the user opens the outbox
    page = open_device(console, token, "busy outbox")
    outbox = panel(page, "Outbox")
    sends = outbox.get_by_role("region", name="Sends")
    rows = sends.locator("tbody").get_by_role("row")

    # Then it shows the newest 50, the canceled one first, and the oldest only on demand
    expect(rows).to_have_count(50)
    expect(rows.first).to_contain_text(canceled)
    expect(cell(sends, canceled, STATE)).to_have_text("canceled")
    expect(row(sends, oldest)).to_have_count(0)
    outbox.get_by_role("button", name="Load older sends").click()
    expect(rows).to_have_count(52)
    expect(cell(sends, oldest, STATE)).to_have_text("scheduled")
    expect(outbox.get_by_role("button", name="Load older sends")).to_be_hidden()

    # When the user shows the scheduled sends only, then the canceled one is not among them
    outbox.get_by_label("Show sends").select_option("scheduled")
    expect(rows).to_have_count(50)
    expect(row(sends, canceled)).to_have_count(0)
    outbox.get_by_role("button", name="Load older sends").click()
    expect(rows).to_have_count(51)
