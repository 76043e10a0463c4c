"""The linked account's own part of the network port: its presence (and following other
people's), and its profile (push name, About text, picture).

Both adapters implement :class:`PresenceOperations` (a session's ``presence``) and
:class:`ProfileOperations` (its ``profile``) and check inputs with :mod:`.profile_checks`
before anything is sent, so they refuse the same inputs with the same kind (``INVALID``).
Every method fails with :class:`~.port.NetworkError` (``NOT_CONNECTED``: nothing was sent).
"""

from __future__ import annotations

from typing import Protocol

# The profile answered is the command bus's contract's model, as it crosses the bus.
from gateway.bus.contracts.profile import Profile

__all__ = ["PresenceOperations", "Profile", "ProfileOperations"]


class PresenceOperations(Protocol):
    """Whether the account shows as online, and whose presence its device follows."""

    async def send_presence(self, available: bool) -> None:
        """Show the account online (``True``) or offline to those who follow its presence.

        The real network sends presence only to an account that is online itself, and tells
        its contacts the account's last-seen time when it goes offline.
        """

    async def subscribe_presence(self, jid: str) -> None:
        """Follow the presence of ``jid`` (a user JID or a LID): from now on, each change
        arrives as ``contact.presence`` (while the device is connected).

        ``INVALID`` for what is no person. Like the real network, nobody answers a
        subscription: following an account that does not exist is no error, and brings no event.
        """


class ProfileOperations(Protocol):
    """The account's own profile, as its contacts see it."""

    async def get_profile(self) -> Profile:
        """The account's JID, push name, About text and picture URL."""

    async def set_name(self, name: str) -> None:
        """Change the push name (:func:`.profile_checks.check_name`); contacts see it on the account's next
        messages."""

    async def set_about(self, about: str) -> None:
        """Change the About text (:func:`.profile_checks.check_about`)."""

    async def set_picture(self, jpeg: bytes) -> str:
        """Set the profile picture from JPEG bytes (:func:`.profile_checks.check_picture`); answers the
        network's id of the new picture."""
