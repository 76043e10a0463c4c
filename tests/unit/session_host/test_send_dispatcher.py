"""One device's send dispatcher: order, pacing, typing, connection, failures and the crash
window, over an in-memory outbox and a recording session (short real times)."""

from __future__ import annotations

import asyncio
import itertools
import time

from fakes_sending import Rig

from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import SendState
from session_host.network.port import NetworkError, SessionState
from session_host.sending.sender import INTERRUPTED


def test_a_send_without_delay_is_not_queued_behind_an_earlier_one_with_a_delay() -> None:
    async def scenario() -> Rig:
        # Given a send delayed by 0.4 s, then two sends without delay
        rig = Rig()
        rig.store.add("late", delay=0.4)
        rig.store.add("first")
        rig.store.add("second")

        # When the dispatcher runs
        rig.start()
        await rig.until(lambda: len(rig.session.texts()) == 3)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then the undelayed sends went at once, in request order, and the delayed one last
    assert rig.session.texts() == ["first", "second", "late"]
    assert [event.data["content"] for event in rig.published] == ["first", "second", "late"]
    assert all(send.state is SendState.SENT for send in rig.store.items.values())


def test_the_minimum_interval_spaces_dispatches_in_request_order() -> None:
    async def scenario() -> Rig:
        # Given a device with a 0.2 s minimum interval and three quick sends
        rig = Rig()
        rig.store.interval = 0.2
        for text in ("a", "b", "c"):
            rig.store.add(text)

        # When they are dispatched
        rig.start()
        await rig.until(lambda: len(rig.session.texts()) == 3)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then they went in order, each at least the interval after the previous one
    assert rig.session.texts() == ["a", "b", "c"]
    times = [rig.session.at(text) for text in "abc"]
    assert all(later - earlier >= 0.19 for earlier, later in itertools.pairwise(times))


def test_typing_is_shown_for_its_duration_before_the_text_and_not_at_all_without_presence() -> None:
    async def scenario() -> Rig:
        # Given a send with 0.3 s of typing and one without presence
        rig = Rig()
        rig.store.add("typed", typing=0.3, presence=True)
        rig.store.add("silent", typing=0.3, presence=False)

        # When both are dispatched
        rig.start()
        await rig.until(lambda: len(rig.session.texts()) == 2)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then composing, ~0.3 s later paused, then the text; the silent send shows nothing
    assert [(what, value) for what, value, _ in rig.session.log] == [
        ("presence", "composing"),
        ("presence", "paused"),
        ("text", "typed"),
        ("text", "silent"),
    ]
    assert rig.session.at("paused") - rig.session.at("composing") >= 0.29


def test_a_send_waits_queued_while_the_device_is_not_connected_and_goes_when_it_is() -> None:
    async def scenario() -> tuple[Rig, SendState]:
        # Given a disconnected device with a due send
        rig = Rig()
        rig.session.state = SessionState.DISCONNECTED
        send = rig.store.add("later")
        rig.start()
        await rig.until(lambda: SessionState.DISCONNECTED in rig.session.looked)  # it saw it down
        waiting = rig.store.state(send).state

        # When the device connects
        rig.session.set_state(SessionState.CONNECTED)
        await rig.until(lambda: rig.session.texts() == ["later"])
        await rig.stop()
        return rig, waiting

    rig, waiting = asyncio.run(scenario())
    # Then it stayed queued meanwhile and was sent once connected
    assert waiting is SendState.QUEUED
    assert [send.state for send in rig.store.items.values()] == [SendState.SENT]


def test_a_send_the_network_never_got_goes_when_the_device_is_back_without_reading_the_outbox() -> None:
    async def scenario() -> tuple[Rig, SendState, int]:
        # Given a due send whose network call finds the connection gone
        rig = Rig()
        send = rig.store.add("retry me")
        rig.session.fail_with = NetworkError(ErrorKind.NOT_CONNECTED, "connection lost")
        rig.start()
        await rig.until(lambda: SessionState.DISCONNECTED in rig.session.looked)  # its next turn
        waiting = rig.store.state(send).state

        # When the device is connected again
        rig.session.fail_with = None
        rig.session.set_state(SessionState.CONNECTED)
        await rig.until(lambda: rig.session.texts() == ["retry me"], 2)
        reads = rig.store.reads
        await rig.stop()
        return rig, waiting, reads

    rig, waiting, reads = asyncio.run(scenario())
    # Then it was put back in the queue meanwhile, and went out at once, from memory
    assert waiting is SendState.QUEUED
    assert [item.state for item in rig.store.items.values()] == [SendState.SENT]
    assert reads == 1


def test_a_network_refusal_fails_the_send_for_good_and_the_next_one_still_goes() -> None:
    async def scenario() -> Rig:
        # Given a network that refuses the first send
        rig = Rig()
        refused = rig.store.add("refused")
        rig.session.fail_with = NetworkError(ErrorKind.INVALID, "no such account")
        rig.start()
        await rig.until(lambda: rig.store.state(refused).state is SendState.FAILED)

        # When the network accepts again and another send comes
        rig.session.fail_with = None
        rig.sender.offer(rig.store.add("next"))
        await rig.until(lambda: rig.session.texts() == ["next"])
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then the refused send is failed with the network's reason, never retried
    failed = next(send for send in rig.store.items.values() if send.text == "refused")
    assert (failed.error, failed.error_kind) == ("invalid: no such account", ErrorKind.INVALID)
    assert rig.session.texts() == ["next"]


