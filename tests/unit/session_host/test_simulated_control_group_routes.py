"""The simulator control API over HTTP: phones writing, typing and reading in groups, leaving
them, resetting invite links, setting the timer and linking community groups."""

from __future__ import annotations

from unittest.mock import ANY

from fakes_control_groups import (
    MASTER,
    MISSING_GROUP,
    assert_refused,
    create,
    fake_master,
    post,
    record,
)
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, THIRD_JID
from fastapi.testclient import TestClient

from gateway.web import create_app
from gateway.web.error_docs import ERROR_CODES_KEY
from session_host.network.simulated import SimulatedNetwork
from session_host.network.simulated.control import control_router


def test_the_new_group_routes_need_the_master_token(client: TestClient) -> None:
    base = f"/_simulator/accounts/{PHONE}/groups/{MISSING_GROUP}"
    calls = [
        ("POST", f"{base}/leave", None),
        ("POST", f"{base}/invite/reset", None),
        ("PUT", f"{base}/ephemeral", {"duration_seconds": 0}),
        ("POST", f"{base}/community/link", {"group_jid": MISSING_GROUP}),
        ("DELETE", f"{base}/community/link", {"group_jid": MISSING_GROUP}),
    ]
    for method, path, body in calls:
        assert client.request(method, path, json=body).status_code == 401, (method, path)


def test_the_document_names_the_group_codes_of_messages_and_the_new_routes(network: SimulatedNetwork) -> None:
    # Given the OpenAPI document of the control API
    paths = create_app(control_router(network, fake_master)).openapi()["paths"]
    base = "/_simulator/accounts/{phone}/groups/{jid}"
    operations = {
        ("POST", "/_simulator/accounts/{phone}/messages"): {
            "403": ["not_group_admin"],
            "404": ["group_not_found"],
        },
        ("POST", f"{base}/leave"): {"404": ["group_not_found"]},
        ("POST", f"{base}/invite/reset"): {"403": ["not_group_admin"]},
        ("PUT", f"{base}/ephemeral"): {"400": ["invalid_duration"], "403": ["not_group_admin"]},
        ("POST", f"{base}/community/link"): {"409": ["already_linked", "not_a_community"]},
        ("DELETE", f"{base}/community/link"): {"409": ["not_linked"]},
    }
    # Then each documents its codes in the lowercase envelope, and messages keep the standard ones
    for (method, path), expected in operations.items():
        responses = paths[path][method.lower()]["responses"]
        for status, codes in expected.items():
            assert set(codes) <= set(responses[status][ERROR_CODES_KEY]), (method, path, status)
            assert "OperationErrorEnvelope" in str(responses[status]["content"]), (method, path, status)
    messages = paths["/_simulator/accounts/{phone}/messages"]["post"]["responses"]
    assert {"ACCOUNT_NOT_FOUND", "RECIPIENT_NOT_FOUND"} <= set(messages["404"][ERROR_CODES_KEY])


