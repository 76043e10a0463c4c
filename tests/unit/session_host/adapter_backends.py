"""The two adapters behind one face, for the contract suite (``test_adapter_contract_*.py``).

A :class:`Backend` gives a connected device session of the account ``DEVICE_JID`` on its
adapter, and plays the rest of the network (other people creating groups, joining by link)
through the same rules on both sides:

* **simulated**: a real :class:`SimulatedNetwork` (test-sized timings); other people act
  through its control methods, as the simulator's control API does;
* **neonize**: the real ``NeonizeSession`` in front of an autospec ``NewClient`` whose group
  calls are answered by the simulated network's pure rules (``fakes_neonize_network``), with
  neonize's own protobufs and whatsmeow's error messages; other people act on those rules.

So each scenario meets the same network on both adapters; what differs is what the adapter
can do, declared in :attr:`Backend.unsupported` and answered ``UNSUPPORTED`` there.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

from fakes_neonize import ACCOUNT_JID, connected, deliver, eventually, message_event, patched_client, source
from fakes_neonize import jid as fake_jid
from fakes_neonize_contacts import ScriptedContacts
from fakes_neonize_network import ScriptedNetwork
from fakes_simulated import fast_network, paired
from neonize.builder import build_edit, build_revoke
from neonize.exc import SendMessageError
from neonize.proto.Neonize_pb2 import (
    JID,
    BasicCallMeta,
    CallOffer,
    CallRemoteMeta,
    MessageInfo,
    Node,
    SendResponse,
    StatusPrivacy,
    UploadResponse,
)
from neonize.proto.waCommon.WACommon_pb2 import MessageKey
from neonize.proto.waE2E.WAWebProtobufsE2E_pb2 import (
    ContextInfo,
    ExtendedTextMessage,
    ImageMessage,
    Message,
    MessageContextInfo,
    PollCreationMessage,
    PollUpdateMessage,
    PollVoteMessage,
    ReactionMessage,
    VideoMessage,
)
from neonize.utils.enum import VoteType

from gateway import jids
from session_host.network.media_types import MediaKind, OutgoingMedia
from session_host.network.neonize.jids import jid_str
from session_host.network.neonize.media import media_message, media_part
from session_host.network.port import DeviceSession, NetworkEvent, RateLimit
from session_host.network.simulated.groups import Groups
from session_host.network.simulated.network_groups import GROUP_OPTIONS, group_view
from session_host.network.vcards import from_vcard

DEVICE_JID = ACCOUNT_JID
_LIDS = itertools.count(207180606656000)


class Backend(Protocol):
    name: str
    session: DeviceSession
    unsupported: frozenset[str]
    """Operations (``update_group.join_approval``, ...) the adapter answers ``UNSUPPORTED``."""

    def person(self, phone: str) -> tuple[str, str]:
        """An account on the network: its user JID and LID."""

    def create_group_as(self, jid: str, name: str, people: list[str], **options: Any) -> str:
        """Someone else creates a group (as its super admin): its JID."""

    def join_as(self, jid: str, link: str) -> None:
        """Someone else joins by invite link (or asks to)."""

    def answer_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        """An admin answers join requests."""

    def change_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        """An admin adds, removes, promotes or demotes people."""

    def record(self, group_jid: str) -> dict[str, Any]:
        """The network's own record of a group (as ``GET /_simulator/groups/{jid}`` shows it)."""

    def events(self, name: str) -> list[NetworkEvent]:
        """The events the device's session emitted so far, of one name."""

    async def next_event(self, name: str, count: int) -> NetworkEvent:
        """The ``count``-th event of that name, waited for (2 s at most)."""

    def put_on_network(self) -> int:
        """How many messages and app-state changes the device has put on the network so far
        (to check that a refused operation sent nothing)."""

    def mentions_received(self, jid: str) -> list[list[str]]:
        """The people marked as mentioned in each text the device sent to ``jid``, in order."""

    def received(self, jid: str) -> list[dict[str, Any]]:
        """What ``jid`` got from the device, in order, as the simulator's inbox shows it:
        ``type, caption, media {mimetype, size, sha256, filename}, location, contact``."""

    async def media_from(self, jid: str, kind: str, data: bytes, mimetype: str, caption: str) -> NetworkEvent:
        """Someone sends the device media; the ``message.received`` its session emits."""

    # Contacts.
    def set_profile(self, jid: str, name: str | None, about: str | None) -> None:
        """The account of ``jid`` sets its push name and About text."""

    def quotes_received(self, jid: str) -> list[dict[str, Any] | None]:
        """What each message the device sent to ``jid`` quotes: ``{message_id, from, content}``."""

    def polls_received(self, jid: str) -> list[dict[str, Any]]:
        """The polls the device sent to ``jid``: ``{question, options, multiple_answers}``."""

    async def reply_from(self, jid: str, text: str, reply_to: str) -> NetworkEvent:
        """Someone answers the device's message ``reply_to`` with a quote; the ``message.received``."""

    async def vote_as(self, jid: str, poll_id: str, options: list[str]) -> NetworkEvent:
        """Someone votes on the device's poll in their chat with it; the ``poll.vote``."""

    # Calls.
    async def call_from(self, jid: str) -> NetworkEvent:
        """Someone calls the device's account; the ``call.offer`` its session emits."""

    def rejected_calls(self, jid: str) -> list[str]:
        """The ids of the calls ``jid`` made that the device rejected, in order."""

    # Reactions and edits.

    async def text_from(self, jid: str, text: str) -> str:
        """Someone sends the device a text in their one-to-one chat: its network id."""

    async def react_as(self, jid: str, message_id: str, emoji: str) -> None:
        """Someone reacts to a message of their one-to-one chat with the device."""

    async def edit_as(self, jid: str, message_id: str, text: str) -> None:
        """Someone edits a text they sent the device."""

    def reactions_got(self, jid: str) -> list[tuple[str, str]]:
        """The reactions ``jid`` got from the device, in order: (message id, emoji)."""

    def edits_got(self, jid: str) -> list[tuple[str, str]]:
        """The edits ``jid`` got from the device: (message id, new text)."""

    # Rate refusals.
    def refuse_next_send(self, operation: str, limit: RateLimit) -> None:
        """The network refuses the device's next send (port method ``operation``) for rate,
        naming ``limit`` and no time."""


