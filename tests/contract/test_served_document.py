"""The OpenAPI document the gateway serves is true of the running gateway.

Schemathesis reads /openapi.json from the local stack, generates requests that are valid by it
for every operation (but the simulator's and those that start a session: connect, QR code,
pair code) and checks each answer: no server error, a documented status, content type and
body, and an ``error_code`` among those the operation lists. A request valid by the document
must be accepted, or refused only for a state the document names (a missing record, a
conflict, a device that is not connected). Generation is derandomised: the same cases run
every time.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from schemathesis import Case, CheckContext, Response
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from gateway.web.error_docs import ERROR_CODES_KEY

DEVICE_UNAVAILABLE = frozenset({"DEVICE_NOT_READY", "DEVICE_DISCONNECTED", "device_disconnected"})
SESSION_STARTERS = r"^/devices/\{device_id\}/(connect|qr|pair-phone)$"


@schemathesis.check
def not_a_server_error_but_an_unavailable_device(
    ctx: CheckContext, response: Response, case: Case
) -> bool | None:
    """A 503 saying the device is not connected is an answer about the device, not a failure."""
    if response.status_code == 503 and _error_code(response) in DEVICE_UNAVAILABLE:
        return None
    return not_a_server_error(ctx, response, case)


@schemathesis.check
def error_code_is_documented(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """An error's code is one the operation lists for that status (``x-error-codes``)."""
    documented = case.operation.definition.raw["responses"].get(str(response.status_code), {})
    codes = documented.get(ERROR_CODES_KEY)
    if response.status_code < 400 or codes is None:  # short bodies: their schema pins the text
        return None
    code = _error_code(response)
    assert code in codes, f"{response.status_code} {code} is not documented (documented: {codes})"
    return None


CHECKS = [
    not_a_server_error_but_an_unavailable_device,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    error_code_is_documented,
]


def _error_code(response: Response) -> str | None:
    body = response.json()
    if isinstance(body.get("error"), dict):
        return body["error"].get("code")
    return body.get("error_code")


schema = (
    schemathesis.pytest.from_fixture("served_document")
    .exclude(path_regex=r"^/_simulator/")
    .exclude(path_regex=SESSION_STARTERS)
)


@schema.parametrize()
def test_gateway_answers_as_its_document_says(case: Case, world: Any) -> None:
    # Given a request valid by the document, for the test tenant's own records half of the time
    token = world.master_token if _security(case) == "MasterToken" else world.admin_token
    world.aim(case)
    # When it is sent, Then the answer is one the document describes
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)


def _security(case: Case) -> str | None:
    requirements = case.operation.definition.raw.get("security") or [{}]
    return next(iter(requirements[0]), None)
