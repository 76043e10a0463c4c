"""The recorder turns each AWS call into the IAM requests AWS authorises it by, names their
resources after the variables that named them, and attributes them to the principal whose code
made the call, across the threads that code hands work to."""

from __future__ import annotations

import asyncio
import io
from typing import Any

import botocore.session
import pytest
from botocore.stub import Stubber

from deploy_rehearsal.recording import Names, Recorder, Resource, iam_requests
from gateway.context_pool import ContextThreadPool
from local_stack.principals import running_as
from session_host.aws_calls import AwsCalls
from session_host.received_media import _transfers

VARIABLES = {
    "TOKENS_TABLE": "test-TokensTable",
    "USERS_TABLE": "test-UsersTable",
    "COMMAND_QUEUE_URL": "http://127.0.0.1:5000/123456789012/test-CommandQueue",
    "DYNAMIC_QUEUE_PREFIX": "test-dq",
    "MEDIA_BUCKET": "test-mediabucket",
}
NAMES = Names(VARIABLES)


def _requests(service: str, operation: str, **params: Any) -> list[tuple[str, Resource]]:
    return iam_requests(service, operation, params, NAMES)


def test_a_transaction_needs_the_action_of_each_of_its_items() -> None:
    # Given a transaction that puts a user and updates a token
    items = [
        {"Put": {"TableName": "test-UsersTable", "Item": {}}},
        {"Update": {"TableName": "test-TokensTable", "Key": {}}},
        {"ConditionCheck": {"TableName": "test-TokensTable", "Key": {}}},
    ]
    # When its IAM requests are derived
    requests = _requests("dynamodb", "TransactWriteItems", TransactItems=items)
    # Then each item asks for its own call's action on its own table
    assert requests == [
        ("dynamodb:PutItem", Resource("table", "USERS_TABLE", "test-UsersTable")),
        ("dynamodb:UpdateItem", Resource("table", "TOKENS_TABLE", "test-TokensTable")),
        ("dynamodb:ConditionCheckItem", Resource("table", "TOKENS_TABLE", "test-TokensTable")),
    ]


def test_a_query_of_an_index_is_a_request_on_the_index() -> None:
    requests = _requests("dynamodb", "Query", TableName="test-TokensTable", IndexName="by_user")
    assert requests == [
        ("dynamodb:Query", Resource("table", "TOKENS_TABLE", "test-TokensTable", "/index/by_user"))
    ]


@pytest.mark.parametrize(
    ("operation", "action"),
    [
        ("SendMessageBatch", "sqs:SendMessage"),
        ("DeleteMessageBatch", "sqs:DeleteMessage"),
        ("ChangeMessageVisibilityBatch", "sqs:ChangeMessageVisibility"),
    ],
)
def test_an_sqs_batch_call_is_authorised_by_its_single_action(operation: str, action: str) -> None:
    queue_url = VARIABLES["COMMAND_QUEUE_URL"]
    assert _requests("sqs", operation, QueueUrl=queue_url, Entries=[]) == [
        (action, Resource("queue", "COMMAND_QUEUE_URL", "test-CommandQueue"))
    ]


def test_a_dynamic_queue_is_named_by_the_prefix_its_kind_and_no_owner() -> None:
    # Given a reply queue created with tags (the heartbeat)
    requests = _requests("sqs", "CreateQueue", QueueName="test-dq-r-0123456789abcdef", tags={"hb": "1"})
    # Then it needs CreateQueue and TagQueue on <prefix>-r-x, whoever owns it
    queue = Resource("queue", "DYNAMIC_QUEUE_PREFIX", "test-dq", "-r-x")
    assert requests == [("sqs:CreateQueue", queue), ("sqs:TagQueue", queue)]


def test_s3_operations_are_authorised_by_their_actions_on_keys_of_a_shape() -> None:
    bucket = "test-mediabucket"
    assert _requests("s3", "HeadObject", Bucket=bucket, Key="events/t1/d2/e3") == [
        ("s3:GetObject", Resource("object", "MEDIA_BUCKET", bucket, "/events/x/x/x"))
    ]
    assert _requests("s3", "ListObjectsV2", Bucket=bucket, Prefix="t1/") == [
        ("s3:ListBucket", Resource("bucket", "MEDIA_BUCKET", bucket))
    ]
    deleted = _requests(
        "s3", "DeleteObjects", Bucket=bucket, Delete={"Objects": [{"Key": "a1"}, {"Key": "b2"}]}
    )
    assert {action for action, _ in deleted} == {"s3:DeleteObject"}


def test_an_operation_on_no_resource_of_its_own_is_asked_on_any() -> None:
    assert _requests("dynamodb", "ListTables") == [("dynamodb:ListTables", Resource("*", None, "*"))]


