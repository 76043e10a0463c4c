"""The simulator control API's group routes over HTTP, on the gateway's app factory."""

from __future__ import annotations

from pathlib import Path

from fakes_control_groups import (
    MASTER,
    MISSING_GROUP,
    assert_refused,
    create,
    fake_master,
    person,
    post,
    record,
)
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, THIRD_JID
from fastapi.testclient import TestClient

from gateway.web import create_app
from gateway.web.error_docs import ERROR_CODES_KEY
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.control import control_router


def test_every_group_route_needs_the_master_token(client: TestClient) -> None:
    calls = [
        ("POST", f"/_simulator/accounts/{PHONE}/groups", {"name": "Team", "participants": []}),
        ("GET", f"/_simulator/groups/{MISSING_GROUP}", None),
        ("POST", f"/_simulator/accounts/{PHONE}/groups/{MISSING_GROUP}/participants", {"participants": []}),
        ("PATCH", f"/_simulator/accounts/{PHONE}/groups/{MISSING_GROUP}", {"name": "x"}),
        ("POST", f"/_simulator/accounts/{PHONE}/groups/{MISSING_GROUP}/requests", {"action": "approve"}),
        ("POST", f"/_simulator/accounts/{PHONE}/groups/join", {"link": "https://chat.whatsapp.com/x"}),
    ]
    for method, path, body in calls:
        response = client.request(method, path, json=body)
        assert response.status_code == 401, path


def test_the_document_names_the_group_codes_in_the_lowercase_envelope(network: SimulatedNetwork) -> None:
    # Given the OpenAPI document of the control API
    paths = create_app(control_router(network, fake_master)).openapi()["paths"]
    operations = {
        ("POST", "/_simulator/accounts/{phone}/groups"): {
            "403": ["not_group_admin"],
            "409": ["not_a_community"],
        },
        ("GET", "/_simulator/groups/{jid}"): {"404": ["group_not_found"]},
        ("POST", "/_simulator/accounts/{phone}/groups/{jid}/participants"): {"403": ["not_group_admin"]},
        ("PATCH", "/_simulator/accounts/{phone}/groups/{jid}"): {"403": ["not_group_admin"]},
        ("POST", "/_simulator/accounts/{phone}/groups/{jid}/requests"): {"403": ["not_group_admin"]},
        ("POST", "/_simulator/accounts/{phone}/groups/join"): {
            "409": ["already_member"],
            "410": ["invite_link_revoked"],
        },
    }
    # Then each group route documents the network's codes in the OperationErrorEnvelope
    for (method, path), expected in operations.items():
        responses = paths[path][method.lower()]["responses"]
        for status, codes in expected.items():
            assert set(codes) <= set(responses[status][ERROR_CODES_KEY]), (method, path, status)
            assert "OperationErrorEnvelope" in str(responses[status]["content"]), (method, path, status)
    assert (
        "ACCOUNT_NOT_FOUND"
        in paths["/_simulator/accounts/{phone}/groups/join"]["post"]["responses"]["404"][ERROR_CODES_KEY]
    )


def test_create_a_group_and_read_the_networks_record(client: TestClient, lids: dict[str, str]) -> None:
    # When PHONE creates a group with CONTACT by LID, THIRD by phone and a phone off the network
    created = post(
        client,
        f"/accounts/{PHONE}/groups",
        {"name": "Team", "participants": [lids[CONTACT], THIRD, "15559999999"], "options": {"locked": True}},
    )

    # Then it is 201 with the group's JID and each person's status, LIDs as the account's JID
    assert created.status_code == 201, created.text
    jid = created.json()["jid"]
    assert jid.endswith("@g.us")
    assert created.json()["participants"] == [
        person(CONTACT_JID),
        person(THIRD_JID),
        person("15559999999@s.whatsapp.net", "not_found"),
    ]

    # And the record has every Group field, the creator as super admin and the invite link
    group = record(client, jid)
    assert group["created_at"].endswith("Z")
    assert group["invite_link"].startswith("https://chat.whatsapp.com/")
    assert group == {
        "jid": jid,
        "name": "Team",
        "topic": "",
        "description": "",
        "owner": JID,
        "created_at": group["created_at"],
        "is_announce": False,
        "is_locked": True,
        "join_approval": False,
        "member_add_mode": "admin",
        "ephemeral_duration": 0,
        "is_community": False,
        "parent_jid": None,
        "linked_groups": [],
        "members_count": 3,
        "participants": [
            {"jid": JID, "is_admin": True, "is_super_admin": True},
            {"jid": CONTACT_JID, "is_admin": False, "is_super_admin": False},
            {"jid": THIRD_JID, "is_admin": False, "is_super_admin": False},
        ],
        "pending": [],
        "invite_link": group["invite_link"],
        "picture_id": None,
    }


