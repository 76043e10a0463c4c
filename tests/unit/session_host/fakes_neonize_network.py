"""A scripted network for the neonize adapter: an autospec ``NewClient`` whose group calls are
answered by the simulated network's pure rules (:class:`~session_host.network.simulated.groups.Groups`).

One scenario can then run on both adapters: the simulated adapter uses ``Groups`` directly,
the neonize adapter reaches the same rules through neonize's real method signatures. Answers
are neonize's own protobufs (``GroupInfo``, ``GroupParticipant`` with whatsmeow's per-person
``Error`` codes, ``GroupParticipantRequest`` in microseconds), and refusals are neonize's
exception classes carrying whatsmeow's real messages, so the adapter's conversion and error
mapping are what is exercised.

How a :class:`GroupError` code is told, as whatsmeow tells the network's answer:

==========================  =============================================================
``group_not_found``         reads: "that group does not exist" / "you're not participating
                            in that group"; joining by link: "that group invite link is not
                            valid"; anything else: ``status 404: item-not-found``
``invite_link_revoked``     by link: "that group invite link has been revoked"; else
                            ``status 410: gone``
``not_group_admin``         invite link: "you don't have the permission to get the group's
                            invite link"; members: ``status 403: forbidden``; else
                            ``status 401: not-authorized``
``already_member``          ``status 409: conflict``
``invalid_image``           "the given data is not a valid image"
``invalid_duration``        "invalid disappearing timer provided"
anything else               ``status 400: bad-request`` (the adapter says NETWORK: what the
                            real network answers there is not known)
==========================  =============================================================

The rules' per-person statuses become whatsmeow's per-person codes: ``not_found`` and
``not_member`` 404, ``already_member`` 409, ``not_allowed`` 403.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from fakes_neonize import EMPTY, FakeNetwork
from neonize import exc
from neonize.proto.Neonize_pb2 import (
    JID,
    GroupAnnounce,
    GroupEphemeral,
    GroupInfo,
    GroupLinkedParent,
    GroupLocked,
    GroupName,
    GroupParent,
    GroupParticipant,
    GroupParticipantRequest,
    GroupTopic,
)
from neonize.utils.enum import ParticipantChange

from gateway import jids
from session_host.network.neonize.jids import jid_str
from session_host.network.simulated.group_records import Group, GroupError, PersonResult, Role
from session_host.network.simulated.groups import Groups

INVITE_PREFIX = "https://chat.whatsapp.com/"
_PERSON_CODES = {"ok": 0, "not_found": 404, "not_member": 404, "already_member": 409, "not_allowed": 403}
_RAW = {
    "group_not_found": "info query returned status 404: item-not-found",
    "invite_link_revoked": "info query returned status 410: gone",
    "not_group_admin": "info query returned status 401: not-authorized",
    "already_member": "info query returned status 409: conflict",
    "invalid_image": "the given data is not a valid image",
    "invalid_duration": "invalid disappearing timer provided",
}
_BAD_REQUEST = "info query returned status 400: bad-request"


def proto_jid(text: str) -> JID:
    """A JID protobuf with every field set, as neonize's Go side encodes one."""
    parsed = jids.parse_jid(text)
    assert parsed is not None, text
    return JID(User=parsed.user, RawAgent=0, Device=0, Integrator=0, Server=parsed.server, IsEmpty=False)


def proto_person(jid: str, role: Role | None, *, error: int = 0, lid: str | None = None) -> GroupParticipant:
    """A participant as whatsmeow parses one: a LID names itself, a phone JID is the phone;
    someone asked for by ``lid`` is answered under that LID with their phone number beside it."""
    if lid is not None and lid != jid:
        return GroupParticipant(
            JID=proto_jid(lid),
            LID=proto_jid(lid),
            PhoneNumber=proto_jid(jid),
            IsAdmin=role is not None and role.is_admin,
            IsSuperAdmin=role is Role.SUPER_ADMIN,
            DisplayName="",
            Error=error,
        )
    address = proto_jid(jid)
    is_lid = jids.is_lid(jid)
    return GroupParticipant(
        JID=address,
        LID=address if is_lid else EMPTY,
        PhoneNumber=EMPTY if is_lid else address,
        IsAdmin=role is not None and role.is_admin,
        IsSuperAdmin=role is Role.SUPER_ADMIN,
        DisplayName="",
        Error=error,
    )


