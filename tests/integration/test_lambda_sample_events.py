"""The sample events of ``events/``: each one as API Gateway or SQS would send it to its function."""

from __future__ import annotations

import json
import uuid
from urllib.parse import urlencode

import pytest
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from lambda_invoke import DELIVERY_SAMPLE, EVENT_FUNCTIONS, PLACEHOLDERS, invoke

from gateway.bus import queues
from gateway.webhooks.events_queue import parse_record
from local_stack.delivery_worker import lambda_record
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


# --- every sample, and the SQS sample --------------------------------------------------------


def test_every_sample_is_driven_by_the_handler_tests_and_listed_in_the_readme() -> None:
    # Given the sample events shipped in events/ and their README
    shipped = {path.stem for path in EVENTS_DIR.glob("*.json")}
    readme = (EVENTS_DIR / "README.md").read_text()

    # Then each one has its function here, and a line in the README
    assert shipped == {*EVENT_FUNCTIONS, DELIVERY_SAMPLE}
    assert [name for name in sorted(shipped) if f"`{name}.json`" not in readme] == []


def test_delivery_sample_is_a_record_as_lambda_builds_it_from_the_events_queue(stack: LocalStack) -> None:
    # Given an envelope sent to a queue as the session host publishes it, received as the
    # event source mapping receives it, and made into a record as the local worker does
    sample = json.loads((EVENTS_DIR / f"{DELIVERY_SAMPLE}.json").read_text())
    (record,) = sample["Records"]
    sqs = queues.sqs_client()
    queue_url = sqs.create_queue(QueueName=f"sample-check-{uuid.uuid4().hex[:12]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    attributes = {
        name: {"DataType": "String", "StringValue": value["stringValue"]}
        for name, value in record["messageAttributes"].items()
    }
    sqs.send_message(QueueUrl=queue_url, MessageBody=record["body"], MessageAttributes=attributes)
    (message,) = sqs.receive_message(
        QueueUrl=queue_url, MessageSystemAttributeNames=["All"], MessageAttributeNames=["All"]
    )["Messages"]
    built = lambda_record(message, arn, "us-east-1")
    sqs.delete_queue(QueueUrl=queue_url)

    # Then the sample has the same fields, attributes and message attributes
    assert set(record) == set(built)
    assert set(record["attributes"]) <= set(built["attributes"])
    assert record["messageAttributes"].keys() == built["messageAttributes"].keys() == {"tenant_id", "event"}
    assert all(value["dataType"] == "String" for value in record["messageAttributes"].values())
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"].split(":")[3] == record["awsRegion"]
    # And the delivery function reads it as a first attempt of the envelope it carries
    incoming = parse_record(SQSRecord(record))
    assert (incoming.tenant_id, incoming.device_id) == ("REPLACE_WITH_TENANT_ID", "REPLACE_WITH_DEVICE_ID")
    assert (incoming.event, incoming.attempt, incoming.redelivery) == ("message.received", 1, False)
    assert record["messageAttributes"]["event"]["stringValue"] == incoming.event
