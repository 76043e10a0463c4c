"""The simulated network's groups and communities: the network's own rules, for every account.

Joining, join requests and leaving are in test_simulated_group_access.py."""

from __future__ import annotations

import pytest
from fakes_groups import ANA, BOB, CAI, DEE, DEE_LID, GHOST, Clock, refused

from session_host.network.simulated.group_records import Role
from session_host.network.simulated.groups import Groups

# --- create and read -----------------------------------------------------------------------


def test_create_makes_the_creator_super_admin_and_answers_per_person(groups: Groups, clock: Clock) -> None:
    # Given Ana, and people by phone, JID, LID, one not on the network and Ana herself
    # When she creates a group with them
    group, change = groups.create(ANA, "Trip", ["15550000002", BOB, DEE_LID, GHOST, ANA], locked=True)

    # Then the group has a generated group JID, Ana as owner and super admin, the others members
    assert group.jid == "1@g.us"
    assert group.owner == ANA
    assert group.created_at == clock.now
    assert group.participants == {ANA: Role.SUPER_ADMIN, BOB: Role.MEMBER, DEE: Role.MEMBER}
    assert group.is_locked is True
    assert (group.is_announce, group.join_approval, group.is_community) == (False, False, False)
    assert group.member_add_mode == "admin"
    assert group.ephemeral_duration == 0
    assert group.invite_link == "https://chat.whatsapp.com/inv1"
    # And each person asked gets a status; the change names who joined
    assert [r.to_json() for r in change.results] == [
        {"jid": BOB, "is_admin": False, "is_super_admin": False, "status": "ok"},
        {"jid": DEE, "is_admin": False, "is_super_admin": False, "status": "ok"},
        {"jid": GHOST, "is_admin": False, "is_super_admin": False, "status": "not_found"},
        {"jid": ANA, "is_admin": True, "is_super_admin": True, "status": "already_member"},
    ]
    assert (change.kind, change.author, change.join) == ("create", ANA, [ANA, BOB, DEE])


@pytest.mark.parametrize("name", ["", "x" * 101])
def test_create_refuses_a_name_outside_1_to_100_characters(groups: Groups, name: str) -> None:
    # Given / When a group is created with a bad name / Then it is refused
    refused("invalid_request", lambda: groups.create(ANA, name, []))


def test_create_refuses_a_participant_that_is_not_a_person_and_creates_nothing(groups: Groups) -> None:
    # Given a participant list with a group JID in it
    # When Ana creates a group / Then it is refused and no group exists
    refused("invalid_participant", lambda: groups.create(ANA, "G", [BOB, "1@g.us"]))
    assert groups.groups_of(ANA) == []


def test_get_refuses_a_malformed_jid_and_an_unknown_group(groups: Groups) -> None:
    # Given no groups / When reading a malformed and an unknown JID / Then each is refused
    refused("invalid_group_jid", lambda: groups.get("nope"))
    refused("group_not_found", lambda: groups.get("999@g.us"))


def test_a_group_is_visible_to_participants_only(groups: Groups) -> None:
    # Given a group of Ana and Bob, and Ana's second group
    group, _ = groups.create(ANA, "G", [BOB])
    other, _ = groups.create(ANA, "H", [])

    # When each reads it / Then Bob sees it, Cai is told it does not exist
    assert groups.get_for(group.jid, BOB) is group
    refused("group_not_found", lambda: groups.get_for(group.jid, CAI))
    # And each account's groups are the ones it is in
    assert groups.groups_of(ANA) == [group, other]
    assert groups.groups_of(BOB) == [group]


def test_the_record_round_trips_through_json(groups: Groups) -> None:
    # Given a group with roles
    group, _ = groups.create(ANA, "G", [BOB])
    groups.change_participants(group.jid, ANA, "promote", [BOB])

    # When the registry is saved and loaded into another
    again = Groups()
    again.load_json(groups.to_json())

    # Then the record is the same, with the spec's fields in its JSON
    assert again.get(group.jid) == group
    data = group.to_json()
    assert data["description"] == data["topic"] == ""
    assert data["members_count"] == 2
    assert data["participants"][1] == {"jid": BOB, "is_admin": True, "is_super_admin": False}


# --- participants --------------------------------------------------------------------------