class SimulatedBackend:
    name = "simulated"
    unsupported: frozenset[str] = frozenset()

    def __init__(self, tmp_path: Path) -> None:
        self.network = fast_network()
        self._tmp_path = tmp_path
        self.session: Any = None
        self._recorder: Any = None

    async def start(self) -> None:
        assert DEVICE_PHONE is not None
        self.session, self._recorder = await paired(self.network, self._tmp_path, phone=DEVICE_PHONE)

    def person(self, phone: str) -> tuple[str, str]:
        account = self.network.create_account(phone)
        return account["jid"], account["lid"]

    def create_group_as(self, jid: str, name: str, people: list[str], **options: Any) -> str:
        return str(self.network.groups.create(_phone(jid), name, people, options)["jid"])

    def join_as(self, jid: str, link: str) -> None:
        self.network.groups.join(_phone(jid), link)

    def answer_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        self.network.groups.answer_requests(_phone(jid), group_jid, action, people)

    def change_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        self.network.groups.change_participants(_phone(jid), group_jid, action, people)

    def record(self, group_jid: str) -> dict[str, Any]:
        return self.network.groups.record(group_jid)

    def events(self, name: str) -> list[NetworkEvent]:
        return self._recorder.named(name)

    async def next_event(self, name: str, count: int) -> NetworkEvent:
        return await self._recorder.wait_for(name, count)

    def put_on_network(self) -> int:
        with self.network.reading() as world:
            account = world.accounts[DEVICE_PHONE]
            revoked = sum(1 for entry in account.sent if entry.get("revoked"))
            return len(account.sent) + revoked + len(account.deleted_for_me)

    def mentions_received(self, jid: str) -> list[list[str]]:
        inbox = self.network.inbox(_phone(jid))["messages"]
        return [message["mentions"] for message in inbox if message["from"] == DEVICE_JID]

    def received(self, jid: str) -> list[dict[str, Any]]:
        inbox = self.network.inbox(_phone(jid))["messages"]
        return [_seen(message) for message in inbox if message["from"] == DEVICE_JID]

    async def media_from(self, jid: str, kind: str, data: bytes, mimetype: str, caption: str) -> NetworkEvent:
        media = OutgoingMedia(MediaKind(kind), data, mimetype, caption)
        self.network.send_from_account(_phone(jid), DEVICE_JID, None, media)
        return await self.next_event("message.received", len(self.events("message.received")) + 1)

    # Contacts.
    def set_profile(self, jid: str, name: str | None, about: str | None) -> None:
        self.network.update_account(_phone(jid), {"name": name, "about": about})

    def quotes_received(self, jid: str) -> list[dict[str, Any] | None]:
        inbox = self.network.inbox(_phone(jid))["messages"]
        return [message["quoted"] for message in inbox if message["from"] == DEVICE_JID]

    def polls_received(self, jid: str) -> list[dict[str, Any]]:
        inbox = self.network.inbox(_phone(jid))["messages"]
        polls = [message["poll"] for message in inbox if message["from"] == DEVICE_JID and message["poll"]]
        return [{key: poll[key] for key in ("question", "options", "multiple_answers")} for poll in polls]

    async def reply_from(self, jid: str, text: str, reply_to: str) -> NetworkEvent:
        self.network.send_from_account(_phone(jid), DEVICE_JID, text, reply_to=reply_to)
        return await self.next_event("message.received", len(self.events("message.received")) + 1)

    async def vote_as(self, jid: str, poll_id: str, options: list[str]) -> NetworkEvent:
        self.network.vote(_phone(jid), poll_id, DEVICE_JID, options)
        return await self.next_event("poll.vote", len(self.events("poll.vote")) + 1)

    # Calls.
    async def call_from(self, jid: str) -> NetworkEvent:
        self.network.call(_phone(jid), DEVICE_JID)
        return await self.next_event("call.offer", len(self.events("call.offer")) + 1)

    def rejected_calls(self, jid: str) -> list[str]:
        calls = self.network.inbox(_phone(jid))["calls"]
        return [call["call_id"] for call in calls if call["status"] == "rejected"]

    # Reactions and edits.

    async def text_from(self, jid: str, text: str) -> str:
        return self.network.send_from_account(_phone(jid), DEVICE_JID, text)

    async def react_as(self, jid: str, message_id: str, emoji: str) -> None:
        self.network.react_from_account(_phone(jid), message_id, DEVICE_JID, emoji)

    async def edit_as(self, jid: str, message_id: str, text: str) -> None:
        self.network.edit_from_account(_phone(jid), message_id, DEVICE_JID, text)

    def reactions_got(self, jid: str) -> list[tuple[str, str]]:
        reactions = self.network.inbox(_phone(jid))["reactions"]
        return [(got["message_id"], got["emoji"]) for got in reactions if got["from"] == DEVICE_JID]

    def edits_got(self, jid: str) -> list[tuple[str, str]]:
        inbox = self.network.inbox(_phone(jid))["messages"]
        return [(m["message_id"], m["text"]) for m in inbox if m["from"] == DEVICE_JID and m.get("edited")]

    def refuse_next_send(self, operation: str, limit: RateLimit) -> None:
        self.network.inject_fault(operation, _RATE_FAULTS[limit])


