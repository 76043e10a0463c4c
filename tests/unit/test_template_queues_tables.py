"""The SAM template's tables and queues: key schemas, indexes, TTL and protection of the
tables; dead-letter queues, encryption and the delivery function's event source of the
queues; and the variables that name them to the functions and the session host alike.
"""

from __future__ import annotations

import json
from typing import Any

from template_steps import resources_of_type

from gateway.webhooks.claim_check import MAX_MESSAGE_BYTES

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
    "ChatsTable": ("device_key", "chat_jid"),
    "IdempotencyTable": ("id", None),
}

TABLE_TTL = {
    "DeliveriesTable": "expires_at",
    "LeasesTable": "expires_at",
    "SendsTable": "expires_at",
    "IdempotencyTable": "expiration",  # the Powertools idempotency default
}

QUEUE_DLQ = {
    "CommandQueue": ("CommandDLQ", 5),
    "EventsQueue": ("EventsDLQ", 15),
    "SlowEventsQueue": ("SlowEventsDLQ", 15),
}

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
    "CHATS_TABLE": "ChatsTable",
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


def _container_environment(template: dict[str, Any]) -> dict[str, Any]:
    task = template["Resources"]["SessionHostTaskDefinition"]["Properties"]
    (container,) = [c for c in task["ContainerDefinitions"] if c["Name"] == "session-host"]
    return {item["Name"]: item["Value"] for item in container["Environment"]}


def _is_resource_variable(name: str) -> bool:
    return name.endswith(tuple(RESOURCE_SUFFIX_TYPES))


def test_delivery_function_consumes_events_queue_with_partial_batch_failures(
    transformed: dict[str, Any],
) -> None:
    # Given the transformed template
    # When the event source mappings are collected
    mappings = resources_of_type(transformed, "AWS::Lambda::EventSourceMapping")

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

    # Then one allows sqs:ChangeMessageVisibility on the events queue (what authorises the
    # ChangeMessageVisibilityBatch of a batch's retries: IAM has no action of that name)
    assert any(
        "sqs:ChangeMessageVisibility" in s["Action"] and "EventsQueue" in json.dumps(s["Resource"])
        for s in statements
    )


def test_every_queue_has_a_redrive_policy_to_its_dlq(transformed: dict[str, Any]) -> None:
    # Given every SQS queue of the transformed template
    queues = resources_of_type(transformed, "AWS::SQS::Queue")
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


def test_events_queue_takes_the_messages_the_publisher_sizes_for(transformed: dict[str, Any]) -> None:
    # Given the events queue
    queue = transformed["Resources"]["EventsQueue"]["Properties"]

    # When its message size limit is read
    # Then it is the one the session host's publisher keeps every message and batch within
    assert queue["MaximumMessageSize"] == MAX_MESSAGE_BYTES


def test_tables_have_their_key_schemas(transformed: dict[str, Any]) -> None:
    # Given the DynamoDB tables of the transformed template
    tables = resources_of_type(transformed, "AWS::DynamoDB::Table")

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

    tables = resources_of_type(transformed, "AWS::DynamoDB::Table")
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
    tables = resources_of_type(transformed, "AWS::DynamoDB::Table")

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
    tables = resources_of_type(transformed, "AWS::DynamoDB::Table")

    # When their protection settings are read
    # Then every one is on-demand, recoverable to a point in time and encrypted at rest
    for name, table in tables.items():
        properties = table["Properties"]
        assert properties["BillingMode"] == "PAY_PER_REQUEST", name
        assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}, name
        assert properties["SSESpecification"] == {"SSEEnabled": True}, name


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