def proto_group(group: Group, refused: list[PersonResult] | None = None) -> GroupInfo:
    """neonize's ``GroupInfo`` of a simulated group; ``refused`` people carry their ``Error``."""
    people = [proto_person(jid, role) for jid, role in group.participants.items()]
    people += [proto_person(r.jid, r.role, error=_PERSON_CODES[r.status]) for r in refused or []]
    approval = "request_required" if group.is_community and group.join_approval else ""
    return GroupInfo(
        JID=proto_jid(group.jid),
        OwnerJID=proto_jid(group.owner),
        OwnerPN=EMPTY,
        GroupName=GroupName(
            Name=group.name, NameSetAt=int(group.created_at), NameSetBy=proto_jid(group.owner)
        ),
        GroupTopic=GroupTopic(
            Topic=group.topic, TopicID="", TopicSetAt=0, TopicSetBy=EMPTY, TopicDeleted=not group.topic
        ),
        GroupLocked=GroupLocked(isLocked=group.is_locked),
        GroupAnnounce=GroupAnnounce(IsAnnounce=group.is_announce, AnnounceVersionID=""),
        GroupEphemeral=GroupEphemeral(
            IsEphemeral=group.ephemeral_duration > 0, DisappearingTimer=group.ephemeral_duration
        ),
        GroupParent=GroupParent(IsParent=group.is_community, DefaultMembershipApprovalMode=approval),
        GroupLinkedParent=GroupLinkedParent(
            LinkedParentJID=proto_jid(group.parent_jid) if group.parent_jid else EMPTY
        ),
        GroupCreated=group.created_at,
        ParticipantVersionID="",
        Participants=people,
    )


def _text(jid: JID) -> str:
    text = jid_str(jid)
    assert text is not None, jid
    return text


