"""The simulated network's groups: joining by link, join requests, leaving, and the model's
identifiers and errors."""

from __future__ import annotations

import pytest
from fakes_groups import ANA, BOB, CAI, DEE, DEE_LID, Clock, refused

from gateway import jids
from session_host.network.simulated.group_access import code_of_link
from session_host.network.simulated.group_records import GroupError, Role
from session_host.network.simulated.groups import Groups

# --- joining, requests, leaving --------------------------------------------------------------


def test_joining_by_link_without_approval_makes_a_member(groups: Groups) -> None:
    # Given Ana's group and its link
    group, _ = groups.create(ANA, "G", [])
    code = code_of_link(groups.invite_link(group.jid, ANA))

    # When Bob joins by the code
    change = groups.join(BOB, code)

    # Then he is a member, joined by invite, and joining again is refused
    assert (change.kind, change.group_jid, change.join, change.requested) == ("join", group.jid, [BOB], [])
    assert change.join_reason == "invite"
    assert group.participants[BOB] is Role.MEMBER
    refused("already_member", lambda: groups.join(BOB, code))


def test_joining_refuses_unknown_revoked_and_mismatched_codes(groups: Groups) -> None:
    # Given Ana's group whose link was reset, and her other group
    group, _ = groups.create(ANA, "G", [])
    other, _ = groups.create(ANA, "H", [])
    old = group.invite_code
    groups.reset_invite(group.jid, ANA)

    # When Bob joins with the old code, an unknown code, or the code form naming another group
    # Then each is refused, and Bob is in no group
    refused("invite_link_revoked", lambda: groups.join(BOB, old))
    refused("group_not_found", lambda: groups.join(BOB, "nope"))
    refused("group_not_found", lambda: groups.join(BOB, group.invite_code, group_jid=other.jid))
    assert groups.groups_of(BOB) == []
    # And the code form naming the right group works
    assert groups.join(BOB, group.invite_code, group_jid=group.jid).join == [BOB]


@pytest.mark.parametrize(
    "link",
    ["https://example.com/abc", "chat.whatsapp.com", "https://chat.whatsapp.com/", "x/chat.whatsapp.com/a/b"],
)
def test_a_link_without_the_invite_host_and_a_code_is_refused(link: str) -> None:
    # Given / When a link without the invite host and a code is read / Then it is refused
    refused("invalid_invite_link", lambda: code_of_link(link))


def test_join_approval_keeps_joiners_pending_until_an_admin_answers(groups: Groups, clock: Clock) -> None:
    # Given Ana's group with join approval and Bob as a member
    group, _ = groups.create(ANA, "G", [BOB], join_approval=True)
    asked_at = clock.now + 5
    clock.now = asked_at

    # When Cai and Dee join by link, and Cai asks again later
    change = groups.join(CAI, group.invite_code)
    groups.join(DEE, group.invite_code)
    clock.now += 5
    groups.join(CAI, group.invite_code)

    # Then both wait, Cai's first request kept, and nobody joined
    assert (change.requested, change.join) == ([CAI], [])
    assert groups.requests(group.jid, ANA) == [
        {"jid": CAI, "requested_at": asked_at},
        {"jid": DEE, "requested_at": asked_at},
    ]
    assert CAI not in group.participants

    # When Bob, a member, looks at or answers the requests / Then only admins may
    refused("not_group_admin", lambda: groups.requests(group.jid, BOB))
    refused("not_group_admin", lambda: groups.answer_requests(group.jid, BOB, "approve", [CAI]))

    # When Ana approves Cai and Bob (who asked nothing), and rejects Dee by his LID
    approved = groups.answer_requests(group.jid, ANA, "approve", [CAI, BOB])
    rejected = groups.answer_requests(group.jid, ANA, "reject", [DEE_LID])

    # Then Cai is a member, Bob had no request, Dee is out, and no request is left
    assert [(r.jid, r.status) for r in approved.results] == [(CAI, "ok"), (BOB, "not_found")]
    assert approved.join == [CAI]
    assert [(r.jid, r.status) for r in rejected.results] == [(DEE, "ok")]
    assert rejected.join == []
    assert list(group.participants) == [ANA, BOB, CAI]
    assert groups.requests(group.jid, ANA) == []
    refused("invalid_request", lambda: groups.answer_requests(group.jid, ANA, "maybe", [CAI]))


