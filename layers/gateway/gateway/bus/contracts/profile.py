"""Contracts of the commands on the linked account itself: its presence (and following
others'), and its profile (name, About text, picture)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, StringConstraints, model_validator

from gateway.bus.contracts.base import CommandArgs, CommandResult, Participant, Text

PresenceState = Literal["available", "unavailable"]

MAX_NAME_CHARS = 25
"""The network's push name limit (its clients stop there)."""
MAX_ABOUT_CHARS = 139
"""The network's About limit (its clients stop there)."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be only whitespace")
    return value


Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME_CHARS), AfterValidator(_not_blank)]
About = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_ABOUT_CHARS), AfterValidator(_not_blank)
]


class SetPresenceArgs(CommandArgs):
    state: PresenceState


class PresenceSet(CommandResult):
    state: PresenceState


class SubscribePresenceArgs(CommandArgs):
    """The person to follow: a user JID or a LID (the API turns phone numbers into user JIDs)."""

    jid: Participant


class PresenceSubscribed(CommandResult):
    jid: str


class UpdateProfileArgs(CommandArgs):
    """The fields to change; at least one."""

    name: Name | None = None
    about: About | None = None

    @model_validator(mode="after")
    def _something(self) -> UpdateProfileArgs:
        if self.name is None and self.about is None:
            raise ValueError("give name, about or both")
        return self


class ProfilePictureArgs(CommandArgs):
    """A JPEG the API stored in the media bucket (``gateway.media.store``)."""

    media_id: Text


class Profile(CommandResult):
    """The linked account's profile as the network has it (None: not set, or not told)."""

    jid: str
    name: str | None
    about: str | None
    picture_url: str | None


class ProfilePictureSet(CommandResult):
    picture_id: str
