"""Platform routes, master token only: registration and cross-tenant administration."""

from fastapi import APIRouter, Depends, Request, Response

from gateway.accounts import tenants
from gateway.accounts.outputs import (
    RegisterResponse,
    TenantDeletedResponse,
    TenantListResponse,
    TenantResponse,
)
from gateway.bus import CommandName
from gateway.errors import ApiError
from gateway.failures.codes import ErrorCode
from gateway.failures.table import command_errors
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import require_master
from gateway.web.error_docs import MASTER, WITH_BODY, WITH_PARAMETERS, answers, standard
from gateway.web.openapi_document import openapi_bytes
from gateway.web.route_table import allowed_methods
from platform_api.schemas import RegisterRequest, UpdateTenantRequest

router = APIRouter(dependencies=[Depends(require_master)], tags=["platform"])

TENANT_NOT_FOUND = standard(404, ErrorCode.TENANT_NOT_FOUND)


@router.post(
    "/register", status_code=201, responses=answers(MASTER, WITH_BODY, standard(409, ErrorCode.TENANT_EXISTS))
)
def register(body: RegisterRequest) -> RegisterResponse:
    webhook_url = str(body.webhook_url) if body.webhook_url else None
    created = tenants.register(
        body.tenant_name, str(body.email), body.password, webhook_url, body.max_devices
    )
    return RegisterResponse(**created)


@router.get("/tenants", responses=answers(MASTER, WITH_PARAMETERS))
def list_tenants(paging: PageRequest = Depends(page_request)) -> TenantListResponse:
    page = tenants.list_tenants(paging)
    return TenantListResponse(tenants=page.items, next=page.next)


@router.get("/global/tenants/{tenant_id}", responses=answers(MASTER, TENANT_NOT_FOUND))
def get_tenant(tenant_id: str) -> TenantResponse:
    return TenantResponse(tenant=tenants.get_tenant(tenant_id))


@router.patch("/global/tenants/{tenant_id}", responses=answers(MASTER, WITH_BODY, TENANT_NOT_FOUND))
def update_tenant(tenant_id: str, body: UpdateTenantRequest) -> TenantResponse:
    """Set the tenant's limits: ``max_devices`` (null: none). Devices it has are kept."""
    return TenantResponse(tenant=tenants.set_limits(tenant_id, body.max_devices))


@router.delete(
    "/global/tenants/{tenant_id}",
    responses=answers(MASTER, TENANT_NOT_FOUND, command_errors(CommandName.DELETE)),
)
def delete_tenant(tenant_id: str) -> TenantDeletedResponse:
    """Stops the tenant's sessions first: a session host that fails answers as a device command does."""
    return TenantDeletedResponse(deleted=tenants.delete_tenant(tenant_id))


fallback_router = APIRouter(include_in_schema=False)


@fallback_router.get("/openapi.json")
def openapi() -> Response:
    """The complete OpenAPI document of every function's routes, as packaged."""
    return Response(openapi_bytes(), media_type="application/json")


@fallback_router.api_route(
    "/{path:path}", methods=["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]
)
def unknown_route(request: Request, path: str) -> None:
    """API Gateway sends every unmatched route (``$default``) here: the standard 404 or 405."""
    allowed = allowed_methods(f"/{path}")
    if allowed:
        raise ApiError(
            405, ErrorCode.METHOD_NOT_ALLOWED, "method not allowed", headers={"Allow": ", ".join(allowed)}
        )
    raise ApiError(404, ErrorCode.NOT_FOUND, f"route not found: {request.method} /{path}")
