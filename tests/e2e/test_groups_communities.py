"""Communities end to end: linking groups into a community and out of it, and the refusals."""

from __future__ import annotations

from typing import Any

import pytest
from group_flows import (
    Phone,
    connected_device,
    contact,
    contact_group,
    create_group,
    lowercase,
    network_group,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def me(api: Any) -> Phone:
    return connected_device(api, api.register().admin_token)


def test_a_group_is_linked_into_a_community_and_out_again(api: Any, me: Phone) -> None:
    # Given a community and a group the device administers
    community = create_group(api, me, "Neighbourhood", [], community=True)["jid"]
    group = create_group(api, me, "Street party", [])["jid"]
    path = f"/groups/{community}/community/link"
    # When it links the group
    assert me.ok(api, "POST", path, {"group_jid": group}) == {"success": True}
    # Then the group names its community and the community lists it
    assert me.ok(api, "GET", f"/groups/{group}")["group"]["parent_jid"] == community
    assert group in network_group(api, community)["linked_groups"]
    # And linking it again is 409 already_linked
    lowercase(me.call(api, "POST", path, {"group_jid": group}), 409, "already_linked")
    # When it unlinks it, Then the link is gone, and unlinking again is 409 not_linked
    assert me.ok(api, "DELETE", path, {"group_jid": group}) == {"success": True}
    assert me.ok(api, "GET", f"/groups/{group}")["group"]["parent_jid"] is None
    lowercase(me.call(api, "DELETE", path, {"group_jid": group}), 409, "not_linked")


def test_a_group_created_into_a_community(api: Any, me: Phone) -> None:
    community = create_group(api, me, "Parents", [], community=True)["jid"]
    child = create_group(api, me, "Class 3b", [], parent_jid=community)
    assert child["parent_jid"] == community
    not_community = create_group(api, me, "Plain", [])["jid"]
    response = me.call(
        api, "POST", "/groups", {"name": "x", "participants": [], "options": {"parent_jid": not_community}}
    )
    lowercase(response, 409, "not_a_community")


def test_community_refusals(api: Any, me: Phone) -> None:
    plain = create_group(api, me, "Plain", [])["jid"]
    other = create_group(api, me, "Other", [])["jid"]
    lowercase(
        me.call(api, "POST", f"/groups/{plain}/community/link", {"group_jid": other}), 409, "not_a_community"
    )
    lowercase(
        me.call(api, "POST", f"/groups/{plain}/community/link", {"group_jid": "x"}), 400, "invalid_group_jid"
    )
    lowercase(me.call(api, "POST", f"/groups/{plain}/community/link", {}), 400, "invalid_request")
    # a community someone else administers
    ana = contact(api)
    theirs = contact_group(api, ana, "Theirs", [me.phone], community=True)
    lowercase(
        me.call(api, "POST", f"/groups/{theirs}/community/link", {"group_jid": other}), 403, "not_group_admin"
    )
