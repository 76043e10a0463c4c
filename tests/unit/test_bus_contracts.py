"""The command bus's contracts: every command has typed arguments and a typed result, both
survive the wire, and what a side cannot read is refused, never misread."""

from __future__ import annotations

import json
import time
import types
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from gateway.bus import Command, CommandName, DeviceSnapshot, Reply, contracts
from gateway.bus.client import ReplyInbox
from gateway.bus.contracts import CONTRACTS, CommandArgs, CommandResult, Contract, Done, NoArgs
from gateway.bus.contracts import calls as calls_
from gateway.bus.contracts import contacts as c
from gateway.bus.contracts import groups as g
from gateway.bus.contracts import messages as m
from gateway.bus.contracts import profile as p
from gateway.bus.contracts import sessions as s
from gateway.bus.contracts import status as st
from gateway.bus.messages import (
    WIRE_VERSION,
    ErrorKind,
    Unreadable,
    UnreadableCommand,
    UnreadableReply,
    read_command,
    read_reply,
)
from gateway.messages import outbox

GROUP = "120363000000000001@g.us"
PERSON = "15551234567@s.whatsapp.net"
RECORD = g.GroupInfo(
    jid=GROUP,
    name="Trip",
    topic="",
    owner=None,
    created_at=1.5,
    is_announce=False,
    is_locked=False,
    join_approval=None,
    member_add_mode=g.MemberAddMode.ALL,
    ephemeral_duration=0,
    is_community=False,
    parent_jid=None,
    participants=[g.GroupMember(jid=PERSON, is_admin=True, lid="1@lid")],
)
SEND = outbox.new_send("t1", "d1", chat_jid=PERSON, text="hello")

