"""API models built on first use (``gateway.web.deferred``): a function's first request with a
body validates it as declared, and writes no warning to the function's log."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from lambda_calls import CONTEXT, http_api_event


def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A JSON POST of ``body`` to ``path`` as API Gateway's HTTP API hands it to a function."""
    event: dict[str, Any] = http_api_event(path)
    event["routeKey"] = f"POST {path}"
    event["requestContext"]["http"]["method"] = "POST"
    event["headers"]["content-type"] = "application/json"
    event["body"] = json.dumps(body)
    return event


# A route with a deferred body model, served once through a Lambda handler in a fresh
# interpreter that turns every warning into an error, as a cold start meets it.
_FIRST_REQUEST = """
import json, sys, warnings
from types import SimpleNamespace
warnings.simplefilter("error")
from fastapi import APIRouter
from gateway.web import create_app, make_lambda_handler
from gateway.web.deferred import DeferredModel

class Note(DeferredModel):
    text: str

router = APIRouter()

@router.post("/notes")
def add_note(body: Note) -> Note:
    return body

handler = make_lambda_handler(create_app(router))
answers = []
for event in json.loads(sys.argv[1]):
    answer = handler(event, SimpleNamespace(**json.loads(sys.argv[2])))
    answers.append([answer["statusCode"], json.loads(answer["body"])])
print(json.dumps(answers))
"""


def test_a_deferred_body_validates_on_the_first_request_without_a_warning() -> None:
    # Given a fresh interpreter where any warning is an error
    # When a function answers its first two requests, a valid body and an invalid one
    events = [post("/notes", {"text": "hi"}), post("/notes", {"text": 7})]
    completed = subprocess.run(  # noqa: S603 - this interpreter, our own code
        [sys.executable, "-c", _FIRST_REQUEST, json.dumps(events), json.dumps(vars(CONTEXT))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    # Then both are answered as declared (200, then 400 VALIDATION_ERROR), and nothing warned
    assert completed.returncode == 0, completed.stderr
    (ok, refused) = json.loads(completed.stdout.strip().splitlines()[-1])
    assert ok == [200, {"text": "hi"}]
    assert refused[0] == 400
    assert refused[1]["error_code"] == "VALIDATION_ERROR"
