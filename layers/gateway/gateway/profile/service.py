"""Presence and profile of the linked account, through the request's device.

The input is checked first (400 ``VALIDATION_ERROR``; a picture over the inline limit 413),
then the device's status on its record (503, nothing sent), then one command on the bus,
whose failures are answered by :mod:`gateway.failures.table`. A picture is decoded and
checked here and stored in the media bucket (``gateway.media.store``); only its media id
goes on the bus.
"""

from __future__ import annotations

import base64
import binascii

from gateway import jids
from gateway.bus import contracts
from gateway.bus.contracts import NoArgs
from gateway.bus.contracts.profile import (
    Profile,
    ProfilePictureArgs,
    SetPresenceArgs,
    SubscribePresenceArgs,
    UpdateProfileArgs,
)
from gateway.contacts.service import person_jid
from gateway.devices import commands
from gateway.devices.access import require_session
from gateway.errors import ApiError, validation_error
from gateway.failures.codes import ErrorCode
from gateway.media import kinds, store
from gateway.media.limits import INLINE_MAX_BYTES, MB
from gateway.models import DeviceModel
from gateway.observability import logger
from gateway.profile.outputs import (
    PresenceResponse,
    PresenceSubscribedResponse,
    ProfilePictureResponse,
    ProfileResponse,
    ProfileView,
)
from gateway.profile.schemas import PresenceRequest, ProfilePictureRequest, ProfileUpdateRequest


def set_presence(device: DeviceModel, body: PresenceRequest) -> PresenceResponse:
    """Show the account online or offline."""
    require_session(device)
    done = commands.execute(device, contracts.SET_PRESENCE, SetPresenceArgs(state=body.state)).result
    return PresenceResponse(state=done.state)


def subscribe_presence(device: DeviceModel, jid: str) -> PresenceSubscribedResponse:
    """Follow a person's presence: ``jid`` is phone digits, a user JID or a LID."""
    person = person_jid(jid)
    require_session(device)
    done = commands.execute(device, contracts.SUBSCRIBE_PRESENCE, SubscribePresenceArgs(jid=person)).result
    logger.info("presence subscribed", extra={"device_id": device.device_id, "is_lid": jids.is_lid(person)})
    return PresenceSubscribedResponse(jid=done.jid)


def get_profile(device: DeviceModel) -> ProfileResponse:
    """The account's JID, push name, About text and picture URL, as the network has them."""
    require_session(device)
    return _view(commands.execute(device, contracts.GET_PROFILE, NoArgs()).result)


def update_profile(device: DeviceModel, body: ProfileUpdateRequest) -> ProfileResponse:
    """Change the push name, the About text or both; the answer is the profile afterwards."""
    require_session(device)
    args = UpdateProfileArgs(name=body.name, about=body.about)
    profile = commands.execute(device, contracts.UPDATE_PROFILE, args).result
    changed = [field for field in ("name", "about") if getattr(body, field) is not None]
    logger.info("profile updated", extra={"device_id": device.device_id, "fields": changed})
    return _view(profile)


def set_picture(device: DeviceModel, body: ProfilePictureRequest) -> ProfilePictureResponse:
    """Set the profile picture from a base64 JPEG (stored first, named on the bus)."""
    data = jpeg(body.image_base64)
    require_session(device)
    stored = store.put(device.tenant_id, device.device_id, data, "image/jpeg")
    args = ProfilePictureArgs(media_id=stored.media_id)
    done = commands.execute(device, contracts.SET_PROFILE_PICTURE, args).result
    logger.info("profile picture set", extra={"device_id": device.device_id, "bytes": len(data)})
    return ProfilePictureResponse(picture_id=done.picture_id)


def jpeg(image_base64: str) -> bytes:
    """The JPEG bytes of ``image_base64``: 400 ``VALIDATION_ERROR`` when it is not base64 of a
    JPEG, 413 ``PAYLOAD_TOO_LARGE`` over the inline media limit."""
    try:
        data = base64.b64decode(image_base64, validate=True)
    except (binascii.Error, ValueError):
        raise validation_error("image_base64", "not valid base64") from None
    if len(data) > INLINE_MAX_BYTES:
        message = f"image_base64 is over {INLINE_MAX_BYTES // MB} MB once decoded"
        raise ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, message)
    if kinds.sniff(data) != "image/jpeg":
        raise validation_error("image_base64", "a profile picture is a JPEG image")
    return data


def _view(profile: Profile) -> ProfileResponse:
    view = ProfileView(
        jid=profile.jid, name=profile.name, about=profile.about, picture_url=profile.picture_url
    )
    return ProfileResponse(profile=view)
