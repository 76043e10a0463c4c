"""Groups end to end, from the admin's side: HTTP → groups function → command bus → session
host → simulated network, checked against the network's own record of the group."""

from __future__ import annotations

from typing import Any

import pytest
from group_flows import (
    JPEG_BASE64,
    UNKNOWN_GROUP,
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

GROUP_FIELDS = {
    "jid",
    "name",
    "topic",
    "description",
    "owner",
    "created_at",
    "is_announce",
    "is_locked",
    "join_approval",
    "member_add_mode",
    "ephemeral_duration",
    "is_community",
    "parent_jid",
    "members_count",
    "participants",
}


@pytest.fixture(scope="module")
def me(api: Any) -> Phone:
    """A connected device of a plain user of a new tenant (its only device)."""
    tenant = api.register()
    _, token = api.create_user(tenant, "user")
    return connected_device(api, token)


@pytest.fixture(scope="module")
def friends(api: Any) -> list[Phone]:
    return [contact(api, "Ana"), contact(api, "Ben")]


def test_a_created_group_is_on_the_network_with_the_device_as_super_admin(
    api: Any, me: Phone, friends: list[Phone], is_rfc3339_utc: Any
) -> None:
    # Given two contacts, named by phone number and by user JID
    ana, ben = friends
    # When the device creates a group with them, locked, with join approval
    response = me.call(
        api,
        "POST",
        "/groups",
        {
            "name": "Trip",
            "participants": [ana.phone, ben.jid],
            "options": {"locked": True, "join_approval": True},
        },
    )
    # Then 201 with the group and each person's outcome
    assert response.status_code == 201, response.text
    body = response.json()
    group = body["group"]
    assert set(group) == GROUP_FIELDS
    assert (group["name"], group["topic"], group["description"]) == ("Trip", "", "")
    assert (group["is_locked"], group["join_approval"], group["is_announce"]) == (True, True, False)
    assert (group["owner"], group["members_count"], group["is_community"]) == (me.jid, 3, False)
    assert is_rfc3339_utc(group["created_at"])
    assert member(group, me.jid) == {"jid": me.jid, "is_admin": True, "is_super_admin": True}
    assert member(group, ana.jid) == {"jid": ana.jid, "is_admin": False, "is_super_admin": False}
    assert [(p["jid"], p["status"]) for p in body["participants"]] == [(ana.jid, "ok"), (ben.jid, "ok")]
    # And the network has it so
    record = network_group(api, group["jid"])
    assert {p["jid"] for p in record["participants"]} == {me.jid, ana.jid, ben.jid}
    assert record["is_locked"] is True


def test_a_group_with_nobody_else_and_a_community(api: Any, me: Phone) -> None:
    group = create_group(api, me, "Alone", [])
    community = create_group(api, me, "Neighbours", [], community=True)
    assert group["members_count"] == 1
    assert community["is_community"] is True


def test_list_and_read_show_the_devices_groups_with_their_participants(
    api: Any, me: Phone, friends: list[Phone]
) -> None:
    # Given a group the device created and one a contact created with the device in it
    ana, _ = friends
    mine = create_group(api, me, "Mine", [ana.phone])
    theirs = contact_group(api, ana, "Theirs", [me.phone])
    # When the device lists its groups and reads one
    groups = me.ok(api, "GET", "/groups")["groups"]
    read = me.ok(api, "GET", f"/groups/{theirs}")["group"]
    # Then both are listed with participants, and the read one shows who is admin
    listed = {g["jid"]: g for g in groups}
    assert {mine["jid"], theirs} <= set(listed)
    assert all(set(g) == GROUP_FIELDS for g in groups)
    assert listed[mine["jid"]]["participants"] == mine["participants"]
    assert member(read, ana.jid)["is_super_admin"] is True
    assert member(read, me.jid) == {"jid": me.jid, "is_admin": False, "is_super_admin": False}


def test_participants_are_added_promoted_demoted_and_removed(
    api: Any, me: Phone, friends: list[Phone]
) -> None:
    ana, ben = friends
    group = create_group(api, me, "Team", [ana.phone])["jid"]
    path = f"/groups/{group}/participants"
    # add (the default action): Ben comes in, Ana is already there
    added = me.ok(api, "POST", path, {"participants": [ben.phone, ana.jid]})
    assert added["group_jid"] == group
    assert [(p["jid"], p["status"]) for p in added["participants"]] == [
        (ben.jid, "ok"),
        (ana.jid, "already_member"),
    ]
    # promote, then demote
    promoted = me.ok(api, "POST", path, {"action": "promote", "participants": [ben.jid]})["participants"]
    assert promoted == [{"jid": ben.jid, "is_admin": True, "is_super_admin": False, "status": "ok"}]
    assert member(network_group(api, group), ben.jid)["is_admin"] is True
    demoted = me.ok(api, "POST", path, {"action": "demote", "participants": [ben.phone]})["participants"]
    assert demoted[0]["is_admin"] is False
    # remove with DELETE: Ana goes, the device itself is not allowed to remove itself
    removed = me.ok(api, "DELETE", path, {"participants": [ana.phone, me.jid]})["participants"]
    assert [(p["jid"], p["status"]) for p in removed] == [(ana.jid, "ok"), (me.jid, "not_allowed")]
    assert member(network_group(api, group), ana.jid) is None
    # an empty list is accepted and changes nothing
    assert me.ok(api, "POST", path, {"participants": []})["participants"] == []


def test_patch_changes_settings_and_answers_the_refreshed_group(api: Any, me: Phone) -> None:
    group = create_group(api, me, "Before", [])["jid"]
    body = {
        "name": "After",
        "description": "Plans",
        "announcement": True,
        "locked": True,
        "join_approval": True,
        "member_add_mode": "all",
    }
    changed = me.ok(api, "PATCH", f"/groups/{group}", body)["group"]
    assert (changed["name"], changed["topic"], changed["description"]) == ("After", "Plans", "Plans")
    assert (changed["is_announce"], changed["is_locked"], changed["join_approval"]) == (True, True, True)
    assert changed["member_add_mode"] == "all"
    record = network_group(api, group)
    assert (record["name"], record["topic"], record["member_add_mode"]) == ("After", "Plans", "all")
    # topic and description together only when equal; an empty text removes it
    same = me.ok(api, "PATCH", f"/groups/{group}", {"topic": "", "description": ""})["group"]
    assert same["topic"] == ""
    lowercase(
        me.call(api, "PATCH", f"/groups/{group}", {"topic": "a", "description": "b"}), 400, "invalid_request"
    )
    lowercase(me.call(api, "PATCH", f"/groups/{group}", {"nothing": "known"}), 400, "invalid_request")


def test_picture_and_disappearing_timer(api: Any, me: Phone) -> None:
    group = create_group(api, me, "Pictures", [])["jid"]
    picture = me.ok(api, "POST", f"/groups/{group}/picture", {"image_base64": JPEG_BASE64})
    assert picture["picture_id"] == network_group(api, group)["picture_id"]
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    lowercase(me.call(api, "POST", f"/groups/{group}/picture", {"image_base64": png}), 400, "invalid_image")
    lowercase(
        me.call(api, "POST", f"/groups/{group}/picture", {"image_base64": "not base64"}), 400, "invalid_image"
    )

    timer = me.ok(api, "PUT", f"/groups/{group}/ephemeral", {"duration_seconds": 604800})
    assert timer["duration_seconds"] == 604800
    assert me.ok(api, "GET", f"/groups/{group}")["group"]["ephemeral_duration"] == 604800
    lowercase(
        me.call(api, "PUT", f"/groups/{group}/ephemeral", {"duration_seconds": 3600}), 400, "invalid_duration"
    )


def test_invite_link_and_its_reset(api: Any, me: Phone, is_rfc3339_utc: Any) -> None:
    group = create_group(api, me, "Invites", [])["jid"]
    first = me.ok(api, "GET", f"/groups/{group}/invite")
    assert first["group_jid"] == group
    assert first["invite_link"].startswith("https://chat.whatsapp.com/")
    assert first["invite_link"] == network_group(api, group)["invite_link"]
    reset = me.ok(api, "POST", f"/groups/{group}/invite/reset")
    assert reset["invite_link"] != first["invite_link"]
    assert reset["invite_link"] == network_group(api, group)["invite_link"]
    assert is_rfc3339_utc(reset["reset_at"])


def test_leaving_a_group(api: Any, me: Phone, friends: list[Phone]) -> None:
    ana, _ = friends
    group = contact_group(api, ana, "Leaving", [me.phone])
    assert me.ok(api, "DELETE", f"/groups/{group}/leave") == {"success": True}
    assert member(network_group(api, group), me.jid) is None
    lowercase(me.call(api, "GET", f"/groups/{group}"), 404, "group_not_found")


# --- refusals ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("PATCH", "", {"name": "Mine now"}),
        ("POST", "/participants", {"participants": ["15550000001"]}),
        ("POST", "/participants", {"action": "promote", "participants": ["15550000001"]}),
        ("DELETE", "/participants", {"participants": ["15550000001"]}),
        ("POST", "/picture", {"image_base64": JPEG_BASE64}),
        ("PUT", "/ephemeral", {"duration_seconds": 86400}),
        ("GET", "/invite", None),
        ("POST", "/invite/reset", None),
        ("GET", "/requests", None),
        ("POST", "/requests", {"action": "approve", "participants": ["15550000001"]}),
    ],
)
def test_a_device_that_is_not_an_admin_is_403_not_group_admin(
    api: Any, me: Phone, friends: list[Phone], method: str, suffix: str, body: Any
) -> None:
    # Given a group a contact created with the device as a plain member
    ana, _ = friends
    group = contact_group(api, ana, "Not yours", [me.phone])
    before = network_group(api, group)
    # When the device tries an admin's operation
    response = me.call(api, method, f"/groups/{group}{suffix}", body)
    # Then 403 not_group_admin, and the group is as it was
    lowercase(response, 403, "not_group_admin")
    assert network_group(api, group) == before


