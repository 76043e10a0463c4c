"""Which errors a route answers, declared once per cause and combined per route.

A route lists the causes it has, and each cause brings its answers::

    @router.put("/users/{user_id}", responses=answers(ROLE_GATED, WITH_BODY, USER_NOT_FOUND))

Answers of one status are merged: their `error_code` values are listed in the description and
in the response's ``x-error-codes``, and different body shapes become a union. Every route
also gets the answers any request may get (``EVERY_ROUTE``). The contract test checks each
error answered against what its route documents, so a new ``raise`` without its line here
fails there.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeAlias

from pydantic import BaseModel

from gateway.failures.codes import ErrorCode
from gateway.web.error_models import (
    ErrorEnvelope,
    InsufficientPermissionsError,
    InvalidTokenError,
    MasterTokenError,
    OperationErrorEnvelope,
)

ERROR_CODES_KEY = "x-error-codes"


@dataclass(frozen=True)
class Answer:
    """One error answer: its status, its body shape and, for envelopes, its codes."""

    status: int
    body: type[BaseModel]
    codes: tuple[str, ...] = ()


def standard(status: int, *codes: str) -> Answer:
    """An answer in the standard envelope with these ``error_code`` values."""
    return Answer(status, ErrorEnvelope, codes)


def operation(status: int, *codes: str) -> Answer:
    """An answer in the lowercase envelope of group and status-privacy operations."""
    return Answer(status, OperationErrorEnvelope, codes)


# Causes nest: a cause may be a tuple of other causes (ROLE_GATED holds AUTHENTICATED).
Answers: TypeAlias = "Answer | Iterable[Answers]"

# gateway.web.middleware (body over the limit, last-resort 500): any request.
EVERY_ROUTE = (standard(413, ErrorCode.PAYLOAD_TOO_LARGE), standard(500, ErrorCode.INTERNAL_ERROR))
# gateway.web.auth
AUTHENTICATED = (Answer(401, InvalidTokenError),)
ROLE_GATED = (*AUTHENTICATED, Answer(403, InsufficientPermissionsError))
MASTER = (Answer(401, MasterTokenError), Answer(403, MasterTokenError))
# gateway.web.validation and gateway.web.app: a body that cannot be read, bound or validated.
WITH_BODY = (
    standard(400, ErrorCode.INVALID_JSON, ErrorCode.INVALID_REQUEST_FORMAT, ErrorCode.VALIDATION_ERROR),
)
WITH_PARAMETERS = (standard(400, ErrorCode.VALIDATION_ERROR),)


def answers(*parts: Answers) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route answering ``parts``, plus ``EVERY_ROUTE``."""
    by_status: dict[int, list[Answer]] = {}
    for answer in _flatten((*parts, EVERY_ROUTE)):
        by_status.setdefault(answer.status, []).append(answer)
    return {status: _response(status, group) for status, group in sorted(by_status.items())}


def _flatten(parts: Iterable[Answers]) -> Iterable[Answer]:
    for part in parts:
        if isinstance(part, Answer):
            yield part
        else:
            yield from _flatten(part)


def _response(status: int, group: list[Answer]) -> dict[str, Any]:
    bodies = list(dict.fromkeys(answer.body for answer in group))
    codes = sorted({code for answer in group for code in answer.codes})
    if codes:
        detail = ", ".join(f"`{code}`" for code in codes)
    else:
        detail = " ".join(" ".join((body.__doc__ or "").split()) for body in bodies)
    response: dict[str, Any] = {
        "model": functools.reduce(operator.or_, bodies),
        "description": f"{HTTPStatus(status).phrase}: {detail}",
    }
    if codes:
        response[ERROR_CODES_KEY] = codes
    return response