class NeonizeBackend:
    name = "neonize"
    unsupported = frozenset(
        {
            "update_group.join_approval",
            "update_group.member_add_mode",
            "answer_group_requests",
            "request_history_sync",  # no peer send in neonize 0.5.2 (message_ops.py)
            "delete_for_me",  # app-state patches cannot be encoded by neonize 0.5.2 (message_ops.py)
            "set_status_privacy",  # no setter in neonize 0.5.2 (status_ops.py)
        }
    )

    def __init__(self, tmp_path: Path) -> None:
        self._accounts: dict[str, str] = {DEVICE_JID: DEVICE_JID}
        self.groups = Groups(resolve=self._accounts.get)
        self.network = ScriptedNetwork(self.groups)
        self._tmp_path = tmp_path
        self.session: Any = None
        self._recorder: Any = None

    async def start(self) -> None:
        self.session, self._recorder = await connected(self._tmp_path, self.network)
        self.network.client.send_message.side_effect = _sent
        self.network.client.build_revoke.side_effect = _revoke
        self.network.client.build_image_message.side_effect = _image
        self.network.client.build_video_message.side_effect = _video
        self.network.client.get_status_privacy.return_value = [
            StatusPrivacy(Type=StatusPrivacy.CONTACTS, IsDefault=True)  # a new account's setting
        ]
        self.network.client.upload.side_effect = _upload
        self.network.client.build_poll_vote_creation.side_effect = _poll
        self._answers: list[SendResponse] = []  # the network's answer to each send, in order
        self.network.client.send_message.side_effect = _recording(self._answers)
        self._downloads: dict[bytes, bytes] = {}  # media key -> bytes, as the media servers keep them
        self.network.client.download_any.side_effect = lambda message: self._downloads[_key(message)]
        self.contacts = ScriptedContacts(self.network.client, self._accounts)
        self.network.client.build_reaction.side_effect = _reaction
        client = self.network.client
        client.edit_message.side_effect = lambda chat, message_id, new: client.send_message(
            chat, build_edit(chat, message_id, new)
        )  # neonize's own edit_message

    def person(self, phone: str) -> tuple[str, str]:
        jid, lid = jids.user_jid(phone), f"{next(_LIDS)}@lid"
        self._accounts[jid] = self._accounts[lid] = jid
        return jid, lid

    def create_group_as(self, jid: str, name: str, people: list[str], **options: Any) -> str:
        wanted = {key: value for key, value in options.items() if key in GROUP_OPTIONS}
        group, _ = self.groups.create(jid, name, people, **wanted)
        return group.jid

    def join_as(self, jid: str, link: str) -> None:
        self.groups.join(jid, link.rsplit("/", 1)[-1])

    def answer_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        self.groups.answer_requests(group_jid, jid, action, people)

    def change_as(self, jid: str, group_jid: str, action: str, people: list[str]) -> None:
        self.groups.change_participants(group_jid, jid, action, people)

    def record(self, group_jid: str) -> dict[str, Any]:
        return group_view(self.groups.get(group_jid))

    def events(self, name: str) -> list[NetworkEvent]:
        return self._recorder.named(name)

    async def next_event(self, name: str, count: int) -> NetworkEvent:
        await eventually(lambda: len(self.events(name)) >= count)
        return self.events(name)[count - 1]

    def put_on_network(self) -> int:
        client = self.network.client
        return int(client.send_message.call_count + client.send_app_state.call_count)

    def mentions_received(self, jid: str) -> list[list[str]]:
        sent = [
            c.args[1] for c in self.network.client.send_message.call_args_list if jid_str(c.args[0]) == jid
        ]
        return [list(message.extendedTextMessage.contextInfo.mentionedJID) for message in sent]

    def received(self, jid: str) -> list[dict[str, Any]]:
        calls = self.network.client.send_message.call_args_list
        return [_decoded(c.args[1]) for c in calls if jid_str(c.args[0]) == jid]

    async def media_from(self, jid: str, kind: str, data: bytes, mimetype: str, caption: str) -> NetworkEvent:
        media = OutgoingMedia(MediaKind(kind), data, mimetype, caption)
        message = media_message(media, _upload(data))
        self._downloads[_key(message)] = data
        count = len(self.events("message.received")) + 1
        await deliver(self.network.client, _wire_event(jid, message))
        return await self.next_event("message.received", count)

    # Contacts.
    def set_profile(self, jid: str, name: str | None, about: str | None) -> None:
        self.contacts.set_profile(jid, name, about)

    def _sent_to(self, jid: str) -> list[Message]:
        calls = self.network.client.send_message.call_args_list
        return [c.args[1] for c in calls if jid_str(c.args[0]) == jid]

    def quotes_received(self, jid: str) -> list[dict[str, Any] | None]:
        return [_quote_of(message) for message in self._sent_to(jid)]

    def polls_received(self, jid: str) -> list[dict[str, Any]]:
        polls = [m.pollCreationMessage for m in self._sent_to(jid) if m.HasField("pollCreationMessage")]
        return [
            {
                "question": poll.name,
                "options": [option.optionName for option in poll.options],
                "multiple_answers": poll.selectableOptionsCount != 1,
            }
            for poll in polls
        ]

    async def reply_from(self, jid: str, text: str, reply_to: str) -> NetworkEvent:
        # The other phone quotes the message as it has it: its id, its author, its text
        [quoted] = [m for m in self._sent_ids() if m[0] == reply_to]
        context = ContextInfo(
            stanzaID=reply_to, participant=DEVICE_JID, quotedMessage=Message(conversation=quoted[1])
        )
        message = Message(extendedTextMessage=ExtendedTextMessage(text=text, contextInfo=context))
        count = len(self.events("message.received")) + 1
        await deliver(self.network.client, _wire_event(jid, message))
        return await self.next_event("message.received", count)

    def _sent_ids(self) -> list[tuple[str, str]]:
        """(network id, text) of each message the device sent, as the network answered them."""
        calls = self.network.client.send_message.call_args_list
        return [(answer.ID, _text_of(c.args[1])) for c, answer in zip(calls, self._answers, strict=True)]

    async def vote_as(self, jid: str, poll_id: str, options: list[str]) -> NetworkEvent:
        # The vote travels encrypted; whatsmeow decrypts it to the options' SHA-256
        hashes = [hashlib.sha256(option.encode()).digest() for option in options]
        self.network.client.decrypt_poll_vote.return_value = PollVoteMessage(selectedOptions=hashes)
        vote = Message(pollUpdateMessage=PollUpdateMessage(pollCreationMessageKey=MessageKey(ID=poll_id)))
        count = len(self.events("poll.vote")) + 1
        await deliver(self.network.client, _wire_event(jid, vote))
        return await self.next_event("poll.vote", count)

    # Calls.
    async def call_from(self, jid: str) -> NetworkEvent:
        """An offer as whatsmeow reports it: from the caller's LID, its phone JID beside it."""
        lid = next(key for key, person in self._accounts.items() if person == jid and key.endswith("@lid"))
        caller = fake_jid(lid.partition("@")[0], "lid")
        count = len(self.events("call.offer")) + 1
        meta = BasicCallMeta(
            **{"from": caller},  # a Python keyword as a protobuf field
            timestamp=int(time.time()),
            callCreator=caller,
            callCreatorAlt=fake_jid(_phone(jid)),
            callID=uuid.uuid4().hex.upper(),
        )
        offer = CallOffer(
            basicCallMeta=meta,
            callRemoteMeta=CallRemoteMeta(remotePlatform="android", remoteVersion="2.25.1"),
            data=Node(Tag="offer", Nodes=[Node(Tag="audio")]),
        )
        await deliver(self.network.client, offer)
        return await self.next_event("call.offer", count)

    def rejected_calls(self, jid: str) -> list[str]:
        """The rejections the library was asked to send to ``jid`` (its phone JID or LID)."""
        calls = self.network.client.reject_call.call_args_list
        return [c.args[1] for c in calls if self._accounts.get(jid_str(c.args[0]) or "") == jid]

    # Reactions and edits.

    async def text_from(self, jid: str, text: str) -> str:
        ev = _wire_event(jid, Message(conversation=text))
        ev.Info.ID = uuid.uuid4().hex[:20].upper()
        await deliver(self.network.client, ev)
        return ev.Info.ID

    async def react_as(self, jid: str, message_id: str, emoji: str) -> None:
        key = MessageKey(remoteJID=DEVICE_JID, fromMe=False, ID=message_id)
        reaction = ReactionMessage(key=key, text=emoji, senderTimestampMS=int(time.time() * 1000))
        await deliver(self.network.client, _wire_event(jid, Message(reactionMessage=reaction)))

    async def edit_as(self, jid: str, message_id: str, text: str) -> None:
        """As whatsmeow reports an edit: the new content, ``IsEdit``, the original in ``Raw``."""
        new = Message(conversation=text)
        ev = _wire_event(jid, new)
        ev.IsEdit = True
        ev.Raw.CopyFrom(build_edit(fake_jid(_phone(DEVICE_JID)), message_id, new))
        await deliver(self.network.client, ev)

    def reactions_got(self, jid: str) -> list[tuple[str, str]]:
        calls = self.network.client.send_message.call_args_list
        sent = [c.args[1] for c in calls if jid_str(c.args[0]) == jid]
        return [
            (m.reactionMessage.key.ID, m.reactionMessage.text) for m in sent if m.HasField("reactionMessage")
        ]

    def edits_got(self, jid: str) -> list[tuple[str, str]]:
        calls = self.network.client.send_message.call_args_list
        sent = [c.args[1] for c in calls if jid_str(c.args[0]) == jid]
        edits = [m.editedMessage.message.protocolMessage for m in sent if m.HasField("editedMessage")]
        return [(edit.key.ID, edit.editedMessage.conversation) for edit in edits]

    def refuse_next_send(self, operation: str, limit: RateLimit) -> None:
        """As whatsmeow reports the code of the message's acknowledgement (every send of the
        adapter is one ``send_message``)."""
        send_message = self.network.client.send_message
        answer = send_message.side_effect

        def refused(*_: Any, **__: Any) -> SendResponse:
            send_message.side_effect = answer
            raise SendMessageError(f"server returned error {_ACK_CODES[limit]}")

        send_message.side_effect = refused


