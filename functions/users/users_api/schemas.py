"""Request bodies of the user routes."""

from pydantic import ConfigDict, Field, model_validator

from gateway.accounts.roles import Role
from gateway.web.deferred import DeferredModel
from gateway.web.fields import Email, omittable
from gateway.webhooks.schemas import OptionalWebhookUrl


class CreateUserRequest(DeferredModel):
    email: Email = Field(description="Unique within the tenant")
    password: str = Field(min_length=6, max_length=1024)
    role: Role
    webhook_url: OptionalWebhookUrl = None


class UpdateUserRequest(DeferredModel):
    """At least one of `active` and `role`. A null counts as left out and other fields are
    ignored, so the schema, which asks for at least one field, allows neither."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "additionalProperties": False})

    active: bool | None = omittable()
    role: Role | None = omittable()

    @model_validator(mode="after")
    def _something_to_change(self) -> "UpdateUserRequest":
        if self.active is None and self.role is None:
            raise ValueError("give `active` and/or `role`")
        return self
