"""The SAM template: lint, offline transform, and agreement with the code it deploys.

Nothing here calls AWS: cfn-lint and the SAM translator run in-process, and the managed
policy lookup of the translator is answered by a stub.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import boto3
import pytest
from cfnlint.api import lint_file
from cfnlint.decode import decode_str
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from samtranslator.parser.parser import Parser
from samtranslator.sdk.parameter import SamParameterValues
from samtranslator.translator.arn_generator import ArnGenerator
from samtranslator.translator.translator import Translator

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PATH = REPO_ROOT / "template.yaml"
REGION = "us-east-1"

# API function logical id -> the package whose `handler` module holds its FastAPI `app`.
API_FUNCTIONS = {
    "PlatformFunction": "platform_api",
    "UsersFunction": "users_api",
    "DevicesFunction": "devices_api",
    "GroupsFunction": "groups_api",
    "WebhooksFunction": "webhooks_api",
    "MessagesFunction": "messages_api",
}

# Routes that must exist and where they go. More routes may be added; these may not move.
PINNED_ROUTES = {
    "POST /register": "PlatformFunction",
    "GET /tenants": "PlatformFunction",
    "GET /global/tenants/{tenant_id}": "PlatformFunction",
    "DELETE /global/tenants/{tenant_id}": "PlatformFunction",
    "$default": "PlatformFunction",
    "POST /users": "UsersFunction",
    "GET /users": "UsersFunction",
    "GET /users/{user_id}": "UsersFunction",
    "PUT /users/{user_id}": "UsersFunction",
    "GET /status": "UsersFunction",
}

# Table -> (hash key, range key or None). The code's PynamoDB models rely on these.
TABLE_KEYS = {
    "TenantsTable": ("tenant_id", None),
    "UsersTable": ("tenant_id", "user_id"),
    "TokensTable": ("token_hash", None),
    "UniqueKeysTable": ("unique_key", None),
    "DevicesTable": ("tenant_id", "device_id"),
    "WebhooksTable": ("tenant_id", "device_id"),
    "DeliveriesTable": ("device_id", "delivery_key"),
    "LeasesTable": ("device_id", None),
    "SendsTable": ("device_key", "send_key"),
    "IdempotencyTable": ("id", None),
}

TABLE_TTL = {
    "DeliveriesTable": "expires_at",
    "LeasesTable": "expires_at",
    "SendsTable": "expires_at",
    "IdempotencyTable": "expiration",  # the Powertools idempotency default
}

QUEUE_DLQ = {"CommandQueue": ("CommandDLQ", 5), "EventsQueue": ("EventsDLQ", 15)}

# The contract with the local stack, which builds its tables and queues from these.
RESOURCE_VARIABLES = {
    "TENANTS_TABLE": "TenantsTable",
    "USERS_TABLE": "UsersTable",
    "TOKENS_TABLE": "TokensTable",
    "UNIQUE_KEYS_TABLE": "UniqueKeysTable",
    "DEVICES_TABLE": "DevicesTable",
    "WEBHOOKS_TABLE": "WebhooksTable",
    "DELIVERIES_TABLE": "DeliveriesTable",
    "LEASES_TABLE": "LeasesTable",
    "SENDS_TABLE": "SendsTable",
    "IDEMPOTENCY_TABLE": "IdempotencyTable",
    "COMMAND_QUEUE_URL": "CommandQueue",
    "EVENTS_QUEUE_URL": "EventsQueue",
    "MEDIA_BUCKET": "MediaBucket",
}

# A resource variable's suffix -> the resource type it must reference.
RESOURCE_SUFFIX_TYPES = {
    "_TABLE": "AWS::DynamoDB::Table",
    "_QUEUE_URL": "AWS::SQS::Queue",
    "_BUCKET": "AWS::S3::Bucket",
}


FAKE_MANAGED_POLICIES = {
    name: f"arn:aws:iam::aws:policy/{name}"
    for name in (
        "AmazonECSTaskExecutionRolePolicy",
        "AWSLambdaBasicExecutionRole",
        "AWSXrayWriteOnlyAccess",
        "AWSLambdaSQSQueueExecutionRole",
    )
}

_INTEGRATION_FUNCTION = re.compile(r"\$\{(\w+)\.Arn\}")
# A FastAPI route matching every path, e.g. "/{path:path}": the app's side of `$default`.
_CATCH_ALL_PATH = re.compile(r"/\{\w+:path\}")
_GREEDY = re.compile(r"\{(\w+)\+\}")


class StubManagedPolicyLoader:
    """Answers the translator's managed-policy lookup without calling IAM."""

    def __init__(self) -> None:
        self.calls = 0

    def load(self) -> dict[str, str]:
        self.calls += 1
        return dict(FAKE_MANAGED_POLICIES)


