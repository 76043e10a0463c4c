"""The simulated messaging network: one world shared by every session of the process.

Thread-safe: the control API calls it from the API server's threads and sessions call it
from their hosts' event loops, all under one lock. Sessions get signals through the
``deliver`` callback they register (see :data:`.model.Deliver`).

This module is the other side of the network: phones that scan QR codes, enter pair
codes, send and read messages, type, come online, change their name, save contacts and
call, and the network's own actions (dropping a connection, a phone unlinking a device).
:class:`~.core.NetworkCore` holds what sessions call; :mod:`.network_groups` what phones do
with groups.
"""

from __future__ import annotations

import copy
import time
from dataclasses import replace
from functools import cached_property
from typing import Any

from gateway import jids
from gateway.devices.proxies import redacted
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import ErrorKind

from .. import message_checks
from ..media_types import OutgoingMedia, QuickReply
from ..payloads import iso_utc
from ..port import NetworkError
from . import bodies, events, message_changes
from .bodies import Body
from .core import REAL_QR_LIFETIMES, NetworkCore
from .model import (
    Account,
    Call,
    Connection,
    ControlError,
    Link,
    new_call_id,
    new_device_key,
    new_message_id,
    normalize_pair_code,
)
from .network_groups import PhoneGroups

__all__ = ["REAL_QR_LIFETIMES", "SimulatedNetwork"]


