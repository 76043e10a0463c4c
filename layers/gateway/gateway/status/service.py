"""Status (stories) through the request's device.

Privacy: the input is checked here first (400 ``invalid_request``: the rules the session
host's port applies too), then the device's status on its record (503
``device_disconnected``, nothing sent), then one command on the bus; failures are answered
by :mod:`gateway.failures.table` in the lowercase envelope.

Publishing: the device must be connected (standard 503). Inline media are decoded, sniffed
and size-checked here and stored in the media bucket (``gateway.media.store``); only the
media id goes on the bus. A ``url`` is checked here (scheme, credentials, public address)
and fetched by the session host, which applies the size limit of a status of its kind
(16 MB for videos) and sniffs the bytes again. Failures are the standard envelope's, as the
send routes answer them (``gateway.failures.table``). A failure after which the story
may still be out (no answer in time, the host failed, an incomplete answer) is
:class:`~gateway.web.idempotency.Unclear`: an ``Idempotency-Key`` stays bound to it, and a
repeat answers the same error (the gateway keeps no record of stories to look up).

Planned (``send_at``): a story for later is a send of kind ``status`` in the device's outbox
(to ``status@broadcast``, its payload the ``PUBLISH_STATUS`` arguments; inline media stored
first, a url fetched when it goes out), answered 202 ``scheduled`` at once as a planned send
is (``gateway.messages.sending``). So it has every guarantee of a send: durable, dispatched
at its time by whichever host runs the device, listed and cancelable at GET/DELETE /sends,
and ``message.sent`` (``message_type`` ``status``) when it goes out.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

from gateway import jids
from gateway.bus import contracts
from gateway.bus.contracts import A, Contract, NoArgs
from gateway.bus.contracts.status import (
    PrivacyType,
    PublishStatusArgs,
    StatusPrivacyArgs,
    StatusPrivacySetting,
)
from gateway.config import get_settings
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import ApiError, internal_error, validation_error
from gateway.failures import table
from gateway.failures.codes import ErrorCode
from gateway.failures.kinds import NETWORK_REFUSALS, NOT_STARTED, ErrorKind
from gateway.groups.codes import OperationCode
from gateway.media import kinds, store, urls
from gateway.media.errors import MediaError
from gateway.media.limits import INLINE_MAX_BYTES, MB, STATUS_VIDEO_MAX_BYTES
from gateway.messages import outbox, schedule, sending
from gateway.messages.sends import STATUS
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.status.outputs import StatusPrivacyResponse, StatusPublishedResponse
from gateway.status.schemas import MediaStatusRequest, StatusPrivacyRequest, TextStatusRequest
from gateway.web.idempotency import StoredResponse, Unclear

MediaKind = Literal["image", "video"]

# --- privacy --------------------------------------------------------------------------------


def privacy_people(body: StatusPrivacyRequest) -> list[str]:
    """The setting's people as user JIDs, in order, without repeats; raises 400
    ``invalid_request`` for an entry that is no person, a whitelist naming nobody, or a list
    on ``contacts``."""
    people: list[str] = []
    for entry in body.list:
        if jids.is_phone(entry):
            people.append(jids.user_jid(entry))
        elif jids.is_user_jid(entry):
            people.append(entry)
        else:
            raise table.operation_error(
                OperationCode.INVALID_REQUEST, f"list: {entry!r} is neither a phone number nor a user JID"
            )
    people = list(dict.fromkeys(people))
    if body.type == "whitelist" and not people:
        raise table.operation_error(
            OperationCode.INVALID_REQUEST, "a whitelist must name at least one person"
        )
    if body.type == "contacts" and people:
        raise table.operation_error(
            OperationCode.INVALID_REQUEST, "the contacts setting takes no list: use whitelist or blacklist"
        )
    return people


def get_privacy(device: DeviceModel) -> StatusPrivacyResponse:
    """The story audience in force on the device's account, as the network answers it."""
    return _privacy(device, contracts.GET_STATUS_PRIVACY, NoArgs())


def set_privacy(device: DeviceModel, body: StatusPrivacyRequest) -> StatusPrivacyResponse:
    """Set the story audience; the answer is the setting now in force."""
    people = privacy_people(body)
    args = StatusPrivacyArgs(type=PrivacyType(body.type), list=people)
    return _privacy(device, contracts.SET_STATUS_PRIVACY, args)


def _privacy(
    device: DeviceModel, contract: Contract[A, StatusPrivacySetting], args: A
) -> StatusPrivacyResponse:
    if device.status != "connected":
        raise table.operation_error(
            OperationCode.DEVICE_DISCONNECTED, f"the device is not connected (status {device.status})"
        )
    setting = commands.execute(device, contract, args).result
    return StatusPrivacyResponse(type=setting.type.value, count=len(setting.list), list=setting.list)