class ScriptedGroups:
    """The group calls of one account's client, answered by ``groups``."""

    def __init__(self, groups: Groups, account: str) -> None:
        self.groups = groups
        self.account = account

    def install(self, client: Any) -> None:
        """Answer the client's group methods (``side_effect``: the autospec still checks every
        call against neonize's real signature first)."""
        for name in (
            "create_group",
            "get_joined_groups",
            "get_group_info",
            "update_group_participants",
            "set_group_name",
            "set_group_topic",
            "set_group_announce",
            "set_group_locked",
            "set_group_photo",
            "set_disappearing_timer",
            "get_group_invite_link",
            "join_group_with_link",
            "join_group_with_invite",
            "leave_group",
            "link_group",
            "unlink_group",
            "get_group_request_participants",
        ):
            getattr(client, name).side_effect = getattr(self, name)

    # --- answers, in neonize's signatures -----------------------------------------------------

    def create_group(
        self,
        name: str,
        participants: list[JID] = [],  # noqa: B006 (neonize's own default)
        linked_parent: GroupLinkedParent | None = None,
        group_parent: GroupParent | None = None,
    ) -> GroupInfo:
        community = group_parent is not None and group_parent.IsParent
        approval = community and group_parent.DefaultMembershipApprovalMode == "request_required"
        parent = jid_str(linked_parent.LinkedParentJID) if linked_parent is not None else None
        group, change = self._run(
            exc.CreateGroupError,
            lambda: self.groups.create(
                self.account,
                name,
                [_text(p) for p in participants],
                join_approval=approval,
                community=community,
                parent_jid=parent,
            ),
        )
        return proto_group(group, [r for r in change.results if r.status != "ok"])

    def get_joined_groups(self) -> list[GroupInfo]:
        return [proto_group(group) for group in self.groups.groups_of(self.account)]

    def get_group_info(self, jid: JID) -> GroupInfo:
        return proto_group(self._run(exc.GetGroupInfoError, lambda: self._read(_text(jid)), read=True))

    def update_group_participants(
        self, jid: JID, participants_changes: list[JID], action: ParticipantChange
    ) -> list[GroupParticipant]:
        assert isinstance(action, ParticipantChange), "neonize takes its enum, not a string"
        people = [_text(p) for p in participants_changes]
        change = self._run(
            exc.UpdateGroupParticipantsError,
            lambda: self.groups.change_participants(_text(jid), self.account, action.value, people),
            admin="info query returned status 403: forbidden",
        )
        asked = list(dict.fromkeys(people))  # one result per person, in the order asked
        return [
            proto_person(r.jid, r.role, error=_PERSON_CODES[r.status], lid=a if jids.is_lid(a) else None)
            for a, r in zip(asked, change.results, strict=True)
        ]

    def set_group_name(self, jid: JID, name: str) -> None:
        self._run(exc.SetGroupNameError, lambda: self.groups.update(_text(jid), self.account, name=name))

    def set_group_topic(self, jid: JID, previous_id: str, new_id: str, topic: str) -> None:
        self._run(exc.SetGroupTopicError, lambda: self.groups.update(_text(jid), self.account, topic=topic))

    def set_group_announce(self, jid: JID, announce: bool) -> None:
        self._run(
            exc.SetGroupAnnounceError, lambda: self.groups.update(_text(jid), self.account, announce=announce)
        )

    def set_group_locked(self, jid: JID, locked: bool) -> None:
        self._run(
            exc.SetGroupLockedError, lambda: self.groups.update(_text(jid), self.account, locked=locked)
        )

    def set_group_photo(self, jid: JID, file_or_bytes: str | bytes) -> str:
        assert isinstance(file_or_bytes, bytes), "a str is a path or URL to neonize"
        change = self._run(
            exc.SetGroupPhotoError, lambda: self.groups.set_picture(_text(jid), self.account, file_or_bytes)
        )
        return str(change.fields["picture_id"])

    def set_disappearing_timer(
        self, jid: JID, timer: timedelta | int, setting_ts: timedelta | None = None
    ) -> None:
        if isinstance(timer, timedelta) or timer % 1_000_000_000:
            # neonize turns a timedelta into milliseconds where whatsmeow wants nanoseconds
            raise exc.SetDisappearingTimerError("invalid disappearing timer provided")
        seconds = timer // 1_000_000_000
        self._run(
            exc.SetDisappearingTimerError,
            lambda: self.groups.set_ephemeral(_text(jid), self.account, seconds),
        )

    def get_group_invite_link(self, jid: JID, revoke: bool = False) -> str:
        def answer() -> str:
            if revoke:
                return str(self.groups.reset_invite(_text(jid), self.account).fields["invite_link"])
            return self.groups.invite_link(_text(jid), self.account)

        return self._run(
            exc.GetGroupInviteLinkError,
            answer,
            read=True,
            admin="you don't have the permission to get the group's invite link",
        )

    def join_group_with_link(self, code: str) -> JID:
        change = self._run(
            exc.InviteLinkError,
            lambda: self.groups.join(self.account, code.removeprefix(INVITE_PREFIX)),
            link=True,
        )
        return proto_jid(change.group_jid)

    def join_group_with_invite(self, jid: JID, inviter: JID, code: str, expiration: int) -> None:
        self._run(
            exc.JoinGroupWithInviteError,
            lambda: self.groups.join(self.account, code, group_jid=_text(jid)),
        )

    def leave_group(self, jid: JID) -> None:
        self._run(exc.LeaveGroupError, lambda: self.groups.leave(_text(jid), self.account))

    def link_group(self, parent: JID, child: JID) -> None:
        self._run(exc.LinkGroupError, lambda: self.groups.link(_text(parent), _text(child), self.account))

    def unlink_group(self, parent: JID, child: JID) -> None:
        self._run(exc.UnlinkGroupError, lambda: self.groups.unlink(_text(parent), _text(child), self.account))

    def get_group_request_participants(self, jid: JID) -> list[GroupParticipantRequest]:
        waiting = self._run(
            exc.GetGroupRequestParticipantsError, lambda: self.groups.requests(_text(jid), self.account)
        )
        return [
            GroupParticipantRequest(
                Participant=proto_jid(r["jid"]), TimeAt=round(r["requested_at"] * 1_000_000)
            )
            for r in waiting
        ]

    # --- plumbing ---------------------------------------------------------------------------------

    def _read(self, group_jid: str) -> Group:
        return self.groups.get_for(group_jid, self.account)

    def _run(
        self,
        error: type[Exception],
        action: Callable[[], Any],
        *,
        read: bool = False,
        link: bool = False,
        admin: str | None = None,
    ) -> Any:
        """``action()``, its :class:`GroupError` raised as ``error`` with whatsmeow's message."""
        try:
            return action()
        except GroupError as refusal:
            raise error(self._message(refusal, read=read, link=link, admin=admin)) from refusal

    @staticmethod
    def _message(refusal: GroupError, *, read: bool, link: bool, admin: str | None) -> str:
        code = refusal.code
        if code == "group_not_found" and link:
            return "that group invite link is not valid"
        if code == "group_not_found" and read:
            missing = "does not exist" in str(refusal)
            return "that group does not exist" if missing else "you're not participating in that group"
        if code == "invite_link_revoked" and link:
            return "that group invite link has been revoked"
        if code == "not_group_admin" and admin:
            return admin
        return _RAW.get(code, _BAD_REQUEST)


class ScriptedNetwork(FakeNetwork):
    """:class:`FakeNetwork` whose clients answer group calls from one shared ``Groups``: every
    device of a test meets the same groups, as on the network."""

    def __init__(self, groups: Groups) -> None:
        super().__init__()
        self.groups = groups

    def new_client(self, name: str, jid: JID | None = None, **kwargs: Any) -> Any:
        client = super().new_client(name, jid, **kwargs)
        account = jid_str(jid) if jid is not None else None
        assert account is not None, "a scripted client belongs to a paired account"
        ScriptedGroups(self.groups, account).install(client)
        return client
