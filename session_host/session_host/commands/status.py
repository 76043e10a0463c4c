"""Commands on the device's stories: who sees them, and publishing one.

Media never travel on the bus: an image or video story names a media the API stored
(``media_id``, read here from the media bucket) or a ``url`` the host fetches under the
webhook address rules, with the size limit of a status of that kind and within what is left
of the command's deadline. Either way the bytes are sniffed again here, so the network
adapters get an image or video whose type is known. Media that are gone or a url that cannot
be used are ``invalid``, answered without touching the network (the arguments' shape is the
contract's, :class:`gateway.bus.contracts.status.PublishStatusArgs`, checked before).
"""

from __future__ import annotations

import time
from typing import Any

from gateway.bus import Command, Reply, contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.status import (
    PublishedStatus,
    PublishStatusArgs,
    StatusPrivacyArgs,
    StatusPrivacySetting,
)
from gateway.failures.kinds import ErrorKind
from gateway.media import fetch, kinds, store
from gateway.media.errors import MediaError
from gateway.media.limits import FETCH_TIMEOUT_SECONDS
from session_host.commands.registry import Host, failed, handles, ok, on_session, refuse_unless_connected
from session_host.device_tenure import OwnedDevice, session_snapshot
from session_host.network.port import DeviceSession
from session_host.network.status_types import MediaStatus, StatusContent, StatusPrivacy, TextStatus

_MEDIA_KINDS: dict[str, kinds.Kind] = {"image": "image", "video": "video"}
_FETCH_MARGIN_SECONDS = 1.0
"""A fetch ends this long before the command's deadline, so the reply still arrives in time."""


class _Refused(Exception):
    """Media the story cannot be made of (answered ``invalid``)."""


def _setting(privacy: StatusPrivacy) -> StatusPrivacySetting:
    return StatusPrivacySetting(type=privacy.type, list=list(privacy.list))


@on_session(contracts.GET_STATUS_PRIVACY)
async def get_status_privacy(session: DeviceSession, _args: NoArgs) -> StatusPrivacySetting:
    """The story audience in force on the account."""
    return _setting(await session.status.get_status_privacy())


@on_session(contracts.SET_STATUS_PRIVACY)
async def set_status_privacy(session: DeviceSession, args: StatusPrivacyArgs) -> StatusPrivacySetting:
    """Set the story audience; the answer is the setting now in force."""
    wanted = StatusPrivacy(args.type, tuple(args.list))
    return _setting(await session.status.set_status_privacy(wanted))


@handles(contracts.PUBLISH_STATUS)
async def publish_status(host: Host, command: Command[PublishStatusArgs], owned: OwnedDevice) -> Reply[Any]:
    """Publish a text, image or video story to ``status@broadcast``."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    session = owned.session
    try:
        content = await _content(host, command)
    except _Refused as error:
        return failed(command, ErrorKind.INVALID, str(error), session_snapshot(session))
    sent = await session.status.publish_status(content)
    result = PublishedStatus(message_id=sent.message_id, chat_jid=sent.chat_jid, timestamp=sent.timestamp)
    return ok(command, session_snapshot(session), result)


async def _content(host: Host, command: Command[PublishStatusArgs]) -> StatusContent:
    args = command.args
    if args.kind == "text" and args.text is not None:
        return TextStatus(text=args.text, background_color=args.background_color, font=args.font)
    media_kind = _MEDIA_KINDS[args.kind]
    caption, media_id, url = args.caption, args.media_id, args.url
    try:
        if media_id is not None:
            data = await host.own.aws(store.get, command.tenant_id, command.device_id, media_id)
            source: kinds.Source = "data"
        elif url is not None:
            timeout = min(FETCH_TIMEOUT_SECONDS, command.deadline - time.time() - _FETCH_MARGIN_SECONDS)
            if timeout <= 0:
                raise _Refused("no time was left to fetch url")
            limit = kinds.max_bytes(media_kind, "url", status=True)
            data = (await host.own.aws(fetch.fetch, url, limit, timeout=timeout)).data
            source = "url"
        else:  # the contract gives a media story exactly one of them
            raise _Refused("a media story needs exactly one of media_id and url")
        # Stored media were checked by the API already (inline limit); a fetched one is
        # checked against the status limit of its kind.
        checked = kinds.check(media_kind, data, source, status=True) if source == "url" else None
    except MediaError as error:
        raise _Refused(str(error)) from None
    mimetype = checked.mimetype if checked is not None else (kinds.sniff(data) or "")
    return MediaStatus(data=data if checked is None else checked.data, mimetype=mimetype, caption=caption)
