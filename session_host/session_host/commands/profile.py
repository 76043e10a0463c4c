"""Commands on the linked account itself: its presence, following other people's, and its
profile (push name, About text, picture).

A picture never travels on the bus: the API stored the JPEG in the media bucket and the
command names it (``media_id``), read here; media that are gone are ``invalid``, answered
without touching the network. A profile change answers the profile read after it, so the
caller sees what the network now holds; name and About are changed in that order.
"""

from __future__ import annotations

from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.profile import (
    PresenceSet,
    PresenceSubscribed,
    Profile,
    ProfilePictureArgs,
    ProfilePictureSet,
    SetPresenceArgs,
    SubscribePresenceArgs,
    UpdateProfileArgs,
)
from gateway.failures.kinds import ErrorKind
from gateway.media import store
from gateway.media.errors import MediaError
from session_host.commands.registry import Host, failed, handles, ok, on_session, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import DeviceSession


@on_session(contracts.SET_PRESENCE)
async def set_presence(session: DeviceSession, args: SetPresenceArgs) -> PresenceSet:
    """Show the account online or offline."""
    await session.presence.send_presence(args.state == "available")
    return PresenceSet(state=args.state)


@on_session(contracts.SUBSCRIBE_PRESENCE)
async def subscribe_presence(session: DeviceSession, args: SubscribePresenceArgs) -> PresenceSubscribed:
    """Follow a person's presence; changes arrive as ``contact.presence``."""
    await session.presence.subscribe_presence(args.jid)
    return PresenceSubscribed(jid=args.jid)


@on_session(contracts.GET_PROFILE)
async def get_profile(session: DeviceSession, _args: NoArgs) -> Profile:
    """The account's JID, push name, About text and picture URL."""
    return await session.profile.get_profile()


@on_session(contracts.UPDATE_PROFILE)
async def update_profile(session: DeviceSession, args: UpdateProfileArgs) -> Profile:
    """Change the push name, the About text or both; answers the profile read afterwards."""
    if args.name is not None:
        await session.profile.set_name(args.name)
    if args.about is not None:
        await session.profile.set_about(args.about)
    return await session.profile.get_profile()


@handles(contracts.SET_PROFILE_PICTURE)
async def set_profile_picture(
    host: Host, command: Command[ProfilePictureArgs], owned: OwnedDevice
) -> Reply[Any]:
    """Set the profile picture from the JPEG the API stored."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    session = owned.session
    try:
        jpeg = await host.own.aws(store.get, command.tenant_id, command.device_id, command.args.media_id)
    except MediaError as error:
        return failed(command, ErrorKind.INVALID, f"the picture is gone: {error}", session_snapshot(session))
    picture_id = await session.profile.set_picture(jpeg)
    return ok(command, session_snapshot(session), ProfilePictureSet(picture_id=picture_id))
