"""The neonize adapter: send text, chat presence and read receipts on a connected session."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import call

import pytest
from fakes_neonize import (
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
from neonize.proto.Neonize_pb2 import JID, SendResponse
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import ContextInfo, ExtendedTextMessage, Message
from neonize.utils.enum import ChatPresence as NeonizeChatPresence
from neonize.utils.enum import ChatPresenceMedia, ReceiptType
from neonize.utils.jid import build_jid
from recording_sink import RecordingSink

from gateway.failures.kinds import ErrorKind
from session_host.network.port import ChatPresence, NetworkError, RateLimit, SentMessage


def test_send_text_sends_a_conversation_message_and_returns_the_network_answer(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.return_value = SendResponse(ID="3EB0C0FFEE", Timestamp=1_700_000_123)
            # When it sends a text to a phone number
            sent = await session.sending.send_text("5511999998888", "hello")
            # Then the message goes to the user JID and the network's id and time come back
            fake.client.send_message.assert_called_once_with(
                build_jid("5511999998888"), Message(conversation="hello")
            )
            assert sent == SentMessage(
                message_id="3EB0C0FFEE", chat_jid="5511999998888@s.whatsapp.net", timestamp=1_700_000_123.0
            )
            await session.close()

    run(scenario())


def test_chat_presence_and_read_receipts_use_the_library_enums(tmp_path: Path) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            group = JID(
                User="120363000000000001", Server="g.us", Device=0, RawAgent=0, Integrator=0, IsEmpty=False
            )
            # When it shows typing, stops, and marks two messages read in a group
            await session.sending.send_chat_presence("120363000000000001@g.us", ChatPresence.COMPOSING)
            await session.sending.send_chat_presence("120363000000000001@g.us", ChatPresence.PAUSED)
            await session.messages.mark_read(
                "120363000000000001@g.us", "5511999998888@s.whatsapp.net", ["ID1", "ID2"]
            )
            # Then the library gets its own enums and JIDs
            media = ChatPresenceMedia.CHAT_PRESENCE_MEDIA_TEXT
            assert fake.client.send_chat_presence.call_args_list == [
                call(group, NeonizeChatPresence.CHAT_PRESENCE_COMPOSING, media),
                call(group, NeonizeChatPresence.CHAT_PRESENCE_PAUSED, media),
            ]
            fake.client.mark_read.assert_called_once_with(
                "ID1", "ID2", chat=group, sender=build_jid("5511999998888"), receipt=ReceiptType.READ
            )
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    "operation",
    [
        lambda s: s.sending.send_text("5511999998888", "hello"),
        lambda s: s.sending.send_chat_presence("5511999998888", ChatPresence.COMPOSING),
        lambda s: s.messages.mark_read("5511999998888", "5511999998888", ["ID1"]),
    ],
    ids=["send_text", "send_chat_presence", "mark_read"],
)
def test_operations_on_a_session_not_connected_raise_without_touching_the_client(
    tmp_path: Path, operation: Any
) -> None:
    # Given a paired device whose connect() has started but not connected yet
    seed_paired(tmp_path)
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            session = open_session(make_port(), tmp_path, RecordingSink())
            # When an operation runs before connect() and while connecting
            with pytest.raises(NetworkError) as before:
                await operation(session)
            await session.connect()
            client = await wait_connect_started(fake)
            with pytest.raises(NetworkError) as during:
                await operation(session)
            # Then both fail NOT_CONNECTED and the client saw nothing but connect()
            assert before.value.kind is during.value.kind is ErrorKind.NOT_CONNECTED
            assert [name for name, *_ in client.mock_calls] == ["connect"]
            await session.close()

    run(scenario())


@pytest.mark.parametrize(
    ("library_message", "kind", "limit"),
    [
        ("failed to send message: websocket not connected", ErrorKind.NETWORK, None),
        ("server returned error 429: rate-overlimit", ErrorKind.RATE_LIMITED, RateLimit.OVERLIMIT),
        ("info query timed out", ErrorKind.TIMEOUT, None),
        # whatsmeow's ErrServerReturnedError with the code of the message's acknowledgement
        ("server returned error 463", ErrorKind.RATE_LIMITED, RateLimit.REACHOUT_TIMELOCK),
        ("server returned error 429", ErrorKind.RATE_LIMITED, RateLimit.OVERLIMIT),
        ("server returned error 500", ErrorKind.NETWORK, None),
        # a query on the way (the recipient's devices) throttled: ErrIQRateOverLimit
        (
            "failed to get device list: info query returned status 429: rate-overlimit",
            ErrorKind.RATE_LIMITED,
            RateLimit.OVERLIMIT,
        ),
        # those digits elsewhere are no refusal
        (
            "failed to get user info for 15554290463@s.whatsapp.net: websocket not connected",
            ErrorKind.NETWORK,
            None,
        ),
    ],
)
def test_library_exceptions_become_network_errors_with_the_library_message(
    tmp_path: Path, library_message: str, kind: ErrorKind, limit: RateLimit | None
) -> None:
    fake = FakeNetwork()

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device whose send fails in the library
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.side_effect = SendMessageError(library_message)
            # When it sends
            with pytest.raises(NetworkError) as raised:
                await session.sending.send_text("5511999998888", "hello")
            # Then the error is typed and carries the library's message; a rate refusal names
            # its limit and no time (whatsmeow reads only the code)
            assert raised.value.kind is kind
            assert (raised.value.rate_limit, raised.value.retry_at) == (limit, None)
            assert library_message in str(raised.value)
            await session.close()

    run(scenario())


def test_a_text_with_mentions_is_an_extended_text_naming_the_mentioned_people(tmp_path: Path) -> None:
    fake = FakeNetwork()
    mentioned = ["5511999998888@s.whatsapp.net"]

    async def scenario() -> None:
        with patched_client(fake):
            # Given a connected device
            session, _ = await connected(tmp_path, fake)
            fake.client.send_message.return_value = SendResponse(ID="3EB0C0FFEE", Timestamp=1_700_000_123)
            # When it sends a text that mentions someone in a group
            group = build_jid("120363000000000001", server="g.us")
            await session.sending.send_text(
                "120363000000000001@g.us", "hi @5511999998888", mentions=mentioned
            )
            # Then the message carries the mention where WhatsApp's clients look for it
            fake.client.send_message.assert_called_once_with(
                group,
                Message(
                    extendedTextMessage=ExtendedTextMessage(
                        text="hi @5511999998888", contextInfo=ContextInfo(mentionedJID=mentioned)
                    )
                ),
            )
            await session.close()

    run(scenario())
