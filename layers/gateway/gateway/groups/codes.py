"""The lowercase error codes of group operations and the HTTP status of each: one table,
read by the API (answers and the OpenAPI document), the session host (its refusals) and the
simulated network (the network's own refusals), so a code means the same everywhere.

The specification fixes ``device_disconnected``, ``invalid_group_jid``, ``create_failed``,
``update_failed``, ``invite_failed``, ``invite_link_revoked``, ``group_not_found`` and
``rate_limited``; ``../shared/spec/decisions.md`` adds the rest. The choices of this gateway
where both are silent are marked "choice" (see ``docs/groups.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

INVITE_HOST = "chat.whatsapp.com"
"""The network's invite link host: a link is ``https://chat.whatsapp.com/<code>``."""

REFUSALS: Mapping[str, int] = MappingProxyType(
    {
        "invalid_request": 400,
        "invalid_group_jid": 400,
        "invalid_participant": 400,
        "invalid_duration": 400,
        "invalid_image": 400,
        "invalid_invite_link": 400,
        "not_group_admin": 403,
        "group_not_found": 404,
        "already_member": 409,
        "not_a_community": 409,
        "already_linked": 409,  # choice: a group is linked to one community at a time
        "not_linked": 409,  # choice: unlinking a group that is not linked there
        "invite_link_revoked": 410,
    }
)
"""What the network (or the gateway's admin rule) refuses, by code: the session host
replies with the code as its error kind, and the API answers it with this status."""

FAILURES: Mapping[str, int] = MappingProxyType(
    {
        "device_not_found": 404,  # the X-Device-Id device is not one the caller sees
        "device_id_required": 400,  # the caller has several devices and named none
        "rate_limited": 429,
        "device_error": 500,  # choice: the session host failed
        "unsupported_operation": 501,
        "create_failed": 502,
        "update_failed": 502,
        "invite_failed": 502,
        "fetch_failed": 502,  # choice: a read (list, info, requests) failed on the network
        "device_disconnected": 503,
        "operation_timeout": 504,  # choice: no answer in time; the change may have been made
    }
)
"""What else a group operation may answer: the device, the network failing, the host."""

STATUS: Mapping[str, int] = MappingProxyType({**REFUSALS, **FAILURES})
"""Every lowercase group code and its HTTP status."""


def is_refusal(code: str) -> bool:
    return code in REFUSALS
