"""Received media: GET /media/{media_id}, the ``media_path`` of ``message.received``."""

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import RedirectResponse

from gateway.accounts.roles import Principal
from gateway.media.downloads import MEDIA_ERRORS, download_url
from gateway.media.limits import PRESIGNED_URL_SECONDS
from gateway.web.auth import current_principal
from gateway.web.error_docs import AUTHENTICATED, answers

router = APIRouter(tags=["media"])

_REDIRECT: dict[int | str, dict[str, Any]] = {
    302: {
        "description": f"Found: the media's bytes are at `Location`, a pre-signed URL valid "
        f"{PRESIGNED_URL_SECONDS} s (fetch it without the gateway's token).",
        "headers": {
            "Location": {
                "description": "Pre-signed download URL of the media.",
                "schema": {"type": "string", "format": "uri"},
            }
        },
    }
}


@router.get(
    "/media/{media_id}",
    status_code=302,
    response_class=RedirectResponse,
    responses={**_REDIRECT, **answers(AUTHENTICATED, MEDIA_ERRORS)},
)
def get_media(media_id: str, caller: Principal = Depends(current_principal)) -> RedirectResponse:
    """Download a received media: redirects to a short-lived URL of its bytes, for any user
    who can see the device that received it."""
    return RedirectResponse(download_url(caller, media_id), status_code=302)
