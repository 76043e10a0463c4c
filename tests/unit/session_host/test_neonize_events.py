"""The neonize adapter's other payloads and conversions: pairing, presence, JIDs, errors, catalog.

Events are built from neonize's own protobuf classes, as the Go bridge hands them to Python.
"""

from __future__ import annotations

import pytest
from fakes_neonize import CTX, DEVICE_ID, GROUP, MESSAGE_MS, OWN, PEER_LID, PEER_PHONE, jid, source
from neonize.events import PairStatusEv
from neonize.exc import PairPhoneError
from neonize.proto.Neonize_pb2 import JID, ChatPresence, ConnectFailureReason, LoggedOut, Presence

from gateway.failures.kinds import ErrorKind
from session_host.network.neonize import PRODUCED_EVENTS, UNAVAILABLE_EVENTS, events
from session_host.network.neonize.errors import library_error
from session_host.network.neonize.jids import full_jid_str, iso_from_millis, jid_str, parse_jid
from session_host.network.payloads import iso_utc
from session_host.network.port import NetworkError

# --- pairing, presence ---------------------------------------------------------------------


def test_pair_success_names_the_account_and_its_platform() -> None:
    # Given a pair success from the network (account JID with its device part)
    success = PairStatusEv(
        ID=jid("12025550123", device=7), Platform="android", BusinessName="", Status=PairStatusEv.SUCCESS
    )
    # When it is mapped
    event = events.pair_success(CTX, success)
    # Then the JID is rendered user@server and the platform is the phone's
    assert (event.name, dict(event.data)) == (
        "pair.success",
        {"device_id": DEVICE_ID, "messaging_jid": OWN, "platform": "android", "business_name": ""},
    )


def test_logged_out_reason_names_the_network_reason() -> None:
    # Given logouts with and without a reason
    gone = LoggedOut(OnConnect=True, Reason=ConnectFailureReason.Value("MAIN_DEVICE_GONE"))
    # When the reason is read, Then it is the lowercase name, "logged_out" by default
    assert events.logged_out_reason(gone) == "main_device_gone"
    assert events.logged_out_reason(LoggedOut(OnConnect=False)) == "logged_out"


def test_chat_and_contact_presence() -> None:
    # Given a typing indicator in a group and a contact going offline
    typing = ChatPresence(
        MessageSource=source(GROUP, PEER_LID, group=True, sender_alt=PEER_PHONE),
        State=ChatPresence.COMPOSING,
        Media=ChatPresence.TEXT,
    )
    offline = Presence(From=PEER_PHONE, Unavailable=True, LastSeen=1_700_000_000)
    # When they are mapped, Then the payloads name chat, person and state
    assert dict(events.chat_presence(CTX, typing).data) == {
        "chat_jid": "120363000000000001@g.us",
        "sender": "5511999998888@s.whatsapp.net",
        "is_group": True,
        "state": "composing",
        "media": "text",
    }
    assert dict(events.presence(CTX, offline).data) == {
        "jid": "5511999998888@s.whatsapp.net",
        "available": False,
        "last_seen": "2023-11-14T22:13:20.000Z",
    }


# --- conversions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("5511999998888", jid("5511999998888")),
        ("5511999998888@s.whatsapp.net", jid("5511999998888")),
        ("120363000000000001@g.us", GROUP),
        ("207180606656725@lid", PEER_LID),
        ("5511999998888:3@s.whatsapp.net", jid("5511999998888", device=3)),
        ("status@broadcast", jid("status", "broadcast")),
    ],
)
def test_parse_jid_accepts_phone_digits_and_jids(value: str, expected: JID) -> None:
    # Given a phone number or JID string, When it is parsed, Then it is neonize's JID
    assert parse_jid(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "",
        "+5511999998888",
        "12345",
        "abc@example.com",
        "5511@c.us",
        "a b@g.us",
        " 5511999998888",  # refused, not trimmed: the same rule as the API's (gateway.jids)
        "05511999998888",
        "5511999998888@S.WHATSAPP.NET",
    ],
)
def test_parse_jid_refuses_anything_else(value: str) -> None:
    # Given an unusable address, When it is parsed, Then INVALID is raised
    with pytest.raises(NetworkError) as raised:
        parse_jid(value)
    assert raised.value.kind is ErrorKind.INVALID


