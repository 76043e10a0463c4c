"""Request bodies of the platform routes."""

from typing import Literal

from pydantic import BaseModel, EmailStr, Field, HttpUrl


class RegisterRequest(BaseModel):
    tenant_name: str = Field(min_length=1, max_length=100, pattern=r"\S")
    email: EmailStr
    password: str = Field(min_length=6, max_length=1024)
    role: Literal["admin"] = "admin"
    webhook_url: HttpUrl | None = None
