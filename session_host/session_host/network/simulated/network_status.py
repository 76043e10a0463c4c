"""Stories on the simulated network: contacts, the story audience, and who sees a story.

The rule (``decisions.md``): an account's contacts are the accounts it exchanged a one-to-one
message with (either way) and those it added (``POST /_simulator/accounts/{phone}/contacts``);
a story reaches the contacts its privacy setting allows (``contacts``: all; ``whitelist``:
only those listed; ``blacklist``: all but those listed). Every account starts at
``contacts`` with an empty list.

Each reader's phone keeps the story in its inbox's ``statuses`` (media as ``{mimetype,
size, sha256}``; the bytes stay in the network's memory by sha256, not saved); each of its
linked gateway devices gets ``message.received`` in the chat ``status@broadcast``, as
whatsmeow hands a linked device a contact's story (``MessageEv`` with that chat, the author
as sender, not a group). Choices: stories bring no receipts; the publishing account's other
devices are not told; a story never expires here (the real network drops it after 24 hours).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from gateway import jids

from ..payloads import iso_utc
from ..status_types import MediaStatus, PrivacyType, StatusContent, StatusPrivacy, TextStatus
from . import events
from .core import NetworkCore
from .model import Account, new_message_id


class DeviceStatus(NetworkCore):
    """Status operations of a connected device's account, and the contacts phones add."""

    def _account(self, phone: str) -> Account:
        raise NotImplementedError  # the network's own (404 ``ACCOUNT_NOT_FOUND``)

    # --- contacts (control API) -------------------------------------------------------

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
            return self._contacts(account)

    def contacts_of(self, phone: str) -> list[str]:
        """The phone's contacts by the rule above (user JIDs, sorted)."""
        with self._lock:
            return self._contacts(self._account(phone))

    def _contacts(self, account: Account) -> list[str]:
        found = set(account.contacts)
        found.update(entry["to"] for entry in account.sent if jids.is_user_jid(entry["to"]))
        found.update(m["from"] for m in account.inbox if m.get("chat", m["from"]) == m["from"])
        found.discard(account.jid)
        return sorted(jid for jid in found if self._world.account_of_jid(jid) is not None)

    # --- what devices do (called by sessions) -----------------------------------------

    def device_status_privacy(self, conn_id: str) -> StatusPrivacy:
        with self._lock:
            _conn, account = self._live(conn_id)
            return _privacy(account)

    def device_set_status_privacy(self, conn_id: str, privacy: StatusPrivacy) -> StatusPrivacy:
        """Store a setting already checked (:func:`..status_checks.check_privacy`)."""
        with self._lock:
            _conn, account = self._live(conn_id)
            account.status_privacy = privacy.to_json()
            self._save()
            return _privacy(account)

    def device_publish_status(self, conn_id: str, content: StatusContent) -> tuple[str, float]:
        """Hand a story to the contacts the account's setting allows; its id and time."""
        with self._lock:
            _conn, author = self._live(conn_id)
            message_id, at = new_message_id(), time.time()
            story = self._story(message_id, author, content, at)
            author.sent.append(
                {
                    "message_id": message_id,
                    "to": jids.STATUS_BROADCAST_JID,
                    "type": story["type"],
                    "text": story["text"] or story["caption"],
                    "status": "sent",
                    "timestamp": at,
                }
            )
            for jid in self._audience(author):
                reader = self._world.account_of_jid(jid)
                assert reader is not None
                reader.statuses.append(dict(story))
                received = events.status_received(story, author.push_name, reader.jid, content, at)
                for link in self._world.links_of(reader.jid):
                    self._world.push(link.device_key, received)
            self._save()
            return message_id, at

    def status_media(self, sha256: str) -> bytes | None:
        """The bytes of a story's media, by the ``sha256`` its readers' inboxes show."""
        with self._lock:
            return self._world.status_media.get(sha256)

    def _audience(self, author: Account) -> list[str]:
        privacy = _privacy(author)
        contacts = self._contacts(author)
        if privacy.type is PrivacyType.WHITELIST:
            return [jid for jid in contacts if jid in privacy.list]
        if privacy.type is PrivacyType.BLACKLIST:
            return [jid for jid in contacts if jid not in privacy.list]
        return contacts

    def _story(self, message_id: str, author: Account, content: StatusContent, at: float) -> dict[str, Any]:
        """A story as its readers' inboxes show it."""
        story: dict[str, Any] = {
            "message_id": message_id,
            "from": author.jid,
            "type": "text",
            "text": None,
            "caption": None,
            "media": None,
            "at": iso_utc(at),
        }
        if isinstance(content, TextStatus):
            story["text"] = content.text
            story["background_color"] = content.background_color
            story["font"] = content.font
            return story
        assert isinstance(content, MediaStatus)
        assert content.kind is not None  # checked by the session (status_checks)
        digest = hashlib.sha256(content.data).hexdigest()
        self._world.status_media[digest] = content.data
        story["type"] = content.kind.value
        story["caption"] = content.caption
        story["media"] = {"mimetype": content.mimetype, "size": len(content.data), "sha256": digest}
        return story


def _privacy(account: Account) -> StatusPrivacy:
    setting = account.status_privacy
    return StatusPrivacy(PrivacyType(setting["type"]), tuple(setting["list"]))