def _parse_template() -> dict[str, Any]:
    """The template as plain dicts, short tags expanded (``!Ref X`` -> ``{"Ref": "X"}``)."""
    template, errors = decode_str(TEMPLATE_PATH.read_text(encoding="utf-8"))
    assert not errors, f"template.yaml does not parse: {errors}"
    assert template is not None
    return json.loads(json.dumps(template))


def _as_packaged(template: dict[str, Any]) -> dict[str, Any]:
    """What `sam package` hands to the transform: local code paths replaced by S3 URIs."""
    packaged = json.loads(json.dumps(template))
    for resource in packaged["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://artifacts-bucket/{properties[key]}"
    return packaged


def _resources_of_type(template: dict[str, Any], resource_type: str) -> dict[str, Any]:
    return {name: res for name, res in template["Resources"].items() if res["Type"] == resource_type}


def _template_routes(template: dict[str, Any], function: str) -> set[str]:
    """Route keys ("GET /users", "$default") of a function's HttpApi events in the template."""
    events = template["Resources"][function]["Properties"].get("Events", {})
    routes = set()
    for event in events.values():
        if event["Type"] != "HttpApi":
            continue
        path = event["Properties"]["Path"]
        routes.add("$default" if path == "$default" else f"{event['Properties']['Method'].upper()} {path}")
    return routes


def _container_environment(template: dict[str, Any]) -> dict[str, Any]:
    task = template["Resources"]["SessionHostTaskDefinition"]["Properties"]
    (container,) = [c for c in task["ContainerDefinitions"] if c["Name"] == "session-host"]
    return {item["Name"]: item["Value"] for item in container["Environment"]}


def _is_resource_variable(name: str) -> bool:
    return name.endswith(tuple(RESOURCE_SUFFIX_TYPES))


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return _parse_template()


@pytest.fixture(scope="module")
def managed_policy_loader() -> StubManagedPolicyLoader:
    return StubManagedPolicyLoader()


@pytest.fixture(scope="module")
def transformed(template: dict[str, Any], managed_policy_loader: StubManagedPolicyLoader) -> dict[str, Any]:
    """The CloudFormation the SAM transform produces, computed offline."""
    parameters = SamParameterValues(
        {
            "AWS::Region": REGION,
            "AWS::Partition": "aws",
            "AWS::AccountId": "123456789012",
            "AWS::StackName": "messaging-gateway",
            "SessionHostImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/session-host:test",
            "VpcId": "vpc-0123456789abcdef0",
            "SubnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
        }
    )
    sam_template = _as_packaged(template)
    parameters.add_default_parameter_values(sam_template)
    # The translator insists on a boto session for the region; one built with an explicit
    # region makes no call. It also records that region in a class attribute: put it back.
    previous_region = ArnGenerator.BOTO_SESSION_REGION_NAME
    try:
        translator = Translator(None, Parser(), boto_session=boto3.session.Session(region_name=REGION))
        return translator.translate(
            sam_template,
            parameter_values=parameters.parameter_values,
            get_managed_policy_map=managed_policy_loader.load,
        )
    finally:
        ArnGenerator.BOTO_SESSION_REGION_NAME = previous_region


@pytest.fixture(scope="module")
def transformed_routes(transformed: dict[str, Any]) -> dict[str, str]:
    """Route key -> function logical id, read from the HTTP API's OpenAPI body."""
    api = transformed["Resources"]["HttpApi"]
    assert api["Type"] == "AWS::ApiGatewayV2::Api"
    routes: dict[str, str] = {}
    for path, operations in api["Properties"]["Body"]["paths"].items():
        for method, operation in operations.items():
            uri = operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
            match = _INTEGRATION_FUNCTION.search(uri)
            assert match, f"{method} {path}: integration is not a function ARN: {uri}"
            if path == "/$default":
                key = "$default"
            elif method == "x-amazon-apigateway-any-method":
                key = f"ANY {path}"
            else:
                key = f"{method.upper()} {path}"
            routes[key] = match.group(1)
    return routes


# ---------------------------------------------------------------------------
# 1. Lint (what `sam validate --lint` runs)
# ---------------------------------------------------------------------------


def test_cfn_lint_reports_no_errors() -> None:
    # Given the template on disk
    # When cfn-lint checks it with its default rules
    matches = lint_file(TEMPLATE_PATH)

    # Then nothing is an error (warnings are tolerated but shown on failure)
    errors = [match for match in matches if match.rule.severity == "error"]
    report = "\n".join(repr(match) for match in matches)
    assert not errors, f"cfn-lint errors:\n{report}"


# ---------------------------------------------------------------------------
# 2. The offline SAM transform
# ---------------------------------------------------------------------------


def test_transform_makes_no_aws_managed_policy_lookup_fail(
    transformed: dict[str, Any], managed_policy_loader: StubManagedPolicyLoader
) -> None:
    # Given the transformed template (built with a stub managed-policy loader)
    # When the session host's execution role is inspected
    role = transformed["Resources"]["SessionHostExecutionRole"]["Properties"]

    # Then it carries the ECS task execution managed policy, and the transform succeeded
    # without reaching IAM (the loader, if consulted at all, was the stub)
    assert any("AmazonECSTaskExecutionRolePolicy" in json.dumps(arn) for arn in role["ManagedPolicyArns"])
    assert managed_policy_loader.calls <= 1


def test_delivery_function_consumes_events_queue_with_partial_batch_failures(
    transformed: dict[str, Any],
) -> None:
    # Given the transformed template
    # When the event source mappings are collected
    mappings = _resources_of_type(transformed, "AWS::Lambda::EventSourceMapping")

    # Then exactly one feeds the delivery function from the events queue, reporting item failures
    from_events_queue = [
        m["Properties"]
        for m in mappings.values()
        if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": ["EventsQueue", "Arn"]}
    ]
    assert len(from_events_queue) == 1
    mapping = from_events_queue[0]
    assert mapping["FunctionName"] == {"Ref": "WebhookDeliveryFunction"}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    # Batches larger than one receive: SQS requires a batching window for them
    assert mapping["BatchSize"] == 50
    assert mapping["MaximumBatchingWindowInSeconds"] >= 1


def test_delivery_function_may_change_visibility_on_events_queue(transformed: dict[str, Any]) -> None:
    # Given the delivery function's role (its backoff uses the visibility timeout)
    role = transformed["Resources"]["WebhookDeliveryFunctionRole"]["Properties"]

    # When its inline statements are collected
    statements = [s for policy in role["Policies"] for s in policy["PolicyDocument"]["Statement"]]

    # Then one allows sqs:ChangeMessageVisibilityBatch (a batch's retries) on the events queue
    assert any(
        "sqs:ChangeMessageVisibilityBatch" in s["Action"] and "EventsQueue" in json.dumps(s["Resource"])
        for s in statements
    )


def test_every_queue_has_a_redrive_policy_to_its_dlq(transformed: dict[str, Any]) -> None:
    # Given every SQS queue of the transformed template
    queues = _resources_of_type(transformed, "AWS::SQS::Queue")
    dlqs = {dlq for dlq, _ in QUEUE_DLQ.values()}

    # When the queues that are not dead-letter queues are checked
    work_queues = {name: q for name, q in queues.items() if name not in dlqs}

    # Then each redrives to its own DLQ after the expected number of receives
    assert set(work_queues) == set(QUEUE_DLQ)
    for name, queue in work_queues.items():
        dlq, max_receive_count = QUEUE_DLQ[name]
        redrive = queue["Properties"]["RedrivePolicy"]
        assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": [dlq, "Arn"]}, name
        assert redrive["maxReceiveCount"] == max_receive_count, name
    # And every queue is encrypted, every DLQ keeps messages for 14 days
    for name, queue in queues.items():
        assert queue["Properties"]["SqsManagedSseEnabled"] is True, name
    for dlq in dlqs:
        assert queues[dlq]["Properties"]["MessageRetentionPeriod"] == 1209600


def test_events_queue_visibility_timeout_covers_six_delivery_timeouts(transformed: dict[str, Any]) -> None:
    # Given the delivery function and the queue that feeds it
    function = transformed["Resources"]["WebhookDeliveryFunction"]["Properties"]
    queue = transformed["Resources"]["EventsQueue"]["Properties"]

    # When their timeouts are compared
    # Then the queue hides a message for at least 6 function timeouts (AWS guidance)
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]