def test_create_a_community_with_a_linked_group(client: TestClient, lids: dict[str, str]) -> None:
    community = create(client, PHONE, [], community=True)
    child = create(client, PHONE, [CONTACT], parent_jid=community)
    assert record(client, community)["is_community"] is True
    assert record(client, community)["linked_groups"] == [child]
    assert record(client, child)["parent_jid"] == community
    # Someone outside the community does not see it; a group is no community
    assert_refused(
        post(
            client,
            f"/accounts/{CONTACT}/groups",
            {"name": "x", "participants": [], "options": {"parent_jid": community}},
        ),
        404,
        "group_not_found",
    )
    assert_refused(
        post(
            client,
            f"/accounts/{PHONE}/groups",
            {"name": "x", "participants": [], "options": {"parent_jid": child}},
        ),
        409,
        "not_a_community",
    )


def test_reading_and_creating_refusals(client: TestClient, lids: dict[str, str]) -> None:
    assert_refused(client.get(f"/_simulator/groups/{MISSING_GROUP}", headers=MASTER), 404, "group_not_found")
    assert_refused(client.get("/_simulator/groups/not-a-group", headers=MASTER), 400, "invalid_group_jid")
    assert_refused(
        post(client, f"/accounts/{PHONE}/groups", {"name": "Team", "participants": ["a@g.us"]}),
        400,
        "invalid_participant",
    )
    assert_refused(
        post(client, f"/accounts/{PHONE}/groups", {"name": "", "participants": []}), 400, "invalid_request"
    )
    # An unknown acting phone and a body that does not validate keep the standard envelope
    unknown = post(client, "/accounts/15558888888/groups", {"name": "Team", "participants": []})
    assert (unknown.status_code, unknown.json()["error_code"]) == (404, "ACCOUNT_NOT_FOUND")
    invalid = post(client, f"/accounts/{PHONE}/groups", {"name": "Team"})
    assert (invalid.status_code, invalid.json()["error_code"]) == (400, "VALIDATION_ERROR")


def test_participants_change_only_by_admins(client: TestClient, lids: dict[str, str]) -> None:
    jid = create(client, PHONE, [CONTACT])
    path = f"/accounts/{{}}/groups/{jid}/participants"

    # A member who is not an admin may not add people; an outsider does not see the group
    assert_refused(post(client, path.format(CONTACT), {"participants": [THIRD]}), 403, "not_group_admin")
    assert_refused(post(client, path.format(THIRD), {"participants": [THIRD]}), 404, "group_not_found")

    # The admin adds (action defaults to add), promotes by LID, and meets the per-person rules
    added = post(client, path.format(PHONE), {"participants": [THIRD, CONTACT]})
    assert added.json() == {
        "success": True,
        "group_jid": jid,
        "participants": [person(THIRD_JID), person(CONTACT_JID, "already_member")],
    }
    promoted = post(client, path.format(PHONE), {"action": "promote", "participants": [lids[CONTACT]]})
    assert promoted.json()["participants"] == [person(CONTACT_JID, admin=True)]
    removed = post(client, path.format(CONTACT), {"action": "remove", "participants": [PHONE, THIRD]})
    assert removed.json()["participants"] == [
        person(JID, "not_allowed", super_admin=True),
        person(THIRD_JID),
    ]
    assert [p["jid"] for p in record(client, jid)["participants"]] == [JID, CONTACT_JID]
    assert_refused(
        post(client, path.format(PHONE), {"action": "kick", "participants": []}), 400, "invalid_request"
    )


