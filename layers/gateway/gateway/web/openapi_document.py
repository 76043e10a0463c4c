"""The complete OpenAPI document, shipped with the shared library.

No single function knows every route behind API Gateway, so the document is generated from
all routers (``make openapi``) and packaged here; the platform function serves it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGED_DOCUMENT = Path(__file__).with_name("openapi.json")


@cache
def openapi_bytes() -> bytes:
    """The packaged document as served: read once per function instance."""
    return PACKAGED_DOCUMENT.read_bytes()