_RATE_FAULTS = {RateLimit.OVERLIMIT: "rate_limited", RateLimit.REACHOUT_TIMELOCK: "reachout_timelock"}
"""The simulator's fault for each rate refusal (``POST /_simulator/faults``)."""
_ACK_CODES = {RateLimit.OVERLIMIT: 429, RateLimit.REACHOUT_TIMELOCK: 463}
"""The error code the network puts in a refused message's acknowledgement."""


def _sent(to: Any, message: Any, *_: Any, **__: Any) -> SendResponse:
    """What the network answers a send: its own message id and time."""
    return SendResponse(ID=uuid.uuid4().hex[:20].upper(), Timestamp=int(time.time()))


def _recording(answers: list[SendResponse]) -> Any:
    """:func:`_sent`, keeping each answer (the ids the network gave), in order."""

    def send(to: Any, message: Any, *args: Any, **kwargs: Any) -> SendResponse:
        answer = _sent(to, message, *args, **kwargs)
        answers.append(answer)
        return answer

    return send


def _poll(name: str, options: list[str], selectable_count: VoteType, quoted: Any = None) -> Message:
    """whatsmeow's poll: its options, how many a voter picks, and the secret votes use."""
    poll = PollCreationMessage(
        name=name,
        options=[PollCreationMessage.Option(optionName=option) for option in options],
        selectableOptionsCount=selectable_count.value,
    )
    return Message(pollCreationMessage=poll, messageContextInfo=MessageContextInfo(messageSecret=b"s" * 32))


