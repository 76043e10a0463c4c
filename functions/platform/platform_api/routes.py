"""Platform routes, master token only: registration and cross-tenant administration."""

from typing import Any

from fastapi import APIRouter, Depends, Request

from gateway.accounts import tenants
from gateway.errors import ApiError
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import require_master
from gateway.web.openapi_document import openapi_document
from gateway.web.route_table import allowed_methods
from platform_api.schemas import RegisterRequest

router = APIRouter(dependencies=[Depends(require_master)], tags=["platform"])


@router.post("/register", status_code=201)
def register(body: RegisterRequest) -> dict[str, Any]:
    webhook_url = str(body.webhook_url) if body.webhook_url else None
    return {
        "success": True,
        **tenants.register(body.tenant_name, str(body.email), body.password, webhook_url),
    }


@router.get("/tenants")
def list_tenants(paging: PageRequest = Depends(page_request)) -> dict[str, Any]:
    page = tenants.list_tenants(paging)
    return {"success": True, "tenants": page.items, "next": page.next}


@router.get("/global/tenants/{tenant_id}")
def get_tenant(tenant_id: str) -> dict[str, Any]:
    return {"success": True, "tenant": tenants.get_tenant(tenant_id)}


@router.delete("/global/tenants/{tenant_id}")
def delete_tenant(tenant_id: str) -> dict[str, Any]:
    return {"success": True, "deleted": tenants.delete_tenant(tenant_id)}


fallback_router = APIRouter(include_in_schema=False)


@fallback_router.get("/openapi.json")
def openapi() -> dict[str, Any]:
    """The complete OpenAPI document of every function's routes."""
    return openapi_document()


@fallback_router.api_route(
    "/{path:path}", methods=["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
)
def unknown_route(request: Request, path: str) -> None:
    """API Gateway sends every unmatched route (``$default``) here: the standard 404 or 405."""
    allowed = allowed_methods(f"/{path}")
    if allowed:
        raise ApiError(405, "METHOD_NOT_ALLOWED", "method not allowed", headers={"Allow": ", ".join(allowed)})
    raise ApiError(404, "NOT_FOUND", f"route not found: {request.method} /{path}")
