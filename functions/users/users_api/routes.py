"""User management routes and GET /status, scoped to the caller's tenant."""

from fastapi import APIRouter, Depends

from gateway.accounts import users
from gateway.accounts.outputs import NewUserResponse, StatusResponse, UserListResponse, UserResponse
from gateway.accounts.roles import Principal, Role
from gateway.failures.codes import ErrorCode
from gateway.pagination import PageRequest, page_request
from gateway.web.auth import current_principal, require_roles
from gateway.web.error_docs import AUTHENTICATED, ROLE_GATED, WITH_BODY, WITH_PARAMETERS, answers, standard
from users_api.schemas import CreateUserRequest, UpdateUserRequest

router = APIRouter(tags=["users"])

USER_NOT_FOUND = standard(404, ErrorCode.USER_NOT_FOUND)


@router.post(
    "/users", status_code=201, responses=answers(ROLE_GATED, WITH_BODY, standard(409, ErrorCode.USER_EXISTS))
)
def create_user(
    body: CreateUserRequest, caller: Principal = Depends(require_roles(Role.ADMIN))
) -> NewUserResponse:
    webhook_url = str(body.webhook_url) if body.webhook_url else None
    user = users.create_user(caller, str(body.email), body.password, body.role, webhook_url)
    return NewUserResponse(user=user)


@router.get("/users", responses=answers(ROLE_GATED, WITH_PARAMETERS))
def list_users(
    caller: Principal = Depends(require_roles(Role.MANAGER)), paging: PageRequest = Depends(page_request)
) -> UserListResponse:
    page = users.list_users(caller, paging)
    return UserListResponse(users=page.items, next=page.next)


@router.get("/users/{user_id}", responses=answers(ROLE_GATED, USER_NOT_FOUND))
def get_user(user_id: str, caller: Principal = Depends(current_principal)) -> UserResponse:
    """Admins and managers read any user of the tenant; a user only itself (403 otherwise)."""
    return UserResponse(user=users.get_user(caller, user_id))


@router.put(
    "/users/{user_id}",
    responses=answers(ROLE_GATED, WITH_BODY, USER_NOT_FOUND, standard(409, ErrorCode.CONFLICT)),
)
def update_user(
    user_id: str, body: UpdateUserRequest, caller: Principal = Depends(require_roles(Role.MANAGER))
) -> UserResponse:
    """409 ``CONFLICT`` when an admin would deactivate or demote itself; 403 for a manager
    touching an admin or making one."""
    return UserResponse(user=users.update_user(caller, user_id, body.active, body.role))


@router.get("/status", responses=answers(AUTHENTICATED, USER_NOT_FOUND))
def status(caller: Principal = Depends(current_principal)) -> StatusResponse:
    """``USER_NOT_FOUND`` only when the caller is deleted while the request runs."""
    return StatusResponse(**users.status(caller))
