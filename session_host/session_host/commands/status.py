"""Commands on the device's stories: who sees them, and publishing one.

Media never travel on the bus: an image or video story names a media the API stored
(``media_id``, read here from the media bucket) or a ``url`` the host fetches under the
webhook address rules, with the size limit of a status of that kind and within what is left
of the command's deadline. Either way the bytes are sniffed again here, so the network
adapters get an image or video whose type is known. Malformed arguments, media that are gone
or a url that cannot be used are ``invalid``, answered without touching the network.
"""

from __future__ import annotations

import time
from typing import Any, TypeGuard

from gateway.bus import Command, CommandName, Reply
from gateway.failures.kinds import ErrorKind
from gateway.media import fetch, kinds, store
from gateway.media.errors import MediaError
from gateway.media.limits import FETCH_TIMEOUT_SECONDS
from session_host.commands.context import Host, failed, ok, refuse_unless_connected
from session_host.commands.registry import handles
from session_host.network.status_types import (
    MediaStatus,
    PrivacyType,
    StatusContent,
    StatusPrivacy,
    TextStatus,
)
from session_host.owned import OwnedDevice, session_snapshot

_MEDIA_KINDS: dict[str, kinds.Kind] = {"image": "image", "video": "video"}
_FETCH_MARGIN_SECONDS = 1.0
"""A fetch ends this long before the command's deadline, so the reply still arrives in time."""


class _Refused(Exception):
    """Arguments or media the story cannot be made of (answered ``invalid``)."""


@handles(CommandName.GET_STATUS_PRIVACY)
async def get_status_privacy(_host: Host, command: Command, owned: OwnedDevice) -> Reply:
    """The story audience in force on the account."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    privacy = await owned.session.status.get_status_privacy()
    return ok(command, session_snapshot(owned.session), privacy.to_json())


@handles(CommandName.SET_STATUS_PRIVACY)
async def set_status_privacy(_host: Host, command: Command, owned: OwnedDevice) -> Reply:
    """Set the story audience; the answer is the setting now in force."""
    kind, people = command.args.get("type"), command.args.get("list")
    if (
        not isinstance(kind, str)
        or kind not in {member.value for member in PrivacyType}
        or not isinstance(people, list)
        or not all(isinstance(p, str) for p in people)
    ):
        return failed(
            command, ErrorKind.INVALID, "type (contacts, whitelist, blacklist) and list are required"
        )
    if refused := refuse_unless_connected(command, owned):
        return refused
    privacy = await owned.session.status.set_status_privacy(StatusPrivacy(PrivacyType(kind), tuple(people)))
    return ok(command, session_snapshot(owned.session), privacy.to_json())


@handles(CommandName.PUBLISH_STATUS)
async def publish_status(host: Host, command: Command, owned: OwnedDevice) -> Reply:
    """Publish a text, image or video story to ``status@broadcast``."""
    if refused := refuse_unless_connected(command, owned):
        return refused
    session = owned.session
    try:
        content = await _content(host, command)
    except _Refused as error:
        return failed(command, ErrorKind.INVALID, str(error), session_snapshot(session))
    sent = await session.status.publish_status(content)
    result = {"message_id": sent.message_id, "chat_jid": sent.chat_jid, "timestamp": sent.timestamp}
    return ok(command, session_snapshot(session), result)


async def _content(host: Host, command: Command) -> StatusContent:
    args = command.args
    kind = args.get("kind")
    if kind == "text":
        text, color, font = args.get("text"), args.get("background_color"), args.get("font")
        if not _text(text) or not (color is None or isinstance(color, str)) or not _font(font):
            raise _Refused("a text story needs text (background_color and font are optional)")
        return TextStatus(text=text, background_color=color, font=font)
    media_kind = _MEDIA_KINDS.get(kind) if isinstance(kind, str) else None
    caption = args.get("caption", "")
    if media_kind is None or not isinstance(caption, str):
        raise _Refused("kind must be text, image or video, and caption a string")
    media_id, url = args.get("media_id"), args.get("url")
    try:
        if _text(media_id) and url is None:
            data = await host.own.aws(store.get, command.tenant_id, command.device_id, media_id)
            source: kinds.Source = "data"
        elif _text(url) and media_id is None:
            timeout = min(FETCH_TIMEOUT_SECONDS, command.deadline - time.time() - _FETCH_MARGIN_SECONDS)
            if timeout <= 0:
                raise _Refused("no time was left to fetch url")
            limit = kinds.max_bytes(media_kind, "url", status=True)
            data = (await host.own.aws(fetch.fetch, url, limit, timeout=timeout)).data
            source = "url"
        else:
            raise _Refused("a media story needs exactly one of media_id and url")
        # Stored media were checked by the API already (inline limit); a fetched one is
        # checked against the status limit of its kind.
        checked = kinds.check(media_kind, data, source, status=True) if source == "url" else None
    except MediaError as error:
        raise _Refused(str(error)) from None
    mimetype = checked.mimetype if checked is not None else (kinds.sniff(data) or "")
    return MediaStatus(data=data if checked is None else checked.data, mimetype=mimetype, caption=caption)


def _text(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value)


def _font(value: Any) -> TypeGuard[int | None]:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))