def _quote_of(message: Message) -> dict[str, Any] | None:
    """What a sent protobuf quotes, read from its content's ContextInfo."""
    for _, part in message.ListFields():
        context = getattr(part, "contextInfo", None)
        if context is not None and context.stanzaID:
            quoted = context.quotedMessage
            text = quoted.conversation or quoted.extendedTextMessage.text or None
            return {"message_id": context.stanzaID, "from": context.participant or None, "content": text}
    return None


def _text_of(message: Message) -> str:
    return str(message.conversation or message.extendedTextMessage.text)


def _revoke(chat: JID, sender: JID, message_id: str, with_go: bool = False) -> Message:
    """whatsmeow's revoke, as neonize's Python builder writes it for the sender's own message."""
    return build_revoke(chat, sender, message_id, sender)


def _reaction(chat: JID, sender: JID, message_id: str, reaction: str) -> Message:
    """whatsmeow's BuildReaction: the key is the message's (``fromMe`` when the device's
    account wrote it, its author as participant in a group), the time the reaction's."""
    from_me = jid_str(sender) == DEVICE_JID
    key = MessageKey(remoteJID=jid_str(chat), fromMe=from_me, ID=message_id)
    if not from_me and chat.Server == jids.GROUP_SERVER:
        key.participant = jid_str(sender)
    return Message(
        reactionMessage=ReactionMessage(key=key, text=reaction, senderTimestampMS=int(time.time() * 1000))
    )


