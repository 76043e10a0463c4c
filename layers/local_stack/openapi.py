"""Writes the OpenAPI document of every route: ``python -m local_stack.openapi`` (``make openapi``).

One copy is committed, the shared library's (``layers/gateway/gateway/web/openapi.json``), which
the platform function serves at /openapi.json; a test keeps it equal to the routers.
"""

from __future__ import annotations

import json
from typing import Any

from gateway.web.openapi_document import PACKAGED_DOCUMENT


def current_document() -> dict[str, Any]:
    from local_stack.apps import local_app

    return local_app().openapi()


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def main() -> None:
    PACKAGED_DOCUMENT.write_text(render(current_document()))
    print(f"wrote {PACKAGED_DOCUMENT}")


if __name__ == "__main__":
    main()