@pytest.mark.parametrize(
    ("method", "suffix", "body"),
    [
        ("GET", "", None),
        ("PATCH", "", {"name": "x"}),
        ("POST", "/participants", {"participants": []}),
        ("GET", "/invite", None),
        ("DELETE", "/leave", None),
        ("GET", "/requests", None),
    ],
)
def test_an_unknown_group_is_404_and_an_invalid_jid_400(
    api: Any, me: Phone, method: str, suffix: str, body: Any
) -> None:
    lowercase(me.call(api, method, f"/groups/{UNKNOWN_GROUP}{suffix}", body), 404, "group_not_found")
    lowercase(me.call(api, method, f"/groups/12345@s.whatsapp.net{suffix}", body), 400, "invalid_group_jid")
    lowercase(me.call(api, method, f"/groups/not-a-jid{suffix}", body), 400, "invalid_group_jid")


def test_a_group_the_device_is_not_in_is_404(api: Any, me: Phone, friends: list[Phone]) -> None:
    ana, ben = friends
    group = contact_group(api, ana, "Private", [ben.phone])
    lowercase(me.call(api, "GET", f"/groups/{group}"), 404, "group_not_found")
    assert group not in {g["jid"] for g in me.ok(api, "GET", "/groups")["groups"]}


@pytest.mark.parametrize(
    "participants",
    [["+4915112345678"], ["15551234567", "120363000000000001@g.us"], ["ana"]],
)
def test_a_participant_that_names_nobody_is_400_invalid_participant(
    api: Any, me: Phone, participants: list[str]
) -> None:
    response = me.call(api, "POST", "/groups", {"name": "Bad people", "participants": participants})
    lowercase(response, 400, "invalid_participant")
    group = create_group(api, me, "Good", [])["jid"]
    lowercase(
        me.call(api, "POST", f"/groups/{group}/participants", {"participants": participants}),
        400,
        "invalid_participant",
    )