def test_a_send_left_sending_by_an_interrupted_tenure_is_failed_and_never_resent() -> None:
    async def scenario() -> Rig:
        # Given a send an earlier tenure claimed and never finished (its host died)
        rig = Rig(epoch=2)
        stuck = rig.store.add("maybe out", state=SendState.SENDING, sending_epoch=1)

        # When this tenure's dispatcher starts
        rig.start()
        await rig.until(lambda: rig.store.state(stuck).state is SendState.FAILED)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    # Then it is failed as interrupted (at most once), an unclear outcome as a timeout is, and
    # the network saw nothing again
    failed = next(iter(rig.store.items.values()))
    assert (failed.error, failed.error_kind) == (INTERRUPTED, "timeout")
    assert rig.session.texts() == []


def test_a_watcher_learns_the_dispatch_and_the_expected_time_of_a_delayed_send() -> None:
    async def scenario() -> tuple[Rig, float, float]:
        # Given a send delayed by 0.3 s with 0.1 s of typing, and one nobody watches after it
        rig = Rig()
        send = rig.store.add("watched", delay=0.3, typing=0.1, presence=True)
        unwatched = rig.store.add("unwatched", delay=0.3)
        rig.start()

        # When a command watches it
        outcome = await asyncio.wait_for(rig.sender.watch(send.send_key), 5)
        expected = rig.sender.scheduled_for(send)
        # Then the send is marked and announced only once the command's reply has left (the
        # send after it, whom nobody waits for, is marked and announced meanwhile)
        await rig.until(lambda: rig.published and rig.store.state(unwatched).state is SendState.SENT)
        assert [event.data["content"] for event in rig.published] == ["unwatched"]
        assert rig.store.state(send).state is SendState.SENDING
        rig.sender.replied(send.send_key)
        await rig.until(
            lambda: len(rig.published) == 2 and rig.store.state(send).state is SendState.SENT, 0.5
        )
        await rig.stop()
        return rig, expected, outcome.sent_at or 0.0

    rig, expected, sent_at = asyncio.run(scenario())
    # And it learnt the network's id and time, close to the time it was told to expect
    assert rig.published[1].data["gateway_message_id"] == "M0"
    assert abs(sent_at - expected) < 0.2
    assert sent_at <= time.time()


def test_a_new_tenure_spaces_its_first_dispatch_from_the_last_owners_one() -> None:
    async def scenario() -> tuple[Rig, float]:
        # Given a device with a 0.4 s interval whose previous owner sent just now
        rig = Rig()
        rig.store.interval = 0.4
        rig.store.last_sent = time.time()
        began = time.monotonic()
        rig.store.add("after takeover")

        # When this tenure's dispatcher starts
        rig.start()
        await rig.until(lambda: rig.session.texts() == ["after takeover"])
        await rig.stop()
        return rig, began

    rig, began = asyncio.run(scenario())
    # Then its first send waited out the interval from the last owner's dispatch
    assert rig.session.at("after takeover") - began >= 0.35


def test_a_text_that_mentions_people_is_sent_with_its_mentions_and_announced_after_message_sent() -> None:
    async def scenario() -> Rig:
        # Given a send that mentions one person twice and another once, and a plain one
        rig = Rig()
        rig.store.add("hi @15551234567 and @15557654321, again @15551234567")
        rig.store.add("no mention, mail me at a@15550000000")

        # When both are dispatched
        rig.start()
        await rig.until(lambda: len(rig.session.texts()) == 2)
        await rig.stop()
        return rig

    rig = asyncio.run(scenario())
    mentioned = ["15551234567@s.whatsapp.net", "15557654321@s.whatsapp.net"]
    # Then the network got each mention once, in order, and the plain text none
    assert list(rig.session.mentions.values()) == [mentioned, []]
    # And mention.sent followed the first one's message.sent only, naming the network's id
    assert [event.name for event in rig.published] == ["message.sent", "mention.sent", "message.sent"]
    sent, mention = rig.published[0], rig.published[1]
    assert mention.data["message_id"] == sent.data["message_id"]
    assert mention.data["chat_jid"] == sent.data["chat_jid"]
    assert mention.data["mentioned"] == mentioned


def test_a_send_its_command_brings_goes_out_without_reading_the_outbox_even_before_the_index_shows_it() -> (
    None
):
    async def scenario() -> tuple[Rig, int]:
        # Given a running dispatcher that has read its (empty) outbox once
        rig = Rig()
        rig.start()
        await rig.until(lambda: rig.store.reads == 1)

        # When commands bring two sends that the outbox's index does not show yet
        for text in ("one", "two"):
            send = rig.store.add(text)
            rig.store.hidden.add(send.send_key)
            rig.sender.offer(send)
        await rig.until(lambda: len(rig.session.texts()) == 2)
        reads = rig.store.reads
        await rig.stop()
        return rig, reads

    rig, reads = asyncio.run(scenario())
    # Then both went out in request order, and the outbox was not read again for them
    assert rig.session.texts() == ["one", "two"]
    assert reads == 1
    assert all(send.state is SendState.SENT for send in rig.store.items.values())
