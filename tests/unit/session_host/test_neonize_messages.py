"""The neonize adapter's message payloads: received messages, receipts, undecryptable ones.

Events are built from neonize's own protobuf classes, as the Go bridge hands them to Python.
"""

from __future__ import annotations

import pytest
from fakes_neonize import CTX, GROUP, MESSAGE_MS, OWN, PEER_LID, PEER_PHONE, jid, message_event, source
from neonize.events import IdentityChangeEv, PictureEv, ReceiptEv, UndecryptableMessageEv
from neonize.proto.Neonize_pb2 import MessageInfo
from neonize.proto.waCommon.WACommon_pb2 import MessageKey
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import (
    ContactMessage,
    DocumentMessage,
    ExtendedTextMessage,
    FutureProofMessage,
    ImageMessage,
    LocationMessage,
    Message,
    PollCreationMessage,
    ProtocolMessage,
    ReactionMessage,
    SecretEncryptedMessage,
)

from session_host.network.neonize import events
from session_host.network.neonize.content import describe_message

# --- message.received ---------------------------------------------------------------------


def test_direct_text_from_a_lid_sender_uses_the_phone_jid_and_millisecond_timestamp() -> None:
    # Given a text in a one-to-one chat whose sender arrives as a LID with its phone JID alt
    ev = message_event(source(PEER_LID, PEER_LID, sender_alt=PEER_PHONE), Message(conversation="oi"))
    # When it is mapped
    event = events.message_received(CTX, ev)
    # Then sender and chat are the phone JID, and the milliseconds become ISO 8601 UTC
    assert event is not None
    assert (event.name, dict(event.data)) == (
        "message.received",
        {
            "message_id": "3EB0AA11",
            "from": "5511999998888@s.whatsapp.net",
            "to": OWN,
            "content": "oi",
            "message_type": "text",
            "is_from_me": False,
            "push_name": "Maria",
            "timestamp": "2023-11-14T22:13:20.456Z",
            "chat_jid": "5511999998888@s.whatsapp.net",
            "is_group": False,
            "quoted": None,
        },
    )


def test_group_text_from_a_lid_participant_names_the_participant_and_the_group() -> None:
    # Given an extended text in a group, sent by a LID participant with a phone alt
    message = Message(extendedTextMessage=ExtendedTextMessage(text="hello all"))
    ev = message_event(source(GROUP, PEER_LID, group=True, sender_alt=PEER_PHONE), message)
    # When it is mapped
    data = events.message_received(CTX, ev).data
    # Then it comes from the participant's phone JID and goes to the group
    assert (data["from"], data["to"], data["chat_jid"], data["is_group"]) == (
        "5511999998888@s.whatsapp.net",
        "120363000000000001@g.us",
        "120363000000000001@g.us",
        True,
    )
    assert (data["content"], data["message_type"]) == ("hello all", "text")


def test_lid_sender_without_a_phone_alt_stays_a_lid() -> None:
    # Given a group message from a LID the store cannot resolve
    ev = message_event(source(GROUP, PEER_LID, group=True), Message(conversation="x"))
    # When it is mapped
    data = events.message_received(CTX, ev).data
    # Then the LID is kept rather than invented
    assert data["from"] == "207180606656725@lid"


def test_message_sent_from_the_phone_itself_comes_from_the_device_account() -> None:
    # Given a message this account sent from its phone (device part in the sender)
    ev = message_event(
        source(PEER_PHONE, jid("12025550123", device=0), from_me=True), Message(conversation="sent")
    )
    # When it is mapped
    data = events.message_received(CTX, ev).data
    # Then it goes from the account to the chat
    assert (data["from"], data["to"], data["is_from_me"]) == (OWN, "5511999998888@s.whatsapp.net", True)


def test_device_part_of_a_jid_is_dropped() -> None:
    # Given a sender JID carrying a device number
    ev = message_event(
        source(jid("5511999998888", device=12), jid("5511999998888", device=12)), Message(conversation="x")
    )
    # When it is mapped, Then the JID is rendered user@server
    assert events.message_received(CTX, ev).data["from"] == "5511999998888@s.whatsapp.net"


ANA_VCARD = "BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nTEL;type=CELL;waid=5511988887777:+55 11 98888-7777\nEND:VCARD"


