"""Joining groups end to end: by link and by code, approval by an admin, revoked links,
throttling; and join requests answered by the device as an admin."""

from __future__ import annotations

from typing import Any

import pytest
from device_flows import simulator
from group_flows import (
    Phone,
    connected_device,
    contact,
    contact_group,
    create_group,
    lowercase,
    member,
    network_group,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def tenant(api: Any) -> Any:
    return api.register()


@pytest.fixture
def device(api: Any, tenant: Any) -> Phone:
    """A fresh connected device of the tenant's admin (named by X-Device-Id: it has several)."""
    return connected_device(api, tenant.admin_token)


def invite_of(api: Any, jid: str) -> str:
    return network_group(api, jid)["invite_link"]


def test_joining_by_link_where_no_approval_is_needed(api: Any, device: Phone) -> None:
    # Given a contact's open group and its invite link
    ana = contact(api)
    group = contact_group(api, ana, "Open", [])
    # When the device joins by the link
    joined = device.ok(api, "POST", "/groups/join", {"link": invite_of(api, group)})
    # Then it is a member at once
    assert joined == {
        "success": True,
        "group_jid": group,
        "pending_approval": False,
        "approval_request_jid": None,
    }
    assert member(network_group(api, group), device.jid) is not None
    # And joining again is 409 already_member
    lowercase(
        device.call(api, "POST", "/groups/join", {"link": invite_of(api, group)}), 409, "already_member"
    )


def test_a_join_request_becomes_membership_when_an_admin_approves(
    api: Any, device: Phone, events: Any
) -> None:
    # Given a contact's group with join approval, and the device subscribed to its events
    events.subscribe(api, device.token, device.device_id)
    ana = contact(api)
    group = contact_group(api, ana, "Vetted", [], join_approval=True)
    # When the device joins by the link
    asked = device.ok(api, "POST", "/groups/join", {"link": invite_of(api, group)})
    # Then the request waits: pending, with the JID it is filed under, and the device is not in yet
    assert asked["pending_approval"] is True
    assert asked["approval_request_jid"] == group
    assert [r["jid"] for r in network_group(api, group)["pending"]] == [device.jid]
    lowercase(device.call(api, "GET", f"/groups/{group}"), 404, "group_not_found")
    # When the contact, as the group's admin, approves the request
    answered = simulator(
        api,
        "POST",
        f"/accounts/{ana.phone}/groups/{group}/requests",
        action="approve",
        participants=[device.jid],
    )
    assert answered["participants"][0]["status"] == "ok"
    # Then group.joined reaches the receiver, and the device is an active member
    (joined,) = events.wait_for(device.device_id, "group.joined")
    assert joined["data"]["group_jid"] == group
    assert joined["data"]["author"] == ana.jid
    group_now = device.ok(api, "GET", f"/groups/{group}")["group"]
    assert member(group_now, device.jid) == {"jid": device.jid, "is_admin": False, "is_super_admin": False}


def test_joining_by_code_names_the_group_and_the_inviter(api: Any, device: Phone) -> None:
    ana = contact(api)
    group = contact_group(api, ana, "By code", [])
    code = invite_of(api, group).rsplit("/", 1)[1]
    body = {"invite_code": code, "group_jid": group, "inviter_jid": ana.phone}
    assert device.ok(api, "POST", "/groups/join", body)["group_jid"] == group
    # a code that is not the group's
    other = contact_group(api, ana, "Other", [])
    lowercase(device.call(api, "POST", "/groups/join", {**body, "group_jid": other}), 404, "group_not_found")


def test_a_revoked_link_is_410_and_the_new_one_works(api: Any, tenant: Any, device: Phone) -> None:
    # Given a group another device administers, whose link it reset
    admin = connected_device(api, tenant.admin_token)
    group = create_group(api, admin, "Reset", [])["jid"]
    old = admin.ok(api, "GET", f"/groups/{group}/invite")["invite_link"]
    new = admin.ok(api, "POST", f"/groups/{group}/invite/reset")["invite_link"]
    # When the device joins with the old link, then with the new one
    lowercase(device.call(api, "POST", "/groups/join", {"link": old}), 410, "invite_link_revoked")
    assert device.ok(api, "POST", "/groups/join", {"link": new})["pending_approval"] is False


def test_a_throttled_join_is_429_rate_limited_and_nothing_happens(api: Any, device: Phone) -> None:
    # Given the network throttling the device's next join
    ana = contact(api)
    group = contact_group(api, ana, "Busy", [])
    simulator(
        api, "POST", "/faults", device_id=device.device_id, operation="join_group", error="rate_limited"
    )
    # When the device joins, Then 429 and it is not in the group
    lowercase(device.call(api, "POST", "/groups/join", {"link": invite_of(api, group)}), 429, "rate_limited")
    assert member(network_group(api, group), device.jid) is None
    # And the next try goes through
    assert device.ok(api, "POST", "/groups/join", {"link": invite_of(api, group)})["group_jid"] == group


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"link": "https://chat.whatsapp.com/AbC", "invite_code": "AbC"}, 400, "invalid_request"),
        ({}, 400, "invalid_request"),
        ({"invite_code": "AbC", "group_jid": "120363000000000001@g.us"}, 400, "invalid_request"),
        ({"link": "https://example.com/AbC"}, 400, "invalid_invite_link"),
        ({"link": "https://chat.whatsapp.com/NoSuchCode123"}, 404, "group_not_found"),
        ({"invite_code": "AbC", "group_jid": "nope", "inviter_jid": "15551234567"}, 400, "invalid_group_jid"),
        ({"invite_code": "AbC", "group_jid": "1@g.us", "inviter_jid": "1@g.us"}, 400, "invalid_participant"),
    ],
    ids=[
        "both forms",
        "neither",
        "incomplete code form",
        "not an invite link",
        "unknown",
        "bad group",
        "bad inviter",
    ],
)
def test_join_refusals(api: Any, device: Phone, body: dict[str, Any], status: int, code: str) -> None:
    lowercase(device.call(api, "POST", "/groups/join", body), status, code)


