"""The console's Groups panel: creating a group with a simulated contact, its members and admin
flags, the invite link (copy, reset), and the join requests of simulated accounts."""

from __future__ import annotations

import re

import pytest
from console_panels_steps import assert_usable, open_device, panel
from e2e.device_flows import create_device, new_phone, pair_by_qr, simulator
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

INVITE_LINK = re.compile(r"^https://chat\.whatsapp\.com/\w+$")


def _row(table, jid: str):
    return table.get_by_role("row", name=re.compile("^" + re.escape(jid)))


def test_create_a_group_reset_its_link_and_answer_join_requests(console, api) -> None:
    # Given a connected device and three people on the network
    tenant = api.register()
    device_id = create_device(api, tenant.admin_token, "groups phone")
    own_jid = pair_by_qr(api, tenant.admin_token, device_id, new_phone())["messaging_jid"]
    ana, bob, carol = (
        simulator(api, "POST", "/accounts", phone=new_phone(), name=name) for name in ("Ana", "Bob", "Carol")
    )
    page = open_device(console, tenant.admin_token, "groups phone")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    groups = panel(page, "Groups")
    expect(groups.get_by_text("This device is in no group yet.")).to_be_visible()

    # When the user creates a group with Ana that needs approval to join
    groups.get_by_label("Group name").fill("Trip")
    groups.get_by_label("Participants").fill(ana["phone"])
    groups.get_by_label("New members need an admin's approval").check()
    groups.get_by_role("button", name="Create group").click()

    # Then it is listed and opened, with the device as super admin and Ana as a member
    expect(groups.get_by_text("Created Trip")).to_be_visible()
    expect(groups.get_by_role("button", name="Trip, 2 members")).to_have_attribute("aria-expanded", "true")
    members = groups.get_by_role("region", name="Members")
    expect(_row(members, f"{own_jid} (this device)").get_by_role("cell")).to_have_text(["yes", "yes"])
    expect(_row(members, ana["jid"]).get_by_role("cell")).to_have_text(["no", "no"])
    group_jid = groups.get_by_text("Created Trip").inner_text().split("(")[1].split(")")[0]

    # When the user shows the invite link and copies it
    groups.get_by_role("button", name="Show invite link").click()
    link = groups.get_by_label("Invite link of Trip")
    expect(link).to_have_value(INVITE_LINK)
    old_link = link.input_value()
    groups.get_by_role("button", name="Copy invite link").click()

    # Then it is on the clipboard
    expect(groups.get_by_text("Invite link copied.")).to_be_visible()
    assert page.evaluate("() => navigator.clipboard.readText()") == old_link

    # When the browser refuses the clipboard, the link is selected in its field instead
    page.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); }")
    groups.get_by_role("button", name="Copy invite link").click()
    expect(groups.get_by_text("the link is selected in the field")).to_be_visible()
    expect(link).to_be_focused()
    selected = link.evaluate("field => field.selectionEnd - field.selectionStart")
    assert selected == len(old_link)

    # When the user resets the link
    groups.get_by_role("button", name="Reset invite link").click()

    # Then a new link is shown, the network's own, and the old one no longer lets anyone in
    expect(link).not_to_have_value(old_link)
    expect(link).to_have_value(INVITE_LINK)
    new_link = link.input_value()
    assert simulator(api, "GET", f"/groups/{group_jid}")["group"]["invite_link"] == new_link
    join = f"/_simulator/accounts/{bob['phone']}/groups/join"
    refused = api.request("POST", join, api.master_token, json={"link": old_link})
    assert refused.status_code == 410, refused.text

    # When Bob and Carol ask to join with the new link
    for person in (bob, carol):
        asked = simulator(api, "POST", f"/accounts/{person['phone']}/groups/join", link=new_link)
        assert asked["pending_approval"] is True

    # Then both requests are listed
    groups.get_by_role("button", name="Refresh join requests").click()
    requests_list = groups.get_by_role("list", name="Join requests")
    expect(requests_list.get_by_role("listitem")).to_have_count(2)

    # When the user approves Bob and rejects Carol
    groups.get_by_role("button", name=f"Approve {bob['jid']}").click()
    expect(groups.get_by_text(f"Approved {bob['jid']}: now a member.")).to_be_visible()
    groups.get_by_role("button", name=f"Reject {carol['jid']}").click()

    # Then no request waits any more, and Bob is a member (not an admin), in the console and on the network
    expect(requests_list.get_by_role("listitem")).to_have_text(["No join request waiting."])
    expect(_row(members, bob["jid"]).get_by_role("cell")).to_have_text(["no", "no"])
    expect(groups.get_by_role("button", name="Trip, 3 members")).to_be_visible()
    network = simulator(api, "GET", f"/groups/{group_jid}")["group"]
    assert {person["jid"] for person in network["participants"]} == {own_jid, ana["jid"], bob["jid"]}
    assert network["pending"] == []
    # And every control of the panel is named and within reach, wide and at 360 px
    assert_usable(groups, 1280)
    assert_usable(groups, 360)


def test_groups_wait_for_the_device_to_connect_and_errors_show_their_code(console, api) -> None:
    # Given a device that is not connected
    tenant = api.register()
    # The participant refused below; and the pairing view may ask for the QR code just as
    # the phone scans it (409 ALREADY_LOGGED_IN), as the device pairs while it is shown.
    console.expect_refusals(400, 409)
    device_id = create_device(api, tenant.admin_token, "later phone")
    page = open_device(console, tenant.admin_token, "later phone")
    groups = panel(page, "Groups")

    # Then the panel says groups need a connected device
    expect(groups.get_by_text("Groups need a connected device; this one is not_ready.")).to_be_visible()

    # When the device connects, the panel lists its groups without a reload
    pair_by_qr(api, tenant.admin_token, device_id, new_phone())
    expect(groups.get_by_text("This device is in no group yet.")).to_be_visible()

    # When a group is created with a participant that is no phone number or JID
    groups.get_by_label("Group name").fill("Bad")
    groups.get_by_label("Participants").fill("not-a-number")
    groups.get_by_role("button", name="Create group").click()

    # Then the lowercase envelope is shown with its code and its words
    alert = groups.get_by_role("form", name="Create a group").get_by_role("alert")
    expect(alert).to_contain_text("invalid_participant: ")