# One example of the arguments and the result of every command (NoArgs and Done are implied).
ARGS: dict[CommandName, CommandArgs] = {
    CommandName.PAIR_PHONE: s.PairPhoneArgs(phone="15551234567"),
    CommandName.MARK_READ: m.MarkReadArgs(chat_jid=PERSON, sender_jid=PERSON, message_ids=["A", "B"]),
    CommandName.SEND_TEXT: m.SendTextArgs(send_key=SEND.send_key, send=SEND, min_send_interval_seconds=2),
    CommandName.DELETE_MESSAGE: m.DeleteMessageArgs(message_id="M1", chat_jid=PERSON, for_everyone=True),
    CommandName.SYNC_HISTORY: m.SyncHistoryArgs(chat_jid=PERSON, count=20),
    CommandName.CREATE_GROUP: g.CreateGroupArgs(
        name="Trip", participants=[PERSON], options=g.GroupOptionsArgs(community=True)
    ),
    CommandName.GROUP_INFO: g.GroupRef(group_jid=GROUP),
    CommandName.GROUP_PARTICIPANTS: g.ParticipantsArgs(
        group_jid=GROUP, action=g.ParticipantAction.PROMOTE, participants=[PERSON]
    ),
    CommandName.UPDATE_GROUP: g.UpdateGroupArgs(
        group_jid=GROUP, settings=g.GroupSettingsArgs(topic="", member_add_mode=g.MemberAddMode.ADMIN)
    ),
    CommandName.GROUP_PICTURE: g.PictureArgs(group_jid=GROUP, image_base64="/9j/4AAQ"),
    CommandName.GROUP_EPHEMERAL: g.EphemeralArgs(group_jid=GROUP, duration_seconds=86400),
    CommandName.GROUP_INVITE: g.InviteArgs(group_jid=GROUP, reset=True),
    CommandName.JOIN_GROUP: g.JoinArgs(code="AbC", group_jid=GROUP, inviter_jid=PERSON),
    CommandName.LEAVE_GROUP: g.GroupRef(group_jid=GROUP),
    CommandName.LINK_GROUP: g.CommunityLinkArgs(community_jid=GROUP, group_jid="120363000000000002@g.us"),
    CommandName.UNLINK_GROUP: g.CommunityLinkArgs(community_jid=GROUP, group_jid="120363000000000002@g.us"),
    CommandName.GROUP_REQUESTS: g.GroupRef(group_jid=GROUP),
    CommandName.ANSWER_GROUP_REQUESTS: g.PeopleArgs(
        group_jid=GROUP, action=g.RequestAction.REJECT, participants=[PERSON]
    ),
    CommandName.SET_STATUS_PRIVACY: st.StatusPrivacyArgs(type=st.PrivacyType.WHITELIST, list=[PERSON]),
    CommandName.PUBLISH_STATUS: st.PublishStatusArgs(
        kind="image", url="https://example.org/a.png", caption="x"
    ),
    # Presence and profile of the linked account.
    CommandName.SET_PRESENCE: p.SetPresenceArgs(state="available"),
    CommandName.SUBSCRIBE_PRESENCE: p.SubscribePresenceArgs(jid=PERSON),
    CommandName.UPDATE_PROFILE: p.UpdateProfileArgs(about="Answering 9-17"),
    CommandName.SET_PROFILE_PICTURE: p.ProfilePictureArgs(media_id="m1"),
    # Contacts.
    CommandName.CHECK_CONTACTS: c.CheckNumbersArgs(phones=["15551234567", "15557654321"]),
    CommandName.GET_CONTACT: c.ContactRef(jid="207180606656001@lid"),
    CommandName.BLOCK_CONTACT: c.ContactRef(jid=PERSON),
    CommandName.UNBLOCK_CONTACT: c.ContactRef(jid=PERSON),
    # Calls.
    CommandName.REJECT_CALL: calls_.RejectCallArgs(call_id="8C0E4B6A", caller=PERSON),
    # Reactions and edits.
    CommandName.REACT_MESSAGE: m.ReactArgs(
        message_id="N1", chat_jid=GROUP, emoji="👍", from_me=False, sender_jid=PERSON
    ),
    CommandName.EDIT_MESSAGE: m.EditMessageArgs(message_id="M1", chat_jid=PERSON, text="fixed"),
}
RESULTS: dict[CommandName, CommandResult] = {
    CommandName.QR: s.QrCode(qr_code="2@abc", expires_at=1.5),
    CommandName.PAIR_PHONE: s.PairCode(pair_code="ABCD-1234"),
    CommandName.PING: s.Pong(host_id="h1"),
    CommandName.SEND_TEXT: m.SendOutcome(
        status="scheduled", message_id="M1", chat_jid=PERSON, scheduled_for="2026-11-27T10:00:00.000Z"
    ),
    CommandName.DELETE_MESSAGE: m.DeletedMessage(
        message_id="M1", network_message_id="N1", chat_jid=PERSON, for_everyone=False
    ),
    CommandName.SYNC_HISTORY: m.HistoryRequested(chat_jid=PERSON, count=20),
    CommandName.CREATE_GROUP: g.GroupCreated(
        group=RECORD, participants=[g.MemberOutcome(jid=PERSON, status="ok")]
    ),
    CommandName.LIST_GROUPS: g.GroupList(groups=[RECORD]),
    CommandName.GROUP_INFO: g.OneGroup(group=RECORD),
    CommandName.GROUP_PARTICIPANTS: g.MemberOutcomes(participants=[g.MemberOutcome(jid=PERSON, status="ok")]),
    CommandName.UPDATE_GROUP: g.OneGroup(group=RECORD),
    CommandName.GROUP_PICTURE: g.PictureSet(picture_id="1700000001"),
    CommandName.GROUP_EPHEMERAL: g.EphemeralSet(duration_seconds=86400),
    CommandName.GROUP_INVITE: g.InviteLink(invite_link="https://chat.whatsapp.com/AbC"),
    CommandName.JOIN_GROUP: g.JoinOutcome(group_jid=None, pending_approval=True),
    CommandName.GROUP_REQUESTS: g.JoinRequestList(
        requests=[g.PendingJoinRequest(jid=PERSON, requested_at=1.5)]
    ),
    CommandName.ANSWER_GROUP_REQUESTS: g.MemberOutcomes(
        participants=[g.MemberOutcome(jid=PERSON, status="ok")]
    ),
    CommandName.GET_STATUS_PRIVACY: st.StatusPrivacySetting(type=st.PrivacyType.CONTACTS, list=[]),
    CommandName.SET_STATUS_PRIVACY: st.StatusPrivacySetting(type=st.PrivacyType.WHITELIST, list=[PERSON]),
    CommandName.PUBLISH_STATUS: st.PublishedStatus(
        message_id="N1", chat_jid="status@broadcast", timestamp=1.5
    ),
    # Presence and profile of the linked account.
    CommandName.SET_PRESENCE: p.PresenceSet(state="unavailable"),
    CommandName.SUBSCRIBE_PRESENCE: p.PresenceSubscribed(jid=PERSON),
    CommandName.GET_PROFILE: p.Profile(jid=PERSON, name="Ana", about=None, picture_url=None),
    CommandName.UPDATE_PROFILE: p.Profile(jid=PERSON, name=None, about="Answering 9-17", picture_url=None),
    CommandName.SET_PROFILE_PICTURE: p.ProfilePictureSet(picture_id="1700000001"),
    # Contacts.
    CommandName.CHECK_CONTACTS: c.NumberChecks(
        results=[
            c.NumberCheck(phone="15551234567", on_network=True, jid=PERSON, lid="1@lid"),
            c.NumberCheck(phone="15557654321", on_network=False),
        ]
    ),
    CommandName.GET_CONTACT: c.ContactInfo(
        jid=None, lid="1@lid", name="Ann", about=None, picture_url=None, is_business=False
    ),
    CommandName.BLOCK_CONTACT: c.BlockState(jid=PERSON, blocked=True),
    CommandName.UNBLOCK_CONTACT: c.BlockState(jid=PERSON, blocked=False),
    CommandName.GET_BLOCKLIST: c.Blocklist(jids=[PERSON]),
    # Calls.
    CommandName.REJECT_CALL: calls_.CallRejected(call_id="8C0E4B6A"),
    # Reactions and edits.
    CommandName.REACT_MESSAGE: m.Reacted(message_id="N1", chat_jid=GROUP, emoji=""),
    CommandName.EDIT_MESSAGE: m.EditedMessage(message_id="M1", network_message_id="N1", chat_jid=PERSON),
}


