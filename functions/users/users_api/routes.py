"""User management routes and GET /status, scoped to the caller's tenant."""

from typing import Any

from fastapi import APIRouter, Depends

from gateway.accounts import users
from gateway.accounts.roles import Principal, Role
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal, require_roles
from users_api.schemas import CreateUserRequest, UpdateUserRequest

router = APIRouter(tags=["users"])


@router.post("/users", status_code=201)
def create_user(
    body: CreateUserRequest, caller: Principal = Depends(require_roles(Role.ADMIN))
) -> dict[str, Any]:
    webhook_url = str(body.webhook_url) if body.webhook_url else None
    user = users.create_user(caller, str(body.email), body.password, body.role, webhook_url)
    return {"success": True, "user": user}


@router.get("/users")
def list_users(
    caller: Principal = Depends(require_roles(Role.MANAGER)), paging: PageRequest = Depends(page_request)
) -> dict[str, Any]:
    page = users.list_users(caller, paging)
    return {"success": True, "users": page.items, "next": page.next}


@router.get("/users/{user_id}")
def get_user(user_id: str, caller: Principal = Depends(current_principal)) -> dict[str, Any]:
    return {"success": True, "user": users.get_user(caller, user_id)}


@router.put("/users/{user_id}")
def update_user(
    user_id: str, body: UpdateUserRequest, caller: Principal = Depends(require_roles(Role.MANAGER))
) -> dict[str, Any]:
    return {"success": True, "user": users.update_user(caller, user_id, body.active, body.role)}


@router.get("/status")
def status(caller: Principal = Depends(current_principal)) -> dict[str, Any]:
    return {"success": True, **users.status(caller)}