class SimulatedNetwork(NetworkCore):
    """The whole simulated network: its core (:class:`~.core.NetworkCore`: the world, the
    timing knobs, faults, and what sessions call) and the other side, here; what phones do
    with groups is :attr:`groups`. What the gateway's devices do is their sessions' operation
    families' (``session_*.py``), each acting inside :meth:`~.core.NetworkCore.device`."""

    @cached_property
    def groups(self) -> PhoneGroups:
        """What the simulator's phones do with groups (create, administer, join, answer)."""
        return PhoneGroups(self)

    # --- accounts ---------------------------------------------------------------------

    def create_account(self, phone: str, name: str | None = None) -> dict[str, Any]:
        """A phone joins the network (a contact) with a LID of its own; 409 ``ACCOUNT_EXISTS``
        if it already has."""
        self._check_phone(phone)
        with self._lock:
            if phone in self._world.accounts:
                raise ControlError(409, ErrorCode.ACCOUNT_EXISTS, f"account {phone} already exists")
            account = self._world.accounts[phone] = Account(phone, name)
            self._save()
            return {"jid": account.jid, "lid": account.lid, "phone": phone, "name": name}

    def _ensure(self, phone: str, name: str | None = None) -> Account:
        account = self._world.accounts.get(phone)
        if account is None:
            account = self._world.accounts[phone] = Account(phone, name)
            self._save()
        return account

    def _account(self, phone: str) -> Account:
        account = self._world.accounts.get(phone)
        if account is None:
            raise ControlError(404, ErrorCode.ACCOUNT_NOT_FOUND, f"no account for phone {phone}")
        return account

    def _target(self, to: str) -> Account:
        """The account a phone addresses (user JID or phone digits), as a control API error."""
        try:
            return self._world.recipient(to)
        except NetworkError as error:
            raise _control_error(error) from error

    def add_contacts(self, phone: str, phones: list[str]) -> list[str]:
        """The phone saves other accounts as contacts; returns all its contacts' JIDs.

        404 ``ACCOUNT_NOT_FOUND`` when the phone, or one it adds, has no account (nothing
        is added then)."""
        with self._lock:
            account = self._account(phone)
            added = [self._account(other).jid for other in phones]
            for jid in added:
                if jid != account.jid and jid not in account.contacts:
                    account.contacts.append(jid)
            self._save()
            return self._world.contacts(account)

    def contacts_of(self, phone: str) -> list[str]:
        """The phone's contacts by the rule of :meth:`~.world.World.contacts` (user JIDs, sorted)."""
        with self._lock:
            return self._world.contacts(self._account(phone))

    def rename_account(self, phone: str, name: str) -> dict[str, Any]:
        """The phone changes its push name; its next message to a device brings ``contact.pushname``."""
        with self._lock:
            account = self._account(phone)
            account.name = name
            self._save()
            return {"jid": account.jid, "phone": phone, "name": name}

    def update_account(self, phone: str, changes: dict[str, str | None]) -> dict[str, Any]:
        """The phone changes its push ``name`` and/or its ``about`` text (None clears it), as
        devices read them (GET /contacts/{jid}); a new name also brings ``contact.pushname``
        with its next message."""
        with self.phone(phone) as turn:
            account = turn.account
            if "name" in changes:
                account.name = changes["name"]
            if "about" in changes:
                account.about = changes["about"]
            turn.changed()
            return {
                "jid": account.jid,
                "lid": account.lid,
                "phone": phone,
                "name": account.name,
                "about": account.about,
            }

    @staticmethod
    def _check_phone(phone: str) -> None:
        if not jids.is_phone(phone):
            raise ControlError(400, ErrorCode.VALIDATION_ERROR, f"phone must be {jids.PHONE_RULE}")

    def account_view(self, phone: str) -> dict[str, Any]:
        """The account as others see it: its identities, profile and presence."""
        with self._lock:
            account = self._account(phone)
            return {
                "jid": account.jid,
                "lid": account.lid,
                "phone": account.phone,
                "name": account.name,
                "about": account.about,
                "picture": copy.deepcopy(account.picture),
                "picture_url": account.picture_url,
                "available": account.available,
                "last_seen": iso_utc(account.last_seen) if account.last_seen is not None else None,
            }

    def inbox(self, phone: str) -> dict[str, Any]:
        """What the phone received and saw: messages (an edited one with its new text and
        ``edited``), chat presence, statuses, what it sent, what its devices deleted for
        themselves, the reactions it got, and the calls it made that were rejected."""
        with self._lock:
            account = self._account(phone)
            now = iso_utc(time.time())  # ISO times of one format compare as their moments do
            return copy.deepcopy(
                {
                    "jid": account.jid,
                    "messages": [
                        m for m in account.inbox if m.get("expires_at") is None or m["expires_at"] > now
                    ],
                    "presence": account.presence,
                    "statuses": account.statuses,
                    "sent": account.sent,
                    "deleted_for_me": account.deleted_for_me,
                    "calls": account.calls,
                    "reactions": account.reactions,
                }
            )

    # --- pairing ----------------------------------------------------------------------

    def scan(self, device_id: str, phone: str) -> str:
        """``phone`` scans the QR the device shows now; the device links to that account."""
        self._check_phone(phone)
        with self._lock:
            showing = [c for c in self._world.conns_of_device(device_id) if c.device_key is None and c.qr]
            if not showing:
                if any(link.device_id == device_id for link in self._world.links.values()):
                    raise ControlError(
                        409, ErrorCode.ALREADY_LOGGED_IN, f"device {device_id} is already paired"
                    )
                raise ControlError(404, ErrorCode.DEVICE_NOT_FOUND, f"device {device_id} shows no QR code")
            newest = max(showing, key=lambda c: c.opened_at)
            return self._pair(newest, self._ensure(phone))

    def enter_pair_code(self, phone: str, code: str) -> str:
        """``phone`` enters a pair code a device showed for that phone number."""
        self._check_phone(phone)
        wanted = normalize_pair_code(code)
        with self._lock:
            for conn in self._world.conns.values():
                if conn.device_key is None and conn.pair_code == wanted and conn.pair_phone == phone:
                    return self._pair(conn, self._ensure(phone))
        raise ControlError(
            404, ErrorCode.PAIR_CODE_NOT_FOUND, "no pairing session shows this code for this phone"
        )

    def _pair(self, conn: Connection, account: Account) -> str:
        link = Link(new_device_key(), account.jid, conn.device_id)
        self._world.links[link.device_key] = link
        conn.device_key, conn.jid = link.device_key, account.jid
        conn.qr = conn.pair_code = conn.pair_phone = None
        self._save()
        self._world.signal(conn, "paired", {"jid": account.jid, "device_key": link.device_key})
        return account.jid

    # --- what phones do ---------------------------------------------------------------

    def send_from_account(
        self,
        phone: str,
        to: str,
        text: str | None,
        media: OutgoingMedia | None = None,
        reply: QuickReply | None = None,
        reply_to: str | None = None,
    ) -> str:
        """The phone sends a text, media, or both (the text is then the media's caption), or
        taps a template's quick reply (``reply``), to a user JID (or phone digits) or a group;
        returns the message id. ``reply_to``: the message of that chat it quotes (any id is
        taken, as the real network takes it). What the network refuses is a 400 ``VALIDATION_ERROR``; a
        group refuses with :class:`~.group_records.GroupError` as it refuses devices
        (``group_not_found``, ``not_group_admin``)."""
        body = _phone_body(text, media, reply)
        with self._lock:
            sender = self._account(phone)
            message_id = new_message_id()
            if reply_to is not None:
                body = self._world.replying(body, sender, self._chat(to), reply_to)
            if jids.is_group_jid(to):
                self._world.post_to_group(sender, to, message_id, body)
            else:
                self._world.post(sender, self._target(to), message_id, body, exclude=None)
            self._save()
            return message_id

    def _chat(self, chat: str) -> str:
        """The JID of a chat a phone names: a group's, or the person's (phone digits too)."""
        return chat if jids.is_group_jid(chat) else self._target(chat).jid

    def read_by_account(self, phone: str, chat: str, message_ids: list[str]) -> list[str]:
        """The phone reads messages of a chat (a person or a group); returns the ids it had
        (404 when none)."""
        with self._lock:
            reader = self._account(phone)
            chat_jid = self._chat(chat)
            read = self._world.read(reader, chat_jid, message_ids)
            if not read:
                raise ControlError(
                    404, ErrorCode.MESSAGE_NOT_FOUND, f"no such message from {chat_jid} in the inbox"
                )
            self._save()
            return read

    def vote(self, phone: str, poll_id: str, chat: str, options: list[str]) -> list[str]:
        """The phone votes on a poll it received in ``chat`` (the author's user JID or phone
        digits, or the group's JID): :func:`.message_changes.vote`."""
        with self._lock:
            voter = self._account(phone)
            chosen = message_changes.vote(self._world, voter, self._chat(chat), poll_id, options)
            self._save()
            return chosen

    def react_from_account(self, phone: str, message_id: str, chat: str, emoji: str) -> None:
        """The phone reacts to a message it has in a chat (sent or received; empty ``emoji``:
        takes its reaction back); 404 ``MESSAGE_NOT_FOUND`` when it has none."""
        with self._lock:
            account = self._account(phone)
            chat_jid = self._chat(chat)
            try:
                message_changes.react(self._world, account, chat_jid, message_id, emoji, author=None)
            except NetworkError as error:
                raise ControlError(404, ErrorCode.MESSAGE_NOT_FOUND, str(error)) from error
            self._save()

    def edit_from_account(self, phone: str, message_id: str, chat: str, text: str) -> None:
        """The phone edits a text it sent in a chat: 404 ``MESSAGE_NOT_FOUND`` when it sent none
        there, 400 ``EDIT_TIME_EXPIRED`` past the network's edit window."""
        with self._lock:
            account = self._account(phone)
            chat_jid = self._chat(chat)
            try:
                message_changes.edit(
                    self._world, account, chat_jid, message_id, text, window=self.edit_window
                )
            except NetworkError as error:
                if error.kind is ErrorKind.EXPIRED:
                    raise ControlError(400, ErrorCode.EDIT_TIME_EXPIRED, str(error)) from error
                raise ControlError(404, ErrorCode.MESSAGE_NOT_FOUND, str(error)) from error
            self._save()

    def type_to(self, phone: str, to: str, state: str) -> None:
        """The phone shows (``composing``) or stops showing (``paused``) typing in its chat with
        ``to``, a person or a group (where its other members see it)."""
        with self._lock:
            sender = self._account(phone)
            if jids.is_group_jid(to):
                self._world.group_presence(sender.jid, to, state)
            else:
                self._world.presence(sender.jid, self._target(to), state)
            self._save()

    def show_presence(self, phone: str, to: str | None, available: bool) -> None:
        """The phone comes online or goes offline: as ``to`` sees it (its devices connected now,
        whether they follow it or not), or, without ``to``, on the network: every device
        following its presence (:meth:`~.world.World.account_presence`)."""
        with self._lock:
            account = self._account(phone)
            if to is None:
                self._world.account_presence(account, available, time.time())
                self._save()
                return
            watcher = self._target(to)
            if not self._world.blocks(watcher, account.jid):
                self._world.live(watcher, events.contact_presence(account.jid, available, time.time()))

    def call(self, phone: str, to: str, video: bool = False) -> str:
        """The phone calls ``to``; the devices connected now get ``call.offer``. Returns the call id."""
        with self._lock:
            caller = self._account(phone)
            callee = self._target(to)
            call = Call(new_call_id(), caller.jid, callee.jid, video)
            self._world.calls[call.call_id] = call
            if not self._world.blocks(callee, caller.jid):  # a blocked caller rings nowhere
                self._world.live(callee, events.call_offer(call))
            return call.call_id

    def end_call(self, phone: str, call_id: str, reason: str | None = None) -> None:
        """The caller hangs up (or the call stops ringing): ``call.terminate`` to the callee's devices."""
        with self._lock:
            caller = self._account(phone)
            call = self._world.calls.get(call_id)
            if call is None or call.caller != caller.jid:
                raise ControlError(
                    404, ErrorCode.CALL_NOT_FOUND, f"{caller.jid} has no call {call_id} ringing"
                )
            del self._world.calls[call_id]
            callee = self._world.account_of_jid(call.callee)
            if callee is not None and not self._world.blocks(callee, caller.jid):
                self._world.live(callee, events.call_terminate(call, reason, time.time()))

    # --- what the network does --------------------------------------------------------

    def drop(self, device_id: str, reason: str = "connection_lost") -> bool:
        """Cut every connection of the device; each session sees the loss and reconnects."""
        with self._lock:
            conns = self._world.conns_of_device(device_id)
            for conn in conns:
                del self._world.conns[conn.conn_id]
                self._world.signal(conn, "dropped", {"reason": reason})
            return bool(conns)

    def unlink(self, device_id: str) -> bool:
        """The phone removes the linked device: its key is revoked, a live session is logged out.

        A link left behind by a device that logged out while offline (the phone was not
        told) goes away only this way.
        """
        with self._lock:
            links = [link for link in self._world.links.values() if link.device_id == device_id]
            for link in links:
                self._world.forget_link(link.device_key)
                conn = self._world.conn_of_key(link.device_key)
                if conn is not None:
                    del self._world.conns[conn.conn_id]
                    self._world.signal(conn, "logged_out", {"reason": "logged_out"})
            if links:
                self._save()
            return bool(links)

    # --- inspection (tests, diagnostics) ----------------------------------------------

    def max_simultaneous_connections(self, device_id: str) -> int:
        """The most connections the device ever had open at once, pairing ones included.

        Above 1 means two sessions of the device were live at the same moment (two hosts
        running it, a stream replaced); 0 means it never connected. Connections vanish when
        a session closes, is dropped or replaced, or its host crashes (``SimulatedPort.crash``).
        """
        with self._lock:
            return self._max_conns.get(device_id, 0)

    def connection_view(self, device_id: str) -> dict[str, Any] | None:
        """How the device reaches the network: whether it is connected now, and the proxy its
        latest connection went through (password as ``***``); None if it never connected."""
        with self._lock:
            if device_id not in self._dialed_through:
                return None
            return {
                "device_id": device_id,
                "connected": any(c.jid is not None for c in self._world.conns_of_device(device_id)),
                "proxy_url": redacted(self._dialed_through[device_id]),
            }

    def connection_count(self, device_id: str) -> int:
        with self._lock:
            return len(self._world.conns_of_device(device_id))

    def linked_jid(self, device_id: str) -> str | None:
        """The account the device is linked to, if the network knows a key for it."""
        with self._lock:
            newest = max(
                (link for link in self._world.links.values() if link.device_id == device_id),
                key=lambda link: link.linked_at,
                default=None,
            )
            return newest.jid if newest else None

    def status_media(self, sha256: str) -> bytes | None:
        """The bytes of a story's media, by the ``sha256`` its readers' inboxes show."""
        with self._lock:
            return self._world.status_media.get(sha256)

    def queued_count(self, device_id: str) -> int:
        with self._lock:
            keys = [link.device_key for link in self._world.links.values() if link.device_id == device_id]
            return sum(len(self._world.queues.get(key, [])) for key in keys)


def _control_error(error: NetworkError) -> ControlError:
    if error.kind is ErrorKind.NOT_FOUND:
        return ControlError(404, ErrorCode.RECIPIENT_NOT_FOUND, str(error))
    return ControlError(400, ErrorCode.INVALID_CHAT_JID, str(error))


def _phone_body(text: str | None, media: OutgoingMedia | None, reply: QuickReply | None) -> Body:
    """What a phone's message carries: exactly one of a reply, media (``text`` its caption),
    or a text."""
    if reply is not None:
        if text or media is not None:
            raise ControlError(
                400, ErrorCode.VALIDATION_ERROR, "a button reply goes alone, without text or media"
            )
        return bodies.button_reply(reply)
    if media is None:
        if not text:
            raise ControlError(400, ErrorCode.VALIDATION_ERROR, "a message needs a text or media")
        return bodies.text(text)
    if text and media.caption:
        raise ControlError(400, ErrorCode.VALIDATION_ERROR, "give the caption as text or caption, not both")
    media = replace(media, caption=text) if text else media
    try:
        message_checks.check_media(media)
    except NetworkError as error:
        raise ControlError(400, ErrorCode.VALIDATION_ERROR, str(error)) from error
    return bodies.media(media)