def _args(name: CommandName) -> CommandArgs:
    return ARGS.get(name) or CONTRACTS[name].args()


def _result(name: CommandName) -> CommandResult:
    return RESULTS.get(name) or CONTRACTS[name].result()


def _wire(name: str = "group_info", **changed: Any) -> str:
    body = {
        "v": WIRE_VERSION,
        "name": name,
        "tenant_id": "t1",
        "device_id": "d1",
        "deadline": time.time() + 30,
        "reply_to": "https://sqs/replies",
        "args": {"group_jid": GROUP},
        "id": "command-1",
    }
    return json.dumps(body | changed)


def test_every_command_has_a_contract_under_its_own_name() -> None:
    # Given every command the bus carries, Then the table gives each one its contract
    assert set(CONTRACTS) == set(CommandName)
    assert all(contract.name is name for name, contract in CONTRACTS.items())
    # And the named constants are the table's
    named = {value.name: value for value in vars(contracts).values() if isinstance(value, Contract)}
    assert named == dict(CONTRACTS)


def test_every_example_is_of_its_commands_contract() -> None:
    # The examples below exercise every model: each is its command's (a test that cannot lie)
    for name in CommandName:
        assert type(_args(name)) is CONTRACTS[name].args, name
        assert type(_result(name)) is CONTRACTS[name].result, name
    no_args = {name for name, contract in CONTRACTS.items() if contract.args is NoArgs}
    no_result = {name for name, contract in CONTRACTS.items() if contract.result is Done}
    assert no_args.isdisjoint(ARGS)
    assert no_result.isdisjoint(RESULTS)


def _nullable_fields(model: type[BaseModel]) -> list[tuple[str, Any]]:
    found = []
    for field_name, info in model.model_fields.items():
        annotation = info.annotation
        if typing.get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in typing.get_args(
            annotation
        ):
            found.append((f"{model.__name__}.{field_name}", info.default))
        for inner in typing.get_args(annotation) or (annotation,):
            if isinstance(inner, type) and issubclass(inner, BaseModel) and inner is not model:
                found += _nullable_fields(inner)
    return found