@pytest.mark.parametrize(
    ("message", "message_type", "content", "extra"),
    [
        (
            Message(
                imageMessage=ImageMessage(
                    mimetype="image/jpeg", caption="look", fileLength=2048, fileSHA256=b"\x01\xab"
                )
            ),
            "image",
            "look",
            {
                "media": {
                    "mime_type": "image/jpeg",
                    "caption": "look",
                    "file_length": 2048,
                    "media_path": None,
                    "size": 2048,
                    "sha256": "01ab",
                    "filename": None,
                }
            },
        ),
        (
            Message(
                documentWithCaptionMessage=FutureProofMessage(
                    message=Message(
                        documentMessage=DocumentMessage(
                            mimetype="application/pdf", fileName="a.pdf", caption="doc"
                        )
                    )
                )
            ),
            "document",
            "doc",
            {
                "media": {
                    "mime_type": "application/pdf",
                    "caption": "doc",
                    "file_length": 0,
                    "media_path": None,
                    "size": 0,
                    "sha256": "",
                    "filename": "a.pdf",
                },
                "document": {"file_name": "a.pdf", "page_count": 0},
            },
        ),
        (
            Message(
                locationMessage=LocationMessage(degreesLatitude=-23.5, degreesLongitude=-46.6, name="Office")
            ),
            "location",
            "Office",
            {
                "location": {
                    "latitude": -23.5,
                    "longitude": -46.6,
                    "name": "Office",
                    "address": "",
                    "is_live": False,
                }
            },
        ),
        (
            Message(contactMessage=ContactMessage(displayName="Ana", vcard=ANA_VCARD)),
            "contact",
            "Ana",
            {
                "contact": {
                    "name": "Ana",
                    "phone": "5511988887777",
                    "display_name": "Ana",
                    "vcard": ANA_VCARD,
                    "error": None,
                }
            },
        ),
        (
            Message(
                pollCreationMessageV3=PollCreationMessage(
                    name="Lunch?",
                    options=[
                        PollCreationMessage.Option(optionName="yes"),
                        PollCreationMessage.Option(optionName="no"),
                    ],
                    selectableOptionsCount=1,
                )
            ),
            "poll",
            "Lunch?",
            {"poll": {"name": "Lunch?", "options": ["yes", "no"], "selectable_count": 1}},
        ),
    ],
    ids=["image", "document-with-caption", "location", "contact", "poll"],
)
def test_non_text_messages_fill_their_type_content_and_sub_object(
    message: Message, message_type: str, content: str, extra: dict
) -> None:
    # Given a received message of a given kind
    ev = message_event(source(PEER_PHONE, PEER_PHONE), message)
    # When it is mapped
    data = dict(events.message_received(CTX, ev).data)
    # Then type, content and the kind's own sub-object are filled
    assert (data["message_type"], data["content"]) == (message_type, content)
    assert {key: data[key] for key in extra} == extra


def test_protocol_messages_are_not_received_messages() -> None:
    # Given a revoke (protocol message) and an empty message
    revoke = Message(protocolMessage=ProtocolMessage(type=ProtocolMessage.REVOKE))
    # When they are described, Then neither becomes message.received
    assert describe_message(revoke) is None
    assert describe_message(Message()) is None
    assert events.message_received(CTX, message_event(source(PEER_PHONE, PEER_PHONE), revoke)) is None


# --- receipts -----------------------------------------------------------------------------


def test_delivery_receipt_maps_to_message_delivered() -> None:
    # Given a delivery receipt for two messages in a one-to-one chat (LID with phone alt)
    ev = ReceiptEv(
        MessageSource=source(PEER_LID, PEER_LID, sender_alt=PEER_PHONE),
        MessageIDs=["ID1", "ID2"],
        Timestamp=1_700_000_000,
        Type=ReceiptEv.DELIVERED,
    )
    # When it is mapped, Then the payload matches the spec (seconds → ISO 8601)
    event = events.receipt(CTX, ev)
    assert (event.name, dict(event.data)) == (
        "message.delivered",
        {
            "message_ids": ["ID1", "ID2"],
            "gateway_message_ids": [],  # the session host's to fill (outbox_names.py)
            "chat_jid": "5511999998888@s.whatsapp.net",
            "receipt_type": "delivered",
            "message_count": 2,
            "is_group": False,
            "delivered_at": "2023-11-14T22:13:20.000Z",
        },
    )