def test_adding_or_turning_approval_off_lets_waiting_people_in(groups: Groups) -> None:
    # Given Ana's group with join approval, Cai and Dee waiting
    group, _ = groups.create(ANA, "G", [], join_approval=True)
    groups.join(CAI, group.invite_code)
    groups.join(DEE, group.invite_code)

    # When Ana adds Cai / Then he is in and no longer waits
    assert groups.change_participants(group.jid, ANA, "add", [CAI]).join == [CAI]
    # When Ana turns approval off / Then Dee is let in
    change = groups.update(group.jid, ANA, join_approval=False)
    assert (change.fields, change.join) == ({"join_approval": False}, [DEE])
    assert group.pending == []
    assert list(group.participants) == [ANA, CAI, DEE]


def test_the_last_super_admin_leaving_hands_over_to_the_oldest_admin_then_member(groups: Groups) -> None:
    # Given Ana's group of Bob, Cai and Dee, where Cai is an admin
    group, _ = groups.create(ANA, "G", [BOB, CAI, DEE])
    groups.change_participants(group.jid, ANA, "promote", [CAI])

    # When Ana, the super admin, leaves / Then Cai, the admin, becomes super admin
    change = groups.leave(group.jid, ANA)
    assert (change.leave, change.promote, change.fields) == ([ANA], [CAI], {})
    assert group.participants[CAI] is Role.SUPER_ADMIN
    assert group.owner == ANA

    # When Cai leaves / Then the oldest member, Bob, becomes super admin
    assert groups.leave(group.jid, CAI).promote == [BOB]
    # When Dee, a member, leaves / Then nobody is promoted; a non-member cannot leave
    assert groups.leave(group.jid, DEE).promote == []
    refused("group_not_found", lambda: groups.leave(group.jid, DEE))
    assert group.participants == {BOB: Role.SUPER_ADMIN}


def test_the_last_person_leaving_ends_the_group_and_its_links(groups: Groups) -> None:
    # Given Ana's community with her group linked to it, and a second group of hers in it
    club, _ = groups.create(ANA, "Club", [], community=True)
    group, _ = groups.create(ANA, "G", [], parent_jid=club.jid)
    kept, _ = groups.create(ANA, "K", [], parent_jid=club.jid)
    code = group.invite_code

    # When Ana, the only person, leaves the group
    change = groups.leave(group.jid, ANA)

    # Then the group ends: gone, its link dead, unlinked from the community
    assert change.fields == {"deleted": True}
    assert change.unlinked == [club.jid]
    refused("group_not_found", lambda: groups.get(group.jid))
    refused("group_not_found", lambda: groups.join(BOB, code))
    assert club.linked_groups == [kept.jid]

    # When she leaves the community / Then its remaining group is unlinked
    assert groups.leave(club.jid, ANA).unlinked == [kept.jid]
    assert kept.parent_jid is None


# --- identifiers and errors ------------------------------------------------------------------


def test_default_identifiers_have_the_network_shapes() -> None:
    # Given a registry with the default clock and identifiers
    groups = Groups()

    # When a group is created and given a picture
    group, _ = groups.create(ANA, "G", [])
    groups.set_picture(group.jid, ANA, b"\xff\xd8\xff")

    # Then its JID is a group JID, its code 22 letters or digits, its picture id digits
    assert jids.is_group_jid(group.jid)
    assert len(group.invite_code) == 22
    assert group.invite_code.isascii()
    assert group.invite_code.isalnum()
    assert group.picture_id is not None
    assert group.picture_id.isdigit()


def test_errors_carry_their_status_and_refuse_unknown_codes() -> None:
    # Given / When errors are made / Then each code has its decided status, unknown codes none
    assert GroupError("not_group_admin", "x").status == 403
    assert GroupError("invite_link_revoked", "x").status == 410
    assert GroupError("not_a_community", "x").status == 409
    with pytest.raises(ValueError, match="unknown group error code"):
        GroupError("NOT_GROUP_ADMIN", "x")