def test_every_argument_that_may_be_null_defaults_to_null() -> None:
    # Commands leave null arguments off the wire, so a field that may be null must read an
    # absent field as null
    for contract in CONTRACTS.values():
        wrong = [
            (field, default) for field, default in _nullable_fields(contract.args) if default is not None
        ]
        assert not wrong, f"{contract.name.value}: {wrong}"


@pytest.mark.parametrize("name", list(CommandName))
def test_a_command_and_its_reply_survive_the_wire(name: CommandName) -> None:
    contract = CONTRACTS[name]
    # Given a command with its typed arguments
    command = Command(name, "t1", "d1", deadline=time.time() + 30, args=_args(name), reply_to="https://sqs/r")
    # When the host reads it off the wire, Then it has the same command with the same arguments
    read = read_command(command.to_json())
    assert read == command
    assert type(read.args) is contract.args
    # And when the host answers with its typed result and the API reads it, Then it is the same
    snapshot = DeviceSnapshot("connected", True, True, PERSON)
    reply = Reply.success(command, _result(name), snapshot)
    received = read_reply(json.loads(reply.to_json()), contract.result)
    assert received == reply


def test_the_wire_keeps_todays_field_names() -> None:
    # The simulator, the neonize adapter and older tests read these names
    args = g.ParticipantsArgs(group_jid=GROUP, action=g.ParticipantAction.ADD, participants=[PERSON])
    command = Command(CommandName.GROUP_PARTICIPANTS, "t1", "d1", deadline=1.0, args=args, id="c1")
    assert json.loads(command.to_json()) == {
        "v": WIRE_VERSION,
        "name": "group_participants",
        "tenant_id": "t1",
        "device_id": "d1",
        "deadline": 1.0,
        "reply_to": None,
        "args": {"group_jid": GROUP, "action": "add", "participants": [PERSON]},
        "id": "c1",
    }


@pytest.mark.parametrize("version", [None, 0, 2, "1"])
def test_a_command_of_another_version_is_refused_with_what_answers_it(version: Any) -> None:
    # Given a command written by a side of another wire version (or none)
    body = _wire(v=version)
    # When the host reads it, Then it is refused as such, never read as a version-1 command
    with pytest.raises(UnreadableCommand) as refused:
        read_command(body)
    unreadable = refused.value
    assert unreadable.why is Unreadable.VERSION
    # And the refusal keeps what answering it needs
    assert (unreadable.command_id, unreadable.reply_to, unreadable.name) == (
        "command-1",
        "https://sqs/replies",
        "group_info",
    )
    assert unreadable.deadline is not None