def test_agent_and_device_parts_survive_the_round_trip() -> None:
    # Given a device JID with an agent, as whatsmeow writes it
    text = "5511999998888.1:3@s.whatsapp.net"
    # When it is parsed, Then the protobuf has each part, and writing it gives the text back
    parsed = parse_jid(text)
    assert (parsed.User, parsed.RawAgent, parsed.Device, parsed.Server) == (
        "5511999998888",
        1,
        3,
        "s.whatsapp.net",
    )
    assert full_jid_str(parsed) == text
    assert jid_str(parsed) == "5511999998888@s.whatsapp.net"


def test_timestamps_render_as_iso_8601_utc_with_milliseconds() -> None:
    # Given seconds and milliseconds of the same instant, Then both render the same way
    assert iso_utc(1_700_000_000.456) == iso_from_millis(MESSAGE_MS) == "2023-11-14T22:13:20.456Z"


@pytest.mark.parametrize(
    ("message", "phone", "kind"),
    [
        ("failed to send: websocket disconnected", False, ErrorKind.NETWORK),
        ("server returned error 429: rate-overlimit", False, ErrorKind.RATE_LIMITED),
        ("context deadline exceeded", False, ErrorKind.TIMEOUT),
        ("phone number too short", True, ErrorKind.INVALID),
        ("phone number too short", False, ErrorKind.NETWORK),
    ],
)
def test_library_errors_keep_their_message_and_get_a_kind(message: str, phone: bool, kind: ErrorKind) -> None:
    # Given an exception raised by neonize, When it is converted
    error = library_error("pair phone", PairPhoneError(message), phone=phone)
    # Then the kind follows the message, which is kept
    assert error.kind is kind
    assert str(error) == f"pair phone failed: {message}"


# --- catalog ------------------------------------------------------------------------------

SPEC_CATALOG = {
    "message.received", "message.sent", "message.delivered", "message.read", "message.undecryptable",
    "message.edited", "message.delete_for_me", "mention.sent", "media.retry",
    "poll.vote",
    "message.reaction",
    "device.connected", "device.disconnected", "device.logged_out", "connection.pair_error",
    "connection.stream_replaced", "connection.failure", "connection.temporary_ban",
    "connection.manual_reconnect", "connection.keepalive_timeout", "connection.keepalive_restored",
    "qr.generated", "pair.success", "pair.passkey_request", "pair.passkey_confirmation", "pair.passkey_error",
    "device.send_limited",
    "contact.presence", "contact.changed", "contact.pushname", "contact.about", "contact.picture",
    "chat.presence", "chat.mark_as_read", "chat.pin", "chat.mute", "chat.archive", "chat.delete",
    "chat.clear",
    "group.info", "group.joined",
    "call.offer", "call.accept", "call.pre_accept", "call.reject", "call.terminate", "call.relay_latency",
    "call.transport", "call.unknown",
    "identity.change", "privacy.blocklist", "privacy.settings",
    "settings.unarchive_chats", "settings.user_status_mute", "label.edit", "label.association_chat",
    "label.association_message",
    "newsletter.join", "newsletter.leave", "newsletter.live_update", "newsletter.mute_change",
    "history.sync", "offline.sync_preview", "offline.sync_completed", "app_state.sync_complete",
}  # fmt: skip


def test_every_catalog_event_is_either_produced_or_explained() -> None:
    # Given the spec's event catalog
    # When it is compared with what the adapter declares
    # Then every event is produced or has a reason, never both, and nothing is invented
    assert PRODUCED_EVENTS.isdisjoint(UNAVAILABLE_EVENTS)
    assert PRODUCED_EVENTS | set(UNAVAILABLE_EVENTS) == SPEC_CATALOG
