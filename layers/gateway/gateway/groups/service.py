"""Group and community operations through the request's device.

Each operation checks its input first (400, :mod:`gateway.groups.inputs`), then the device's
status on its record (503 ``device_disconnected``, nothing sent), then sends one command on
the bus to the session host that runs the device (``gateway.devices.commands.execute``),
whose failures :mod:`gateway.failures.table` answers. Results are the records of the
commands' contracts (:mod:`gateway.bus.contracts.groups`, parsed by the bus client: a result
out of contract is the table's incomplete answer), converted here to the response models:
times become ISO 8601, ``description`` repeats ``topic``, ``members_count`` is counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.bus import contracts
from gateway.bus.contracts import A, Contract, R
from gateway.bus.contracts import groups as bus
from gateway.devices import commands
from gateway.devices.access import require_group_session
from gateway.failures.table import operation_error
from gateway.groups import inputs
from gateway.groups.codes import OperationCode
from gateway.groups.outputs import (
    AnsweredRequestsResponse,
    CreatedGroupResponse,
    DoneResponse,
    EphemeralResponse,
    Group,
    GroupListResponse,
    GroupResponse,
    InviteLinkResponse,
    InviteResetResponse,
    JoinRequestEntry,
    JoinRequestsResponse,
    JoinResponse,
    MemberResult,
    ParticipantsResponse,
    PictureResponse,
    RequestResult,
)
from gateway.groups.schemas import (
    AnswerRequestsRequest,
    CreateGroupRequest,
    EphemeralRequest,
    JoinRequest,
    PictureRequest,
    UpdateGroupRequest,
)
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.timestamps import iso_utc

# --- running a command ----------------------------------------------------------------------


def _run(device: DeviceModel, contract: Contract[A, R], args: A | None = None) -> R:
    """The result of the group command of ``contract`` on the device, which must be connected."""
    require_group_session(device)
    result = commands.execute(device, contract, args).result
    logger.info("group command done", extra={"command": contract.name.value, "device_id": device.device_id})
    return result


def group_view(record: bus.GroupInfo) -> Group:
    """The API's group record from the network port's, as the host answered it."""
    participants = [
        {"jid": p.jid, "is_admin": p.is_admin, "is_super_admin": p.is_super_admin}
        for p in record.participants
    ]
    return Group(
        jid=record.jid,
        name=record.name,
        topic=record.topic,
        description=record.topic,
        owner=record.owner,
        created_at=iso_utc(record.created_at),
        is_announce=record.is_announce,
        is_locked=record.is_locked,
        join_approval=record.join_approval,
        member_add_mode=record.member_add_mode,
        ephemeral_duration=record.ephemeral_duration,
        is_community=record.is_community,
        parent_jid=record.parent_jid,
        members_count=len(participants),
        participants=participants,
    )


def _members(results: Sequence[bus.MemberOutcome]) -> list[MemberResult]:
    return [
        MemberResult(jid=r.jid, is_admin=r.is_admin, is_super_admin=r.is_super_admin, status=r.status)
        for r in results
    ]


# --- reading ----------------------------------------------------------------------------------


def list_groups(device: DeviceModel) -> GroupListResponse:
    listed = _run(device, contracts.LIST_GROUPS)
    return GroupListResponse(groups=[group_view(g) for g in listed.groups])


def get_group(device: DeviceModel, jid: str) -> GroupResponse:
    read = _run(device, contracts.GROUP_INFO, bus.GroupRef(group_jid=inputs.group_jid(jid)))
    return GroupResponse(group=group_view(read.group))


# --- creating and administering ---------------------------------------------------------------


def create_group(device: DeviceModel, body: CreateGroupRequest) -> CreatedGroupResponse:
    if body.options.parent_jid is not None:
        inputs.group_jid(body.options.parent_jid, "options.parent_jid")
    args = bus.CreateGroupArgs(
        name=body.name,
        participants=inputs.participants(body.participants),
        options=bus.GroupOptionsArgs(**body.options.model_dump(exclude_none=True)),
    )
    created = _run(device, contracts.CREATE_GROUP, args)
    return CreatedGroupResponse(group=group_view(created.group), participants=_members(created.participants))


def change_participants(
    device: DeviceModel, jid: str, action: str, people: list[str]
) -> ParticipantsResponse:
    group_jid = inputs.group_jid(jid)
    args = bus.ParticipantsArgs(
        group_jid=group_jid, action=bus.ParticipantAction(action), participants=inputs.participants(people)
    )
    changed = _run(device, contracts.GROUP_PARTICIPANTS, args)
    return ParticipantsResponse(group_jid=group_jid, participants=_members(changed.participants))


_SETTING_NAMES = {
    "name": "name",
    "topic": "topic",
    "announcement": "announce",
    "locked": "locked",
    "join_approval": "join_approval",
    "member_add_mode": "member_add_mode",
}
"""PATCH fields and the session host's ``settings`` field each becomes (``description`` is
folded into ``topic``)."""


def settings_of(body: UpdateGroupRequest) -> bus.GroupSettingsArgs:
    """The session host's ``settings`` of a PATCH body; 400 ``invalid_request`` when it changes
    nothing, or gives ``topic`` and ``description`` with different texts."""
    given = body.model_dump(exclude_none=True)
    if "description" in given:
        description = given.pop("description")
        if given.setdefault("topic", description) != description:
            raise operation_error(
                OperationCode.INVALID_REQUEST,
                "topic and description are the same field: give one, or both with the same text",
            )
    if not given:
        raise operation_error(
            OperationCode.INVALID_REQUEST,
            f"give at least one of: {', '.join(sorted({*_SETTING_NAMES, 'description'}))}",
        )
    return bus.GroupSettingsArgs(**{_SETTING_NAMES[key]: value for key, value in given.items()})


def update_group(device: DeviceModel, jid: str, body: UpdateGroupRequest) -> GroupResponse:
    args = bus.UpdateGroupArgs(group_jid=inputs.group_jid(jid), settings=settings_of(body))
    return GroupResponse(group=group_view(_run(device, contracts.UPDATE_GROUP, args).group))


def set_picture(device: DeviceModel, jid: str, body: PictureRequest) -> PictureResponse:
    args = bus.PictureArgs(
        group_jid=inputs.group_jid(jid), image_base64=inputs.jpeg_base64(body.image_base64)
    )
    return PictureResponse(picture_id=_run(device, contracts.GROUP_PICTURE, args).picture_id)


def set_ephemeral(device: DeviceModel, jid: str, body: EphemeralRequest) -> EphemeralResponse:
    args = bus.EphemeralArgs(
        group_jid=inputs.group_jid(jid), duration_seconds=inputs.duration(body.duration_seconds)
    )
    return EphemeralResponse(duration_seconds=_run(device, contracts.GROUP_EPHEMERAL, args).duration_seconds)


# --- invites and joining ----------------------------------------------------------------------


def invite_link(device: DeviceModel, jid: str) -> InviteLinkResponse:
    group_jid = inputs.group_jid(jid)
    read = _run(device, contracts.GROUP_INVITE, bus.InviteArgs(group_jid=group_jid, reset=False))
    return InviteLinkResponse(group_jid=group_jid, invite_link=read.invite_link)


def reset_invite_link(device: DeviceModel, jid: str) -> InviteResetResponse:
    group_jid = inputs.group_jid(jid)
    reset = _run(device, contracts.GROUP_INVITE, bus.InviteArgs(group_jid=group_jid, reset=True))
    return InviteResetResponse(group_jid=group_jid, invite_link=reset.invite_link, reset_at=iso_utc())


def join_group(device: DeviceModel, body: JoinRequest) -> JoinResponse:
    """Join by invite. While approval is pending, ``approval_request_jid`` is the JID the
    request is filed under: the group's, which the network answers (whatsmeow's
    ``membership_approval_request``) and the code form names."""
    invite = inputs.invite(body)
    joined = _run(device, contracts.JOIN_GROUP, invite)
    group_jid = joined.group_jid or invite.group_jid
    request_jid = group_jid if joined.pending_approval else None
    return JoinResponse(
        group_jid=group_jid, pending_approval=joined.pending_approval, approval_request_jid=request_jid
    )


def leave_group(device: DeviceModel, jid: str) -> DoneResponse:
    _run(device, contracts.LEAVE_GROUP, bus.GroupRef(group_jid=inputs.group_jid(jid)))
    return DoneResponse()


# --- communities ----------------------------------------------------------------------------


def link_group(device: DeviceModel, community_jid: str, group_jid: str, *, link: bool) -> DoneResponse:
    """Link (``link``) or unlink a child group of the community the device administers."""
    args = bus.CommunityLinkArgs(
        community_jid=inputs.group_jid(community_jid), group_jid=inputs.group_jid(group_jid, "group_jid")
    )
    _run(device, contracts.LINK_GROUP if link else contracts.UNLINK_GROUP, args)
    return DoneResponse()


# --- join requests ----------------------------------------------------------------------------


def join_requests(device: DeviceModel, jid: str) -> JoinRequestsResponse:
    group_jid = inputs.group_jid(jid)
    listed = _run(device, contracts.GROUP_REQUESTS, bus.GroupRef(group_jid=group_jid))
    waiting = sorted(listed.requests, key=lambda r: r.requested_at)
    entries = [JoinRequestEntry(jid=r.jid, requested_at=iso_utc(r.requested_at)) for r in waiting]
    return JoinRequestsResponse(group_jid=group_jid, requests=entries)


def answer_join_requests(
    device: DeviceModel, jid: str, body: AnswerRequestsRequest
) -> AnsweredRequestsResponse:
    group_jid = inputs.group_jid(jid)
    args = bus.PeopleArgs(
        group_jid=group_jid,
        action=bus.RequestAction(body.action),
        participants=inputs.participants(body.participants),
    )
    answered = _run(device, contracts.ANSWER_GROUP_REQUESTS, args)
    return AnsweredRequestsResponse(
        group_jid=group_jid,
        participants=[RequestResult(jid=r.jid, status=r.status) for r in answered.participants],
    )
