"""The console's Contacts panel on the simulated network: numbers checked (one with an account,
one without), a contact looked up with both identities and its profile, blocked from its card
and unblocked from the blocklist, as the API then tells; and a lookup that finds no one."""

from __future__ import annotations

import re

import pytest
from console_panels_steps import assert_usable, open_device, panel
from e2e.device_flows import create_device, new_phone, pair_by_qr, simulator
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_check_look_up_block_and_unblock_a_contact(console, api) -> None:
    console.expect_refusals(404)  # the lookup of a number without an account
    # Given a connected device, Ana on the network with an About text, and a number without an account
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token, "contacts phone")
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    ana = simulator(api, "POST", "/accounts", phone=new_phone(), name="Ana")
    simulator(api, "PATCH", f"/accounts/{ana['phone']}", about="Out for lunch")
    nobody = new_phone()
    page = open_device(console, tenant.admin_token, "contacts phone")
    contacts = panel(page, "Contacts")
    blocklist = contacts.get_by_role("region", name="Blocked contacts")
    expect(blocklist.get_by_role("listitem")).to_have_text(["Nobody is blocked."])

    # When the user checks Ana's number and the other one
    contacts.get_by_label("Phone numbers to check").fill(f"{ana['phone']}\n{nobody}")
    contacts.get_by_role("button", name="Check numbers").click()

    # Then Ana's is on the network with her JID and LID, the other is not
    expect(contacts.get_by_text("1 of 2 on the network.")).to_be_visible()
    results = contacts.get_by_role("table", name="Number check results")
    expect(results.get_by_role("row").nth(1).get_by_role("cell")).to_have_text(
        [ana["phone"], "yes", ana["jid"], ana["lid"], f"Look up {ana['phone']}"]
    )
    expect(results.get_by_role("row").nth(2).get_by_role("cell")).to_have_text(
        [nobody, "no", "none", "none", ""]
    )

    # When the user looks Ana up from her result
    contacts.get_by_role("button", name=f"Look up {ana['phone']}").click()

    # Then her card shows both identities, her name and About, no picture, not blocked
    card = contacts.get_by_label(f"Contact {ana['jid']}")
    expect(card.locator("dd")).to_have_text(
        [ana["jid"], ana["lid"], "Ana", "Out for lunch", "no", "none", "no"]
    )

    # When the user blocks her from the card
    contacts.get_by_role("button", name=f"Block {ana['jid']}").click()

    # Then the blocklist shows her, the card says so, and so does the API
    expect(contacts.get_by_text(f"Blocked {ana['jid']}.")).to_be_visible()
    expect(blocklist.get_by_role("listitem")).to_have_text([re.compile("^" + re.escape(ana["jid"]))])
    expect(card.locator("dd").last).to_have_text("yes")
    headers = {"X-Device-Id": device_id}
    listed = api.request("GET", "/contacts/blocklist", tenant.admin_token, headers=headers).json()
    assert listed["jids"] == [ana["jid"]]

    # When the user unblocks her from the blocklist
    blocklist.get_by_role("button", name=f"Unblock {ana['jid']}").click()

    # Then nobody is blocked, in the console and for the API, and the card offers to block again
    expect(blocklist.get_by_role("listitem")).to_have_text(["Nobody is blocked."])
    expect(contacts.get_by_role("button", name=f"Block {ana['jid']}")).to_be_visible()
    listed = api.request("GET", "/contacts/blocklist", tenant.admin_token, headers=headers).json()
    assert listed["jids"] == []

    # When the user looks up the number without an account, the error says so with its code
    contacts.get_by_label("Person (phone number, JID or LID)").fill(nobody)
    contacts.get_by_role("button", name="Look up contact").click()
    lookup = contacts.get_by_role("form", name="Look up a contact")
    expect(lookup.get_by_role("alert")).to_contain_text("CONTACT_NOT_FOUND: ")
    expect(card).to_have_count(0)

    # And every control of the panel is named and within reach, wide and at 360 px
    contacts.get_by_role("button", name="Check numbers").click()
    expect(results).to_be_visible()
    assert_usable(contacts, 1280)
    assert_usable(contacts, 360)