def test_a_resource_no_variable_names_has_none() -> None:
    assert _requests("dynamodb", "GetItem", TableName="someone-elses") == [
        ("dynamodb:GetItem", Resource("table", None, "someone-elses"))
    ]


@pytest.fixture
def stubbed() -> tuple[Recorder, Any, Stubber]:
    """A recorder on a session of its own and a DynamoDB client from it, answered by a stub."""
    session = botocore.session.get_session()
    recorder = Recorder(session, VARIABLES)
    client = session.create_client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    stubber = Stubber(client)
    for _ in range(3):
        stubber.add_response("get_item", {}, {"TableName": "test-TokensTable", "Key": {"k": {"S": "v"}}})
    return recorder, client, stubber


def test_calls_are_recorded_as_the_principal_that_made_them(stubbed: tuple[Recorder, Any, Stubber]) -> None:
    recorder, client, stubber = stubbed
    key = {"k": {"S": "v"}}
    with stubber:
        # When a function's code calls, and then code of no principal
        with running_as("UsersFunction"):
            client.get_item(TableName="test-TokensTable", Key=key)
        client.get_item(TableName="test-TokensTable", Key=key)
    # Then the first is the function's; the second is only counted
    assert [(r.principal, r.action, r.resource.variable) for r in recorder.requests] == [
        ("UsersFunction", "dynamodb:GetItem", "TOKENS_TABLE")
    ]
    assert recorder.unattributed == {"dynamodb.GetItem from the tests": 1}


def test_work_handed_to_the_gateways_and_the_hosts_pools_stays_the_principals(
    stubbed: tuple[Recorder, Any, Stubber],
) -> None:
    recorder, client, stubber = stubbed
    key = {"k": {"S": "v"}}

    async def host_call() -> None:
        calls = AwsCalls(1, "test-aws")
        await calls(client.get_item, TableName="test-TokensTable", Key=key)
        calls.shutdown()

    with stubber:
        # Given a request's parallel work on a gateway pool, and a host's call on its AWS threads
        with running_as("DevicesFunction"), ContextThreadPool(max_workers=1) as pool:
            pool.submit(client.get_item, TableName="test-TokensTable", Key=key).result()
        with running_as("SessionHostTask"):
            asyncio.run(host_call())
    # Then each is recorded as the principal that handed it over, none as no one's
    assert {r.principal for r in recorder.requests} == {"DevicesFunction", "SessionHostTask"}
    assert not recorder.unattributed


def test_a_received_medias_upload_on_the_transfer_threads_stays_the_hosts() -> None:
    # Given the host's S3 transfer manager over a client whose calls are recorded
    session = botocore.session.get_session()
    recorder = Recorder(session, VARIABLES)
    client = session.create_client(
        "s3", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    with Stubber(client) as stubber:
        stubber.add_response("put_object", {})
        # When the host stores received bytes (the part is put on the manager's own threads)
        with running_as("SessionHostTask"):
            _transfers(client).upload(io.BytesIO(b"bytes"), "test-mediabucket", "t1/d1/m1").result()
    # Then the put is the host's
    assert [(r.principal, r.action) for r in recorder.requests] == [("SessionHostTask", "s3:PutObject")]
    assert not recorder.unattributed


def test_a_test_worker_that_hands_no_recording_over_fails_the_run() -> None:
    # Given a run whose worker gw1 finished without its recording (its session's end failed)
    from types import SimpleNamespace

    from deploy_rehearsal.plugin import OUTPUT_KEY, RehearsalPlugin

    plugin = RehearsalPlugin(SimpleNamespace())  # type: ignore[arg-type]
    handed_over = {OUTPUT_KEY: {"requests": []}}
    for worker, output in (("gw0", handed_over), ("gw1", {})):
        node = SimpleNamespace(workeroutput=output, workerinput={"workerid": worker})
        plugin.pytest_testnodedown(node, None)
    options = SimpleNamespace(collectonly=False)
    session = SimpleNamespace(config=SimpleNamespace(option=options), testsfailed=0)

    # When the controller's test loop ends
    loop = plugin.pytest_runtestloop(session)  # type: ignore[arg-type]
    next(loop)
    with pytest.raises(StopIteration):
        loop.send(True)

    # Then the run fails, naming the worker, instead of judging the others' calls alone
    assert session.testsfailed == 1
    printed: list[str] = []
    reporter = SimpleNamespace(section=printed.append, write_line=printed.append)
    plugin.pytest_terminal_summary(reporter)
    assert "FAILED: no recording from test worker(s) gw1" in printed
