"""The network's state and the rules of message traffic, without the lock.

Every function here expects the caller (:class:`~.network.SimulatedNetwork`) to hold the
network's lock. Signals to sessions are handed over while the lock is held, so every
session sees them in the order the network produced them; a ``deliver`` callback only
schedules work on the session's loop and never blocks.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gateway import jids
from gateway.failures.kinds import ErrorKind
from gateway.webhooks.catalog import EventName

from ..payloads import ReceiptKind, iso_utc, iso_utc_or_none, quoted_message
from ..port import NetworkError, NetworkEvent
from . import events
from .bodies import Body
from .group_records import GroupChange, GroupError
from .groups import Groups
from .model import Account, Call, Connection, Link, account_phone

logger = logging.getLogger(__name__)


@dataclass
class World:
    accounts: dict[str, Account] = field(default_factory=dict)  # by phone digits
    links: dict[str, Link] = field(default_factory=dict)  # by device key
    queues: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # by device key
    conns: dict[str, Connection] = field(default_factory=dict)  # by connection id
    calls: dict[str, Call] = field(default_factory=dict)  # ringing now, by call id (not saved)
    status_media: dict[str, bytes] = field(default_factory=dict)  # stories' bytes by sha256 (not saved)
    media: dict[str, bytes] = field(default_factory=dict)  # media sent, once by sha256
    groups: Groups = field(init=False)

    def __post_init__(self) -> None:
        self.groups = Groups(resolve=self.person)

    # --- lookups ----------------------------------------------------------------------

    def account_of_jid(self, jid: str) -> Account | None:
        return self.accounts.get(account_phone(jid))

    def recipient(self, to: str) -> Account:
        """The account ``to`` (a user JID or phone digits) names; ``NOT_FOUND`` for nobody."""
        recipient = self.account_of_jid(to)
        if recipient is None:
            raise NetworkError(ErrorKind.NOT_FOUND, f"{to} is not on the network")
        return recipient

    def lid_of(self, jid: str) -> str | None:
        """The LID of the account a participant JID names, when the network knows it."""
        try:
            account = self.account_of_jid(jid)
        except NetworkError:  # not a user JID: the network knows no account behind it
            return None
        return account.lid if account is not None else None

    def chat_of(self, chat: str) -> str:
        """A chat's JID as the accounts' messages name it: a group's, or the person's
        (``NOT_FOUND`` for nobody)."""
        return chat if jids.is_group_jid(chat) else self.recipient(chat).jid

    def contacts(self, account: Account) -> list[str]:
        """The account's contacts (user JIDs, sorted): those it added, and those it exchanged
        a one-to-one message with, either way (``decisions.md``)."""
        found = set(account.contacts)
        found.update(entry["to"] for entry in account.sent if jids.is_user_jid(entry["to"]))
        found.update(m["from"] for m in account.inbox if m.get("chat", m["from"]) == m["from"])
        found.discard(account.jid)
        return sorted(jid for jid in found if self.account_of_jid(jid) is not None)

    def knows_chat(self, account: Account, chat_jid: str) -> bool:
        """Whether the account already has the chat: it wrote there or heard from there."""
        return any(entry["to"] == chat_jid for entry in account.sent) or any(
            m.get("chat", m["from"]) == chat_jid for m in account.inbox
        )

    def person(self, jid: str) -> str | None:
        """The user JID of the account a participant JID (user JID or LID) names, or None."""
        address = jids.parse_participant(jid)
        if address is None:
            return None
        if address.kind is jids.JidKind.LID:
            return next((a.jid for a in self.accounts.values() if a.lid == address.jid), None)
        account = self.accounts.get(account_phone(address.jid))
        return account.jid if account is not None else None

    def blocks(self, account: Account, jid: str) -> bool:
        """Whether ``account`` blocks the account ``jid``: then what ``jid`` sends it one to
        one (messages, typing, presence, calls) never reaches it nor its devices."""
        return jid in account.blocked

    def _blocked_by(self, watcher_jid: str, jid: str) -> bool:
        watcher = self.account_of_jid(watcher_jid)
        return watcher is not None and self.blocks(watcher, jid)

    def links_of(self, jid: str) -> list[Link]:
        return [link for link in self.links.values() if link.jid == jid]

    def conn_of_key(self, device_key: str) -> Connection | None:
        return next((c for c in self.conns.values() if c.device_key == device_key), None)

    def conns_of_device(self, device_id: str) -> list[Connection]:
        return [c for c in self.conns.values() if c.device_id == device_id]

    # --- signals ----------------------------------------------------------------------

    def signal(self, conn: Connection, kind: str, payload: Mapping[str, Any]) -> bool:
        """Hand a signal to a session; a session that cannot take it (its loop is gone) is cut."""
        try:
            conn.deliver(kind, payload)
        except Exception:
            logger.warning("simulated network: device %s unreachable, connection cut", conn.device_id)
            self.conns.pop(conn.conn_id, None)
            return False
        return True

    def push(self, device_key: str, event: NetworkEvent) -> bool:
        """An event for a linked device: handed over now if connected (True), else queued."""
        conn = self.conn_of_key(device_key)
        item = events.to_item(event)
        if conn is not None and self.signal(conn, "event", item):
            return True
        self.queues.setdefault(device_key, []).append(item)
        return False

    def live(self, account: Account, event: NetworkEvent) -> None:
        """An ephemeral event (presence, calls) for the account's devices connected now; never queued."""
        item = events.to_item(event)
        for link in self.links_of(account.jid):
            conn = self.conn_of_key(link.device_key)
            if conn is not None:
                self.signal(conn, "event", item)

    # --- traffic ----------------------------------------------------------------------

    def post(
        self,
        sender: Account,
        recipient: Account,
        message_id: str,
        body: Body,
        *,
        exclude: str | None,
        mentions: list[str] | None = None,
    ) -> None:
        """``sender`` sends ``body`` to ``recipient``; receipts follow the network's rules.

        The recipient's inbox records the message, unless the recipient blocks the sender:
        then nothing reaches it and the sender sees only ``sent``. A recipient with linked gateway
        devices is reached through them (queued while offline; ``delivered`` when a device
        has it); a plain contact is always online, so ``delivered`` comes at once. When the
        sender's push name differs from the one on its last message in that inbox, the
        devices get ``contact.pushname`` just before the message, as whatsmeow reports it.
        """
        at = self._record(sender, recipient.jid, message_id, body)
        if self.blocks(recipient, sender.jid):
            return  # kept from the blocker: the sender's record stays at ``sent``
        self._hand_over(sender, recipient, None, message_id, body, at, exclude=exclude, mentions=mentions)

    def post_to_group(
        self,
        sender: Account,
        group_jid: str,
        message_id: str,
        body: Body,
        *,
        mentions: list[str] | None = None,
    ) -> None:
        """``sender`` sends ``body`` to a group: every other member gets it as :meth:`post`
        hands a message over, in the group's chat, and each member's delivery is a
        ``delivered`` receipt of the group (the network reports group receipts per member).

        Raises
        ------
        GroupError
            ``group_not_found`` when ``sender`` is not in the group, ``not_group_admin`` in an
            announce group when it is no admin (:meth:`.groups.Groups.audience`).
        """
        members = self.groups.audience(group_jid, sender.jid)
        timer = self.groups.get_for(group_jid, sender.jid).ephemeral_duration
        at = self._record(sender, group_jid, message_id, body)
        for jid in members:
            recipient = self.account_of_jid(jid)
            if recipient is not None:
                self._hand_over(
                    sender,
                    recipient,
                    group_jid,
                    message_id,
                    body,
                    at,
                    exclude=None,
                    mentions=mentions,
                    expires_at=at + timer if timer else None,
                )

    def _record(self, sender: Account, to: str, message_id: str, body: Body) -> float:
        """The sender's record of a send; media bytes are kept once, by their sha256."""
        at = time.time()
        entry = {"message_id": message_id, "to": to, "text": body.inbox.get("text")}
        if body.type != "text":  # a text's record stays as it always was
            entry["type"] = body.type
        sender.sent.append({**entry, "status": "sent", "timestamp": at})
        if body.data is not None:
            self.media.setdefault(body.inbox["media"]["sha256"], body.data)
        return at

    def _hand_over(
        self,
        sender: Account,
        recipient: Account,
        group_jid: str | None,
        message_id: str,
        body: Body,
        at: float,
        *,
        exclude: str | None,
        mentions: list[str] | None = None,
        expires_at: float | None = None,
    ) -> None:
        """One recipient gets a message: its inbox, then its devices (see :meth:`post`).
        ``expires_at``: when it disappears, in a group with a disappearing-messages timer."""
        attachment = body.attachment(body.data) if body.data is not None else None
        received = events.message_received(
            message_id,
            sender.jid,
            sender.push_name,
            recipient.jid,
            body,
            at,
            group_jid=group_jid,
            attachment=attachment,
        )
        seen = next((m["push_name"] for m in reversed(recipient.inbox) if m["from"] == sender.jid), None)
        renamed = (
            events.push_name_changed(sender.jid, seen, sender.push_name)
            if seen is not None and seen != sender.push_name
            else None
        )
        recipient.inbox.append(
            {
                "message_id": message_id,
                "from": sender.jid,
                "to": group_jid or recipient.jid,
                "chat": group_jid or sender.jid,
                **body.inbox_fields(),
                "mentions": list(mentions or ()),
                "expires_at": iso_utc_or_none(expires_at),
                "push_name": sender.push_name,
                "timestamp": received.data["timestamp"],
                "read": False,
            }
        )
        chat_jid = group_jid or recipient.jid  # the chat as the sender sees it
        links = [link for link in self.links_of(recipient.jid) if link.device_key != exclude]
        if not links:
            self.receipt("delivered", sender.jid, chat_jid, [message_id], by=recipient.jid)
        for link in links:
            if renamed is not None:
                self.push(link.device_key, renamed)
            if self.push(link.device_key, received):
                self.receipt("delivered", sender.jid, chat_jid, [message_id], by=recipient.jid)

    # --- replies and polls --------------------------------------------------

    def replying(self, body: Body, author: Account, chat_jid: str, message_id: str) -> Body:
        """``body`` as a reply to ``message_id`` of ``author``'s chat ``chat_jid``: it quotes
        the message as ``author`` has it (sent or received there), with its author and text;
        an id the chat does not have is quoted all the same, its author and text unknown (the
        real network takes any id)."""
        sent = next((e for e in author.sent if e["message_id"] == message_id and e["to"] == chat_jid), None)
        if sent is not None:
            return replace(body, quoted=quoted_message(message_id, author.jid, _shown(sent)))
        got = next(
            (
                m
                for m in author.inbox
                if m["message_id"] == message_id and m.get("chat", m["from"]) == chat_jid
            ),
            None,
        )
        if got is not None:
            return replace(body, quoted=quoted_message(message_id, got["from"], _shown(got)))
        return replace(body, quoted=quoted_message(message_id, None, None))

    def receipt(
        self,
        kind: ReceiptKind,
        sender_jid: str,
        chat_jid: str,
        message_ids: list[str],
        *,
        by: str | None = None,
    ) -> None:
        """A ``delivered`` or ``read`` receipt for messages ``sender_jid`` sent to ``chat_jid``:
        from that person, or from the member ``by`` when ``chat_jid`` is a group."""
        sender = self.accounts.get(account_phone(sender_jid))
        if sender is None:
            return
        rank = {"sent": 0, "delivered": 1, "read": 2}
        for entry in sender.sent:
            if (
                entry["message_id"] in message_ids
                and entry["to"] == chat_jid
                and rank[entry["status"]] < rank[kind]
            ):
                entry["status"] = kind
        event = events.receipt(kind, message_ids, chat_jid, time.time(), by=by)
        for link in self.links_of(sender.jid):
            self.push(link.device_key, event)

    def read(
        self, reader: Account, chat_jid: str, message_ids: list[str], *, sender: str | None = None
    ) -> list[str]:
        """``reader`` reads messages of a chat (the other person's JID, or a group's); the read
        receipt goes to the sender of each.

        A phone reads what its inbox holds; a device names the ``sender`` and its receipt is
        taken as it claims, as the network does not check what a device says it read.
        """
        wanted = set(message_ids)
        seen = [m for m in reader.inbox if m.get("chat", m["from"]) == chat_jid and m["message_id"] in wanted]
        for message in seen:
            message["read"] = True
        by_sender: dict[str, list[str]] = {}
        if sender is not None:
            by_sender[sender] = list(dict.fromkeys(message_ids))
        else:
            for message in seen:
                by_sender.setdefault(message["from"], []).append(message["message_id"])
        for author, ids in by_sender.items():
            chat = chat_jid if jids.is_group_jid(chat_jid) else reader.jid  # as the sender sees it
            self.receipt("read", author, chat, ids, by=reader.jid)
        return [message_id for ids in by_sender.values() for message_id in ids]

    def reject_call(self, callee: Account, caller: str, call_id: str) -> None:
        """``callee`` declines the call ``call_id`` from ``caller`` (a user JID or LID): it
        stops ringing, and the caller's phone shows it rejected (its inbox's ``calls``).
        ``NOT_FOUND`` unless that call rings for ``callee`` from ``caller``."""
        call = self.calls.get(call_id)
        if call is None or call.callee != callee.jid or self.person(caller) != call.caller:
            raise NetworkError(ErrorKind.NOT_FOUND, f"no call {call_id} from {caller} rings for {callee.jid}")
        del self.calls[call_id]
        account = self.account_of_jid(call.caller)
        if account is not None:
            account.calls.append(
                {
                    "call_id": call_id,
                    "to": callee.jid,
                    "video": call.video,
                    "status": "rejected",
                    "at": iso_utc(time.time()),
                }
            )

    def presence(
        self, sender_jid: str, recipient: Account, state: str, *, group_jid: str | None = None
    ) -> None:
        """Chat presence is ephemeral: recorded by the recipient's phone, never queued (nor
        passed on one to one when the recipient blocks the sender)."""
        if group_jid is None and self.blocks(recipient, sender_jid):
            return
        chat = group_jid or sender_jid
        recipient.presence.append(
            {"from": sender_jid, "chat": chat, "state": state, "at": iso_utc(time.time())}
        )
        self.live(recipient, events.chat_presence(sender_jid, state, group_jid=group_jid))

    def account_presence(self, account: Account, available: bool, at: float) -> None:
        """The account comes online or goes offline (going offline is its last seen): every
        device following its presence that is connected now gets ``contact.presence``; like
        all presence, it is never queued."""
        account.available = available
        if not available:
            account.last_seen = at
        item = events.to_item(events.contact_presence(account.jid, available, at))
        for link in self.links.values():
            if account.jid not in link.following or self._blocked_by(link.jid, account.jid):
                continue
            conn = self.conn_of_key(link.device_key)
            if conn is not None:
                self.signal(conn, "event", item)

    def group_presence(self, sender_jid: str, group_jid: str, state: str) -> None:
        """Typing in a group reaches its other members, as far as ``sender_jid`` may send there."""
        try:
            members = self.groups.audience(group_jid, sender_jid)
        except GroupError:  # what the network would not relay is dropped silently
            return
        for jid in members:
            recipient = self.account_of_jid(jid)
            if recipient is not None:
                self.presence(sender_jid, recipient, state, group_jid=group_jid)

    def group_changed(self, change: GroupChange) -> None:
        """Tell the gateway's devices of a group change, kept for offline devices like messages.

        Every account that got in (``change.join``) gets ``group.joined`` on each of its
        devices; the other members, and those who left or were removed, get ``group.info``
        with what changed. Choices: the creator's devices get ``group.joined`` too, as the
        network tells an account's other devices of a group it created; a new group sends
        no ``group.info``; the author's devices get ``group.info`` like everyone's.
        """
        if change.join:
            joined = events.group_joined(self.groups.get(change.group_jid), change.join_reason, change.author)
            for jid in change.join:
                for link in self.links_of(jid):
                    self.push(link.device_key, joined)
        if change.kind == "create":
            return
        author = self.account_of_jid(change.author) if change.author else None
        info = events.group_info(change, author.push_name if author is not None else None)
        if info is None:
            return
        ended = bool(change.fields.get("deleted"))  # an ended group is gone from the network
        members = {} if ended else self.groups.get(change.group_jid).participants
        told = [jid for jid in members if jid not in change.join]
        told += [jid for jid in change.leave if jid not in told]
        for jid in told:
            for link in self.links_of(jid):
                self.push(link.device_key, info)

    def flush(self, conn: Connection) -> bool:
        """Hand a reconnected device what the network kept for it; True when anything moved."""
        assert conn.device_key is not None
        queued = self.queues.pop(conn.device_key, [])
        for index, item in enumerate(queued):
            if not self.signal(conn, "event", item):
                self.queues[conn.device_key] = queued[index:]
                return True
            data = item["data"]
            if (
                item["name"] == EventName.MESSAGE_RECEIVED
                and data.get("chat_jid") != jids.STATUS_BROADCAST_JID
            ):
                self.receipt("delivered", data["from"], data["to"], [data["message_id"]], by=conn.jid)
        return bool(queued)

    def forget_link(self, device_key: str) -> Link | None:
        self.queues.pop(device_key, None)
        return self.links.pop(device_key, None)

    # --- persistence ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "accounts": [account.to_json() for account in self.accounts.values()],
            "links": [link.to_json() for link in self.links.values()],
            "queues": self.queues,
            "groups": self.groups.to_json(),
            "media": {key: base64.b64encode(data).decode() for key, data in self.media.items()},
        }

    def load_json(self, data: dict[str, Any]) -> None:
        self.accounts = {a["phone"]: Account(**a) for a in data.get("accounts", [])}
        self.links = {link["device_key"]: Link(**link) for link in data.get("links", [])}
        self.queues = {key: list(items) for key, items in data.get("queues", {}).items()}
        self.groups.load_json(data.get("groups", {}))
        self.media = {key: base64.b64decode(text) for key, text in data.get("media", {}).items()}


def _shown(entry: Mapping[str, Any]) -> str | None:
    """What a quote shows of a message: its text, caption or poll question."""
    poll = entry.get("poll") or {}
    return entry.get("text") or entry.get("caption") or poll.get("question")
