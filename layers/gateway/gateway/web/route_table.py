"""Every route of every API function, so the catch-all can tell 405 from 404.

Behind API Gateway each function sees only its own routes; unmatched requests reach the
platform function's catch-all (``$default``), which uses this table to answer 405 with
``Allow`` for a known path and 404 otherwise. The table is read from the packaged OpenAPI
document (``gateway.web.openapi_document``), which lists every operation of every function
and which a test keeps equal to the routers; the console's pages are listed apart (``PAGES``).
"""

from __future__ import annotations

import json
import re
from functools import cache

from gateway.web.openapi_document import openapi_bytes

_OPERATIONS = frozenset({"get", "put", "post", "delete", "patch", "head", "options", "trace"})


@cache
def routes() -> frozenset[tuple[str, str]]:
    """Every (method, path) the API functions serve: the operations of the packaged document."""
    paths = json.loads(openapi_bytes())["paths"]
    return frozenset(
        (key.upper(), path) for path, item in paths.items() for key in item if key in _OPERATIONS
    )


PAGES: frozenset[tuple[str, str]] = frozenset({("GET", "/console"), ("GET", "/console/{path+}")})
"""The platform function's browser console (not API operations): ``{name+}`` spans slashes."""


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    def pattern(path: str) -> re.Pattern[str]:
        greedy = re.sub(r"\{[^/]+\+\}", ".+", path)
        return re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", greedy) + "$")

    return [(method, pattern(path)) for method, path in routes() | PAGES]


def allowed_methods(path: str) -> list[str]:
    """Methods served on ``path``; empty when no route has this path."""
    return sorted({method for method, pattern in _patterns() if pattern.match(path)})
