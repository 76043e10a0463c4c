"""The linked account's own operations on a simulated session: its presence (``presence``)
and its profile (``profile``).

As every operation (:mod:`.link`): connected first (``NOT_CONNECTED``, nothing sent), the
inputs checked (``INVALID``, :mod:`..profile_checks`), then a fault injected for the port
method (``POST /_simulator/faults {operation: "set_about"}``), then the account acts on the
network (:meth:`~.core.NetworkCore.device`).

The rules (``docs/profile.md``): the profile lives on the account (:class:`~.model.Account`:
``name``, ``about``, ``picture``), where every other account sees it: the push name on the
account's next messages, all of it in ``GET /_simulator/accounts/{phone}``. A device follows
a person's presence from its subscription on, while it stays linked (:attr:`.model.Link.following`,
by user JID: a LID given is resolved to its account's); each change of that person's presence
reaches it as ``contact.presence`` while it is connected. Like the real network, nobody
answers a subscription: one to an account that does not exist is kept, and brings nothing.
"""

from __future__ import annotations

import hashlib
import time

from .. import profile_checks
from ..profile_types import Profile
from .core import DeviceLink, NetworkCore
from .group_records import new_id


class SimulatedPresence:
    """A simulated session's ``presence``: its account online or not, and whom it follows."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def send_presence(self, available: bool) -> None:
        self._link.connection()
        await self._link.fault("send_presence")
        with self._network.device(self._link.connection()) as turn:
            turn.world.account_presence(turn.account, available, time.time())
            turn.changed()

    async def subscribe_presence(self, jid: str) -> None:
        self._link.connection()
        profile_checks.check_person(jid)
        await self._link.fault("subscribe_presence")
        with self._network.device(self._link.connection()) as turn:
            link = turn.world.links.get(turn.conn.device_key or "")
            person = turn.world.person(jid) or jid
            if link is not None and person not in link.following:
                link.following.append(person)
                turn.changed()


class SimulatedProfile:
    """A simulated session's ``profile``: its account's name, About text and picture."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link
        self._network: NetworkCore = link.network

    async def get_profile(self) -> Profile:
        self._link.connection()
        await self._link.fault("get_profile")
        with self._network.device(self._link.connection()) as turn:
            account = turn.account
            return Profile(
                jid=account.jid, name=account.name, about=account.about, picture_url=account.picture_url
            )

    async def set_name(self, name: str) -> None:
        self._link.connection()
        profile_checks.check_name(name)
        await self._link.fault("set_name")
        with self._network.device(self._link.connection()) as turn:
            turn.account.name = name
            turn.changed()

    async def set_about(self, about: str) -> None:
        self._link.connection()
        profile_checks.check_about(about)
        await self._link.fault("set_about")
        with self._network.device(self._link.connection()) as turn:
            turn.account.about = about
            turn.changed()

    async def set_picture(self, jpeg: bytes) -> str:
        self._link.connection()
        profile_checks.check_picture(jpeg)
        await self._link.fault("set_picture")
        with self._network.device(self._link.connection()) as turn:
            digest = hashlib.sha256(jpeg).hexdigest()
            turn.world.media.setdefault(digest, bytes(jpeg))
            picture_id = new_id("picture")
            turn.account.picture = {
                "picture_id": picture_id,
                "sha256": digest,
                "size": len(jpeg),
                "set_at": time.time(),
            }
            turn.changed()
            return picture_id
