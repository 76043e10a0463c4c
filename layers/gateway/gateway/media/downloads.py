"""GET /media/{media_id}: a pre-signed URL of a media the caller may see, else 404.

The media id names its device (:func:`gateway.media.store.device_of`), so the route reads
that one device, checks the caller can see it (the rules of devices' ``access``), and signs a
URL of the key under the caller's own tenant. Another tenant, a user who cannot see the device,
an id the gateway did not make, a missing or an expired media all answer the same 404
``MEDIA_NOT_FOUND``: nothing tells a caller that someone else's media exist.
"""

from __future__ import annotations

from gateway.accounts.roles import Principal
from gateway.devices.access import find_visible_device
from gateway.errors import ApiError, not_found
from gateway.failures.codes import ErrorCode
from gateway.media import store
from gateway.media.limits import PRESIGNED_URL_SECONDS
from gateway.web.error_docs import standard

MEDIA_ERRORS = (standard(404, ErrorCode.MEDIA_NOT_FOUND),)


def media_not_found() -> ApiError:
    return not_found(ErrorCode.MEDIA_NOT_FOUND, "media not found")


def download_url(caller: Principal, media_id: str) -> str:
    """A GET URL of the media valid :data:`PRESIGNED_URL_SECONDS`; 404 ``MEDIA_NOT_FOUND``."""
    device_id = store.device_of(media_id)
    if device_id is None:
        raise media_not_found()
    try:
        device = find_visible_device(caller, device_id)
    except ApiError:  # DEVICE_NOT_FOUND: the media are no more visible than their device
        raise media_not_found() from None
    url = store.presigned_url(device.tenant_id, device.device_id, media_id, PRESIGNED_URL_SECONDS)
    if url is None:
        raise media_not_found()
    return url
