"""Simulated network: polls and replies in a group. A member's vote reaches every other
member's devices (the poll's author included) and every copy of the poll shows it; a reply
in the group quotes its message with the author the group knows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes_simulated import CONTACT, CONTACT_JID, JID, PHONE, THIRD, fast_network, paired

from session_host.network.group_types import GroupOptions
from session_host.network.reply_types import Poll, Quote
from session_host.network.simulated.model import ControlError


def test_a_vote_in_a_group_reaches_the_other_members_and_every_copy_shows_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        # Given a device's group with a second device and a contact, and a poll of one answer in it
        network = fast_network()
        network.create_account(PHONE, "Ana")
        network.create_account(CONTACT, "Bob")
        session, recorder = await paired(network, tmp_path, "dev-a", PHONE)
        _, other_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = (await session.groups.create_group("Trip", [CONTACT, THIRD], GroupOptions())).group.jid
        poll = await session.sending.send_poll(group, Poll("Where?", ("Beach", "Hills")))

        # When the contact votes in the group
        chosen = network.vote(CONTACT, poll.message_id, group, ["Hills"])

        # Then the author's device and the other member's get poll.vote in the group, from the contact
        for events in (recorder, other_events):
            vote = await events.wait_for("poll.vote")
            assert (vote.data["message_id"], vote.data["chat_jid"], vote.data["voter"]) == (
                poll.message_id,
                group,
                CONTACT_JID,
            )
            assert vote.data["selected_options"] == ["Hills"] == chosen
        # And the contact's copy and the author's record show the vote
        [copy] = [m for m in network.inbox(CONTACT)["messages"] if m["message_id"] == poll.message_id]
        assert copy["poll"]["votes"] == {CONTACT_JID: ["Hills"]}
        [record] = [m for m in network.inbox(PHONE)["sent"] if m["message_id"] == poll.message_id]
        assert record["poll"]["votes"] == {CONTACT_JID: ["Hills"]}
        # And a poll of one answer takes no more
        with pytest.raises(ControlError) as refused:
            network.vote(CONTACT, poll.message_id, group, ["Beach", "Hills"])
        assert refused.value.code == "VALIDATION_ERROR"
        await session.close()

    asyncio.run(scenario())


def test_a_reply_in_a_group_quotes_the_member_who_wrote_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        network = fast_network()
        network.create_account(PHONE, "Ana")
        network.create_account(CONTACT, "Bob")
        session, _ = await paired(network, tmp_path, "dev-a", PHONE)
        _, other_events = await paired(network, tmp_path, "dev-b", THIRD)
        group = (await session.groups.create_group("Trip", [CONTACT, THIRD], GroupOptions())).group.jid
        # Given the contact's message in the group
        asked = network.send_from_account(CONTACT, group, "Who drives?")
        # When the device answers it with a quote
        await session.sending.send_text(group, "Me", quote=Quote(asked))
        # Then the other member's device gets the answer (its second message) quoting the contact's
        answer = await other_events.wait_for("message.received", 2)
        assert (answer.data["from"], answer.data["content"]) == (JID, "Me")
        assert answer.data["quoted"] == {"message_id": asked, "from": CONTACT_JID, "content": "Who drives?"}
        await session.close()

    asyncio.run(scenario())
