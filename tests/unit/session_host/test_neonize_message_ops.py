"""The neonize adapter's message operations against an autospec ``NewClient``: revoke, delete
for me and history sync (both unsupported in neonize 0.5.2: app-state patches cannot be encoded,
and there is no peer send)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes_neonize import (
    ACCOUNT,
    FakeNetwork,
    connected,
    make_port,
    open_session,
    patched_client,
    run,
    seed_paired,
    wait_connect_started,
)
from neonize.exc import SendMessageError
from neonize.proto.Neonize_pb2 import SendResponse
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import Message, ProtocolMessage
from neonize.utils.jid import build_jid
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.port import MessageRef, NetworkError

BOB = "5511999998888@s.whatsapp.net"
GROUP = "120363000000000001@g.us"
REVOKE = Message(protocolMessage=ProtocolMessage(type=ProtocolMessage.REVOKE))


def test_revoke_sends_whatsmeows_revoke_of_the_own_message_to_the_chat(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            client = fake.client
            client.build_revoke.return_value = REVOKE
            client.send_message.return_value = SendResponse(ID="3EB0REVOKE", Timestamp=1_700_000_200)
            # When it revokes a message it sent in a group
            await session.messages.revoke_message(GROUP, "3EB0AAAA")
            # Then whatsmeow builds the revoke (with_go: it knows the own LID) as the account's,
            # and that message goes to the chat
            group = build_jid("120363000000000001", "g.us")
            client.build_revoke.assert_called_once_with(group, ACCOUNT, "3EB0AAAA", with_go=True)
            client.send_message.assert_called_once_with(group, REVOKE)
            await session.close()

    run(scenario())


@pytest.mark.parametrize("connect", [True, False], ids=["connected", "not_connected"])
def test_delete_for_me_is_unsupported_and_touches_nothing(tmp_path: Path, connect: bool) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a device, connected or not
            if connect:
                session, _ = await connected(tmp_path, fake)
            else:
                seed_paired(tmp_path)
                session = open_session(make_port(), tmp_path, RecordingSink())
            calls = len(fake.client.mock_calls) if connect else 0
            # When it deletes for itself a message Bob sent in a group
            with pytest.raises(NetworkError) as raised:
                await session.messages.delete_for_me(GROUP, "3EB0BBBB", from_me=False, sender=BOB)
            # Then it is unsupported (501 upstream) and the library saw nothing: neonize 0.5.2
            # cannot encode the app-state patch
            assert raised.value.kind is ErrorKind.UNSUPPORTED
            assert "app-state" in str(raised.value)
            if connect:
                assert len(fake.client.mock_calls) == calls
                fake.client.send_app_state.assert_not_called()
            await session.close()

    run(scenario())


def test_delete_for_me_checks_its_input_before_answering_unsupported(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session, _ = await connected(tmp_path, fake)
            # A group message of someone else without its author is refused as invalid first
            with pytest.raises(NetworkError) as raised:
                await session.messages.delete_for_me(GROUP, "3EB0BBBB", from_me=False, sender=None)
            assert raised.value.kind is ErrorKind.INVALID
            await session.close()

    run(scenario())


def test_history_sync_is_unsupported_and_touches_nothing(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session, _ = await connected(tmp_path, fake)
            calls = len(fake.client.mock_calls)
            oldest = MessageRef(BOB, "3EB0DDDD", from_me=False, timestamp=1_700_000_000.0)
            with pytest.raises(NetworkError) as raised:
                await session.messages.request_history_sync(BOB, 50, oldest)
            assert raised.value.kind is ErrorKind.UNSUPPORTED
            assert "request_history_sync" in str(raised.value)
            assert len(fake.client.mock_calls) == calls
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s.messages.revoke_message(BOB, "3EB0AAAA"),
    ],
    ids=["revoke_message"],
)
def test_operations_on_a_session_not_connected_touch_nothing(tmp_path: Path, operation: Any) -> None:
    seed_paired(tmp_path)
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            with pytest.raises(NetworkError) as before:
                await operation(session)
            await session.connect()
            client = await wait_connect_started(fake)
            with pytest.raises(NetworkError) as during:
                await operation(session)
            # Then both are NOT_CONNECTED and the client saw nothing but connect()
            # (revoke_message-like calls abort the process on a client that is not connected)
            assert before.value.kind is during.value.kind is ErrorKind.NOT_CONNECTED
            assert [name for name, *_ in client.mock_calls] == ["connect"]
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    ("fail", "library_message", "kind"),
    [
        ("send_message", "server returned error 429: rate-overlimit", ErrorKind.RATE_LIMITED),
        ("send_message", "failed to send message: websocket not connected", ErrorKind.NETWORK),
    ],
)
def test_library_errors_become_network_errors(
    tmp_path: Path, fail: str, library_message: str, kind: ErrorKind
) -> None:
    fake = FakeNetwork()
    error = SendMessageError

    async def scenario() -> None:
        with patched_client(fake):
            session, _ = await connected(tmp_path, fake)
            fake.client.build_revoke.return_value = REVOKE
            getattr(fake.client, fail).side_effect = error(library_message)
            operation = session.messages.revoke_message(BOB, "3EB0AAAA")
            with pytest.raises(NetworkError) as raised:
                await operation
            assert raised.value.kind is kind
            assert library_message in str(raised.value)
            await session.close()

    run(scenario())
