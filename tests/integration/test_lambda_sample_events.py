"""The sample events of ``events/``: each one as API Gateway or SQS would send it to its function."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from lambda_invoke import EVENT_FUNCTIONS, PLACEHOLDERS, invoke

from local_stack.sample_events import EVENTS_DIR, load_event
from local_stack.stack import LocalStack
from local_stack.template import load_template

# Every invocation ends with Powertools' "No application metrics to publish" warning, because
# the handlers are wrapped in `metrics.log_metrics` but publish no metric yet.
pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish:UserWarning")

# --- the API Gateway samples -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EVENT_FUNCTIONS))
def test_sample_event_is_an_http_api_v2_event_of_its_function(name: str) -> None:
    # Given the sample event and the routes the template gives its function
    event = json.loads((EVENTS_DIR / f"{name}.json").read_text())
    function = load_template()["Resources"][EVENT_FUNCTIONS[name]]
    routes = {
        "$default" if props["Path"] == "$default" else f"{props['Method']} {props['Path']}"
        for props in (e["Properties"] for e in function["Properties"]["Events"].values())
        if "Method" in props
    }
    http = event["requestContext"]["http"]

    # Then it is a payload-format-2.0 event for one of those routes, internally consistent
    assert event["version"] == "2.0"
    assert event["routeKey"] in routes
    assert event["requestContext"]["routeKey"] == event["routeKey"]
    assert event["requestContext"]["stage"] == "$default"
    assert event["requestContext"]["requestId"]
    assert http["path"] == event["rawPath"]
    assert http["sourceIp"]
    if event["routeKey"] != "$default":
        method, path = event["routeKey"].split(" ", 1)
        assert http["method"] == method
        for param, value in event.get("pathParameters", {}).items():
            path = path.replace(f"{{{param}}}", value)
        assert path == event["rawPath"]
    assert urlencode(event.get("queryStringParameters", {})) == event["rawQueryString"]
    assert event["isBase64Encoded"] is False
    assert event["headers"]["content-type"] == "application/json"
    assert event["headers"]["authorization"].split()[1] in PLACEHOLDERS
    if "body" in event:
        assert isinstance(event["body"], str)
        assert event["headers"]["content-length"] == str(len(event["body"].encode()))
        json.loads(event["body"])


def test_sample_event_with_placeholders_left_in_is_refused(stack: LocalStack) -> None:
    # Given the register and status events used as they are, placeholders not replaced
    register = load_event("register")
    status = load_event("status")

    # When they are invoked
    register_response = invoke("register", register)
    status_response = invoke("status", status)

    # Then neither the master route nor the user route lets the placeholder through
    assert register_response.status == 401
    assert register_response.body == {"success": False, "error": "invalid master token"}
    assert status_response.status == 401
    assert status_response.body == {"error": "Invalid token"}