def _image(data: bytes, caption: str | None = None, **_: Any) -> Message:
    """What the library's image builder gives once uploaded (no upload here)."""
    return Message(imageMessage=ImageMessage(caption=caption, mimetype="image/jpeg", fileLength=len(data)))


def _video(data: bytes, caption: str | None = None, **_: Any) -> Message:
    return Message(videoMessage=VideoMessage(caption=caption, mimetype="video/mp4", fileLength=len(data)))


def _upload(data: bytes, media_type: Any = None) -> UploadResponse:
    """The media servers' answer to an upload: where it is, and the hashes of the bytes."""
    digest = hashlib.sha256(data).digest()
    return UploadResponse(
        url="https://mmg.example/m",
        DirectPath="/m",
        MediaKey=digest[:16],
        FileSHA256=digest,
        FileLength=len(data),
    )


def _key(message: Message) -> bytes:
    found = media_part(message)
    assert found is not None
    kind, holder = found
    return bytes(getattr(holder, f"{kind}Message").mediaKey)


def _seen(message: dict[str, Any]) -> dict[str, Any]:
    keys = ("type", "caption", "media", "location", "contact")
    seen = {key: message.get(key) for key in keys}
    if seen["contact"] is not None:
        seen["contact"] = {"name": seen["contact"]["name"], "phone": seen["contact"]["phone"]}
    return seen


