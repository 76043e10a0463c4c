"""Profile routes: the device's account as its contacts see it (push name, About text,
picture).

They act through the request's device (``X-Device-Id``, or the caller's only device), which
any role may use when it can see it, and need that device's session connected.
"""

from fastapi import APIRouter, Depends

from gateway.bus import CommandName
from gateway.devices.access import ACTING_DEVICE_ERRORS
from gateway.devices.dependencies import authenticated_device
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.models import DeviceModel
from gateway.profile import service
from gateway.profile.outputs import ProfilePictureResponse, ProfileResponse
from gateway.profile.schemas import ProfilePictureRequest, ProfileUpdateRequest
from gateway.web.error_docs import AUTHENTICATED, WITH_BODY, answers, standard

router = APIRouter(tags=["profile"])


@router.get(
    "/profile",
    responses=answers(AUTHENTICATED, ACTING_DEVICE_ERRORS, command_errors(CommandName.GET_PROFILE)),
)
def get_profile(device: DeviceModel = Depends(authenticated_device)) -> ProfileResponse:
    """The device's account: its JID, push name, About text and picture URL."""
    return service.get_profile(device)


@router.patch(
    "/profile",
    responses=answers(
        AUTHENTICATED, WITH_BODY, ACTING_DEVICE_ERRORS, command_errors(CommandName.UPDATE_PROFILE)
    ),
)
def update_profile(
    body: ProfileUpdateRequest, device: DeviceModel = Depends(authenticated_device)
) -> ProfileResponse:
    """Change the push name, the About text or both (name first); the answer is the profile
    read afterwards."""
    return service.update_profile(device, body)


@router.put(
    "/profile/picture",
    responses=answers(
        AUTHENTICATED,
        WITH_BODY,
        ACTING_DEVICE_ERRORS,
        command_errors(CommandName.SET_PROFILE_PICTURE),
        standard(413, ErrorCode.PAYLOAD_TOO_LARGE),
    ),
)
def set_profile_picture(
    body: ProfilePictureRequest, device: DeviceModel = Depends(authenticated_device)
) -> ProfilePictureResponse:
    """Set the account's profile picture from a base64 JPEG."""
    return service.set_picture(device, body)
