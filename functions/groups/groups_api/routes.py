"""Group and community routes.

Each acts through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and needs that device connected. Every error is in the
lowercase envelope ``{success: false, error: {code, message}}`` (``OperationRoute``); the
rules are in ``gateway.groups``.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path

from gateway.bus import CommandName
from gateway.devices.dependencies import authenticated_device
from gateway.failures.table import command_errors, refusal_errors
from gateway.groups import service
from gateway.groups.codes import OperationCode
from gateway.groups.outputs import (
    AnsweredRequestsResponse,
    CreatedGroupResponse,
    DoneResponse,
    EphemeralResponse,
    GroupListResponse,
    GroupResponse,
    InviteLinkResponse,
    InviteResetResponse,
    JoinRequestsResponse,
    JoinResponse,
    ParticipantsResponse,
    PictureResponse,
)
from gateway.groups.schemas import (
    AnswerRequestsRequest,
    CommunityLinkRequest,
    CreateGroupRequest,
    EphemeralRequest,
    JoinRequest,
    ParticipantsRequest,
    PictureRequest,
    RemoveParticipantsRequest,
    UpdateGroupRequest,
)
from gateway.jids import GROUP_JID_PATTERN
from gateway.models import DeviceModel
from gateway.web.error_docs import AUTHENTICATED, answers
from gateway.web.operation_routes import ACTING_DEVICE_ANSWERS, OperationRoute

router = APIRouter(tags=["groups"], route_class=OperationRoute)

GroupJid = Annotated[
    str,
    Path(
        description="The group's (or community's) JID, `<digits>@g.us`; anything else: 400 "
        "`invalid_group_jid`",
        json_schema_extra={"pattern": GROUP_JID_PATTERN},
        examples=["120363000000000001@g.us"],
    ),
]
Device = Annotated[DeviceModel, Depends(authenticated_device)]


def documented(command: CommandName, *refusals: OperationCode) -> dict[int | str, dict[str, Any]]:
    """The answers of a route sending ``command``, with the refusals it may meet."""
    return answers(AUTHENTICATED, ACTING_DEVICE_ANSWERS, command_errors(command), refusal_errors(*refusals))


ON_GROUP = (OperationCode.INVALID_GROUP_JID,)
AS_ADMIN = (OperationCode.INVALID_GROUP_JID, OperationCode.NOT_GROUP_ADMIN)


@router.post(
    "/groups",
    status_code=201,
    responses=documented(
        CommandName.CREATE_GROUP,
        OperationCode.INVALID_PARTICIPANT,
        OperationCode.INVALID_GROUP_JID,
        OperationCode.NOT_GROUP_ADMIN,
        OperationCode.NOT_A_COMMUNITY,
    ),
)
def create_group(body: CreateGroupRequest, device: Device) -> CreatedGroupResponse:
    """Create a group (a community with `options.community`) with the device as its super admin."""
    return service.create_group(device, body)


@router.get("/groups", responses=documented(CommandName.LIST_GROUPS))
def list_groups(device: Device) -> GroupListResponse:
    """Every group and community the device is in, each with its participants."""
    return service.list_groups(device)


@router.get("/groups/{jid}", responses=documented(CommandName.GROUP_INFO, *ON_GROUP))
def get_group(jid: GroupJid, device: Device) -> GroupResponse:
    """One group with its full participant list and admin flags."""
    return service.get_group(device, jid)


@router.patch("/groups/{jid}", responses=documented(CommandName.UPDATE_GROUP, *AS_ADMIN))
def update_group(jid: GroupJid, body: UpdateGroupRequest, device: Device) -> GroupResponse:
    """Change the group's name, description and settings (admin only); the refreshed group."""
    return service.update_group(device, jid, body)


@router.post(
    "/groups/{jid}/participants",
    responses=documented(CommandName.GROUP_PARTICIPANTS, *AS_ADMIN, OperationCode.INVALID_PARTICIPANT),
)
def change_group_participants(
    jid: GroupJid, body: ParticipantsRequest, device: Device
) -> ParticipantsResponse:
    """Add, remove, promote or demote people (admin only); each person's outcome."""
    return service.change_participants(device, jid, body.action, body.participants)


