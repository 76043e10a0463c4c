"""Status operations of a simulated device session (its ``status``): the story audience and
publishing.

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``, :mod:`..status_checks`), then a fault injected for the port
method (``POST /_simulator/faults {operation: "publish_status"}``), then the account acts on
the network (:meth:`~.core.NetworkCore.device`).

The rule (``decisions.md``): a story reaches the contacts (:meth:`~.world.World.contacts`)
its author's privacy setting allows (``contacts``: all; ``whitelist``: only those listed;
``blacklist``: all but those listed). Every account starts at ``contacts`` with an empty list.
Each reader's phone keeps the story in its inbox's ``statuses`` (media as ``{mimetype, size,
sha256}``; the bytes stay in the network's memory by sha256, not saved); each of its linked
gateway devices gets ``message.received`` in the chat ``status@broadcast``, as whatsmeow hands
a linked device a contact's story (``MessageEv`` with that chat, the author as sender, not a
group). Choices: stories bring no receipts; the publishing account's other devices are not
told; a story never expires here (the real network drops it after 24 hours).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from gateway import jids

from .. import status_checks
from ..payloads import iso_utc
from ..port import SentMessage
from ..status_types import MediaStatus, PrivacyType, StatusContent, StatusPrivacy, TextStatus
from . import events
from .core import DeviceLink, NetworkCore
from .model import Account, new_message_id
from .world import World


class SimulatedStatus:
    """A simulated session's ``status``: its account's stories on the network."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def get_status_privacy(self) -> StatusPrivacy:
        self._link.connection()
        await self._link.fault("get_status_privacy")
        with self._network.device(self._link.connection()) as turn:
            return privacy_of(turn.account)

    async def set_status_privacy(self, privacy: StatusPrivacy) -> StatusPrivacy:
        """The network stores it as given (checked): the next story follows it."""
        self._link.connection()
        checked = status_checks.check_privacy(privacy)
        await self._link.fault("set_status_privacy")
        with self._network.device(self._link.connection()) as turn:
            turn.account.status_privacy = checked.to_json()
            turn.changed()
            return privacy_of(turn.account)

    async def publish_status(self, content: StatusContent) -> SentMessage:
        """The contacts the setting allows see it at once (``docs/status.md``)."""
        self._link.connection()
        status_checks.check_content(content)
        lost = await self._link.fault("publish_status")
        with self._network.device(self._link.connection()) as turn:
            author, world = turn.account, turn.world
            message_id, at = new_message_id(), time.time()
            story = _story(world, message_id, author, content, at)
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
            for jid in _audience(world, author):
                reader = world.account_of_jid(jid)
                assert reader is not None
                reader.statuses.append(dict(story))
                received = events.status_received(story, author.push_name, reader.jid, content, at)
                for link in world.links_of(reader.jid):
                    world.push(link.device_key, received)
            turn.changed()
        if lost:
            await self._link.ack_lost("publish_status")
        return SentMessage(message_id=message_id, chat_jid=jids.STATUS_BROADCAST_JID, timestamp=at)


def privacy_of(account: Account) -> StatusPrivacy:
    """The account's story audience as the network keeps it."""
    setting = account.status_privacy
    return StatusPrivacy(PrivacyType(setting["type"]), tuple(setting["list"]))


def _audience(world: World, author: Account) -> list[str]:
    privacy = privacy_of(author)
    contacts = world.contacts(author)
    if privacy.type is PrivacyType.WHITELIST:
        return [jid for jid in contacts if jid in privacy.list]
    if privacy.type is PrivacyType.BLACKLIST:
        return [jid for jid in contacts if jid not in privacy.list]
    return contacts


def _story(
    world: World, message_id: str, author: Account, content: StatusContent, at: float
) -> dict[str, Any]:
    """A story as its readers' inboxes show it (a media story's bytes kept by sha256)."""
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
    assert content.kind is not None  # checked by status_checks first
    digest = hashlib.sha256(content.data).hexdigest()
    world.status_media[digest] = content.data
    story["type"] = content.kind.value
    story["caption"] = content.caption
    story["media"] = {"mimetype": content.mimetype, "size": len(content.data), "sha256": digest}
    return story
