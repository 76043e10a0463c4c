"""One contract, two adapters: replies and polls (``adapter_backends``).

A send that quotes a message reaches the recipient quoting it (the network's id, its author
and text, as far as the network knows them); a reply someone sends the device arrives as
``message.received`` with ``quoted``; a poll reaches the recipient with its options and
answers rule, and a vote on it arrives as ``poll.vote`` naming the options by their texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from adapter_backends import DEVICE_JID, Backend
from test_adapter_contract_groups import ADAPTERS, BOB, on

from gateway.failures.kinds import ErrorKind
from session_host.network.media_types import Location
from session_host.network.port import NetworkError
from session_host.network.reply_types import Poll, Quote


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_reply_quotes_the_message_it_answers(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact who sent the device a message
        bob, _ = net.person(BOB)
        first = await net.session.sending.send_text(bob, "Lunch?")
        answer = await net.reply_from(bob, "Yes!", first.message_id)
        # When the device replies to the contact's message, and to its own
        await net.session.sending.send_text(bob, "Great", quote=Quote(answer.data["message_id"]))
        own = Quote(first.message_id, from_me=True, content="Lunch?")
        await net.session.sending.send_location(bob, Location(1.0, 2.0, "Here"), quote=own)
        # Then each quotes its message: the contact's with its author and text, the device's own too
        assert net.quotes_received(bob) == [
            None,
            {"message_id": answer.data["message_id"], "from": bob, "content": "Yes!"},
            {"message_id": first.message_id, "from": DEVICE_JID, "content": "Lunch?"},
        ]

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_reply_to_an_id_nobody_knows_still_goes_out_quoting_it(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        await net.session.sending.send_text(bob, "About that", quote=Quote("3EB0UNKNOWN"))
        [quoted] = net.quotes_received(bob)
        assert quoted is not None
        assert (quoted["message_id"], quoted["content"]) == ("3EB0UNKNOWN", None)

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_reply_the_device_receives_carries_what_it_quotes(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a message the device sent
        bob, _ = net.person(BOB)
        sent = await net.session.sending.send_text(bob, "Lunch?")
        # When the contact answers it with a quote
        received = await net.reply_from(bob, "Yes!", sent.message_id)
        # Then message.received says which message, whose, and its text
        assert received.data["content"] == "Yes!"
        assert received.data["quoted"] == {
            "message_id": sent.message_id,
            "from": DEVICE_JID,
            "content": "Lunch?",
        }

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_poll_reaches_the_recipient_and_votes_come_back_as_texts(adapter: str, tmp_path: Path) -> None:
    async def scenario(net: Backend) -> None:
        # Given a contact
        bob, _ = net.person(BOB)
        # When the device sends a poll of several answers, and the contact votes twice
        poll = Poll("Which days?", ("Mon", "Tue", "Wed"), multiple_answers=True)
        sent = await net.session.sending.send_poll(bob, poll)
        first = await net.vote_as(bob, sent.message_id, ["Wed", "Mon"])
        second = await net.vote_as(bob, sent.message_id, [])
        # Then the contact got the poll as sent
        assert net.polls_received(bob) == [
            {"question": "Which days?", "options": ["Mon", "Tue", "Wed"], "multiple_answers": True}
        ]
        # And each vote is poll.vote on the poll, in the chat, naming the voter and the options' texts
        assert {key: first.data[key] for key in ("message_id", "chat_jid", "voter")} == {
            "message_id": sent.message_id,
            "chat_jid": bob,
            "voter": bob,
        }
        assert sorted(first.data["selected_options"]) == ["Mon", "Wed"]
        assert second.data["selected_options"] == []  # the vote taken back
        assert first.data["timestamp"].endswith("Z")

    on(adapter, tmp_path, scenario)


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize(
    "poll",
    [
        Poll("", ("a", "b")),
        Poll("Q", ("only",)),
        Poll("Q", ("a", "a")),
        Poll("Q", tuple(str(n) for n in range(13))),
    ],
    ids=["no-question", "one-option", "same-options", "thirteen-options"],
)
def test_a_poll_the_network_would_refuse_is_invalid_and_nothing_is_sent(
    adapter: str, poll: Poll, tmp_path: Path
) -> None:
    async def scenario(net: Backend) -> None:
        bob, _ = net.person(BOB)
        with pytest.raises(NetworkError) as refused:
            await net.session.sending.send_poll(bob, poll)
        assert refused.value.kind is ErrorKind.INVALID
        assert net.put_on_network() == 0

    on(adapter, tmp_path, scenario)