# --- publishing -----------------------------------------------------------------------------


def publish_text(device: DeviceModel, body: TextStatusRequest) -> StoredResponse:
    """Publish a text story (now, or planned for ``send_at``)."""
    due = schedule.due_at(body.send_at)
    args = PublishStatusArgs(
        kind="text", text=body.text, background_color=body.background_color, font=body.font
    )
    return _publish(device, args, due)


def publish_media(device: DeviceModel, kind: MediaKind, body: MediaStatusRequest) -> StoredResponse:
    """Publish an image or video story from inline bytes (stored first) or a url (now, or
    planned for ``send_at``: a url is then fetched when it goes out)."""
    due = schedule.due_at(body.send_at)
    require_session(device)
    if body.url is not None:
        settings = get_settings()
        try:
            urls.check_url(body.url, allow_http=settings.http_urls_allowed, local_mode=settings.local_mode)
        except MediaError as refused:
            raise validation_error("url", str(refused), body.url) from None
        return _publish(device, PublishStatusArgs(kind=kind, url=body.url, caption=body.caption), due)
    data = inline_media(kind, body.data_base64 or "")
    stored = store.put(device.tenant_id, device.device_id, data.data, data.mimetype)
    args = PublishStatusArgs(kind=kind, media_id=stored.media_id, caption=body.caption)
    return _publish(device, args, due)


def inline_media(kind: MediaKind, data_base64: str) -> kinds.CheckedMedia:
    """The decoded, sniffed and size-checked bytes of ``data_base64``: a video over the status
    limit is 400 ``VALIDATION_ERROR``; other media over the inline limit 413 (use url)."""
    try:
        data = base64.b64decode(data_base64, validate=True)
    except (binascii.Error, ValueError):
        raise validation_error("data_base64", "not valid base64") from None
    if kind == "video" and len(data) > STATUS_VIDEO_MAX_BYTES:
        message = f"a video story is at most {STATUS_VIDEO_MAX_BYTES // MB} MB"
        raise validation_error("data_base64", message, f"{len(data)} bytes")
    if len(data) > INLINE_MAX_BYTES:
        message = f"data_base64 is over {INLINE_MAX_BYTES // MB} MB once decoded: use url for media over 4 MB"
        raise ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, message)
    try:
        return kinds.check(kind, data, "data", status=True)
    except MediaError as refused:
        raise validation_error("data_base64", str(refused)) from None


def _unclear_unless_refused(error: ApiError, kind: ErrorKind | None) -> ApiError:
    """A publish's failure is unclear unless nothing of the story can have gone out."""
    return error if kind in NETWORK_REFUSALS | NOT_STARTED else Unclear(error)


def _publish(device: DeviceModel, args: PublishStatusArgs, due: float | None) -> StoredResponse:
    require_session(device)
    if due is not None:
        return _planned(device, args, due)
    try:
        published = commands.execute(
            device, contracts.PUBLISH_STATUS, args, escalate=_unclear_unless_refused
        ).result
    except ApiError:
        raise
    except Exception as error:  # the command may have left
        logger.exception("status command not confirmed", extra={"device_id": device.device_id})
        raise Unclear(internal_error()) from error
    logger.info("status published", extra={"device_id": device.device_id, "kind": args.kind})
    body = StatusPublishedResponse(message_id=published.message_id)
    return StoredResponse(200, body.model_dump(mode="json"))


def state_now(device: DeviceModel, bound: dict[str, Any]) -> StoredResponse | None:
    """A planned story as it is now, for a repeat with its ``Idempotency-Key``: as a planned
    send's (``sending.state_now``), but once published the 200 a story publish answers, the
    network's id as its ``message_id``."""
    now = sending.state_now(device, bound)
    if now is None or now.status_code != 200:
        return now
    body = StatusPublishedResponse(message_id=now.body["network_message_id"])
    return StoredResponse(200, body.model_dump(mode="json"))


def _planned(device: DeviceModel, args: PublishStatusArgs, due: float) -> StoredResponse:
    """A story for later: a send of kind ``status`` in the device's outbox, whose payload is
    the publish's arguments; the dispatcher publishes it at ``due`` (see the module)."""
    send = outbox.new_send(
        device.tenant_id,
        device.device_id,
        chat_jid=jids.STATUS_BROADCAST_JID,
        text=args.text or args.caption,
        disable_presence=True,  # nobody to show typing to
        kind=STATUS,
        payload=args.model_dump(mode="json", exclude_none=True),
        send_at=due,
    )
    return sending.planned(device, send, get_settings().send_hold_seconds)