def _decoded(message: Message) -> dict[str, Any]:
    """A sent protobuf as the simulator's inbox would describe it."""
    seen: dict[str, Any] = dict.fromkeys(("type", "caption", "media", "location", "contact"))
    found = media_part(message)
    if found is not None:
        kind, holder = found
        part = getattr(holder, f"{kind}Message")
        media = {
            "mimetype": part.mimetype,
            "size": part.fileLength,
            "sha256": part.fileSHA256.hex(),
            "filename": getattr(part, "fileName", "") or None,
        }
        if kind is MediaKind.AUDIO:
            media["ptt"] = part.PTT
        seen |= {"type": str(kind), "caption": getattr(part, "caption", "") or None, "media": media}
    elif message.HasField("locationMessage"):
        place = message.locationMessage
        location = {
            "latitude": place.degreesLatitude,
            "longitude": place.degreesLongitude,
            "name": place.name or None,
            "address": place.address or None,
        }
        seen |= {"type": "location", "location": location}
    elif message.HasField("contactMessage"):
        shared = message.contactMessage
        card = from_vcard(shared.vcard, shared.displayName)
        contact = (
            {"name": card.name, "phone": card.phone} if card else {"name": shared.displayName, "phone": None}
        )
        seen |= {"type": "contact", "contact": contact}
    else:
        seen["type"] = "text"
    return seen


def _wire_event(sender: str, message: Message) -> Any:
    """A MessageEv from ``sender`` complete enough to cross the Go callback's serialization."""
    peer = fake_jid(_phone(sender))
    ev = message_event(source(peer, peer), message)
    ev.Info.MergeFrom(
        MessageInfo(ServerID=0, Type="media", Category="", Multicast=False, MediaType="image", Edit="")
    )
    flags = ("IsEphemeral", "IsViewOnce", "IsViewOnceV2", "IsViewOnceV2Extension", "IsDocumentWithCaption")
    for flag in (*flags, "IsLottieSticker", "IsEdit"):
        setattr(ev, flag, False)
    ev.UnavailableRequestID, ev.RetryCount = "", 0
    return ev


def _phone(jid: str) -> str:
    """The phone number of a user JID."""
    assert jids.is_user_jid(jid), jid
    return jid.partition("@")[0]


DEVICE_PHONE = _phone(DEVICE_JID)


@contextlib.asynccontextmanager
async def running(name: str, tmp_path: Path) -> AsyncIterator[Backend]:
    """A started backend of adapter ``name``; its session is closed afterwards."""
    backend: SimulatedBackend | NeonizeBackend
    if name == "simulated":
        backend = SimulatedBackend(tmp_path)
        await backend.start()
        try:
            yield backend
        finally:
            await backend.session.close()
        return
    backend = NeonizeBackend(tmp_path)
    with patched_client(backend.network):
        await backend.start()
        try:
            yield backend
        finally:
            await backend.session.close()
