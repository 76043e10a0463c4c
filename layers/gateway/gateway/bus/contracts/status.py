"""Contracts of the commands on the device's stories: who sees them, and publishing one."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import StrictInt, model_validator

from gateway.bus.contracts.base import CommandArgs, CommandResult, Text


class PrivacyType(StrEnum):
    """Who sees the account's stories (whatsmeow's ``StatusPrivacyType``)."""

    CONTACTS = "contacts"  # every contact
    WHITELIST = "whitelist"  # only the contacts listed ("only share with")
    BLACKLIST = "blacklist"  # every contact but those listed ("my contacts except")


class StatusPrivacyArgs(CommandArgs):
    """The audience to set: ``list`` holds user JIDs (empty for ``contacts``)."""

    type: PrivacyType
    list: list[Text]


class StatusPrivacySetting(CommandResult):
    """The audience in force on the account."""

    type: PrivacyType
    list: list[str]


class PublishStatusArgs(CommandArgs):
    """A text story, or an image or video story from exactly one of ``media_id`` (stored by
    the API, ``gateway.media.store``) and ``url`` (fetched by the host).

    The fields that name what the story is made of come first: a refusal of the story names
    the first one given (``gateway.devices.command_errors``).
    """

    text: Text | None = None
    media_id: Text | None = None
    url: Text | None = None
    kind: Literal["text", "image", "video"]
    caption: str = ""
    background_color: str | None = None
    font: StrictInt | None = None

    @model_validator(mode="after")
    def _one_source(self) -> PublishStatusArgs:
        if self.kind == "text":
            if self.text is None or self.media_id is not None or self.url is not None:
                raise ValueError("a text story has text, and no media_id nor url")
        elif (self.media_id is None) == (self.url is None):
            raise ValueError("a media story has exactly one of media_id and url")
        return self


class PublishedStatus(CommandResult):
    message_id: Text
    chat_jid: str
    timestamp: float
