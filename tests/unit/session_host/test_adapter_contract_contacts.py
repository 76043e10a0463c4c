"""One contract, two adapters: number checks, one contact with both identities, blocking
(``adapter_backends``).

Both answer the same: a number has an account or not (with its JID and LID), a contact is
found by phone JID or LID with the other identity resolved, an unknown one is ``NOT_FOUND``,
and blocking is kept and read back. On neonize the identities come from whatsmeow's store,
which learns them from a user-info query (the scripted network does the same).

Adapter-specific: that a blocked account's messages never reach the device is the network's
rule, checked on the simulated network only (the real network applies it out of the
adapter's sight).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adapter_backends import DEVICE_JID, Backend
from test_adapter_contract_groups import ADAPTERS, BOB, CAI, GHOST, GHOST_JID, UNKNOWN_GROUP, on
from test_adapter_contract_status import fails

from gateway.failures.kinds import ErrorKind
from session_host.network.contact_types import ContactInfo, NumberCheck

UNKNOWN_LID = "999999999999999@lid"


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_check_answers_each_number_once_in_order(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given Bob and Cai on the network, and a number nobody has
        bob, bob_lid = net.person(BOB)
        cai, cai_lid = net.person(CAI)
        # When the device checks them, Bob twice
        checks = await net.session.contacts.check_numbers([GHOST, BOB, CAI, BOB])
        # Then one answer per number, in order, with the JID to write to and the LID
        assert checks == [
            NumberCheck(phone=GHOST, on_network=False),
            NumberCheck(phone=BOB, on_network=True, jid=bob, lid=bob_lid),
            NumberCheck(phone=CAI, on_network=True, jid=cai, lid=cai_lid),
        ]

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_contact_is_found_by_phone_jid_or_lid_with_both_identities(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given Bob, who set his name and About text
        bob, bob_lid = net.person(BOB)
        net.set_profile(bob, "Bob", "At the gym")
        expected = ContactInfo(
            jid=bob, lid=bob_lid, name="Bob", about="At the gym", picture_url=None, is_business=False
        )
        # When the device looks him up by his phone JID, Then both identities and his profile
        assert await net.session.contacts.get_contact(bob) == expected
        # And by his LID, the same
        assert await net.session.contacts.get_contact(bob_lid) == expected

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_lid_seen_first_resolves_to_the_phone_jid(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given Cai, known to the device only by the LID a group showed
        cai, cai_lid = net.person(CAI)
        # When it looks the LID up, Then the phone JID comes with it; no profile set: nulls
        assert await net.session.contacts.get_contact(cai_lid) == ContactInfo(jid=cai, lid=cai_lid)

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_nobody_is_not_found_and_no_person_is_invalid(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # When the device looks up a number or LID without an account, Then NOT_FOUND
        await fails(ErrorKind.NOT_FOUND, net.session.contacts.get_contact(GHOST_JID))
        await fails(ErrorKind.NOT_FOUND, net.session.contacts.get_contact(UNKNOWN_LID))
        await fails(ErrorKind.NOT_FOUND, net.session.contacts.block(GHOST_JID))
        # And what names no person (a group, a broken JID, bad numbers) is INVALID on both
        await fails(ErrorKind.INVALID, net.session.contacts.get_contact(UNKNOWN_GROUP))
        await fails(ErrorKind.INVALID, net.session.contacts.block("bob@example.org"))
        await fails(ErrorKind.INVALID, net.session.contacts.check_numbers([]))
        await fails(ErrorKind.INVALID, net.session.contacts.check_numbers(["+15550000002"]))
        await fails(
            ErrorKind.INVALID, net.session.contacts.check_numbers([str(15550000100 + n) for n in range(51)])
        )
        # And the device's own account cannot be blocked
        await fails(ErrorKind.INVALID, net.session.contacts.block(DEVICE_JID))

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_blocking_is_kept_and_read_back(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given Bob and Cai
        bob, _ = net.person(BOB)
        cai, cai_lid = net.person(CAI)
        assert await net.session.contacts.get_blocklist() == []
        # When the device blocks Bob (twice) and Cai by his LID
        await net.session.contacts.block(bob)
        await net.session.contacts.block(bob)
        await net.session.contacts.block(cai_lid)
        # Then both are blocked, each once, by phone JID
        assert sorted(await net.session.contacts.get_blocklist()) == sorted([bob, cai])
        # When it unblocks Bob (twice), Then only Cai stays
        await net.session.contacts.unblock(bob)
        await net.session.contacts.unblock(bob)
        assert await net.session.contacts.get_blocklist() == [cai]

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_session_not_connected_sends_nothing(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        await net.session.disconnect()
        for call in (
            net.session.contacts.check_numbers([BOB]),
            net.session.contacts.get_contact(bob),
            net.session.contacts.block(bob),
            net.session.contacts.unblock(bob),
            net.session.contacts.get_blocklist(),
        ):
            await fails(ErrorKind.NOT_CONNECTED, call)

    on(adapter, tmp_path, scenario)


def test_simulated_a_blocked_account_reaches_the_device_no_more(tmp_path: Path) -> None:
    async def scenario(net: Any) -> None:
        # Given Bob, blocked by the device's account
        bob, _ = net.person(BOB)
        net.network.send_from_account(BOB, DEVICE_JID, "before")
        await net.next_event("message.received", 1)
        await net.session.contacts.block(bob)
        blocked = await net.next_event("privacy.blocklist", 1)
        assert dict(blocked.data) == {"changes": [{"jid": bob, "action": "block"}], "refresh_needed": False}
        # When Bob writes, types, shows himself online and calls
        net.network.send_from_account(BOB, DEVICE_JID, "while blocked")
        net.network.type_to(BOB, DEVICE_JID, "composing")
        net.network.show_presence(BOB, DEVICE_JID, True)
        net.network.call(BOB, DEVICE_JID)
        # And then the device unblocks him and he writes again
        await net.session.contacts.unblock(bob)
        await net.next_event("privacy.blocklist", 2)
        net.network.send_from_account(BOB, DEVICE_JID, "after")
        await net.next_event("message.received", 2)
        # Then only what he sent while not blocked reached the device, and his blocked message
        # stayed "sent" for him (no delivery)
        texts = [event.data["content"] for event in net.events("message.received")]
        assert texts == ["before", "after"]
        for name in ("chat.presence", "contact.presence", "call.offer"):
            assert net.events(name) == [], name
        sent = {entry["text"]: entry["status"] for entry in net.network.inbox(BOB)["sent"]}
        assert sent["while blocked"] == "sent"
        assert "while blocked" not in [
            m["text"] for m in net.network.inbox(DEVICE_JID.partition("@")[0])["messages"]
        ]

    on("simulated", tmp_path, scenario)