def test_the_device_as_admin_lists_and_answers_join_requests(api: Any, device: Phone) -> None:
    # Given the device's group with join approval, and two contacts who asked to join
    group = create_group(api, device, "Club", [], join_approval=True)["jid"]
    link = device.ok(api, "GET", f"/groups/{group}/invite")["invite_link"]
    ana, ben = contact(api, "Ana"), contact(api, "Ben")
    for person in (ana, ben):
        asked = simulator(api, "POST", f"/accounts/{person.phone}/groups/join", link=link)
        assert asked["pending_approval"] is True
    # When the device lists the requests
    listed = device.ok(api, "GET", f"/groups/{group}/requests")
    # Then both wait, oldest first, with ISO times
    assert listed["group_jid"] == group
    assert [r["jid"] for r in listed["requests"]] == [ana.jid, ben.jid]
    assert all(r["requested_at"].endswith("Z") for r in listed["requests"])
    # When it approves Ana (and someone who never asked) and rejects Ben
    approved = device.ok(
        api,
        "POST",
        f"/groups/{group}/requests",
        {"action": "approve", "participants": [ana.phone, "15550000002"]},
    )
    rejected = device.ok(
        api, "POST", f"/groups/{group}/requests", {"action": "reject", "participants": [ben.jid]}
    )
    # Then each person's outcome, and only Ana is in
    assert approved["participants"] == [
        {"jid": ana.jid, "status": "ok"},
        {"jid": "15550000002@s.whatsapp.net", "status": "not_found"},
    ]
    assert rejected["participants"] == [{"jid": ben.jid, "status": "ok"}]
    record = network_group(api, group)
    assert member(record, ana.jid) is not None
    assert member(record, ben.jid) is None
    assert device.ok(api, "GET", f"/groups/{group}/requests")["requests"] == []
