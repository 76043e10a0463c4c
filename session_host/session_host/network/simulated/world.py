"""The network's state and the rules of message traffic, without the lock.

Every function here expects the caller (:class:`~.network.SimulatedNetwork`) to hold the
network's lock. Signals to sessions are handed over while the lock is held, so every
session sees them in the order the network produced them; a ``deliver`` callback only
schedules work on the session's loop and never blocks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gateway import jids

from ..payloads import ReceiptKind, iso_utc
from ..port import NetworkEvent
from . import events
from .group_records import GroupChange
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
    groups: Groups = field(init=False)

    def __post_init__(self) -> None:
        self.groups = Groups(resolve=self.person)

    # --- lookups ----------------------------------------------------------------------

    def account_of_jid(self, jid: str) -> Account | None:
        return self.accounts.get(account_phone(jid))

    def person(self, jid: str) -> str | None:
        """The user JID of the account a participant JID (user JID or LID) names, or None."""
        address = jids.parse_participant(jid)
        if address is None:
            return None
        if address.kind is jids.JidKind.LID:
            return next((a.jid for a in self.accounts.values() if a.lid == address.jid), None)
        account = self.accounts.get(account_phone(address.jid))
        return account.jid if account is not None else None

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
        self, sender: Account, recipient: Account, message_id: str, text: str, *, exclude: str | None
    ) -> None:
        """``sender`` sends ``text`` to ``recipient``; receipts follow the network's rules.

        The recipient's inbox always records the message. A recipient with linked gateway
        devices is reached through them (queued while offline; ``delivered`` when a device
        has it); a plain contact is always online, so ``delivered`` comes at once. When the
        sender's push name differs from the one on its last message in that inbox, the
        devices get ``contact.pushname`` just before the message, as whatsmeow reports it.
        """
        received = events.text_received(
            message_id, sender.jid, sender.push_name, recipient.jid, text, time.time()
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
                "to": recipient.jid,
                "text": text,
                "push_name": sender.push_name,
                "timestamp": received.data["timestamp"],
                "read": False,
            }
        )
        sender.sent.append({"message_id": message_id, "to": recipient.jid, "text": text, "status": "sent"})
        links = [link for link in self.links_of(recipient.jid) if link.device_key != exclude]
        if not links:
            self.receipt("delivered", sender.jid, recipient.jid, [message_id])
        for link in links:
            if renamed is not None:
                self.push(link.device_key, renamed)
            if self.push(link.device_key, received):
                self.receipt("delivered", sender.jid, recipient.jid, [message_id])

    def receipt(self, kind: ReceiptKind, sender_jid: str, chat_jid: str, message_ids: list[str]) -> None:
        """A ``delivered`` or ``read`` receipt from ``chat_jid`` for messages ``sender_jid`` sent."""
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
        event = events.receipt(kind, message_ids, chat_jid, time.time())
        for link in self.links_of(sender.jid):
            self.push(link.device_key, event)

    def read(
        self, reader: Account, chat_jid: str, message_ids: list[str], *, claimed: bool = False
    ) -> list[str]:
        """``reader`` reads messages of ``chat_jid``; the read receipt goes to their sender.

        A phone reads what its inbox holds; a device's receipt is taken as it claims
        (``claimed``), as the network does not check what a device says it read.
        """
        wanted = set(message_ids)
        seen = [m for m in reader.inbox if m["from"] == chat_jid and m["message_id"] in wanted]
        for message in seen:
            message["read"] = True
        ids = list(dict.fromkeys(message_ids)) if claimed else [m["message_id"] for m in seen]
        if ids:
            self.receipt("read", chat_jid, reader.jid, ids)
        return ids

    def presence(self, sender_jid: str, recipient: Account, state: str) -> None:
        """Chat presence is ephemeral: recorded by the recipient's phone, never queued."""
        recipient.presence.append(
            {"from": sender_jid, "chat": sender_jid, "state": state, "at": iso_utc(time.time())}
        )
        self.live(recipient, events.chat_presence(sender_jid, state))

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
            if item["name"] == "message.received":
                self.receipt(
                    "delivered", item["data"]["from"], item["data"]["to"], [item["data"]["message_id"]]
                )
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
        }

    def load_json(self, data: dict[str, Any]) -> None:
        self.accounts = {a["phone"]: Account(**a) for a in data.get("accounts", [])}
        self.links = {link["device_key"]: Link(**link) for link in data.get("links", [])}
        self.queues = {key: list(items) for key, items in data.get("queues", {}).items()}
        self.groups.load_json(data.get("groups", {}))
