"""Group and community operations through the request's device.

Each operation checks its input first (400, :mod:`gateway.groups.inputs`), then the device's
status on its record (503 ``device_disconnected``, nothing sent), then sends one command on
the bus to the session host that runs the device (``gateway.devices.commands.execute``),
whose failures :mod:`gateway.failures.table` answers. Results are the network port's records
(``GroupInfo.to_json``, ``MemberResult.to_json``), converted here to the response models:
times become ISO 8601, ``description`` repeats ``topic``, ``members_count`` is counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from gateway.bus import CommandName
from gateway.devices import commands
from gateway.devices.access import require_group_session
from gateway.failures import answers
from gateway.failures.answers import operation_error
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

T = TypeVar("T")

# --- running a command ----------------------------------------------------------------------


def _run(device: DeviceModel, name: CommandName, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """The result of the group command ``name`` on the device, which must be connected."""
    require_group_session(device)
    reply = commands.execute(device, name, args)
    logger.info("group command done", extra={"command": name.value, "device_id": device.device_id})
    return reply.result


def _read(name: CommandName, build: Callable[[], T]) -> T:
    """What ``build`` makes of a command's result; a result the host left incomplete is 500
    ``device_error``, never a stack trace."""
    try:
        return build()
    except (KeyError, TypeError, ValueError, ValidationError):
        logger.error("session host answered without the expected result", extra={"command": name.value})
        raise answers.incomplete(name) from None


def group_view(record: dict[str, Any]) -> Group:
    """The API's group record from the network port's ``GroupInfo.to_json()``."""
    participants = [
        {"jid": p["jid"], "is_admin": bool(p["is_admin"]), "is_super_admin": bool(p["is_super_admin"])}
        for p in record["participants"]
    ]
    return Group(
        jid=record["jid"],
        name=record["name"],
        topic=record["topic"],
        description=record["topic"],
        owner=record["owner"],
        created_at=iso_utc(float(record["created_at"])),
        is_announce=record["is_announce"],
        is_locked=record["is_locked"],
        join_approval=record["join_approval"],
        member_add_mode=record["member_add_mode"],
        ephemeral_duration=record["ephemeral_duration"],
        is_community=record["is_community"],
        parent_jid=record["parent_jid"],
        members_count=len(participants),
        participants=participants,
    )


def _members(results: list[dict[str, Any]]) -> list[MemberResult]:
    return [
        MemberResult(
            jid=r["jid"],
            is_admin=bool(r.get("is_admin", False)),
            is_super_admin=bool(r.get("is_super_admin", False)),
            status=r["status"],
        )
        for r in results
    ]


# --- reading ----------------------------------------------------------------------------------


def list_groups(device: DeviceModel) -> GroupListResponse:
    result = _run(device, CommandName.LIST_GROUPS)
    return _read(
        CommandName.LIST_GROUPS, lambda: GroupListResponse(groups=[group_view(g) for g in result["groups"]])
    )


def get_group(device: DeviceModel, jid: str) -> GroupResponse:
    args = {"group_jid": inputs.group_jid(jid)}
    result = _run(device, CommandName.GROUP_INFO, args)
    return _read(CommandName.GROUP_INFO, lambda: GroupResponse(group=group_view(result["group"])))


# --- creating and administering ---------------------------------------------------------------


def create_group(device: DeviceModel, body: CreateGroupRequest) -> CreatedGroupResponse:
    options = body.options.model_dump(exclude_none=True)
    if body.options.parent_jid is not None:
        inputs.group_jid(body.options.parent_jid, "options.parent_jid")
    args = {"name": body.name, "participants": inputs.participants(body.participants), "options": options}
    result = _run(device, CommandName.CREATE_GROUP, args)
    return _read(
        CommandName.CREATE_GROUP,
        lambda: CreatedGroupResponse(
            group=group_view(result["group"]), participants=_members(result.get("participants", []))
        ),
    )


def change_participants(
    device: DeviceModel, jid: str, action: str, people: list[str]
) -> ParticipantsResponse:
    group_jid = inputs.group_jid(jid)
    args = {"group_jid": group_jid, "action": action, "participants": inputs.participants(people)}
    result = _run(device, CommandName.GROUP_PARTICIPANTS, args)
    return _read(
        CommandName.GROUP_PARTICIPANTS,
        lambda: ParticipantsResponse(group_jid=group_jid, participants=_members(result["participants"])),
    )


_SETTING_NAMES = {
    "name": "name",
    "topic": "topic",
    "announcement": "announce",
    "locked": "locked",
    "join_approval": "join_approval",
    "member_add_mode": "member_add_mode",
}
"""PATCH fields and the session host's ``settings`` key each becomes (``description`` is
folded into ``topic``)."""


def settings_of(body: UpdateGroupRequest) -> dict[str, Any]:
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
    return {_SETTING_NAMES[key]: value for key, value in given.items()}


def update_group(device: DeviceModel, jid: str, body: UpdateGroupRequest) -> GroupResponse:
    args = {"group_jid": inputs.group_jid(jid), "settings": settings_of(body)}
    result = _run(device, CommandName.UPDATE_GROUP, args)
    return _read(CommandName.UPDATE_GROUP, lambda: GroupResponse(group=group_view(result["group"])))


def set_picture(device: DeviceModel, jid: str, body: PictureRequest) -> PictureResponse:
    args = {"group_jid": inputs.group_jid(jid), "image_base64": inputs.jpeg_base64(body.image_base64)}
    result = _run(device, CommandName.GROUP_PICTURE, args)
    return _read(CommandName.GROUP_PICTURE, lambda: PictureResponse(picture_id=str(result["picture_id"])))


def set_ephemeral(device: DeviceModel, jid: str, body: EphemeralRequest) -> EphemeralResponse:
    args = {"group_jid": inputs.group_jid(jid), "duration_seconds": inputs.duration(body.duration_seconds)}
    result = _run(device, CommandName.GROUP_EPHEMERAL, args)
    return _read(
        CommandName.GROUP_EPHEMERAL, lambda: EphemeralResponse(duration_seconds=result["duration_seconds"])
    )


# --- invites and joining ----------------------------------------------------------------------


def invite_link(device: DeviceModel, jid: str) -> InviteLinkResponse:
    group_jid = inputs.group_jid(jid)
    result = _run(device, CommandName.GROUP_INVITE, {"group_jid": group_jid, "reset": False})
    return _read(
        CommandName.GROUP_INVITE,
        lambda: InviteLinkResponse(group_jid=group_jid, invite_link=result["invite_link"]),
    )


def reset_invite_link(device: DeviceModel, jid: str) -> InviteResetResponse:
    group_jid = inputs.group_jid(jid)
    result = _run(device, CommandName.GROUP_INVITE, {"group_jid": group_jid, "reset": True})
    return _read(
        CommandName.GROUP_INVITE,
        lambda: InviteResetResponse(
            group_jid=group_jid, invite_link=result["invite_link"], reset_at=iso_utc()
        ),
    )


def join_group(device: DeviceModel, body: JoinRequest) -> JoinResponse:
    """Join by invite. While approval is pending, ``approval_request_jid`` is the JID the
    request is filed under: the group's, which the network answers (whatsmeow's
    ``membership_approval_request``) and the code form names."""
    invite = inputs.invite(body)
    result = _run(device, CommandName.JOIN_GROUP, invite.args())

    def outcome() -> JoinResponse:
        pending = result["pending_approval"]
        group_jid = result.get("group_jid") or invite.group_jid
        request_jid = (result.get("approval_request_jid") or group_jid) if pending else None
        return JoinResponse(group_jid=group_jid, pending_approval=pending, approval_request_jid=request_jid)

    return _read(CommandName.JOIN_GROUP, outcome)


def leave_group(device: DeviceModel, jid: str) -> DoneResponse:
    _run(device, CommandName.LEAVE_GROUP, {"group_jid": inputs.group_jid(jid)})
    return DoneResponse()


# --- communities ----------------------------------------------------------------------------


def link_group(device: DeviceModel, community_jid: str, group_jid: str, *, link: bool) -> DoneResponse:
    """Link (``link``) or unlink a child group of the community the device administers."""
    args = {
        "community_jid": inputs.group_jid(community_jid),
        "group_jid": inputs.group_jid(group_jid, "group_jid"),
    }
    _run(device, CommandName.LINK_GROUP if link else CommandName.UNLINK_GROUP, args)
    return DoneResponse()


# --- join requests ----------------------------------------------------------------------------


def join_requests(device: DeviceModel, jid: str) -> JoinRequestsResponse:
    group_jid = inputs.group_jid(jid)
    result = _run(device, CommandName.GROUP_REQUESTS, {"group_jid": group_jid})

    def listed() -> JoinRequestsResponse:
        waiting = sorted(result["requests"], key=lambda r: float(r["requested_at"]))
        entries = [
            JoinRequestEntry(jid=r["jid"], requested_at=iso_utc(float(r["requested_at"]))) for r in waiting
        ]
        return JoinRequestsResponse(group_jid=group_jid, requests=entries)

    return _read(CommandName.GROUP_REQUESTS, listed)


def answer_join_requests(
    device: DeviceModel, jid: str, body: AnswerRequestsRequest
) -> AnsweredRequestsResponse:
    group_jid = inputs.group_jid(jid)
    args = {
        "group_jid": group_jid,
        "action": body.action,
        "participants": inputs.participants(body.participants),
    }
    result = _run(device, CommandName.ANSWER_GROUP_REQUESTS, args)
    return _read(
        CommandName.ANSWER_GROUP_REQUESTS,
        lambda: AnsweredRequestsResponse(
            group_jid=group_jid,
            participants=[RequestResult(jid=r["jid"], status=r["status"]) for r in result["participants"]],
        ),
    )