@router.delete(
    "/groups/{jid}/participants",
    responses=documented(CommandName.GROUP_PARTICIPANTS, *AS_ADMIN, OperationCode.INVALID_PARTICIPANT),
)
def remove_group_participants(
    jid: GroupJid, body: RemoveParticipantsRequest, device: Device
) -> ParticipantsResponse:
    """Remove people (admin only); each person's outcome."""
    return service.change_participants(device, jid, "remove", body.participants)


@router.post(
    "/groups/{jid}/picture",
    responses=documented(CommandName.GROUP_PICTURE, *AS_ADMIN, OperationCode.INVALID_IMAGE),
)
def set_group_picture(jid: GroupJid, body: PictureRequest, device: Device) -> PictureResponse:
    """Set the group's picture from a base64 JPEG (admin only)."""
    return service.set_picture(device, jid, body)


@router.put(
    "/groups/{jid}/ephemeral",
    responses=documented(CommandName.GROUP_EPHEMERAL, *AS_ADMIN, OperationCode.INVALID_DURATION),
)
def set_group_ephemeral(jid: GroupJid, body: EphemeralRequest, device: Device) -> EphemeralResponse:
    """Set the disappearing-message timer (admin only)."""
    return service.set_ephemeral(device, jid, body)


@router.get("/groups/{jid}/invite", responses=documented(CommandName.GROUP_INVITE, *AS_ADMIN))
def get_group_invite_link(jid: GroupJid, device: Device) -> InviteLinkResponse:
    """The group's invite link (the network shows it to admins)."""
    return service.invite_link(device, jid)


@router.post("/groups/{jid}/invite/reset", responses=documented(CommandName.GROUP_INVITE, *AS_ADMIN))
def reset_group_invite_link(jid: GroupJid, device: Device) -> InviteResetResponse:
    """Revoke the invite link and make a new one (admin only)."""
    return service.reset_invite_link(device, jid)


@router.post(
    "/groups/join",
    responses=documented(
        CommandName.JOIN_GROUP,
        OperationCode.INVALID_INVITE_LINK,
        OperationCode.INVALID_GROUP_JID,
        OperationCode.INVALID_PARTICIPANT,
        OperationCode.ALREADY_MEMBER,
        OperationCode.INVITE_LINK_REVOKED,
    ),
)
def join_group(body: JoinRequest, device: Device) -> JoinResponse:
    """Join by invite link or invite code; where approval is on, the request waits for an admin."""
    return service.join_group(device, body)


@router.delete("/groups/{jid}/leave", responses=documented(CommandName.LEAVE_GROUP, *ON_GROUP))
def leave_group(jid: GroupJid, device: Device) -> DoneResponse:
    """Leave the group."""
    return service.leave_group(device, jid)


@router.post(
    "/groups/{jid}/community/link",
    responses=documented(
        CommandName.LINK_GROUP, *AS_ADMIN, OperationCode.NOT_A_COMMUNITY, OperationCode.ALREADY_LINKED
    ),
)
def link_community_group(jid: GroupJid, body: CommunityLinkRequest, device: Device) -> DoneResponse:
    """Link a group into the community `jid` (admin of both)."""
    return service.link_group(device, jid, body.group_jid, link=True)


@router.delete(
    "/groups/{jid}/community/link",
    responses=documented(
        CommandName.UNLINK_GROUP, *AS_ADMIN, OperationCode.NOT_A_COMMUNITY, OperationCode.NOT_LINKED
    ),
)
def unlink_community_group(jid: GroupJid, body: CommunityLinkRequest, device: Device) -> DoneResponse:
    """Remove a group from the community `jid` (admin of the community)."""
    return service.link_group(device, jid, body.group_jid, link=False)


@router.get("/groups/{jid}/requests", responses=documented(CommandName.GROUP_REQUESTS, *AS_ADMIN))
def list_group_join_requests(jid: GroupJid, device: Device) -> JoinRequestsResponse:
    """The join requests waiting for an admin (admin only)."""
    return service.join_requests(device, jid)


@router.post(
    "/groups/{jid}/requests",
    responses=documented(CommandName.ANSWER_GROUP_REQUESTS, *AS_ADMIN, OperationCode.INVALID_PARTICIPANT),
)
def answer_group_join_requests(
    jid: GroupJid, body: AnswerRequestsRequest, device: Device
) -> AnsweredRequestsResponse:
    """Approve or reject join requests (admin only); each person's outcome."""
    return service.answer_join_requests(device, jid, body)
