"""Writes the OpenAPI document of every route: ``python -m local_stack.openapi`` (``make openapi``).

Two copies are written and a test keeps them equal to the routers: ``docs/openapi.json``
for readers, and the shared library's copy that the platform function serves at /openapi.json.
"""

from __future__ import annotations

import json
from typing import Any

from gateway.web.openapi_document import PACKAGED_DOCUMENT
from local_stack.template import REPO_ROOT

DOCS_DOCUMENT = REPO_ROOT / "docs" / "openapi.json"


def current_document() -> dict[str, Any]:
    from local_stack.apps import local_app

    return local_app().openapi()


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def main() -> None:
    text = render(current_document())
    for path in (DOCS_DOCUMENT, PACKAGED_DOCUMENT):
        path.write_text(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