@pytest.mark.parametrize("version", [None, 2])
def test_a_reply_of_another_version_is_refused(version: Any) -> None:
    raw = {"v": version, "command_id": "c1", "ok": True, "result": {"host_id": "h"}}
    with pytest.raises(UnreadableReply) as refused:
        read_reply(raw, s.Pong)
    # And what the API makes of it is the host's failure, not a result
    failure = refused.value.as_reply()
    assert (failure.command_id, failure.ok, failure.error_kind) == ("c1", False, ErrorKind.HOST_ERROR)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (CommandName.GROUP_INFO, {"group_jid": "12025550100@s.whatsapp.net"}),
        (CommandName.GROUP_PARTICIPANTS, {"group_jid": GROUP, "action": "kick", "participants": []}),
        (CommandName.GROUP_PARTICIPANTS, {"group_jid": GROUP, "action": "add", "participants": ["+1 202"]}),
        (CommandName.UPDATE_GROUP, {"group_jid": GROUP, "settings": {}}),
        (CommandName.UPDATE_GROUP, {"group_jid": GROUP, "settings": {"colour": "red"}}),
        (CommandName.GROUP_PICTURE, {"group_jid": GROUP, "image_base64": "not base64!"}),
        (CommandName.GROUP_EPHEMERAL, {"group_jid": GROUP, "duration_seconds": "86400"}),
        (CommandName.CREATE_GROUP, {"name": "", "participants": []}),
        (CommandName.JOIN_GROUP, {"code": "abc", "inviter_jid": "nobody"}),
        (CommandName.DELETE_MESSAGE, {"message_id": "NET1", "chat_jid": PERSON}),
        (CommandName.DELETE_MESSAGE, {"message_id": "", "chat_jid": PERSON, "for_everyone": True}),
        (CommandName.SYNC_HISTORY, {"chat_jid": PERSON, "count": 0}),
        (CommandName.SYNC_HISTORY, {"chat_jid": PERSON, "count": 51}),
        (CommandName.SYNC_HISTORY, {"chat_jid": PERSON, "count": True}),
        (CommandName.SYNC_HISTORY, {"chat_jid": "", "count": 5}),
        (CommandName.MARK_READ, {"chat_jid": PERSON, "sender_jid": PERSON, "message_ids": []}),
        (CommandName.PAIR_PHONE, {}),
        (CommandName.SEND_TEXT, {"send": {"text": "half"}}),
        (CommandName.SET_STATUS_PRIVACY, {"type": "friends", "list": []}),
        (CommandName.SET_STATUS_PRIVACY, {"type": "blacklist"}),
        (CommandName.PUBLISH_STATUS, {"kind": "audio", "media_id": "m1"}),
        (CommandName.PUBLISH_STATUS, {"kind": "image"}),
        (CommandName.PUBLISH_STATUS, {"kind": "image", "media_id": "m1", "url": "https://example.org/a"}),
        (CommandName.PUBLISH_STATUS, {"kind": "text"}),
        (CommandName.CONNECT, {"phone": "15551234567"}),
    ],
)
def test_arguments_out_of_the_contract_are_refused_before_any_handler(
    name: CommandName, args: dict[str, Any]
) -> None:
    # Given a command whose arguments are not its contract's
    body = _wire(name.value, args=args)
    # When the host reads it, Then it is refused there (the dispatcher answers host_error)
    with pytest.raises(UnreadableCommand) as refused:
        read_command(body)
    assert refused.value.why is Unreadable.ARGS
    assert refused.value.command_id == "command-1"


def test_a_refusal_names_the_fields_never_their_values() -> None:
    body = _wire("mark_read", args={"chat_jid": PERSON, "text": "words of the tenant"})
    with pytest.raises(UnreadableCommand) as refused:
        read_command(body)
    assert "text" in str(refused.value)
    assert "words of the tenant" not in str(refused.value)


@pytest.mark.parametrize(
    "body",
    ["not json", "[1, 2]", _wire(id=None), _wire(name="teleport")],
    ids=["not json", "not an object", "no id", "unknown command"],  # the bodies hold a time: not ids
)
def test_a_message_that_is_no_command_of_this_host_is_refused(body: str) -> None:
    with pytest.raises(UnreadableCommand) as refused:
        read_command(body)
    assert refused.value.why in {Unreadable.MALFORMED, Unreadable.NAME}


class _Queue:
    """An SQS reply queue holding one message."""

    def __init__(self, body: str) -> None:
        self.messages = [{"MessageId": "m1", "Body": body}]

    def receive_message(self, **_: Any) -> dict[str, Any]:
        messages, self.messages = self.messages, []
        return {"Messages": messages}


@pytest.mark.parametrize(
    "result",
    [{"qr_code": "2@abc"}, {"qr_code": "", "expires_at": 1.5}, {"qr_code": "2@abc", "expires_at": "soon"}],
)
def test_a_result_out_of_the_contract_reaches_the_caller_as_an_incomplete_answer(
    result: dict[str, Any],
) -> None:
    # Given a host that answers QR with an incomplete result
    device = {"status": "pairing", "is_connected": True, "is_logged_in": False, "messaging_jid": None}
    body = json.dumps({"v": WIRE_VERSION, "command_id": "c1", "ok": True, "result": result, "device": device})
    inbox = ReplyInbox(_Queue(body), "https://sqs/replies")
    inbox.expect("c1", s.QrCode)
    # When the caller waits for it, Then it gets at once a success without a result (what
    # gateway.devices.commands answers with the failure table's incomplete answer), never a
    # result it would index (a 500 with a stack trace before) nor a wait until the deadline
    reply = inbox.wait("c1", time.time() + 5)
    assert reply is not None
    assert (reply.ok, reply.error_kind, reply.result) == (True, None, None)
    # And the device's state it carried is kept
    assert reply.device is not None
    assert reply.device.status == "pairing"