def test_an_admin_adds_people_each_with_a_status(groups: Groups) -> None:
    # Given Ana's group with Bob
    group, _ = groups.create(ANA, "G", [BOB])

    # When Ana adds Bob, Cai, Dee by LID and someone not on the network
    change = groups.change_participants(group.jid, ANA, "add", [BOB, CAI, DEE_LID, GHOST])

    # Then only the new people are added, each answered
    assert [(r.jid, r.status) for r in change.results] == [
        (BOB, "already_member"),
        (CAI, "ok"),
        (DEE, "ok"),
        (GHOST, "not_found"),
    ]
    assert change.join == [CAI, DEE]
    assert list(group.participants) == [ANA, BOB, CAI, DEE]


def test_a_member_may_add_only_when_member_add_mode_is_all(groups: Groups) -> None:
    # Given Ana's group where Bob is a member
    group, _ = groups.create(ANA, "G", [BOB])

    # When Bob adds Cai / Then the network refuses: only admins add
    refused("not_group_admin", lambda: groups.change_participants(group.jid, BOB, "add", [CAI]))

    # When members may add / Then Bob's add goes through, but he still may not remove
    group.member_add_mode = "all"
    assert groups.change_participants(group.jid, BOB, "add", [CAI]).join == [CAI]
    refused("not_group_admin", lambda: groups.change_participants(group.jid, BOB, "remove", [CAI]))


def test_only_participants_change_members_and_only_with_known_actions(groups: Groups) -> None:
    # Given Ana's group
    group, _ = groups.create(ANA, "G", [BOB])

    # When an outsider or an unknown action is tried / Then each is refused
    refused("group_not_found", lambda: groups.change_participants(group.jid, CAI, "add", [DEE]))
    refused("invalid_request", lambda: groups.change_participants(group.jid, ANA, "kick", [BOB]))
    refused("invalid_participant", lambda: groups.change_participants(group.jid, ANA, "add", ["+1555"]))


def test_promote_demote_and_remove(groups: Groups) -> None:
    # Given Ana's group with Bob and Cai
    group, _ = groups.create(ANA, "G", [BOB, CAI])

    # When Ana promotes Bob twice and Dee, who is not in the group
    change = groups.change_participants(group.jid, ANA, "promote", [BOB, DEE])
    again = groups.change_participants(group.jid, ANA, "promote", [BOB])

    # Then Bob is an admin once; Dee is not a member
    assert [(r.jid, r.status, r.role) for r in change.results] == [
        (BOB, "ok", Role.ADMIN),
        (DEE, "not_member", None),
    ]
    assert change.promote == [BOB]
    assert again.results[0].status == "ok"
    assert again.promote == []

    # When Ana demotes Bob, promotes him again, and Bob removes Cai
    assert groups.change_participants(group.jid, ANA, "demote", [BOB]).demote == [BOB]
    groups.change_participants(group.jid, ANA, "promote", [BOB])
    removal = groups.change_participants(group.jid, BOB, "remove", [CAI])

    # Then Cai is gone
    assert removal.leave == [CAI]
    assert removal.results[0].to_json()["status"] == "ok"
    assert CAI not in group.participants


def test_nobody_removes_or_demotes_the_super_admin_nor_itself(groups: Groups) -> None:
    # Given Ana's group where Bob is an admin
    group, _ = groups.create(ANA, "G", [BOB])
    groups.change_participants(group.jid, ANA, "promote", [BOB])

    # When Bob removes or demotes Ana, and removes or demotes himself
    results = [
        groups.change_participants(group.jid, BOB, "remove", [ANA]).results[0],
        groups.change_participants(group.jid, BOB, "demote", [ANA]).results[0],
        groups.change_participants(group.jid, BOB, "remove", [BOB]).results[0],
        groups.change_participants(group.jid, BOB, "demote", [BOB]).results[0],
    ]

    # Then each is not allowed and nothing changed
    assert [r.status for r in results] == ["not_allowed"] * 4
    assert group.participants == {ANA: Role.SUPER_ADMIN, BOB: Role.ADMIN}


# --- settings, picture, timer ----------------------------------------------------------------


def test_an_admin_changes_settings_and_the_change_names_only_what_changed(groups: Groups) -> None:
    # Given Ana's group
    group, _ = groups.create(ANA, "G", [BOB])

    # When Ana renames it, keeps its topic empty, and turns announce, lock and add mode on
    change = groups.update(
        group.jid, ANA, name="Trip", description="", announce=True, locked=True, member_add_mode="all"
    )

    # Then the record changed and the answer lists only the changed fields
    assert change.fields == {"name": "Trip", "announce": True, "locked": True, "member_add_mode": "all"}
    assert (group.name, group.is_announce, group.is_locked, group.member_add_mode) == (
        "Trip",
        True,
        True,
        "all",
    )
    assert (change.kind, change.author) == ("settings", ANA)


