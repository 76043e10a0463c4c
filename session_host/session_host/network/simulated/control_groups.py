"""The simulator control API's group routes: other people's phones create, administer and
join groups under the network's rules (:mod:`.groups`).

Included by :func:`.control.control_router` (same prefix, same master token). The network
refuses in the lowercase group envelope ``{success: false, error: {code, message}}``; an
unknown acting phone and a body that does not validate keep the standard envelope
(``ACCOUNT_NOT_FOUND``, ``VALIDATION_ERROR``), as on every control route.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter
from fastapi import Path as PathParam
from pydantic import BaseModel, Field

from gateway.errors import ApiError, OperationError
from gateway.failures.codes import ErrorCode
from gateway.groups.codes import OperationCode
from gateway.jids import PHONE_PATTERN
from gateway.web.error_docs import MASTER, WITH_BODY, WITH_PARAMETERS, answers, operation, standard

from .group_records import GroupError
from .model import ControlError
from .network import SimulatedNetwork

PhoneInPath = Annotated[str, PathParam(pattern=PHONE_PATTERN, description="a plain phone number")]
GroupJidInPath = Annotated[str, PathParam(min_length=1, max_length=128, description="a group JID")]

T = TypeVar("T")

_ACCOUNT = standard(404, ErrorCode.ACCOUNT_NOT_FOUND)
_JID = operation(400, OperationCode.INVALID_GROUP_JID)
_PEOPLE = operation(400, OperationCode.INVALID_REQUEST, OperationCode.INVALID_PARTICIPANT)
_ADMIN = operation(403, OperationCode.NOT_GROUP_ADMIN)
_GROUP = operation(404, OperationCode.GROUP_NOT_FOUND)
_COMMUNITY = operation(409, OperationCode.NOT_A_COMMUNITY)
_SETTINGS = operation(400, OperationCode.INVALID_REQUEST)


class GroupOptionsIn(BaseModel):
    announcement: bool = False
    locked: bool = False
    join_approval: bool = False
    community: bool = False
    parent_jid: str | None = Field(default=None, description="a community to link the new group into")


class CreateGroupIn(BaseModel):
    name: str
    participants: list[str] = Field(description="phone numbers, user JIDs or LIDs")
    options: GroupOptionsIn | None = None


class ParticipantsIn(BaseModel):
    action: str = Field(default="add", description="add, remove, promote or demote")
    participants: list[str] = Field(description="phone numbers, user JIDs or LIDs")


class GroupSettingsIn(BaseModel):
    """The PATCH /groups/{jid} body: omitted fields stay unchanged."""

    name: str | None = None
    topic: str | None = None
    description: str | None = None
    announcement: bool | None = None
    locked: bool | None = None
    join_approval: bool | None = None
    member_add_mode: str | None = Field(default=None, description="admin or all")


class RequestsIn(BaseModel):
    action: str = Field(description="approve or reject")
    participants: list[str] = Field(description="phone numbers, user JIDs or LIDs")


class LinkIn(BaseModel):
    group_jid: str = Field(description="the group to link into the community, or to unlink")


class EphemeralIn(BaseModel):
    duration_seconds: int = Field(description="0 (off), 86400, 604800 or 7776000")


class JoinIn(BaseModel):
    link: str = Field(description="an invite link, https://chat.whatsapp.com/<code>")


def group_call(action: Callable[..., T], *args: Any) -> T:
    """``action(*args)``, its group refusals in the lowercase envelope, the rest standard."""
    try:
        return action(*args)
    except GroupError as error:
        raise OperationError(error.status, error.code, str(error)) from error
    except ControlError as error:
        raise ApiError(error.status, error.code, str(error)) from error


def group_routes(network: SimulatedNetwork) -> APIRouter:
    """The group routes acting on ``network``, to include in the control router."""
    router = APIRouter()

    @router.post(
        "/accounts/{phone}/groups",
        status_code=201,
        responses=answers(MASTER, WITH_BODY, _JID, _PEOPLE, _ACCOUNT, _GROUP, _ADMIN, _COMMUNITY),
    )
    def create_group(phone: PhoneInPath, body: CreateGroupIn) -> dict[str, Any]:
        """The account creates a group (with ``options.community``, a community) as its super
        admin; each participant's status says who came in (``not_found``: no such account)."""
        options = body.options.model_dump(exclude_none=True) if body.options else {}
        created = group_call(network.groups.create, phone, body.name, body.participants, options)
        return {"success": True, **created}

    @router.get("/groups/{jid}", responses=answers(MASTER, WITH_PARAMETERS, _JID, _GROUP))
    def get_group(jid: GroupJidInPath) -> dict[str, Any]:
        """The network's record of the group: its fields, ``participants``, ``pending`` join
        requests, ``invite_link`` and ``linked_groups`` (a community's children)."""
        return {"success": True, "group": group_call(network.groups.record, jid)}

    @router.post(
        "/accounts/{phone}/groups/{jid}/participants",
        responses=answers(MASTER, WITH_BODY, _JID, _PEOPLE, _ACCOUNT, _GROUP, _ADMIN),
    )
    def change_participants(phone: PhoneInPath, jid: GroupJidInPath, body: ParticipantsIn) -> dict[str, Any]:
        """The account adds, removes, promotes or demotes members as an admin; each person
        gets its own status (``ok``, ``not_found``, ``already_member``, ``not_member``,
        ``not_allowed``)."""
        changed = group_call(network.groups.change_participants, phone, jid, body.action, body.participants)
        return {"success": True, **changed}

    @router.patch(
        "/accounts/{phone}/groups/{jid}",
        responses=answers(MASTER, WITH_BODY, _JID, _SETTINGS, _ACCOUNT, _GROUP, _ADMIN),
    )
    def update_group(phone: PhoneInPath, jid: GroupJidInPath, body: GroupSettingsIn) -> dict[str, Any]:
        """The account changes the group (the PATCH /groups/{jid} body) under the network's
        rules; the refreshed record."""
        settings = body.model_dump(exclude_none=True)
        return {"success": True, "group": group_call(network.groups.update, phone, jid, settings)}

    @router.post(
        "/accounts/{phone}/groups/{jid}/requests",
        responses=answers(MASTER, WITH_BODY, _JID, _PEOPLE, _ACCOUNT, _GROUP, _ADMIN),
    )
    def answer_requests(phone: PhoneInPath, jid: GroupJidInPath, body: RequestsIn) -> dict[str, Any]:
        """The account, as an admin, approves (the person becomes a member) or rejects join
        requests; per person ``ok``, or ``not_found`` when no such request waits."""
        answered = group_call(network.groups.answer_requests, phone, jid, body.action, body.participants)
        return {"success": True, **answered}

    @router.post(
        "/accounts/{phone}/groups/join",
        responses=answers(
            MASTER,
            WITH_BODY,
            operation(400, OperationCode.INVALID_INVITE_LINK),
            _ACCOUNT,
            _GROUP,
            operation(409, OperationCode.ALREADY_MEMBER),
            operation(410, OperationCode.INVITE_LINK_REVOKED),
        ),
    )
    def join_group(phone: PhoneInPath, body: JoinIn) -> dict[str, Any]:
        """The account joins by invite link, or asks to where join approval is on
        (``pending_approval``: it waits until an admin answers)."""
        return {"success": True, **group_call(network.groups.join, phone, body.link)}

    @router.post(
        "/accounts/{phone}/groups/{jid}/leave",
        responses=answers(MASTER, WITH_PARAMETERS, _JID, _ACCOUNT, _GROUP),
    )
    def leave_group(phone: PhoneInPath, jid: GroupJidInPath) -> dict[str, Any]:
        """The account leaves the group; the other members' devices get ``group.info``."""
        return {"success": True, **group_call(network.groups.leave, phone, jid)}

    @router.post(
        "/accounts/{phone}/groups/{jid}/invite/reset",
        responses=answers(MASTER, WITH_PARAMETERS, _JID, _ACCOUNT, _GROUP, _ADMIN),
    )
    def reset_invite(phone: PhoneInPath, jid: GroupJidInPath) -> dict[str, Any]:
        """The account, as an admin, revokes the invite link (the old one answers 410
        ``invite_link_revoked``) and gets the new one."""
        return {"success": True, **group_call(network.groups.reset_invite, phone, jid)}

    @router.put(
        "/accounts/{phone}/groups/{jid}/ephemeral",
        responses=answers(
            MASTER, WITH_BODY, _JID, operation(400, OperationCode.INVALID_DURATION), _ACCOUNT, _GROUP, _ADMIN
        ),
    )
    def set_ephemeral(phone: PhoneInPath, jid: GroupJidInPath, body: EphemeralIn) -> dict[str, Any]:
        """The account sets the disappearing-message timer (a locked group: admins only)."""
        return {
            "success": True,
            **group_call(network.groups.set_ephemeral, phone, jid, body.duration_seconds),
        }

    link_answers = answers(
        MASTER,
        WITH_BODY,
        _JID,
        _SETTINGS,
        _ACCOUNT,
        _GROUP,
        _ADMIN,
        operation(409, OperationCode.NOT_A_COMMUNITY, OperationCode.ALREADY_LINKED, OperationCode.NOT_LINKED),
    )

    @router.post("/accounts/{phone}/groups/{jid}/community/link", responses=link_answers)
    def link_group(phone: PhoneInPath, jid: GroupJidInPath, body: LinkIn) -> dict[str, Any]:
        """The account, an admin of both, links the group ``group_jid`` into the community ``jid``."""
        return {"success": True, **group_call(network.groups.link, phone, jid, body.group_jid)}

    @router.delete("/accounts/{phone}/groups/{jid}/community/link", responses=link_answers)
    def unlink_group(phone: PhoneInPath, jid: GroupJidInPath, body: LinkIn) -> dict[str, Any]:
        """The account, an admin of the community ``jid``, removes the group ``group_jid`` from it."""
        return {"success": True, **group_call(network.groups.unlink, phone, jid, body.group_jid)}

    return router
