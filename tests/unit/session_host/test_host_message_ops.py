"""The session host's message operations: a delete finds the send in the outbox by either
id and checks chat, state and the revoke window before the network is asked; delete for me
publishes ``message.delete_for_me``; a history request asks the phone from now."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any, cast

import pytest
from fakes_sending import CHAT, DEVICE, TENANT, FakeOutbox

from gateway.bus import Command, CommandName, Reply
from gateway.leases import Lease
from gateway.messages.outbox import Send, SendState
from session_host.commands import CommandExecutor
from session_host.network.port import NetworkError, NetworkErrorKind, NetworkEvent, SessionState
from session_host.owned import OwnedDevice
from session_host.ownership import Ownership

OWN_JID = "15550009999@s.whatsapp.net"


class _Session:
    """A connected session that records the network calls; ``error`` fails them."""

    def __init__(self, window: float = 3600.0, error: NetworkError | None = None) -> None:
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


class _Outbox(FakeOutbox):
    """The fake outbox with the lookups and marks of deletes."""

    async def find(self, _tenant: str, _device: str, message_id: str) -> Send | None:
        return next(
            (s for s in self.items.values() if message_id in (s.message_id, s.network_message_id)), None
        )

    async def mark_revoked(self, send: Send, at: float) -> bool:
        self.items[send.send_key] = dataclasses.replace(self.items[send.send_key], revoked_at=at)
        return True

    async def mark_deleted_for_me(self, send: Send, at: float) -> bool:
        self.items[send.send_key] = dataclasses.replace(self.items[send.send_key], deleted_for_me_at=at)
        return True


class _Senders:
    def __init__(self, store: _Outbox) -> None:
        self.store = store


class _Ownership:
    def __init__(self, session: _Session, store: _Outbox) -> None:
        owned = OwnedDevice(TENANT, DEVICE, Lease(DEVICE, TENANT, "host-a", None, 1, 0))
        owned.session = cast(Any, session)
        self.devices = {DEVICE: owned}
        self.senders = _Senders(store)
        self.published: list[NetworkEvent] = []

    async def publish(self, _owned: OwnedDevice, event: NetworkEvent) -> None:
        self.published.append(event)


def _run(ownership: _Ownership, name: CommandName, **args: Any) -> Reply:
    command = Command(name, TENANT, DEVICE, deadline=time.time() + 30, args=args)
    reply = asyncio.run(CommandExecutor(cast(Ownership, ownership)).execute(command))
    assert isinstance(reply, Reply)
    return reply


def _sent(store: _Outbox, *, age: float = 1.0, **fields: Any) -> Send:
    return store.add(
        "hello", state=SendState.SENT, network_message_id="NET1", sent_at=time.time() - age, **fields
    )


@pytest.mark.parametrize("by", ["gateway", "network"])
def test_a_message_sent_within_the_window_is_revoked_by_either_id(by: str) -> None:
    # Given a message the device sent a second ago, with a window of an hour
    store, session = _Outbox(), _Session()
    send = _sent(store)
    ownership = _Ownership(session, store)
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
    assert (again.ok, again.error_kind) == (False, "not_found")
    assert len(session.calls) == 1


def test_past_the_window_a_delete_for_everyone_is_expired_and_nothing_is_sent() -> None:
    store, session = _Outbox(), _Session(window=60.0)
    send = _sent(store, age=61.0)
    reply = _run(
        _Ownership(session, store),
        CommandName.DELETE_MESSAGE,
        message_id=send.message_id,
        chat_jid=CHAT,
        for_everyone=True,
    )
    assert (reply.ok, reply.error_kind) == (False, "expired")
    assert session.calls == []


def test_delete_for_me_publishes_the_event_and_then_the_message_is_gone() -> None:
    # Given a message sent long past the revoke window
    store, session = _Outbox(), _Session(window=60.0)
    send = _sent(store, age=86400.0)
    ownership = _Ownership(session, store)

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
        assert again.error_kind == "not_found"


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
    store, session = _Outbox(), _Session()
    store.add(
        "hello", **{"state": SendState.SENT, "network_message_id": "NET1", "sent_at": time.time(), **fields}
    )
    for everyone in (True, False):
        reply = _run(
            _Ownership(session, store),
            CommandName.DELETE_MESSAGE,
            message_id=message_id,
            chat_jid=chat,
            for_everyone=everyone,
        )
        assert (reply.ok, reply.error_kind) == (False, "not_found")
    assert session.calls == []


def test_a_network_failure_is_the_answer_and_nothing_is_recorded() -> None:
    store, session = _Outbox(), _Session(error=NetworkError(NetworkErrorKind.NETWORK, "boom"))
    send = _sent(store)
    ownership = _Ownership(session, store)
    for everyone in (True, False):
        reply = _run(
            ownership, CommandName.DELETE_MESSAGE, message_id="NET1", chat_jid=CHAT, for_everyone=everyone
        )
        assert (reply.ok, reply.error_kind) == (False, "network")
    assert (store.state(send).revoked_at, store.state(send).deleted_for_me_at) == (None, None)
    assert ownership.published == []


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (CommandName.DELETE_MESSAGE, {"message_id": "NET1", "chat_jid": CHAT}),
        (CommandName.DELETE_MESSAGE, {"message_id": "", "chat_jid": CHAT, "for_everyone": True}),
        (CommandName.SYNC_HISTORY, {"chat_jid": CHAT, "count": 0}),
        (CommandName.SYNC_HISTORY, {"chat_jid": CHAT, "count": 51}),
        (CommandName.SYNC_HISTORY, {"chat_jid": CHAT, "count": True}),
        (CommandName.SYNC_HISTORY, {"chat_jid": "", "count": 5}),
    ],
)
def test_a_malformed_command_is_invalid_and_sends_nothing(name: CommandName, args: dict[str, Any]) -> None:
    store, session = _Outbox(), _Session()
    _sent(store)
    reply = _run(_Ownership(session, store), name, **args)
    assert (reply.ok, reply.error_kind) == (False, "invalid")
    assert session.calls == []


def test_a_disconnected_session_is_refused_before_the_outbox_is_read() -> None:
    store, session = _Outbox(), _Session()
    session.state = SessionState.DISCONNECTED
    _sent(store)
    for name, args in (
        (CommandName.DELETE_MESSAGE, {"message_id": "NET1", "chat_jid": CHAT, "for_everyone": False}),
        (CommandName.SYNC_HISTORY, {"chat_jid": CHAT, "count": 5}),
    ):
        reply = _run(_Ownership(session, store), name, **args)
        assert reply.error_kind == "not_connected"
    assert session.calls == []


def test_history_is_asked_from_now_in_the_chat() -> None:
    store, session = _Outbox(), _Session()
    before = time.time()
    reply = _run(_Ownership(session, store), CommandName.SYNC_HISTORY, chat_jid=CHAT, count=20)
    assert reply.ok, reply
    assert reply.result == {"chat_jid": CHAT, "count": 20}
    ((name, (chat, count, oldest), _),) = session.calls
    assert (name, chat, count) == ("request_history_sync", CHAT, 20)
    assert oldest.chat == CHAT
    assert oldest.message_id
    assert oldest.timestamp >= before


def test_an_adapter_that_cannot_sync_history_answers_unsupported() -> None:
    store, session = _Outbox(), _Session(error=NetworkError(NetworkErrorKind.UNSUPPORTED, "no peer send"))
    reply = _run(_Ownership(session, store), CommandName.SYNC_HISTORY, chat_jid=CHAT, count=5)
    assert (reply.ok, reply.error_kind) == (False, "unsupported")
