"""The session host's message operations: a delete finds the send in the outbox by either
id and checks chat, state and the revoke window before the network is asked; delete for me
publishes ``message.delete_for_me``; a history request asks the phone from now."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fakes_sending import CHAT, DEVICE, CommandHost, FakeOutbox

from gateway.bus import CommandName, Reply
from gateway.failures.kinds import ErrorKind
from gateway.messages.sends import Send, SendState
from session_host.network.port import NetworkError, SessionState

OWN_JID = "15550009999@s.whatsapp.net"


class _Session:
    """A connected session that records the network calls; ``error`` fails them (it is its
    own ``messages`` family)."""

    def __init__(self, window: float = 3600.0, error: NetworkError | None = None) -> None:
        self.messages = self
        self.device_id = DEVICE
        self.state = SessionState.CONNECTED
        self.jid: str | None = OWN_JID
        self.revoke_window_seconds = window
        self.error = error
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        async def operation(*args: Any, **kwargs: Any) -> None:
            self.calls.append((name, args, kwargs))
            if self.error is not None:
                raise self.error

        return operation


def _run(ownership: CommandHost, name: CommandName, **args: Any) -> Reply:
    return asyncio.run(ownership.run(name, **args))


def _sent(store: FakeOutbox, *, age: float = 1.0, **fields: Any) -> Send:
    return store.add(
        "hello", state=SendState.SENT, network_message_id="NET1", sent_at=time.time() - age, **fields
    )


@pytest.mark.parametrize("by", ["gateway", "network"])
def test_a_message_sent_within_the_window_is_revoked_by_either_id(by: str) -> None:
    # Given a message the device sent a second ago, with a window of an hour
    store, session = FakeOutbox(), _Session()
    send = _sent(store)
    ownership = CommandHost(session, store)
    message_id = send.message_id if by == "gateway" else "NET1"

    # When it is deleted for everyone
    reply = _run(
        ownership, CommandName.DELETE_MESSAGE, message_id=message_id, chat_jid=CHAT, for_everyone=True
    )

    # Then the network revokes it by its own id, and the outbox records it; no event
    assert reply.ok, reply
    assert reply.result == {
        "message_id": send.message_id,
        "network_message_id": "NET1",
        "chat_jid": CHAT,
        "for_everyone": True,
    }
    assert session.calls == [("revoke_message", (CHAT, "NET1"), {})]
    assert store.state(send).revoked_at is not None
    assert ownership.published == []

    # And a second delete for everyone: already deleted, the network is not asked again
    again = _run(
        ownership, CommandName.DELETE_MESSAGE, message_id=message_id, chat_jid=CHAT, for_everyone=True
    )
    assert (again.ok, again.error_kind) == (False, ErrorKind.NOT_FOUND)
    assert len(session.calls) == 1


def test_past_the_window_a_delete_for_everyone_is_expired_and_nothing_is_sent() -> None:
    store, session = FakeOutbox(), _Session(window=60.0)
    send = _sent(store, age=61.0)
    reply = _run(
        CommandHost(session, store),
        CommandName.DELETE_MESSAGE,
        message_id=send.message_id,
        chat_jid=CHAT,
        for_everyone=True,
    )
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.EXPIRED)
    assert session.calls == []


def test_delete_for_me_publishes_the_event_and_then_the_message_is_gone() -> None:
    # Given a message sent long past the revoke window
    store, session = FakeOutbox(), _Session(window=60.0)
    send = _sent(store, age=86400.0)
    ownership = CommandHost(session, store)

    # When it is deleted for me
    reply = _run(ownership, CommandName.DELETE_MESSAGE, message_id="NET1", chat_jid=CHAT, for_everyone=False)

    # Then the account's view drops it, and message.delete_for_me names both ids
    assert reply.ok, reply
    assert session.calls == [("delete_for_me", (CHAT, "NET1"), {"from_me": True, "sender": None})]
    (event,) = ownership.published
    assert event.name == "message.delete_for_me"
    assert {k: v for k, v in event.data.items() if k != "timestamp"} == {
        "message_id": "NET1",
        "gateway_message_id": send.message_id,
        "chat_jid": CHAT,
        "sender": OWN_JID,
        "is_from_me": True,
        "delete_media": False,
    }
    # And any later delete of it is not found
    for everyone in (True, False):
        again = _run(
            ownership, CommandName.DELETE_MESSAGE, message_id="NET1", chat_jid=CHAT, for_everyone=everyone
        )
        assert again.error_kind is ErrorKind.NOT_FOUND


@pytest.mark.parametrize(
    ("fields", "message_id", "chat"),
    [
        ({}, "UNKNOWN", CHAT),  # an id the gateway never sent (a received message)
        ({}, "NET1", "15550002222@s.whatsapp.net"),  # another chat
        ({"state": SendState.QUEUED, "network_message_id": None, "sent_at": None}, "M0", CHAT),  # not sent
        ({"state": SendState.FAILED, "network_message_id": None, "sent_at": None}, "M0", CHAT),
    ],
)
def test_what_the_device_did_not_send_there_is_not_found(
    fields: dict[str, Any], message_id: str, chat: str
) -> None:
    store, session = FakeOutbox(), _Session()
    store.add(
        "hello", **{"state": SendState.SENT, "network_message_id": "NET1", "sent_at": time.time(), **fields}
    )
    for everyone in (True, False):
        reply = _run(
            CommandHost(session, store),
            CommandName.DELETE_MESSAGE,
            message_id=message_id,
            chat_jid=chat,
            for_everyone=everyone,
        )
        assert (reply.ok, reply.error_kind) == (False, ErrorKind.NOT_FOUND)
    assert session.calls == []


def test_a_network_failure_is_the_answer_and_nothing_is_recorded() -> None:
    store, session = FakeOutbox(), _Session(error=NetworkError(ErrorKind.NETWORK, "boom"))
    send = _sent(store)
    ownership = CommandHost(session, store)
    for everyone in (True, False):
        reply = _run(
            ownership, CommandName.DELETE_MESSAGE, message_id="NET1", chat_jid=CHAT, for_everyone=everyone
        )
        assert (reply.ok, reply.error_kind) == (False, ErrorKind.NETWORK)
    assert (store.state(send).revoked_at, store.state(send).deleted_for_me_at) == (None, None)
    assert ownership.published == []


def test_a_disconnected_session_is_refused_before_the_outbox_is_read() -> None:
    store, session = FakeOutbox(), _Session()
    session.state = SessionState.DISCONNECTED
    _sent(store)
    for name, args in (
        (CommandName.DELETE_MESSAGE, {"message_id": "NET1", "chat_jid": CHAT, "for_everyone": False}),
        (CommandName.SYNC_HISTORY, {"chat_jid": CHAT, "count": 5}),
    ):
        reply = _run(CommandHost(session, store), name, **args)
        assert reply.error_kind is ErrorKind.NOT_CONNECTED
    assert session.calls == []


def test_history_is_asked_from_now_in_the_chat() -> None:
    store, session = FakeOutbox(), _Session()
    before = time.time()
    reply = _run(CommandHost(session, store), CommandName.SYNC_HISTORY, chat_jid=CHAT, count=20)
    assert reply.ok, reply
    assert reply.result == {"chat_jid": CHAT, "count": 20}
    ((name, (chat, count, oldest), _),) = session.calls
    assert (name, chat, count) == ("request_history_sync", CHAT, 20)
    assert oldest.chat == CHAT
    assert oldest.message_id
    assert oldest.timestamp >= before


def test_an_adapter_that_cannot_sync_history_answers_unsupported() -> None:
    store, session = FakeOutbox(), _Session(error=NetworkError(ErrorKind.UNSUPPORTED, "no peer send"))
    reply = _run(CommandHost(session, store), CommandName.SYNC_HISTORY, chat_jid=CHAT, count=5)
    assert (reply.ok, reply.error_kind) == (False, ErrorKind.UNSUPPORTED)
