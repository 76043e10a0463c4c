"""The local app: every API function's routes served together, as API Gateway routes them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI

if TYPE_CHECKING:
    from session_host.network.simulated import SimulatedNetwork


def function_routers() -> list[APIRouter]:
    """The routers of every API function, in the order API Gateway would match them."""
    from devices_api.routes import router as devices
    from groups_api.routes import router as groups
    from messages_api.call_routes import router as calls
    from messages_api.contact_routes import router as contacts
    from messages_api.media_routes import router as media
    from messages_api.outbox_routes import router as outbox  # planned sending (issue 25)
    from messages_api.poll_routes import router as polls
    from messages_api.presence_routes import router as presence
    from messages_api.profile_routes import router as profile
    from messages_api.reaction_routes import router as reactions
    from messages_api.routes import router as messages
    from messages_api.send_media_routes import router as media_sends
    from messages_api.send_routes import router as sends
    from messages_api.status_routes import router as stories
    from platform_api.routes import router as platform
    from users_api.routes import router as users
    from webhooks_api.routes import router as webhooks

    return [
        platform,
        users,
        devices,
        groups,
        webhooks,
        messages,
        sends,
        media_sends,
        media,
        stories,
        # Issue 24: presence and profile, contacts, polls, calls.
        presence,
        profile,
        contacts,
        polls,
        calls,
        reactions,
        # Issue 25: the outbox as a resource.
        outbox,
    ]


def served_routers() -> list[APIRouter]:
    """Every router the functions serve: their APIs, and the platform function's console."""
    from platform_api.console import router as console

    # The browser console is the platform function's too, but no API: not in the route table.
    return [*function_routers(), console]


def local_app(network: SimulatedNetwork | None = None) -> FastAPI:
    """Unlike behind API Gateway, no catch-all is needed: the app itself answers 404 and 405.

    With the simulated network, the simulator's control API (``/_simulator``, master token)
    is served too: it exists only here, never behind API Gateway.
    """
    from gateway.web import create_app

    routers = served_routers()
    if network is not None:
        from gateway.web.auth import require_master
        from session_host.network.simulated.control import control_router

        # The simulator's operations play the gateway's other side under the same names
        # (create_group, join_group...): theirs are prefixed, so operation ids stay unique.
        simulator = APIRouter()
        simulator.include_router(
            control_router(network, require_master),
            generate_unique_id_function=lambda route: f"simulator_{route.name}",
        )
        routers.append(simulator)
    return create_app(*routers, openapi_url="/openapi.json")
