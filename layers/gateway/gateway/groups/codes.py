"""The lowercase error codes of the group and status-privacy operations and the HTTP status
of each: one enum and one table, read by the API (answers and the OpenAPI document), the
session host (its refusals) and the simulated network (the network's own refusals), so a code
means the same everywhere.

The specification fixes ``device_disconnected``, ``invalid_group_jid``, ``create_failed``,
``update_failed``, ``invite_failed``, ``invite_link_revoked``, ``group_not_found`` and
``rate_limited``, and the privacy route's ``invalid_request``, ``device_error``,
``privacy_update_failed``, ``device_disconnected`` and ``privacy_update_timeout``;
``../shared/spec/decisions.md`` adds the rest. The choices of this gateway where both are
silent are marked "choice" (see ``docs/groups.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType

INVITE_HOST = "chat.whatsapp.com"
"""The network's invite link host: a link is ``https://chat.whatsapp.com/<code>``."""


class OperationCode(StrEnum):
    """A ``code`` of the lowercase envelope ``{success, error: {code, message}}``."""

    INVALID_REQUEST = "invalid_request"
    INVALID_GROUP_JID = "invalid_group_jid"
    INVALID_PARTICIPANT = "invalid_participant"
    INVALID_DURATION = "invalid_duration"
    INVALID_IMAGE = "invalid_image"
    INVALID_INVITE_LINK = "invalid_invite_link"
    NOT_GROUP_ADMIN = "not_group_admin"
    GROUP_NOT_FOUND = "group_not_found"
    ALREADY_MEMBER = "already_member"
    NOT_A_COMMUNITY = "not_a_community"
    ALREADY_LINKED = "already_linked"
    NOT_LINKED = "not_linked"
    INVITE_LINK_REVOKED = "invite_link_revoked"
    DEVICE_NOT_FOUND = "device_not_found"
    DEVICE_ID_REQUIRED = "device_id_required"
    RATE_LIMITED = "rate_limited"
    DEVICE_ERROR = "device_error"
    UNSUPPORTED_OPERATION = "unsupported_operation"
    CREATE_FAILED = "create_failed"
    UPDATE_FAILED = "update_failed"
    INVITE_FAILED = "invite_failed"
    FETCH_FAILED = "fetch_failed"
    DEVICE_DISCONNECTED = "device_disconnected"
    OPERATION_TIMEOUT = "operation_timeout"
    PRIVACY_UPDATE_FAILED = "privacy_update_failed"
    PRIVACY_UPDATE_TIMEOUT = "privacy_update_timeout"


REFUSALS: Mapping[str, int] = MappingProxyType(
    {
        OperationCode.INVALID_REQUEST: 400,
        OperationCode.INVALID_GROUP_JID: 400,
        OperationCode.INVALID_PARTICIPANT: 400,
        OperationCode.INVALID_DURATION: 400,
        OperationCode.INVALID_IMAGE: 400,
        OperationCode.INVALID_INVITE_LINK: 400,
        OperationCode.NOT_GROUP_ADMIN: 403,
        OperationCode.GROUP_NOT_FOUND: 404,
        OperationCode.ALREADY_MEMBER: 409,
        OperationCode.NOT_A_COMMUNITY: 409,
        OperationCode.ALREADY_LINKED: 409,  # choice: a group is linked to one community at a time
        OperationCode.NOT_LINKED: 409,  # choice: unlinking a group that is not linked there
        OperationCode.INVITE_LINK_REVOKED: 410,
    }
)
"""What the network (or the gateway's admin rule) refuses, by code: the session host
replies ``REFUSED`` naming the code, and the API answers it with this status."""

FAILURES: Mapping[str, int] = MappingProxyType(
    {
        OperationCode.DEVICE_NOT_FOUND: 404,  # the X-Device-Id device is not one the caller sees
        OperationCode.DEVICE_ID_REQUIRED: 400,  # the caller has several devices and named none
        OperationCode.RATE_LIMITED: 429,
        OperationCode.DEVICE_ERROR: 500,  # choice: the session host failed
        OperationCode.UNSUPPORTED_OPERATION: 501,
        OperationCode.CREATE_FAILED: 502,
        OperationCode.UPDATE_FAILED: 502,
        OperationCode.INVITE_FAILED: 502,
        OperationCode.FETCH_FAILED: 502,  # choice: a read (list, info, requests) failed on the network
        OperationCode.PRIVACY_UPDATE_FAILED: 502,
        OperationCode.DEVICE_DISCONNECTED: 503,
        OperationCode.OPERATION_TIMEOUT: 504,  # choice: no answer in time; the change may have been made
        OperationCode.PRIVACY_UPDATE_TIMEOUT: 504,
    }
)
"""What else an operation may answer: the device, the network failing, the host."""

STATUS: Mapping[str, int] = MappingProxyType({**REFUSALS, **FAILURES})
"""Every lowercase code and its HTTP status."""


def is_refusal(code: str) -> bool:
    return code in REFUSALS