def test_read_receipt_in_a_group_names_the_reader() -> None:
    # Given a read receipt in a group from a LID participant with a phone alt
    ev = ReceiptEv(
        MessageSource=source(GROUP, PEER_LID, group=True, sender_alt=PEER_PHONE),
        MessageIDs=["ID1"],
        Timestamp=1_700_000_060,
        Type=ReceiptEv.READ,
    )
    # When it is mapped
    event = events.receipt(CTX, ev)
    # Then it is message.read with the reader's phone JID
    assert (event.name, dict(event.data)) == (
        "message.read",
        {
            "message_ids": ["ID1"],
            "gateway_message_ids": [],
            "chat_jid": "120363000000000001@g.us",
            "receipt_type": "read",
            "message_count": 1,
            "is_group": True,
            "read_at": "2023-11-14T22:14:20.000Z",
            "reader": "5511999998888@s.whatsapp.net",
        },
    )


@pytest.mark.parametrize("receipt_type", [ReceiptEv.PLAYED, ReceiptEv.READ_SELF, ReceiptEv.RETRY, None])
def test_other_receipt_types_are_not_emitted(receipt_type: int | None) -> None:
    # Given a receipt that is neither delivered nor read (or has no type at all)
    ev = ReceiptEv(MessageSource=source(PEER_PHONE, PEER_PHONE), MessageIDs=["ID1"], Timestamp=1)
    if receipt_type is not None:
        ev.Type = receipt_type
    # When it is mapped, Then nothing is emitted
    assert events.receipt(CTX, ev) is None


def test_undecryptable_message_uses_millisecond_timestamp() -> None:
    # Given a message the device could not decrypt
    info = MessageInfo(MessageSource=source(PEER_PHONE, PEER_PHONE), ID="3EB0BAD", Timestamp=MESSAGE_MS)
    ev = UndecryptableMessageEv(
        Info=info, IsUnavailable=True, DecryptFailMode=UndecryptableMessageEv.DECRYPT_FAIL_SHOW
    )
    # When it is mapped
    event = events.undecryptable(CTX, ev)
    # Then it is reported with who sent it and when
    assert (event.name, dict(event.data)) == (
        "message.undecryptable",
        {
            "message_id": "3EB0BAD",
            "from": "5511999998888@s.whatsapp.net",
            "chat_jid": "5511999998888@s.whatsapp.net",
            "is_group": False,
            "is_unavailable": True,
            "hidden": False,
            "timestamp": "2023-11-14T22:13:20.456Z",
        },
    )


# --- edits and unknown times -------------------------------------------------------------

GO_ZERO_SECONDS = -62135596800  # Go's time.Time{} as Unix seconds (year 1)


def _edit_protocol(original_id: str, text: str, at_ms: int) -> Message:
    return Message(
        protocolMessage=ProtocolMessage(
            key=MessageKey(ID=original_id, fromMe=False),
            type=ProtocolMessage.MESSAGE_EDIT,
            editedMessage=Message(conversation=text),
            timestampMS=at_ms,
        )
    )


def test_an_edit_as_whatsmeow_unwraps_it_is_message_edited_with_the_original_id() -> None:
    # Given whatsmeow's edit: IsEdit, the new content in Message, the original id only in Raw
    raw = Message(
        editedMessage=FutureProofMessage(message=_edit_protocol("3EB0ORIGINAL", "fixed", MESSAGE_MS + 5000))
    )
    ev = message_event(source(PEER_LID, PEER_LID, sender_alt=PEER_PHONE), Message(conversation="fixed"))
    ev.Info.ID = "3EB0THEEDIT"
    ev.IsEdit = True
    ev.Raw.CopyFrom(raw)
    # When it is mapped
    event = events.message(CTX, ev)
    # Then it is message.edited naming the original message, never a new message.received
    assert event is not None
    assert (event.name, dict(event.data)) == (
        "message.edited",
        {
            "message_id": "3EB0ORIGINAL",
            "chat_jid": "5511999998888@s.whatsapp.net",
            "from": "5511999998888@s.whatsapp.net",
            "content": "fixed",
            "is_from_me": False,
            "edited_at": "2023-11-14T22:13:25.456Z",
        },
    )


def test_an_edit_still_wrapped_in_its_protocol_message_is_read_the_same() -> None:
    # Given the protocol form of an edit (Message is the MESSAGE_EDIT protocol message itself)
    ev = message_event(source(PEER_PHONE, PEER_PHONE), _edit_protocol("3EB0ORIGINAL", "again", 0))
    ev.IsEdit = True
    # When it is mapped
    event = events.message(CTX, ev)
    # Then the original id and the new text come from inside it; the time is the message's
    assert event is not None
    assert (event.name, event.data["message_id"], event.data["content"]) == (
        "message.edited",
        "3EB0ORIGINAL",
        "again",
    )
    assert event.data["edited_at"] == "2023-11-14T22:13:20.456Z"


