"""The linked account's own operations on a neonize session: its presence (``presence``) and
its profile (``profile``).

What neonize 0.5.2 can do here (read from its source and its Go library):

- **Presence**: ``send_presence(Presence.AVAILABLE | UNAVAILABLE)`` (whatsmeow refuses it
  while the account has no push name) and ``subscribe_presence(jid)``, which the network
  never answers: changes arrive as ``PresenceEv`` (``contact.presence``), and only while the
  account itself shows as available, as whatsmeow documents.
- **Reading the profile**: the push name is the device store's (``get_me().PushName``, no
  network call); the About text is ``get_user_info(own JID)``'s ``Status``; the picture is
  ``get_profile_picture(own JID)``'s ``URL``, whatsmeow's "does not have a profile picture"
  error meaning none.
- **Changing it**: ``set_status_message`` (About); ``set_profile_photo`` *from bytes* (given a
  ``str``, it reads a path or fetches a URL without a timeout); ``set_profile_name`` (the push
  name). The push name is an app-state write, but unlike ``send_app_state`` (broken in 0.5.2:
  its decoder of the Python-built patch leaves the patch name empty) the Go export
  ``SetPushName`` builds the patch itself (``appstate.BuildSettingPushName``) and hands it to
  whatsmeow's own ``sendAppState``: checked in the 0.5.2 binary, it never calls the broken
  ``utils.DecodePatchInfo`` (``docs/neonize.md``).
"""

from __future__ import annotations

from neonize.client import NewClient
from neonize.utils.enum import Presence

from .. import profile_checks
from ..profile_types import Profile
from .contact_ops import picture_url
from .jids import jid_str, parse_jid
from .link import DeviceLink


class NeonizePresence:
    """A neonize session's ``presence``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def send_presence(self, available: bool) -> None:
        presence = Presence.AVAILABLE if available else Presence.UNAVAILABLE
        await self._link.call("send presence", lambda client: client.send_presence(presence))

    async def subscribe_presence(self, jid: str) -> None:
        target = parse_jid(profile_checks.check_person(jid))
        await self._link.call("subscribe presence", lambda client: client.subscribe_presence(target))


class NeonizeProfile:
    """A neonize session's ``profile``: every library call through its link's gated call."""

    def __init__(self, link: DeviceLink) -> None:
        self._link = link

    async def get_profile(self) -> Profile:
        own = jid_str(self._link.own_account()) or ""
        account = parse_jid(own)  # the account, without the device's part

        def read(client: NewClient) -> Profile:
            name = client.get_me().PushName or None
            about = next((entry.UserInfo.Status for entry in client.get_user_info(account)), "")
            return Profile(jid=own, name=name, about=about or None, picture_url=picture_url(client, account))

        return await self._link.call("get profile", read)

    async def set_name(self, name: str) -> None:
        name = profile_checks.check_name(name)
        await self._link.call("set profile name", lambda client: client.set_profile_name(name))

    async def set_about(self, about: str) -> None:
        about = profile_checks.check_about(about)
        await self._link.call("set about", lambda client: client.set_status_message(about))

    async def set_picture(self, jpeg: bytes) -> str:
        data = bytes(profile_checks.check_picture(jpeg))  # bytes, never a str: a path or URL to neonize
        return await self._link.call("set profile picture", lambda client: client.set_profile_photo(data))