def test_patch_changes_the_group_under_the_networks_rules(client: TestClient, lids: dict[str, str]) -> None:
    jid = create(client, PHONE, [CONTACT])

    # The admin changes info and settings: the refreshed record
    patched = client.patch(
        f"/_simulator/accounts/{PHONE}/groups/{jid}",
        json={"name": "Renamed", "description": "About", "announcement": True, "member_add_mode": "all"},
        headers=MASTER,
    )
    assert patched.status_code == 200, patched.text
    group = patched.json()["group"]
    assert (group["name"], group["topic"], group["description"]) == ("Renamed", "About", "About")
    assert (group["is_announce"], group["member_add_mode"]) == (True, "all")

    # A member edits info of an unlocked group but not its settings; nothing to change is refused
    member = f"/_simulator/accounts/{CONTACT}/groups/{jid}"
    assert client.patch(member, json={"topic": "Ours"}, headers=MASTER).json()["group"]["topic"] == "Ours"
    assert_refused(client.patch(member, json={"locked": True}, headers=MASTER), 403, "not_group_admin")
    assert_refused(client.patch(member, json={}, headers=MASTER), 400, "invalid_request")
    assert_refused(
        client.patch(
            f"/_simulator/accounts/{PHONE}/groups/{MISSING_GROUP}", json={"name": "x"}, headers=MASTER
        ),
        404,
        "group_not_found",
    )


def test_join_by_link_directly_or_after_approval(client: TestClient, lids: dict[str, str]) -> None:
    open_jid = create(client, PHONE, [])
    link = record(client, open_jid)["invite_link"]

    # Without join approval the account is a member at once; again is a conflict
    joined = post(client, f"/accounts/{CONTACT}/groups/join", {"link": link})
    assert joined.json() == {"success": True, "group_jid": open_jid, "pending_approval": False}
    assert_refused(post(client, f"/accounts/{CONTACT}/groups/join", {"link": link}), 409, "already_member")
    assert_refused(
        post(client, f"/accounts/{THIRD}/groups/join", {"link": "https://example.com/x"}),
        400,
        "invalid_invite_link",
    )
    assert_refused(
        post(client, f"/accounts/{THIRD}/groups/join", {"link": "https://chat.whatsapp.com/unknown"}),
        404,
        "group_not_found",
    )

    # With join approval the account waits in the pending list
    closed = create(client, PHONE, [CONTACT], join_approval=True)
    asked = post(client, f"/accounts/{THIRD}/groups/join", {"link": record(client, closed)["invite_link"]})
    assert asked.json() == {"success": True, "group_jid": closed, "pending_approval": True}
    pending = record(client, closed)["pending"]
    assert [r["jid"] for r in pending] == [THIRD_JID]
    assert pending[0]["requested_at"].endswith("Z")

    # Only an admin answers; approving by LID lets the requester in, unknown ones are not_found
    requests = f"/accounts/{{}}/groups/{closed}/requests"
    assert_refused(
        post(client, requests.format(CONTACT), {"action": "approve", "participants": [THIRD]}),
        403,
        "not_group_admin",
    )
    approved = post(
        client, requests.format(PHONE), {"action": "approve", "participants": [lids[THIRD], CONTACT]}
    )
    assert approved.json() == {
        "success": True,
        "group_jid": closed,
        "participants": [person(THIRD_JID), person(CONTACT_JID, "not_found")],
    }
    group = record(client, closed)
    assert (group["pending"], group["members_count"]) == ([], 3)


def test_groups_survive_a_restart(tmp_path: Path) -> None:
    # Given a persistent network with a group that has a join request waiting
    state = tmp_path / "network.json"
    network = SimulatedNetwork(state)
    for phone in (PHONE, CONTACT, THIRD):
        network.create_account(phone)
    jid = network.groups.create(PHONE, "Team", [CONTACT], {"join_approval": True})["jid"]
    network.groups.join(THIRD, network.groups.record(jid)["invite_link"])

    # When the process restarts, Then the network has the same record
    assert SimulatedNetwork(state).groups.record(jid) == network.groups.record(jid)