def test_routes_map_to_their_functions(template: dict[str, Any], transformed_routes: dict[str, str]) -> None:
    # Given the HTTP API routes after the transform
    # When the pinned routes are looked up
    # Then each goes to the function that serves it
    for route, function in PINNED_ROUTES.items():
        assert transformed_routes.get(route) == function, route
    # And the API has exactly the routes the functions' HttpApi events declare
    declared = {route: fn for fn in API_FUNCTIONS for route in _template_routes(template, fn)}
    assert transformed_routes == declared


def test_api_uses_payload_format_2(transformed: dict[str, Any]) -> None:
    # Given the HTTP API body
    paths = transformed["Resources"]["HttpApi"]["Properties"]["Body"]["paths"]

    # When every integration is inspected
    integrations = [op["x-amazon-apigateway-integration"] for ops in paths.values() for op in ops.values()]

    # Then all are Lambda proxy integrations with payload format 2.0
    assert integrations
    for integration in integrations:
        assert integration["type"] == "aws_proxy"
        assert integration["payloadFormatVersion"] == "2.0"


def test_tables_have_their_key_schemas(transformed: dict[str, Any]) -> None:
    # Given the DynamoDB tables of the transformed template
    tables = _resources_of_type(transformed, "AWS::DynamoDB::Table")

    # When their keys are read
    # Then each table has exactly the expected string keys
    assert set(tables) == set(TABLE_KEYS)
    for name, (hash_key, range_key) in TABLE_KEYS.items():
        properties = tables[name]["Properties"]
        expected = [{"AttributeName": hash_key, "KeyType": "HASH"}]
        if range_key:
            expected.append({"AttributeName": range_key, "KeyType": "RANGE"})
        assert properties["KeySchema"] == expected, name
        attributes = {a["AttributeName"]: a["AttributeType"] for a in properties["AttributeDefinitions"]}
        index_keys = [
            key for index in properties.get("GlobalSecondaryIndexes", []) for key in index["KeySchema"]
        ]
        assert attributes == {key["AttributeName"]: "S" for key in expected + index_keys}, name