def test_update_refuses_bad_bodies_and_changes_nothing(groups: Groups) -> None:
    # Given Ana's group
    group, _ = groups.create(ANA, "G", [])

    # When the body is empty, has two different descriptions, a bad name, mode or topic
    # Then each is refused, and the group is unchanged
    refused("invalid_request", lambda: groups.update(group.jid, ANA))
    refused("invalid_request", lambda: groups.update(group.jid, ANA, topic="a", description="b"))
    refused("invalid_request", lambda: groups.update(group.jid, ANA, name="", locked=True))
    refused("invalid_request", lambda: groups.update(group.jid, ANA, member_add_mode="everyone"))
    refused("invalid_request", lambda: groups.update(group.jid, ANA, topic="x" * 2049))
    assert (group.name, group.is_locked, group.member_add_mode) == ("G", False, "admin")
    # And both names of the description are accepted when equal
    assert groups.update(group.jid, ANA, topic="t", description="t").fields == {"topic": "t"}


def test_members_edit_info_of_an_unlocked_group_but_never_its_settings(groups: Groups) -> None:
    # Given Ana's unlocked group where Bob is a member
    group, _ = groups.create(ANA, "G", [BOB])

    # When Bob changes the name, the picture and the timer / Then the network takes them
    assert groups.update(group.jid, BOB, name="Bob's").fields == {"name": "Bob's"}
    assert groups.set_picture(group.jid, BOB, b"\xff\xd8\xff\xe0jpeg").fields == {"picture_id": "pic1"}
    assert groups.set_ephemeral(group.jid, BOB, 86400).fields == {"ephemeral_seconds": 86400}

    # When Bob changes any setting / Then only admins may
    for setting in (
        {"announce": True},
        {"locked": True},
        {"join_approval": True},
        {"member_add_mode": "all"},
    ):
        refused("not_group_admin", lambda setting=setting: groups.update(group.jid, BOB, **setting))


def test_a_locked_group_lets_only_admins_edit_its_info(groups: Groups) -> None:
    # Given Ana's locked group where Bob is a member
    group, _ = groups.create(ANA, "G", [BOB], locked=True)

    # When Bob edits its name, topic, picture or timer / Then each is refused
    refused("not_group_admin", lambda: groups.update(group.jid, BOB, name="Mine"))
    refused("not_group_admin", lambda: groups.update(group.jid, BOB, topic="Mine"))
    refused("not_group_admin", lambda: groups.set_picture(group.jid, BOB, b"\xff\xd8\xff"))
    refused("not_group_admin", lambda: groups.set_ephemeral(group.jid, BOB, 0))
    # And Ana, an admin, may
    assert groups.update(group.jid, ANA, topic="Plans").fields == {"topic": "Plans"}
    assert group.description == "Plans"


@pytest.mark.parametrize("seconds", [0, 86400, 604800, 7776000])
def test_the_timer_takes_the_four_values(groups: Groups, seconds: int) -> None:
    # Given Ana's group / When she sets the timer / Then it is applied
    group, _ = groups.create(ANA, "G", [])
    groups.set_ephemeral(group.jid, ANA, seconds)
    assert group.ephemeral_duration == seconds


@pytest.mark.parametrize("seconds", [1, 3600, -86400, 2592000, True])
def test_the_timer_refuses_other_values(groups: Groups, seconds: int) -> None:
    # Given Ana's group / When she sets any other timer / Then it is refused
    group, _ = groups.create(ANA, "G", [])
    refused("invalid_duration", lambda: groups.set_ephemeral(group.jid, ANA, seconds))
    assert group.ephemeral_duration == 0


def test_a_picture_must_be_a_jpeg(groups: Groups) -> None:
    # Given Ana's group / When she sets a PNG / Then it is refused and no picture is set
    group, _ = groups.create(ANA, "G", [])
    refused("invalid_image", lambda: groups.set_picture(group.jid, ANA, b"\x89PNG\r\n\x1a\n"))
    assert group.picture_id is None


def test_an_announce_group_takes_messages_from_admins_only(groups: Groups) -> None:
    # Given Ana's group with Bob
    group, _ = groups.create(ANA, "G", [BOB])

    # Then everyone in it may send, nobody else, and no one to a group that does not exist
    assert groups.may_send(group.jid, BOB) is True
    assert groups.may_send(group.jid, CAI) is False
    assert groups.may_send("999@g.us", ANA) is False

    # When it becomes an announce group / Then only admins may send
    groups.update(group.jid, ANA, announce=True)
    assert groups.may_send(group.jid, ANA) is True
    assert groups.may_send(group.jid, BOB) is False