def test_a_text_is_still_a_received_message() -> None:
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(conversation="hello"))
    event = events.message(CTX, ev)
    assert event is not None
    assert event.name == "message.received"


def test_gos_zero_time_is_null_never_year_one() -> None:
    # Given events whose times the network did not give (Go's zero time, or 0)
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(conversation="hello"))
    ev.Info.Timestamp = GO_ZERO_SECONDS * 1000
    receipt = ReceiptEv(MessageSource=source(PEER_PHONE, PEER_PHONE), MessageIDs=["A"], Type=ReceiptEv.READ)
    receipt.Timestamp = GO_ZERO_SECONDS
    identity = IdentityChangeEv(JID=jid(PEER_PHONE.User), Timestamp=GO_ZERO_SECONDS, Implicit=True)
    picture = PictureEv(JID=jid(PEER_PHONE.User), Author=jid(PEER_PHONE.User), Timestamp=0, Remove=False)
    undecryptable = UndecryptableMessageEv(
        Info=MessageInfo(
            MessageSource=source(PEER_PHONE, PEER_PHONE), ID="U", Timestamp=GO_ZERO_SECONDS * 1000
        )
    )
    # When they are mapped
    mapped = [
        events.message(CTX, ev),
        events.receipt(CTX, receipt),
        events.identity_change(CTX, identity),
        events.picture(CTX, picture),
        events.undecryptable(CTX, undecryptable),
    ]
    # Then every time is null
    times = [(e.name, e.data[k]) for e in mapped if e for k in ("timestamp", "read_at") if k in e.data]
    assert times == [
        ("message.received", None),
        ("message.read", None),
        ("identity.change", None),
        ("contact.picture", None),
        ("message.undecryptable", None),
    ]


def test_an_edit_encrypted_with_the_message_secret_is_reported_with_unknown_text() -> None:
    # Given an edit the network sent encrypted with the original's secret (neonize cannot decrypt it)
    secret = SecretEncryptedMessage(
        targetMessageKey=MessageKey(ID="3EB0ORIGINAL"),
        encPayload=b"\x00" * 16,
        encIV=b"\x00" * 12,
        secretEncType=SecretEncryptedMessage.MESSAGE_EDIT,
    )
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(secretEncryptedMessage=secret))
    ev.Info.ID = "3EB0THEEDIT"
    # When it is mapped
    event = events.message(CTX, ev)
    # Then it is an edit of the original, its text unknown, never a new message of unknown type
    assert event is not None
    assert (event.name, event.data["message_id"], event.data["content"]) == (
        "message.edited",
        "3EB0ORIGINAL",
        None,
    )


# --- reactions ---------------------------------------------------------------------------


def test_a_reaction_is_message_reaction_naming_the_message_reacted_to() -> None:
    # Given a group member's reaction (its own id in Info.ID, the message reacted to in its key)
    reaction = ReactionMessage(
        key=MessageKey(ID="3EB0ORIGINAL", fromMe=True), text="👍", senderTimestampMS=MESSAGE_MS + 2000
    )
    ev = message_event(
        source(GROUP, PEER_LID, group=True, sender_alt=PEER_PHONE), Message(reactionMessage=reaction)
    )
    ev.Info.ID = "3EB0THEREACTION"
    # When it is mapped
    event = events.message(CTX, ev)
    # Then it is message.reaction, never a message.received, from the member's phone JID
    assert event is not None
    assert (event.name, dict(event.data)) == (
        "message.reaction",
        {
            "message_id": "3EB0ORIGINAL",
            "chat_jid": "120363000000000001@g.us",
            "from": "5511999998888@s.whatsapp.net",
            "emoji": "👍",
            "is_from_me": False,
            "timestamp": "2023-11-14T22:13:22.456Z",
        },
    )


def test_a_reaction_removed_has_an_empty_emoji_and_the_message_time_when_it_has_none() -> None:
    # Given a reaction taken back (empty text) without a sender timestamp
    reaction = ReactionMessage(key=MessageKey(ID="3EB0ORIGINAL"), text="")
    ev = message_event(source(PEER_PHONE, PEER_PHONE), Message(reactionMessage=reaction))
    # When it is mapped
    event = events.message(CTX, ev)
    # Then the emoji is empty and the time is the message's
    assert event is not None
    assert (event.data["emoji"], event.data["timestamp"]) == ("", "2023-11-14T22:13:20.456Z")
