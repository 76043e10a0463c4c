"""Response bodies of the status routes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gateway.web.outputs import Succeeded

Jids = list[str]
"""(A name of its own: inside the models, ``list`` is the field.)"""


class StatusPrivacyResponse(Succeeded):
    """The story audience in force on the device's account."""

    type: Literal["contacts", "whitelist", "blacklist"]
    count: int = Field(description="How many people `list` names")
    list: Jids = Field(description="User JIDs, in order, without repeats; empty for `contacts`")


class StatusPublishedResponse(Succeeded):
    """A story the device published to `status@broadcast`."""

    message_id: str = Field(description="The network's id of the story message")
