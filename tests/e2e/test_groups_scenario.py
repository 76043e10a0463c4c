"""A community's life over HTTP with three phones of two tenants, each step's webhook events
observed at a receiver: create a community, link two groups, promote, demote, remove, reset
the invite, join by the new link, leave."""

from __future__ import annotations

from typing import Any

import pytest
from group_flows import Phone, connected_device, create_group, lowercase, member
from waiting import wait_until

pytestmark = pytest.mark.e2e


def info_where(events: Any, phone: Phone, **fields: Any) -> dict[str, Any]:
    """The device's first ``group.info`` whose data has ``fields``, waited for."""

    def found() -> dict[str, Any] | None:
        return next(
            (
                envelope
                for envelope in events.of(phone.device_id, "group.info")
                if all(envelope["data"].get(key) == value for key, value in fields.items())
            ),
            None,
        )

    return wait_until(found, what=f"group.info with {fields} at {phone.jid}'s webhook")


def test_a_community_with_two_tenants_members(api: Any, events: Any) -> None:
    # Given three connected phones: Ana and Ben of tenant one, Cleo of tenant two, each
    # device's events delivered to a webhook receiver
    one, two = api.register(), api.register()
    ana = connected_device(api, one.admin_token)
    ben = connected_device(api, one.admin_token)
    cleo = connected_device(api, two.admin_token)
    for phone in (ana, ben, cleo):
        assert phone.token is not None
        assert phone.device_id is not None
        events.subscribe(api, phone.token, phone.device_id)

    # When Ana creates a community and two groups, with Ben in both and Cleo in the first
    community = create_group(api, ana, "Town", [], community=True)
    assert community["is_community"] is True
    square = create_group(api, ana, "Square", [ben.jid, cleo.jid])["jid"]
    market = create_group(api, ana, "Market", [ben.jid])["jid"]
    # Then Ben hears of both groups and Cleo of the one she is in
    joined = {e["data"]["group_jid"] for e in events.wait_for(ben.device_id, "group.joined", 2)}
    assert {square, market} <= joined
    (cleo_joined,) = events.wait_for(cleo.device_id, "group.joined")
    assert (cleo_joined["data"]["group_jid"], cleo_joined["data"]["author"]) == (square, ana.jid)

    # When Ana links both groups into the community
    for group in (square, market):
        assert ana.ok(api, "POST", f"/groups/{community['jid']}/community/link", {"group_jid": group}) == {
            "success": True
        }
    # Then the groups name their community, and Ana (the community's member) is told of each link
    assert ana.ok(api, "GET", f"/groups/{square}")["group"]["parent_jid"] == community["jid"]
    for group in (square, market):
        link = {"group_jid": group, "name": None, "type": "sub", "reason": None}
        told = info_where(events, ana, group_jid=community["jid"], linked_group=link)
        assert told["data"]["author"] == ana.jid

    # When Ana promotes Cleo, then demotes her
    promoted = ana.ok(
        api, "POST", f"/groups/{square}/participants", {"action": "promote", "participants": [cleo.jid]}
    )
    assert promoted["participants"] == [
        {"jid": cleo.jid, "is_admin": True, "is_super_admin": False, "status": "ok"}
    ]
    assert info_where(events, cleo, group_jid=square, promote=[cleo.jid])["data"]["author"] == ana.jid
    assert info_where(events, ben, group_jid=square, promote=[cleo.jid])
    ana.ok(api, "POST", f"/groups/{square}/participants", {"action": "demote", "participants": [cleo.jid]})
    assert info_where(events, cleo, group_jid=square, demote=[cleo.jid])

    # When Ana removes Ben from the square
    removed = ana.ok(api, "DELETE", f"/groups/{square}/participants", {"participants": [ben.jid]})
    assert removed["participants"][0]["status"] == "ok"
    # Then Ben is told he left, and Cleo sees it
    assert info_where(events, ben, group_jid=square, leave=[ben.jid])
    assert info_where(events, cleo, group_jid=square, leave=[ben.jid])
    lowercase(ben.call(api, "GET", f"/groups/{square}"), 404, "group_not_found")

    # When Ana resets the square's invite link
    old = ana.ok(api, "GET", f"/groups/{square}/invite")["invite_link"]
    reset = ana.ok(api, "POST", f"/groups/{square}/invite/reset")
    assert reset["invite_link"] != old
    # Then the members are told of the new link, and the old one is revoked
    assert info_where(events, cleo, group_jid=square, invite_link=reset["invite_link"])
    lowercase(ben.call(api, "POST", "/groups/join", {"link": old}), 410, "invite_link_revoked")

    # When Ben joins again by the new link
    again = ben.ok(api, "POST", "/groups/join", {"link": reset["invite_link"]})
    assert (again["group_jid"], again["pending_approval"]) == (square, False)
    # Then he gets group.joined (by invite) and the others see him join
    rejoined = [
        e for e in events.wait_for(ben.device_id, "group.joined", 3) if e["data"]["group_jid"] == square
    ]
    assert rejoined[-1]["data"]["reason"] == "invite"
    assert info_where(events, cleo, group_jid=square, join=[ben.jid])

    # When Cleo leaves the square
    assert cleo.ok(api, "DELETE", f"/groups/{square}/leave") == {"success": True}
    # Then Ana and Ben see her go, and she can no longer read it
    assert info_where(events, ana, group_jid=square, leave=[cleo.jid])
    assert info_where(events, ben, group_jid=square, leave=[cleo.jid])
    lowercase(cleo.call(api, "GET", f"/groups/{square}"), 404, "group_not_found")
    final = ana.ok(api, "GET", f"/groups/{square}")["group"]
    assert member(final, ben.jid) is not None
    assert member(final, cleo.jid) is None

    # And the tenants never meet: tenant two cannot act through tenant one's device, and
    # Cleo's webhook never heard of the group she is not in
    assert cleo.token is not None
    response = api.request("GET", "/groups", cleo.token, headers={"X-Device-Id": ana.device_id})
    lowercase(response, 404, "device_not_found")
    assert market not in {e["data"].get("group_jid") for e in events.of(cleo.device_id)}
