"""What every command contract is made of: the base models of arguments and results, and
the field types several families share."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ConfigDict, StringConstraints

from gateway import jids
from gateway.web.deferred import DeferredModel


class CommandArgs(DeferredModel):
    """A command's arguments (built on first use, as the API's models: a function uses a few
    of them). Unknown fields are refused: a field this side does not know is an argument it
    would silently ignore (see "Command bus" in docs/architecture.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class CommandResult(DeferredModel):
    """A command's result (built on first use). Unknown fields are ignored, so a host may add
    one before the API functions read it."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class NoArgs(CommandArgs):
    """The arguments of a command that takes none."""


class Done(CommandResult):
    """The result of a command that answers nothing but the device's state."""


def _group_jid(value: str) -> str:
    if not jids.is_group_jid(value):
        raise ValueError("must be a group JID (<digits>@g.us)")
    return value


def _participant(value: str) -> str:
    if jids.parse_participant(value) is None:
        raise ValueError("must be a user JID or a LID")
    return value


Text = Annotated[str, StringConstraints(min_length=1)]
"""A text that must not be empty (ids, JIDs of chats, codes)."""
GroupJid = Annotated[str, AfterValidator(_group_jid)]
"""A group or community JID (the API checked it with its own error codes already)."""
Participant = Annotated[str, AfterValidator(_participant)]
"""A person: a user JID or a LID (the API turns phone numbers into user JIDs)."""
