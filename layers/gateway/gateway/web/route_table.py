"""Every route of every API function, so the catch-all can tell 405 from 404.

Behind API Gateway each function sees only its own routes; unmatched requests reach the
platform function's catch-all (``$default``), which uses this table to answer 405 with
``Allow`` for a known path and 404 otherwise. A test keeps it equal to the routers; the
console's pages are listed apart (``PAGES``).
"""

from __future__ import annotations

import re
from functools import cache

ROUTES: frozenset[tuple[str, str]] = frozenset(
    {
        ("POST", "/register"),
        ("GET", "/tenants"),
        ("GET", "/global/tenants/{tenant_id}"),
        ("PATCH", "/global/tenants/{tenant_id}"),
        ("DELETE", "/global/tenants/{tenant_id}"),
        ("POST", "/users"),
        ("GET", "/users"),
        ("GET", "/users/{user_id}"),
        ("PUT", "/users/{user_id}"),
        ("GET", "/status"),
        ("GET", "/status/privacy"),
        ("PUT", "/status/privacy"),
        ("POST", "/status/text"),
        ("POST", "/status/image"),
        ("POST", "/status/video"),
        ("POST", "/devices"),
        ("GET", "/devices"),
        ("GET", "/devices/{device_id}"),
        ("PATCH", "/devices/{device_id}"),
        ("DELETE", "/devices/{device_id}"),
        ("POST", "/devices/{device_id}/connect"),
        ("POST", "/devices/{device_id}/reconnect"),
        ("GET", "/devices/{device_id}/qr"),
        ("POST", "/devices/{device_id}/pair-phone"),
        ("POST", "/devices/{device_id}/disconnect"),
        ("POST", "/devices/{device_id}/logout"),
        ("POST", "/webhook"),
        ("GET", "/webhook"),
        ("DELETE", "/webhook"),
        ("GET", "/webhook/events"),
        ("POST", "/user/webhook"),
        ("GET", "/webhook/deliveries"),
        ("POST", "/webhook/deliveries/{event_id}/redeliver"),
        ("POST", "/messages/read"),
        ("DELETE", "/messages/{message_id}"),
        ("POST", "/history/sync"),
        ("POST", "/send/text"),
        ("POST", "/send/image"),
        ("POST", "/send/video"),
        ("POST", "/send/audio"),
        ("POST", "/send/document"),
        ("POST", "/send/sticker"),
        ("POST", "/send/location"),
        ("POST", "/send/contact"),
        ("POST", "/send/template"),
        ("GET", "/media/{media_id}"),
        ("POST", "/groups"),
        ("GET", "/groups"),
        ("GET", "/groups/{jid}"),
        ("PATCH", "/groups/{jid}"),
        ("POST", "/groups/{jid}/participants"),
        ("DELETE", "/groups/{jid}/participants"),
        ("POST", "/groups/{jid}/picture"),
        ("PUT", "/groups/{jid}/ephemeral"),
        ("GET", "/groups/{jid}/invite"),
        ("POST", "/groups/{jid}/invite/reset"),
        ("POST", "/groups/join"),
        ("DELETE", "/groups/{jid}/leave"),
        ("POST", "/groups/{jid}/community/link"),
        ("DELETE", "/groups/{jid}/community/link"),
        ("GET", "/groups/{jid}/requests"),
        ("POST", "/groups/{jid}/requests"),
    }
)


PAGES: frozenset[tuple[str, str]] = frozenset({("GET", "/console"), ("GET", "/console/{path+}")})
"""The platform function's browser console (not API operations): ``{name+}`` spans slashes."""


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    def pattern(path: str) -> re.Pattern[str]:
        greedy = re.sub(r"\{[^/]+\+\}", ".+", path)
        return re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", greedy) + "$")

    return [(method, pattern(path)) for method, path in ROUTES | PAGES]


def allowed_methods(path: str) -> list[str]:
    """Methods served on ``path``; empty when no route has this path."""
    return sorted({method for method, pattern in _patterns() if pattern.match(path)})
