"""The local app: every API function's routes served together, as API Gateway routes them."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI


def function_routers() -> list[APIRouter]:
    """The routers of every API function, in the order API Gateway would match them."""
    from devices_api.routes import router as devices
    from groups_api.routes import router as groups
    from messages_api.routes import router as messages
    from platform_api.routes import router as platform
    from users_api.routes import router as users
    from webhooks_api.routes import router as webhooks

    return [platform, users, devices, groups, webhooks, messages]


def local_app() -> FastAPI:
    """Unlike behind API Gateway, no catch-all is needed: the app itself answers 404 and 405."""
    from gateway.web import create_app

    return create_app(*function_routers(), openapi_url="/openapi.json")
