"""The simulated network's groups and communities as records: a group, its people, its errors.

:mod:`.groups` holds the rules that change them. Pure code, no locks and no I/O.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from gateway import jids
from gateway.groups import codes
from gateway.groups.codes import OperationCode
from gateway.groups.invites import invite_link

NAME_MAX = 100
TOPIC_MAX = 2048  # the network's description limit


class Role(StrEnum):
    MEMBER = "member"
    ADMIN = "admin"
    SUPER_ADMIN = "super_admin"

    @property
    def is_admin(self) -> bool:
        return self is not Role.MEMBER


class GroupError(Exception):
    """An operation the network refuses; ``code`` is the lowercase group error code.

    ``status`` is the HTTP status the decisions give the code, for the layers that answer:
    the gateway's one table of refusals (:data:`gateway.groups.codes.REFUSALS`), so the
    simulator's control API and the gateway's group API answer a code alike.
    """

    STATUS: ClassVar[Mapping[str, int]] = codes.REFUSALS

    def __init__(self, code: str, message: str) -> None:
        if code not in self.STATUS:
            raise ValueError(f"unknown group error code {code!r}")
        super().__init__(message)
        self.code = code

    @property
    def status(self) -> int:
        return self.STATUS[self.code]


_CODE_ALPHABET = string.ascii_letters + string.digits


def new_id(kind: str) -> str:
    """A fresh identifier: ``group`` (the digits of a group JID), ``invite`` (a link code),
    ``picture`` (a picture id). Tests pass their own generator to :class:`~.groups.Groups`."""
    if kind == "group":
        return "120363" + "".join(secrets.choice(string.digits) for _ in range(12))
    if kind == "invite":
        return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(22))
    if kind == "picture":
        return str(1_700_000_000 + secrets.randbelow(100_000_000))
    raise ValueError(f"unknown id kind {kind!r}")


@dataclass
class Group:
    """A group, or a community (``is_community``) holding ``linked_groups``.

    ``participants`` maps each person's JID (a user JID or a LID) to its role, in the order
    they came in; ``pending`` holds join requests ``{jid, requested_at}`` (epoch seconds).
    """

    jid: str
    name: str
    owner: str
    created_at: float
    invite_code: str
    topic: str = ""
    is_announce: bool = False
    is_locked: bool = False
    join_approval: bool = False
    member_add_mode: str = "admin"
    ephemeral_duration: int = 0
    is_community: bool = False
    parent_jid: str | None = None
    linked_groups: list[str] = field(default_factory=list)
    participants: dict[str, Role] = field(default_factory=dict)
    pending: list[dict[str, Any]] = field(default_factory=list)
    picture_id: str | None = None

    @property
    def description(self) -> str:
        """The network has one description field; the API calls it ``topic`` or ``description``."""
        return self.topic

    @property
    def invite_link(self) -> str:
        return invite_link(self.invite_code)

    def is_admin(self, jid: str) -> bool:
        role = self.participants.get(jid)
        return role is not None and role.is_admin

    def pending_of(self, jid: str) -> dict[str, Any] | None:
        return next((r for r in self.pending if r["jid"] == jid), None)

    def participant(self, jid: str) -> dict[str, Any]:
        """``{jid, is_admin, is_super_admin}`` as the API and ``group.joined`` show a person."""
        role = self.participants.get(jid)
        return {
            "jid": jid,
            "is_admin": role is not None and role.is_admin,
            "is_super_admin": role is Role.SUPER_ADMIN,
        }

    def to_json(self) -> dict[str, Any]:
        """The network's whole record (the simulator's ``GET /_simulator/groups/{jid}``)."""
        data = asdict(self)
        data["participants"] = [self.participant(jid) for jid in self.participants]
        data["description"] = self.topic
        data["invite_link"] = self.invite_link
        data["members_count"] = len(self.participants)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Group:
        """A record saved by :meth:`to_json`."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["participants"] = {
            p["jid"]: Role.SUPER_ADMIN
            if p["is_super_admin"]
            else Role.ADMIN
            if p["is_admin"]
            else Role.MEMBER
            for p in data["participants"]
        }
        return cls(**known)


@dataclass(frozen=True)
class PersonResult:
    """What one person's part of an operation came to: ``status`` ``ok`` or a per-person code
    (``not_found``, ``already_member``, ``not_member``, ``not_allowed``); ``changed`` is False
    when ``ok`` changed nothing (promoting an admin)."""

    jid: str
    status: str
    role: Role | None = None
    changed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "jid": self.jid,
            "is_admin": self.role is not None and self.role.is_admin,
            "is_super_admin": self.role is Role.SUPER_ADMIN,
            "status": self.status,
        }


@dataclass
class GroupChange:
    """What an operation did, with what a ``group.info`` / ``group.joined`` event needs.

    ``fields`` holds only the settings that changed (``name``, ``topic``, ``announce``,
    ``locked``, ``join_approval``, ``member_add_mode``, ``ephemeral_seconds``,
    ``picture_id``, ``invite_link``, ``deleted``). ``join``/``leave``/``promote``/``demote``
    list the people whose membership or role changed; ``requested`` those now waiting for
    approval. ``linked``/``unlinked`` name the other side of community links made or removed.
    ``results`` is the per-person answer, in the order asked.
    """

    kind: str
    group_jid: str
    author: str | None
    at: float
    fields: dict[str, Any] = field(default_factory=dict)
    join: list[str] = field(default_factory=list)
    leave: list[str] = field(default_factory=list)
    promote: list[str] = field(default_factory=list)
    demote: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    join_reason: str | None = None
    linked: list[str] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)
    results: list[PersonResult] = field(default_factory=list)


def parse_people(values: list[str]) -> list[str]:
    """Participant inputs as JIDs (duplicates dropped, order kept), by :mod:`gateway.jids`.

    Raises
    ------
    GroupError
        ``invalid_participant`` when any is not a phone number, user JID or LID: nothing is done.
    """
    people: list[str] = []
    for value in values:
        address = jids.parse_participant(value)
        if address is None:
            raise GroupError(
                OperationCode.INVALID_PARTICIPANT, f"not a phone number, user JID or LID: {value!r}"
            )
        people.append(address.jid)
    return list(dict.fromkeys(people))
