"""Response bodies of the presence and profile routes."""

from __future__ import annotations

from pydantic import Field

from gateway.bus.contracts.profile import PresenceState
from gateway.web.outputs import OutputModel, Succeeded


class PresenceResponse(Succeeded):
    state: PresenceState = Field(description="The presence the account now shows")


class PresenceSubscribedResponse(Succeeded):
    jid: str = Field(
        description="The person followed, as a JID (phone digits become a user JID); their changes "
        "arrive as `contact.presence`"
    )


class ProfileView(OutputModel):
    jid: str = Field(description="The account's user JID")
    name: str | None = Field(description="The push name; null when none is set")
    about: str | None = Field(description="The About text; null when none is set")
    picture_url: str | None = Field(description="Where the profile picture is served; null without one")


class ProfileResponse(Succeeded):
    profile: ProfileView


class ProfilePictureResponse(Succeeded):
    picture_id: str = Field(description="The network's id of the new picture")
