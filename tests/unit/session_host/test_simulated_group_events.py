"""Simulated network: ``group.joined`` reaches the devices of every account that gets into a
group, ``group.info`` those of its members when the group changes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, fast_network, paired

THIRD = "15550003333"
THIRD_JID = f"{THIRD}@s.whatsapp.net"


def test_created_with_the_account_among_participants_the_device_gets_the_group(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact on the network
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        network.create_account(THIRD)
        session, recorder = await paired(network, tmp_path)

        # When the contact creates a locked group with the device's account and a third person
        created = network.groups.create(CONTACT, "Trip", [PHONE, THIRD], {"locked": True})

        # Then the device gets group.joined: the group as it is now, the creator as author
        joined = await recorder.wait_for("group.joined")
        assert joined.data == {
            "group_jid": created["jid"],
            "name": "Trip",
            "topic": "",
            "owner": CONTACT_JID,
            "created_at": joined.data["created_at"],
            "locked": True,
            "announce": False,
            "ephemeral_seconds": 0,
            "is_community": False,
            "community_jid": None,
            "participants": [
                {"jid": CONTACT_JID, "is_admin": True, "is_super_admin": True},
                {"jid": JID, "is_admin": False, "is_super_admin": False},
                {"jid": THIRD_JID, "is_admin": False, "is_super_admin": False},
            ],
            "reason": None,
            "author": CONTACT_JID,
        }
        assert joined.data["created_at"].endswith("Z")
        assert len(recorder.named("group.joined")) == 1
        await session.close()

    asyncio.run(scenario())


def test_the_creator_s_own_devices_get_the_group_it_created(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)

        # When its account creates a group (from the phone)
        created = network.groups.create(PHONE, "Mine", [CONTACT])

        # Then the device gets group.joined, its account the super admin
        joined = await recorder.wait_for("group.joined")
        assert joined.data["group_jid"] == created["jid"]
        assert joined.data["author"] == JID
        assert joined.data["participants"][0] == {"jid": JID, "is_admin": True, "is_super_admin": True}
        await session.close()

    asyncio.run(scenario())


def test_added_approved_or_joined_by_link_the_device_gets_the_group(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device and a contact with three groups, one with join approval
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path)
        added = network.groups.create(CONTACT, "Added", [])["jid"]
        approved = network.groups.create(CONTACT, "Approved", [], {"join_approval": True})["jid"]
        open_group = network.groups.create(CONTACT, "Open", [])["jid"]
        assert recorder.named("group.joined") == []

        # When the contact adds the account to the first
        network.groups.change_participants(CONTACT, added, "add", [PHONE])
        by_add = await recorder.wait_for("group.joined")

        # Then the device has it, the adder as author
        assert (by_add.data["group_jid"], by_add.data["author"], by_add.data["reason"]) == (
            added,
            CONTACT_JID,
            None,
        )

        # When the account asks to join the second by link: nothing until an admin approves
        link = network.groups.record(approved)["invite_link"]
        assert network.groups.join(PHONE, link)["pending_approval"] is True
        network.groups.answer_requests(CONTACT, approved, "approve", [PHONE])
        by_approval = await recorder.wait_for("group.joined", 2)
        assert [e.data["group_jid"] for e in recorder.named("group.joined")] == [added, approved]
        assert (by_approval.data["group_jid"], by_approval.data["author"]) == (approved, CONTACT_JID)
        assert {"jid": JID, "is_admin": False, "is_super_admin": False} in by_approval.data["participants"]

        # When it joins the third by link, where no approval is needed
        network.groups.join(PHONE, network.groups.record(open_group)["invite_link"])
        by_link = await recorder.wait_for("group.joined", 3)
        assert (by_link.data["group_jid"], by_link.data["reason"], by_link.data["author"]) == (
            open_group,
            "invite",
            JID,
        )
        await session.close()

    asyncio.run(scenario())


def test_a_rejected_request_or_a_removal_sends_no_group_joined(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device that asked to join a group with approval
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Closed", [], {"join_approval": True})["jid"]
        network.groups.join(PHONE, network.groups.record(group)["invite_link"])

        # When the admin rejects it
        network.groups.answer_requests(CONTACT, group, "reject", [PHONE])

        # Then the device gets no group.joined (a later message still arrives after it)
        network.send_from_account(CONTACT, JID, "sorry")
        await recorder.wait_for("message.received")
        assert recorder.named("group.joined") == []
        await session.close()

    asyncio.run(scenario())


def test_group_joined_waits_for_an_offline_device_like_a_message(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a paired device that disconnected
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        await session.disconnect()
        await recorder.wait_for("device.disconnected")

        # When a contact creates a group with its account
        created = network.groups.create(CONTACT, "While away", [PHONE])
        assert recorder.named("group.joined") == []

        # Then the device gets it when it connects again
        await session.connect()
        joined = await recorder.wait_for("group.joined")
        assert joined.data["group_jid"] == created["jid"]
        await session.close()

    asyncio.run(scenario())


def test_turning_join_approval_off_lets_the_waiting_account_in_with_group_joined(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose account waits for approval in a contact's group
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Closed", [], {"join_approval": True})["jid"]
        network.groups.join(PHONE, network.groups.record(group)["invite_link"])

        # When the admin turns join approval off
        network.groups.update(CONTACT, group, {"join_approval": False})

        # Then the account is in, and its device has group.joined
        joined = await recorder.wait_for("group.joined")
        assert (joined.data["group_jid"], joined.data["author"]) == (group, CONTACT_JID)
        await session.close()

    asyncio.run(scenario())


def test_members_devices_get_group_info_with_only_what_changed(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose account is a member of a contact's group
        network = fast_network()
        network.create_account(CONTACT, "Bob")
        network.create_account(THIRD)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(CONTACT, "Trip", [PHONE])["jid"]
        await recorder.wait_for("group.joined")
        assert recorder.named("group.info") == []

        # When the contact renames it and locks it
        network.groups.update(CONTACT, group, {"name": "Trip 2025", "locked": True})

        # Then the device gets group.info with those two fields only
        renamed = await recorder.wait_for("group.info")
        assert renamed.data == {
            "group_jid": group,
            "author": CONTACT_JID,
            "author_name": "Bob",
            "timestamp": renamed.data["timestamp"],
            "name": "Trip 2025",
            "topic": None,
            "locked": True,
            "announce": None,
            "ephemeral_seconds": None,
            "deleted": False,
            "invite_link": None,
            "join": [],
            "leave": [],
            "promote": [],
            "demote": [],
            "join_reason": None,
            "linked_group": None,
            "unlinked_group": None,
            "join_approval": None,
            "member_add_mode": None,
            "picture": None,
        }
        assert renamed.data["timestamp"].endswith("Z")

        # When the contact adds a third person, promotes the account, then removes it
        network.groups.change_participants(CONTACT, group, "add", [THIRD])
        network.groups.change_participants(CONTACT, group, "promote", [PHONE])
        network.groups.change_participants(CONTACT, group, "remove", [PHONE])

        # Then the device is told each, the last one though it is no longer a member
        added, promoted, removed = [(await recorder.wait_for("group.info", n)).data for n in (2, 3, 4)]
        assert (added["join"], added["name"]) == ([THIRD_JID], None)
        assert promoted["promote"] == [JID]
        assert removed["leave"] == [JID]

        # And once it is out, the group's changes no longer reach it
        network.groups.update(CONTACT, group, {"name": "After"})
        network.send_from_account(CONTACT, JID, "bye")
        await recorder.wait_for("message.received")
        assert len(recorder.named("group.info")) == 4
        await session.close()

    asyncio.run(scenario())


def test_a_member_joining_by_link_is_told_to_the_others_with_its_reason(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a connected device whose account created a group
        network = fast_network()
        network.create_account(CONTACT)
        session, recorder = await paired(network, tmp_path)
        group = network.groups.create(PHONE, "Mine", [])["jid"]

        # When a contact joins by its invite link
        network.groups.join(CONTACT, network.groups.record(group)["invite_link"])

        # Then the creator's device gets group.info: who joined, and how
        info = await recorder.wait_for("group.info")
        assert (info.data["join"], info.data["join_reason"], info.data["author"]) == (
            [CONTACT_JID],
            "invite",
            CONTACT_JID,
        )
        await session.close()

    asyncio.run(scenario())
