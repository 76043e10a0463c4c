"""The browser console: the static files of ``console/`` served at ``/console``.

The console is a client of the public API and nothing more, so this module only serves files:
no template, no token, no import beyond what the platform function loads already (it is on the
function's cold path). Every answer carries a strict Content-Security-Policy: the page runs
its own scripts and styles only, talks to this origin only, and shows the QR code as a
``data:`` image.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from fastapi import APIRouter, Response

from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode

ROOT = Path(__file__).with_name("console")

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Small files that change with each release: always revalidated, never stale after a deploy.
    "Cache-Control": "no-cache",
}

router = APIRouter(include_in_schema=False)


@cache
def _files() -> dict[str, Path]:
    """Every servable file by its path under /console/, listed once: nothing outside ``ROOT``
    (no ``..``, no symlink target) can ever be named by a request."""
    return {
        path.relative_to(ROOT).as_posix(): path
        for path in ROOT.rglob("*")
        if path.is_file() and path.suffix in CONTENT_TYPES
    }


def _serve(name: str) -> Response:
    path = _files().get(name)
    if path is None:
        raise ApiError(404, ErrorCode.NOT_FOUND, f"route not found: GET /console/{name}")
    return Response(path.read_bytes(), media_type=CONTENT_TYPES[path.suffix], headers=HEADERS)


@router.get("/console")
def console_page() -> Response:
    """The single page; its scripts and styles are under /console/."""
    return _serve("index.html")


@router.get("/console/{proxy:path}")
def console_file(proxy: str) -> Response:
    return _serve(proxy or "index.html")
