"""The send outbox against the local stack's SendsTable (moto): request order and the
conditional state transitions a dispatcher relies on."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from gateway.bus.contracts.messages import SendTextArgs
from gateway.failures.kinds import ErrorKind
from gateway.messages import outbox
from gateway.messages.sends import Send, SendState
from gateway.models import SendModel
from local_stack.stack import LocalStack

TENANT = "tenant-outbox"
CHAT = "15550001111@s.whatsapp.net"


def queued_send(tenant_id: str, device_id: str, **fields: Any) -> Send:
    """A new ``queued`` send in the outbox, as the send route stores it."""
    send = outbox.new_send(tenant_id, device_id, **fields)
    outbox.store(send)
    return send


@pytest.fixture
def device_id(stack: LocalStack) -> str:
    return f"device-{uuid.uuid4().hex}"


def test_unfinished_sends_come_in_request_order_without_finished_ones(device_id: str) -> None:
    # Given three sends requested one after the other, the first one already sent
    t0 = time.time()
    first = queued_send(TENANT, device_id, chat_jid=CHAT, text="one", requested_at=t0)
    second = queued_send(TENANT, device_id, chat_jid=CHAT, text="two", delay_seconds=60, requested_at=t0 + 1)
    third = queued_send(TENANT, device_id, chat_jid=CHAT, text="three", requested_at=t0 + 2)
    assert outbox.claim(first, 1)
    assert outbox.mark_sent(first, 1, "NET1", t0 + 3)

    # When the device's unfinished sends are read
    items = outbox.unfinished(TENANT, device_id)

    # Then they come in request order, with their pacing fields, and the sent one is left out
    assert [item.message_id for item in items] == [second.message_id, third.message_id]
    assert items[0].not_before == pytest.approx(t0 + 61)
    assert items[0].state is SendState.QUEUED
    sent = outbox.get(TENANT, device_id, first.send_key)
    assert sent is not None
    assert sent.state is SendState.SENT
    assert sent.network_message_id == "NET1"
    assert outbox.last_sent_at(TENANT, device_id) == pytest.approx(t0 + 3)


def test_a_send_is_claimed_once_and_only_its_claimer_finishes_it(device_id: str) -> None:
    # Given a queued send claimed by the tenure at epoch 2
    send = queued_send(TENANT, device_id, chat_jid=CHAT, text="hello")
    assert outbox.claim(send, 2)

    # When another tenure claims it, or one at another epoch tries to finish it
    again = outbox.claim(send, 3)
    foreign = outbox.mark_sent(send, 3, "NETX", time.time())

    # Then both are refused, and the claimer can put it back or finish it
    assert (again, foreign) == (False, False)
    assert outbox.requeue(send, 2)
    assert outbox.claim(send, 3)
    assert outbox.mark_failed(send, "interrupted", kind=ErrorKind.TIMEOUT)
    stored = outbox.get(TENANT, device_id, send.send_key)
    assert stored is not None
    assert stored.state is SendState.FAILED
    assert (stored.error, stored.error_kind) == ("interrupted", ErrorKind.TIMEOUT)
    assert outbox.unfinished(TENANT, device_id) == []


def test_a_claim_that_comes_before_the_apis_write_writes_the_send_whole(device_id: str) -> None:
    # Given a send the API has not written yet (it writes while its command travels)
    send = outbox.new_send(TENANT, device_id, chat_jid=CHAT, text="early", typing_seconds=2)

    # When the host claims it first, and the API's write lands afterwards
    assert outbox.claim(send, 4)
    outbox.store(send)

    # Then the item is the host's claim, with every field of the send, and the write changed nothing
    stored = outbox.get(TENANT, device_id, send.send_key)
    assert stored is not None
    assert stored.state is SendState.SENDING
    assert stored.sending_epoch == 4
    assert (stored.text, stored.typing_seconds, stored.not_before) == ("early", 2, send.not_before)
    assert [item.send_key for item in outbox.unfinished(TENANT, device_id)] == [send.send_key]


def test_a_finished_send_leaves_the_pending_index(device_id: str) -> None:
    # Given a sent and a failed send
    sent = queued_send(TENANT, device_id, chat_jid=CHAT, text="sent")
    failed = queued_send(TENANT, device_id, chat_jid=CHAT, text="failed")
    for send in (sent, failed):
        assert outbox.claim(send, 1)
    assert outbox.mark_sent(sent, 1, "NET2", time.time())
    assert outbox.mark_failed(failed, "refused", kind=ErrorKind.NETWORK, epoch=1)

    # Then neither is in the index a dispatcher reads: its reads cost what waits, not history
    keys = [item.pending_key for item in SendModel.pending.query(outbox.device_key(TENANT, device_id))]
    assert keys == []
    assert outbox.unfinished(TENANT, device_id) == []


def test_a_send_travels_whole_in_its_command_and_only_for_its_own_device(device_id: str) -> None:
    send = outbox.new_send(TENANT, device_id, chat_jid=CHAT, text="carried", delay_seconds=5)
    args = _carried(SendTextArgs(send_key=send.send_key, send=send))

    assert args.carried(TENANT, device_id) == send
    assert args.carried(TENANT, "another-device") is None
    assert args.carried("another-tenant", device_id) is None
    assert args.model_copy(update={"send_key": "other"}).carried(TENANT, device_id) is None
    assert SendTextArgs(send_key=send.send_key).carried(TENANT, device_id) is None
    # A half send is no send: the host refuses the command before reading it
    with pytest.raises(ValidationError):
        SendTextArgs.model_validate({"send_key": send.send_key, "send": {"text": "half"}})


def _carried(args: SendTextArgs) -> SendTextArgs:
    """The arguments as the session host reads them off the bus."""
    return SendTextArgs.model_validate(json.loads(args.model_dump_json(exclude_none=True)))


def test_a_send_is_found_by_either_id_and_deleted_once(device_id: str) -> None:
    # Given a sent message and a send still queued, of the same device
    sent = queued_send(TENANT, device_id, chat_jid=CHAT, text="hello")
    queued = queued_send(TENANT, device_id, chat_jid=CHAT, text="later")
    assert outbox.claim(sent, 1)
    network_id = f"NET{uuid.uuid4().hex[:8]}"
    assert outbox.mark_sent(sent, 1, network_id, time.time())

    # When it is looked up by the gateway's id, by the network's, and by ids it does not have
    by_gateway = outbox.find(TENANT, device_id, sent.message_id)
    by_network = outbox.find(TENANT, device_id, network_id)

    # Then both name the same sent item, kept 90 days; unknown ids and other devices find nothing
    assert by_gateway is not None
    assert by_network is not None
    assert by_gateway.send_key == by_network.send_key == sent.send_key
    assert by_gateway.network_message_id == network_id
    item = outbox.SendModel.get(outbox.device_key(TENANT, device_id), sent.send_key)
    assert item.expires_at == pytest.approx(time.time() + outbox.KEEP_SENT_SECONDS, abs=5)
    assert outbox.find(TENANT, device_id, "NOPE") is None
    assert outbox.find(TENANT, f"other-{device_id}", sent.message_id) is None
    found_queued = outbox.find(TENANT, device_id, queued.message_id)
    assert found_queued is not None
    assert found_queued.state is SendState.QUEUED

    # And a revoke or a delete for me is recorded once; a queued send cannot be marked
    assert outbox.mark_revoked(by_gateway, 10.0)
    assert not outbox.mark_revoked(by_gateway, 11.0)
    assert outbox.mark_deleted_for_me(by_gateway, 12.0)
    assert not outbox.mark_deleted_for_me(by_gateway, 13.0)
    assert not outbox.mark_revoked(found_queued, 14.0)
    final = outbox.find(TENANT, device_id, network_id)
    assert final is not None
    assert (final.revoked_at, final.deleted_for_me_at) == (10.0, 12.0)


def test_a_send_of_another_kind_keeps_its_kind_and_payload_everywhere_it_travels(device_id: str) -> None:
    # Given a location send (what the send routes of other kinds will write)
    place = {"latitude": 52.52, "longitude": 13.405, "name": "Alexanderplatz", "address": None}
    send = outbox.new_send(TENANT, device_id, chat_jid=CHAT, text="", kind="location", payload=place)

    # When it is stored, carried in its command, claimed and read back
    outbox.store(send)
    carried = _carried(SendTextArgs(send_key=send.send_key, send=send)).carried(TENANT, device_id)
    stored = outbox.get(TENANT, device_id, send.send_key)
    (pending,) = outbox.unfinished(TENANT, device_id)

    # Then every copy has the kind and the payload; a text send is of kind text
    for copy in (carried, stored, pending):
        assert copy is not None
        assert (copy.kind, copy.payload) == ("location", place)
    assert outbox.new_send(TENANT, device_id, chat_jid=CHAT, text="hi").kind == "text"


def test_a_reply_keeps_what_it_quotes_everywhere_it_travels(device_id: str) -> None:
    # Given a poll that replies to a message (replies and polls, issue 24)
    poll = {"question": "Lunch?", "options": ["Yes", "No"], "multiple_answers": False}
    send = outbox.new_send(
        TENANT, device_id, chat_jid=CHAT, text="Lunch?", kind="poll", payload=poll, reply_to="3EB0QUOTED"
    )

    # When it is stored, carried in its command, and read back by a host that claims it later
    outbox.store(send)
    carried = _carried(SendTextArgs(send_key=send.send_key, send=send)).carried(TENANT, device_id)
    (pending,) = outbox.unfinished(TENANT, device_id)
    assert outbox.claim(pending, 1)
    claimed = outbox.get(TENANT, device_id, send.send_key)

    # Then every copy still names the message it quotes, and the poll's options
    for copy in (carried, pending, claimed):
        assert copy is not None
        assert (copy.reply_to, copy.payload) == ("3EB0QUOTED", poll)
    assert outbox.new_send(TENANT, device_id, chat_jid=CHAT, text="hi").reply_to is None
