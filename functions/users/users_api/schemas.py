"""Request bodies of the user routes."""

from pydantic import BaseModel, EmailStr, Field, HttpUrl, model_validator

from gateway.accounts.roles import Role


class CreateUserRequest(BaseModel):
    email: EmailStr
    password: str = Field(min_length=6, max_length=1024)
    role: Role
    webhook_url: HttpUrl | None = None


class UpdateUserRequest(BaseModel):
    active: bool | None = None
    role: Role | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> "UpdateUserRequest":
        if self.active is None and self.role is None:
            raise ValueError("give `active` and/or `role`")
        return self