def test_the_models_indexes_are_the_tables_indexes(transformed: dict[str, Any]) -> None:
    # Given the tables of the template and the PynamoDB models with indexes
    from gateway.models import SendModel

    tables = _resources_of_type(transformed, "AWS::DynamoDB::Table")
    for model, table in ((SendModel, "SendsTable"),):
        # When the indexes of both are compared
        declared = {
            index["IndexName"]: [(key["AttributeName"], key["KeyType"]) for key in index["KeySchema"]]
            for index in tables[table]["Properties"].get("GlobalSecondaryIndexes", [])
        }
        used = {
            index.Meta.index_name: [
                (attribute.attr_name, "HASH" if attribute.is_hash_key else "RANGE")
                for attribute in index.Meta.attributes.values()
                if attribute.is_hash_key or attribute.is_range_key
            ]
            for index in model._indexes.values()
        }
        # Then each index a model queries exists with the same keys
        assert used == declared, table


def test_tables_expire_items_on_their_ttl_attribute(transformed: dict[str, Any]) -> None:
    # Given the DynamoDB tables
    tables = _resources_of_type(transformed, "AWS::DynamoDB::Table")

    # When their TTL settings are read
    ttl = {
        name: table["Properties"]["TimeToLiveSpecification"]
        for name, table in tables.items()
        if "TimeToLiveSpecification" in table["Properties"]
    }

    # Then exactly the short-lived tables expire items, on the expected attribute
    assert {name: spec["AttributeName"] for name, spec in ttl.items()} == TABLE_TTL
    assert all(spec["Enabled"] is True for spec in ttl.values())


def test_every_table_has_pitr_sse_and_on_demand_billing(transformed: dict[str, Any]) -> None:
    # Given the DynamoDB tables
    tables = _resources_of_type(transformed, "AWS::DynamoDB::Table")

    # When their protection settings are read
    # Then every one is on-demand, recoverable to a point in time and encrypted at rest
    for name, table in tables.items():
        properties = table["Properties"]
        assert properties["BillingMode"] == "PAY_PER_REQUEST", name
        assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}, name
        assert properties["SSESpecification"] == {"SSEEnabled": True}, name


def test_shared_layer_is_attached_to_every_function(transformed: dict[str, Any]) -> None:
    # Given the single layer version built from layers/gateway
    layers = _resources_of_type(transformed, "AWS::Lambda::LayerVersion")
    assert len(layers) == 1
    (layer_id,) = layers

    # When every Lambda function is inspected
    functions = _resources_of_type(transformed, "AWS::Lambda::Function")

    # Then each one uses that layer and the shared runtime settings
    assert set(functions) == {*API_FUNCTIONS, "WebhookDeliveryFunction"}
    for name, function in functions.items():
        properties = function["Properties"]
        assert properties["Layers"] == [{"Ref": layer_id}], name
        assert properties["Runtime"] == "python3.11", name
        assert properties["TracingConfig"] == {"Mode": "Active"}, name