def test_a_phone_writes_types_and_reads_in_a_group(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's group with CONTACT and THIRD
    group = create(client, PHONE, [CONTACT, THIRD])

    # When PHONE sends to the group
    sent = post(client, f"/accounts/{PHONE}/messages", {"to": group, "text": "hello group"})

    # Then every other member's inbox has it in the group's chat, the sender's does not
    assert sent.status_code == 200, sent.text
    message_id = sent.json()["message_id"]
    for phone in (CONTACT, THIRD):
        (message,) = client.get(f"/_simulator/accounts/{phone}/inbox", headers=MASTER).json()["messages"]
        assert (message["message_id"], message["from"], message["to"], message["chat"]) == (
            message_id,
            JID,
            group,
            group,
        )
        assert (message["type"], message["text"]) == ("text", "hello group")
    own = client.get(f"/_simulator/accounts/{PHONE}/inbox", headers=MASTER).json()
    assert own["messages"] == []
    assert own["sent"] == [
        {
            "message_id": message_id,
            "to": group,
            "text": "hello group",
            "status": "delivered",
            "timestamp": ANY,
        }
    ]

    # When CONTACT types in the group and reads the message there
    typed = post(client, f"/accounts/{CONTACT}/typing", {"to": group, "state": "composing"})
    read = post(client, f"/accounts/{CONTACT}/read", {"chat": group, "message_ids": [message_id]})

    # Then the others see the typing in the group, and the sender has the message read
    assert typed.status_code == 200, typed.text
    assert read.json() == {"success": True, "message_ids": [message_id]}
    (presence,) = client.get(f"/_simulator/accounts/{THIRD}/inbox", headers=MASTER).json()["presence"]
    assert (presence["from"], presence["chat"], presence["state"]) == (CONTACT_JID, group, "composing")
    assert (
        client.get(f"/_simulator/accounts/{PHONE}/inbox", headers=MASTER).json()["sent"][0]["status"]
        == "read"
    )


def test_a_group_refuses_messages_in_the_lowercase_envelope(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's announce group with CONTACT, and THIRD outside it
    group = create(client, PHONE, [CONTACT], announcement=True)

    # When a plain member, an outsider, or someone to a group that does not exist sends
    # Then the network refuses: only admins send there, only members send to a group
    refused = [
        (CONTACT, group, 403, "not_group_admin"),
        (THIRD, group, 404, "group_not_found"),
        (CONTACT, MISSING_GROUP, 404, "group_not_found"),
    ]
    for phone, to, status, code in refused:
        assert_refused(post(client, f"/accounts/{phone}/messages", {"to": to, "text": "hi"}), status, code)

    # And the admin may; an unknown phone keeps the standard envelope
    assert post(client, f"/accounts/{PHONE}/messages", {"to": group, "text": "news"}).status_code == 200
    unknown = post(client, "/accounts/19990000000/messages", {"to": group, "text": "hi"})
    assert (unknown.status_code, unknown.json()["error_code"]) == (404, "ACCOUNT_NOT_FOUND")


def test_a_phone_leaves_a_group(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's group with CONTACT
    group = create(client, PHONE, [CONTACT])

    # When CONTACT leaves, Then only PHONE is left; leaving again is group_not_found
    left = post(client, f"/accounts/{CONTACT}/groups/{group}/leave", {})
    assert left.json() == {"success": True, "group_jid": group}
    assert [p["jid"] for p in record(client, group)["participants"]] == [JID]
    assert_refused(post(client, f"/accounts/{CONTACT}/groups/{group}/leave", {}), 404, "group_not_found")

    # When the last one leaves, Then the group ends
    post(client, f"/accounts/{PHONE}/groups/{group}/leave", {})
    assert_refused(client.get(f"/_simulator/groups/{group}", headers=MASTER), 404, "group_not_found")


def test_an_admin_resets_the_invite_link(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's group with CONTACT and its link
    group = create(client, PHONE, [CONTACT])
    old = record(client, group)["invite_link"]

    # When a member resets it, Then only admins may
    assert_refused(
        post(client, f"/accounts/{CONTACT}/groups/{group}/invite/reset", {}), 403, "not_group_admin"
    )

    # When the admin does, Then the link is new and the old one revoked
    reset = post(client, f"/accounts/{PHONE}/groups/{group}/invite/reset", {})
    fresh = reset.json()["invite_link"]
    assert reset.json() == {"success": True, "group_jid": group, "invite_link": fresh}
    assert fresh != old
    assert record(client, group)["invite_link"] == fresh
    assert_refused(post(client, f"/accounts/{THIRD}/groups/join", {"link": old}), 410, "invite_link_revoked")


def test_a_phone_sets_the_timer(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's locked group with CONTACT
    group = create(client, PHONE, [CONTACT], locked=True)
    path = f"/_simulator/accounts/{{}}/groups/{group}/ephemeral"

    # When the admin sets 90 days, Then the group has it
    set_ = client.put(path.format(PHONE), json={"duration_seconds": 7776000}, headers=MASTER)
    assert set_.json() == {"success": True, "group_jid": group, "duration_seconds": 7776000}
    assert record(client, group)["ephemeral_duration"] == 7776000

    # And another value, a member of the locked group, or no body are refused
    odd = client.put(path.format(PHONE), json={"duration_seconds": 3600}, headers=MASTER)
    assert_refused(odd, 400, "invalid_duration")
    member = client.put(path.format(CONTACT), json={"duration_seconds": 0}, headers=MASTER)
    assert_refused(member, 403, "not_group_admin")
    assert client.put(path.format(PHONE), json={}, headers=MASTER).json()["error_code"] == "VALIDATION_ERROR"


def test_an_admin_links_and_unlinks_community_groups(client: TestClient, lids: dict[str, str]) -> None:
    # Given PHONE's community and group, and CONTACT's group
    community = create(client, PHONE, [], community=True)
    group = create(client, PHONE, [THIRD])
    theirs = create(client, CONTACT, [PHONE])
    link = f"/_simulator/accounts/{PHONE}/groups/{community}/community/link"

    # When PHONE links its group, Then the community holds it and the group names its parent
    linked = client.post(link, json={"group_jid": group}, headers=MASTER)
    assert linked.json() == {"success": True, "community_jid": community, "group_jid": group}
    assert record(client, community)["linked_groups"] == [group]
    assert record(client, group)["parent_jid"] == community

    # And linking again, a group it does not administer, or into a plain group is refused
    assert_refused(client.post(link, json={"group_jid": group}, headers=MASTER), 409, "already_linked")
    assert_refused(client.post(link, json={"group_jid": theirs}, headers=MASTER), 403, "not_group_admin")
    into_group = f"/_simulator/accounts/{PHONE}/groups/{group}/community/link"
    assert_refused(
        client.post(into_group, json={"group_jid": community}, headers=MASTER), 409, "not_a_community"
    )

    # When PHONE unlinks it, Then it stands alone; unlinking again is not_linked
    unlinked = client.request("DELETE", link, json={"group_jid": group}, headers=MASTER)
    assert unlinked.json() == {"success": True, "community_jid": community, "group_jid": group}
    assert record(client, group)["parent_jid"] is None
    again = client.request("DELETE", link, json={"group_jid": group}, headers=MASTER)
    assert_refused(again, 409, "not_linked")
    assert THIRD_JID in [p["jid"] for p in record(client, group)["participants"]]