# --- invite links ----------------------------------------------------------------------------


def test_only_admins_see_and_reset_the_invite_link(groups: Groups, clock: Clock) -> None:
    # Given Ana's group with Bob
    group, _ = groups.create(ANA, "G", [BOB])

    # When Bob asks for the link or resets it / Then only admins may
    refused("not_group_admin", lambda: groups.invite_link(group.jid, BOB))
    refused("not_group_admin", lambda: groups.reset_invite(group.jid, BOB))

    # When Ana reads then resets it
    before = groups.invite_link(group.jid, ANA)
    clock.now += 60
    change = groups.reset_invite(group.jid, ANA)

    # Then there is a new link, reset now
    assert before == "https://chat.whatsapp.com/inv1"
    assert change.fields == {"invite_link": "https://chat.whatsapp.com/inv2"}
    assert change.at == clock.now
    assert groups.invite_link(group.jid, ANA) == "https://chat.whatsapp.com/inv2"


# --- communities -----------------------------------------------------------------------------


def test_a_group_is_created_in_a_community_its_creator_administers(groups: Groups) -> None:
    # Given Ana's community with Bob as a member
    community, _ = groups.create(ANA, "Club", [BOB], community=True)

    # When Ana creates a group in it
    child, change = groups.create(ANA, "Club news", [], parent_jid=community.jid)

    # Then the group is linked to the community
    assert community.is_community is True
    assert (child.parent_jid, community.linked_groups, change.linked) == (
        community.jid,
        [child.jid],
        [community.jid],
    )

    # When Bob, a member only, or anyone with a plain group as parent, or a community in a community
    # Then each is refused
    plain, _ = groups.create(ANA, "Plain", [BOB])
    refused("not_group_admin", lambda: groups.create(BOB, "Mine", [], parent_jid=community.jid))
    refused("not_a_community", lambda: groups.create(ANA, "X", [], parent_jid=plain.jid))
    refused("group_not_found", lambda: groups.create(CAI, "X", [], parent_jid=community.jid))
    refused("invalid_request", lambda: groups.create(ANA, "X", [], community=True, parent_jid=community.jid))


def test_link_and_unlink_a_group_one_community_at_a_time(groups: Groups) -> None:
    # Given Ana's two communities and her group
    club, _ = groups.create(ANA, "Club", [], community=True)
    other, _ = groups.create(ANA, "Other", [], community=True)
    group, _ = groups.create(ANA, "G", [])

    # When she links the group into the club
    change = groups.link(club.jid, group.jid, ANA)

    # Then it is the club's child, and cannot be linked again anywhere
    assert (change.kind, change.group_jid, change.linked) == ("link", club.jid, [group.jid])
    assert (group.parent_jid, club.linked_groups) == (club.jid, [group.jid])
    refused("already_linked", lambda: groups.link(other.jid, group.jid, ANA))
    refused("already_linked", lambda: groups.link(club.jid, group.jid, ANA))

    # When she unlinks it / Then it is free, and unlinking again is refused
    assert groups.unlink(club.jid, group.jid, ANA).unlinked == [group.jid]
    assert (group.parent_jid, club.linked_groups) == (None, [])
    refused("not_linked", lambda: groups.unlink(club.jid, group.jid, ANA))


def test_links_need_a_community_and_an_admin_of_both(groups: Groups) -> None:
    # Given Ana's community and group with Bob in both, and Bob's own group
    club, _ = groups.create(ANA, "Club", [BOB], community=True)
    group, _ = groups.create(ANA, "G", [BOB])
    bobs, _ = groups.create(BOB, "Bob's", [])

    # When the parent is a plain group / Then 409-style not_a_community
    refused("not_a_community", lambda: groups.link(group.jid, bobs.jid, BOB))
    refused("not_a_community", lambda: groups.unlink(group.jid, bobs.jid, ANA))
    # When Bob, a member of the community only, links his group / Then he is no admin of it
    refused("not_group_admin", lambda: groups.link(club.jid, bobs.jid, BOB))
    # When Ana links a group she is not in, or a community / Then each is refused
    refused("group_not_found", lambda: groups.link(club.jid, bobs.jid, ANA))
    refused("invalid_request", lambda: groups.link(club.jid, club.jid, ANA))
    # When Bob is made admin of the community but is a member of Ana's group / Then still refused
    groups.change_participants(club.jid, ANA, "promote", [BOB])
    refused("not_group_admin", lambda: groups.link(club.jid, group.jid, BOB))
    assert groups.link(club.jid, bobs.jid, BOB).linked == [bobs.jid]