def test_code_locations_hold_the_declared_handlers(template: dict[str, Any]) -> None:
    # Given every function and the layer, with the local paths `sam build` packages
    functions = _resources_of_type(template, "AWS::Serverless::Function")
    layer = template["Resources"]["SharedLayer"]["Properties"]

    # When each Handler is resolved inside its CodeUri
    # Then the module file exists there (a handler outside CodeUri would not be deployed)
    for name, function in functions.items():
        module, _, _attribute = function["Properties"]["Handler"].rpartition(".")
        module_file = REPO_ROOT / function["Properties"]["CodeUri"] / (module.replace(".", "/") + ".py")
        assert module_file.is_file(), f"{name}: {module_file} is missing"
    # And the layer directory has the requirements and the gateway package the build expects
    layer_dir = REPO_ROOT / layer["ContentUri"]
    assert (layer_dir / "requirements.txt").is_file()
    assert (layer_dir / "gateway" / "__init__.py").is_file()


# ---------------------------------------------------------------------------
# 3. The template's routes are the FastAPI apps' routes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("function", "package"), sorted(API_FUNCTIONS.items()))
def test_template_routes_match_fastapi_app(template: dict[str, Any], function: str, package: str) -> None:
    # Given the FastAPI app a function serves
    app = importlib.import_module(f"{package}.handler").app
    assert isinstance(app, FastAPI)

    # When its routes and the function's HttpApi events are listed (FastAPI keeps included
    # routers nested; iter_route_contexts yields their routes with the effective full path)
    app_routes = {
        f"{method} {context.path}"
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        for method in context.methods or ()
    }
    catch_all = {route for route in app_routes if _CATCH_ALL_PATH.fullmatch(route.split(" ", 1)[1])}
    app_routes -= catch_all
    # (API Gateway's greedy parameter {proxy+} is the app's {proxy:path})
    template_routes = {_GREEDY.sub(r"{\1:path}", route) for route in _template_routes(template, function)}
    has_default_route = "$default" in template_routes
    template_routes.discard("$default")

    # Then the app has a catch-all route exactly when API Gateway sends it `$default`
    assert bool(catch_all) == has_default_route, (
        f"{function}: $default route in template: {has_default_route}, app catch-all: {sorted(catch_all)}"
    )
    # And API Gateway sends the function exactly the other routes its app serves
    assert template_routes == app_routes, (
        f"{function}: only in template {sorted(template_routes - app_routes)}, "
        f"only in {package}.handler.app {sorted(app_routes - template_routes)}"
    )


# ---------------------------------------------------------------------------
# 4. Table and queue variables
# ---------------------------------------------------------------------------


def test_global_resource_variables_reference_resources_of_the_right_type(template: dict[str, Any]) -> None:
    # Given the environment every function inherits
    variables = template["Globals"]["Function"]["Environment"]["Variables"]

    # When the table and queue variables are picked out
    resource_variables = {name: value for name, value in variables.items() if _is_resource_variable(name)}

    # Then they are exactly the expected ones, each a !Ref to a table, queue or bucket as its suffix says
    expected = {name: {"Ref": logical_id} for name, logical_id in RESOURCE_VARIABLES.items()}
    assert resource_variables == expected
    for name, value in resource_variables.items():
        (expected_type,) = [kind for suffix, kind in RESOURCE_SUFFIX_TYPES.items() if name.endswith(suffix)]
        assert template["Resources"][value["Ref"]]["Type"] == expected_type, name


def test_session_host_sees_the_same_tables_and_queues(template: dict[str, Any]) -> None:
    # Given the functions' environment and the session host container's environment
    functions_env = template["Globals"]["Function"]["Environment"]["Variables"]
    container_env = _container_environment(template)

    # When the table and queue variables of each are compared
    # Then they name the same resources
    assert {k: v for k, v in container_env.items() if _is_resource_variable(k)} == {
        k: v for k, v in functions_env.items() if _is_resource_variable(k)
    }
    # And the container runs the real network adapter with its sessions on the EFS mount
    assert container_env["NETWORK_ADAPTER"] == "neonize"
    assert container_env["SESSION_DATA_DIR"] == "/data/sessions"


def test_platform_function_gets_the_master_token_secret(template: dict[str, Any]) -> None:
    # Given the platform function
    properties = template["Resources"]["PlatformFunction"]["Properties"]

    # When its own environment is read
    variables = properties["Environment"]["Variables"]

    # Then it names the generated secret, which is the only one it may read
    assert variables["MASTER_TOKEN_SECRET_ARN"] == {"Ref": "MasterTokenSecret"}
    secret_policies = [p for p in properties["Policies"] if "AWSSecretsManagerGetSecretValuePolicy" in p]
    assert secret_policies == [
        {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "MasterTokenSecret"}}}
    ]
