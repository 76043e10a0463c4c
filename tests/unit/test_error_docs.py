"""The documented error bodies are the ones ``gateway.errors`` builds, and ``answers`` merges a
route's causes into one response per status."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from pydantic import BaseModel

from gateway.errors import (
    ApiError,
    OperationError,
    insufficient_permissions,
    invalid_master_token,
    invalid_token,
    master_token_required,
    super_admin_disabled,
    validation_error,
)
from gateway.web.error_docs import AUTHENTICATED, ERROR_CODES_KEY, WITH_BODY, answers, operation, standard
from gateway.web.error_models import (
    ErrorEnvelope,
    InsufficientPermissionsError,
    InvalidTokenError,
    MasterTokenError,
    OperationErrorEnvelope,
)


@pytest.mark.parametrize(
    ("error", "model"),
    [
        (ApiError(404, "DEVICE_NOT_FOUND", "device not found"), ErrorEnvelope),
        (validation_error("phone", "must be digits", "12ab"), ErrorEnvelope),
        (
            ApiError(
                400, "VALIDATION_ERROR", "unknown", validation=[], extra={"available_events": ["message"]}
            ),
            ErrorEnvelope,
        ),
        (OperationError(503, "device_disconnected", "not connected"), OperationErrorEnvelope),
        (invalid_token(), InvalidTokenError),
        (insufficient_permissions(), InsufficientPermissionsError),
        (master_token_required(), MasterTokenError),
        (invalid_master_token(), MasterTokenError),
        (super_admin_disabled(), MasterTokenError),
    ],
)
def test_every_error_body_is_its_documented_model(error: ApiError, model: type[BaseModel]) -> None:
    # Given the body the gateway sends for the error
    body = error.body()
    # Then the documented model accepts it, and it has no field the model does not document
    model.model_validate(body)
    assert set(body) <= set(model.model_fields)


def _document(responses: dict[int | str, dict[str, Any]]) -> dict[str, Any]:
    router = APIRouter()

    @router.post("/thing", responses=responses)
    def thing() -> None:
        return None

    app = FastAPI()
    app.include_router(router)
    return app.openapi()["paths"]["/thing"]["post"]["responses"]


def test_answers_of_one_status_are_merged_and_every_route_gets_the_common_ones() -> None:
    # Given a route whose causes answer 400 in both envelopes, and 401
    responses = _document(answers(AUTHENTICATED, WITH_BODY, operation(400, "invalid_request")))

    # Then 400 lists every code once, sorted, and its body is either envelope
    assert responses["400"][ERROR_CODES_KEY] == [
        "INVALID_JSON",
        "INVALID_REQUEST_FORMAT",
        "VALIDATION_ERROR",
        "invalid_request",
    ]
    refs = {item["$ref"] for item in responses["400"]["content"]["application/json"]["schema"]["anyOf"]}
    assert refs == {"#/components/schemas/ErrorEnvelope", "#/components/schemas/OperationErrorEnvelope"}
    # And 401 is the short body, without codes
    assert responses["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/InvalidTokenError"
    }
    assert ERROR_CODES_KEY not in responses["401"]
    # And the answers any request may get are there too
    assert responses["413"][ERROR_CODES_KEY] == ["PAYLOAD_TOO_LARGE"]
    assert responses["500"][ERROR_CODES_KEY] == ["INTERNAL_ERROR"]


def test_a_code_given_twice_is_listed_once() -> None:
    merged = answers(standard(404, "DEVICE_NOT_FOUND"), standard(404, "DEVICE_NOT_FOUND", "USER_NOT_FOUND"))
    assert merged[404][ERROR_CODES_KEY] == ["DEVICE_NOT_FOUND", "USER_NOT_FOUND"]
    assert merged[404]["description"] == "Not Found: `DEVICE_NOT_FOUND`, `USER_NOT_FOUND`"
