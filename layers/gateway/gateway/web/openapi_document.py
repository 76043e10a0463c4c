"""The complete OpenAPI document, shipped with the shared library.

No single function knows every route behind API Gateway, so the document is generated from
all routers (``make openapi``) and packaged here; the platform function serves it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

PACKAGED_DOCUMENT = Path(__file__).with_name("openapi.json")


@cache
def openapi_document() -> dict[str, Any]:
    return json.loads(PACKAGED_DOCUMENT.read_text())
