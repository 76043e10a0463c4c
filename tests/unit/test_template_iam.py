"""Every role of the template grants what its code calls and nothing more (issue 22: the
session host could read the whole webhooks table, functions had full CRUD where they read).

The grants are read from the SAM transform (policy templates expanded), per role, as
``{resource: actions}``; a resource is named by its logical id (``DevicesTable/index/*`` for
a table's indexes, ``stack-dq-h-*`` for the hosts' command queues). A new call in the code
needs its grant here and in template.yaml: the pin is meant to make that a decision.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest

Grants = dict[str, set[str]]


def _ddb(*actions: str) -> set[str]:
    return {f"dynamodb:{action}" for action in actions}


AUTHENTICATE: Grants = {"TokensTable": _ddb("GetItem")}
COMMAND_BUS: Grants = {
    "CommandQueue": {"sqs:SendMessage"},
    "stack-dq-h-*": {"sqs:SendMessage"},
    "stack-dq-r-*": {"sqs:CreateQueue", "sqs:TagQueue", "sqs:ReceiveMessage"},
}
DATA_ERASURE: Grants = {
    "SendsTable": _ddb("Query", "BatchWriteItem"),
    "ChatsTable": _ddb("Query", "BatchWriteItem"),
    "LeasesTable": _ddb("DeleteItem"),
    "IdempotencyTable": _ddb("Scan", "BatchWriteItem"),
    "MediaBucket": {"s3:ListBucket"},
    "MediaBucket/*": {"s3:DeleteObject"},
}
"""What deleting a device or a tenant erases besides its records (DataErasurePolicy)."""

SQS_CONSUMER = {
    "sqs:ChangeMessageVisibility",
    "sqs:DeleteMessage",
    "sqs:GetQueueAttributes",
    "sqs:ReceiveMessage",
}
"""An event source mapping's calls, and the backoff's (a batch call needs its single call's action)."""
DELIVERY: Grants = {
    "WebhooksTable": _ddb("GetItem", "UpdateItem"),  # the configuration, its slow mark
    "DeliveriesTable": _ddb("BatchWriteItem"),
    "MediaBucket/events/*": {"s3:GetObject"},  # a large envelope, read whole
}
"""What both delivery functions (the main lane and the slow lane) call besides their queue."""

EXPECTED: dict[str, Grants] = {
    "PlatformFunction": {
        "MasterTokenSecret": {"secretsmanager:GetSecretValue"},
        "TenantsTable": _ddb("GetItem", "Scan", "PutItem", "UpdateItem", "DeleteItem"),
        "UsersTable": _ddb("PutItem", "Query", "BatchWriteItem"),
        "TokensTable": _ddb("PutItem", "BatchWriteItem"),
        "UniqueKeysTable": _ddb("PutItem", "BatchWriteItem", "DeleteItem"),
        "DevicesTable": _ddb("Query", "DeleteItem"),
        "WebhooksTable": _ddb("Query", "BatchWriteItem", "DeleteItem"),
        "DeliveriesTable": _ddb("Query", "BatchWriteItem"),
        **DATA_ERASURE,
        **COMMAND_BUS,
    },
    "UsersFunction": {
        "TokensTable": _ddb("GetItem", "PutItem", "UpdateItem"),
        "UsersTable": _ddb("GetItem", "Query", "PutItem", "UpdateItem"),
        "UniqueKeysTable": _ddb("PutItem"),
        "TenantsTable": _ddb("GetItem", "UpdateItem"),
        "DevicesTable": _ddb("Query"),
    },
    "DevicesFunction": {
        **AUTHENTICATE,
        "DevicesTable": _ddb("GetItem", "Query", "PutItem", "UpdateItem", "DeleteItem"),
        "TenantsTable": _ddb("GetItem", "UpdateItem"),
        "WebhooksTable": _ddb("DeleteItem"),
        "DeliveriesTable": _ddb("Query", "BatchWriteItem"),
        **DATA_ERASURE,
        **COMMAND_BUS,
    },
    "GroupsFunction": {**AUTHENTICATE, "DevicesTable": _ddb("GetItem", "Query"), **COMMAND_BUS},
    "WebhooksFunction": {
        **AUTHENTICATE,
        "DevicesTable": _ddb("GetItem", "Query", "UpdateItem"),
        "WebhooksTable": _ddb("GetItem", "PutItem", "DeleteItem"),
        "DeliveriesTable": _ddb("GetItem", "Query"),
        "UsersTable": _ddb("UpdateItem"),
        "EventsQueue": {"sqs:SendMessage"},
        "MediaBucket/events/*": {"s3:GetObject"},  # redelivery checks a large envelope is kept
    },
    "MessagesFunction": {
        **AUTHENTICATE,
        "DevicesTable": _ddb("GetItem", "Query"),
        "IdempotencyTable": _ddb("PutItem", "UpdateItem", "DeleteItem"),
        # GET /sends pages the table, DELETE /sends/{id} cancels with a conditional update
        "SendsTable": _ddb("PutItem", "GetItem", "Query", "UpdateItem"),
        "SendsTable/index/*": _ddb("Query"),
        "MediaBucket/*": {"s3:PutObject", "s3:GetObject"},
        **COMMAND_BUS,
    },
    "WebhookDeliveryFunction": {
        **DELIVERY,
        "WebhooksTable": _ddb("GetItem", "PutItem", "DeleteItem", "UpdateItem"),  # UpdateItem: slow marks
        "DevicesTable": _ddb("GetItem", "UpdateItem"),  # a pending URL applied
        "UsersTable": _ddb("GetItem"),
        "EventsQueue": SQS_CONSUMER,
        "SlowEventsQueue": {"sqs:SendMessage"},  # the events of a configuration marked slow
    },
    "SlowWebhookDeliveryFunction": {**DELIVERY, "SlowEventsQueue": SQS_CONSUMER},
    "SessionHostTask": {
        "DevicesTable": _ddb("GetItem", "UpdateItem", "Scan"),
        "DevicesTable/index/*": _ddb("Query"),
        "LeasesTable": _ddb(
            "GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"
        ),
        "SendsTable": _ddb("GetItem", "PutItem", "UpdateItem", "Query"),
        "SendsTable/index/*": _ddb("Query"),
        "ChatsTable": _ddb("GetItem", "PutItem"),  # the sending policy's known chats
        "CommandQueue": {
            "sqs:ReceiveMessage",
            "sqs:DeleteMessage",
            "sqs:ChangeMessageVisibility",
            "sqs:SendMessage",
        },
        "stack-dq-*": {
            "sqs:CreateQueue",
            "sqs:DeleteQueue",
            "sqs:TagQueue",
            "sqs:ListQueueTags",
            "sqs:ReceiveMessage",
            "sqs:DeleteMessage",
            "sqs:SendMessage",
        },
        "*": {"sqs:ListQueues"},
        "EventsQueue": {"sqs:SendMessage"},
        "MediaBucket/*": {"s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload"},
        "SessionFileSystem": {"elasticfilesystem:ClientMount", "elasticfilesystem:ClientWrite"},
    },
}


def _target(value: Any) -> str:
    """The logical id (or pseudo parameter) a Ref or GetAtt names."""
    if "Ref" in value:
        return str(value["Ref"])
    return str(value["Fn::GetAtt"][0])


def resource_name(resource: Any) -> str:
    """A statement's resource as its logical id and what follows it (see the module doc)."""
    if isinstance(resource, str):
        return resource
    if "Ref" in resource or "Fn::GetAtt" in resource:
        return _target(resource)
    sub = resource["Fn::Sub"]
    text, variables = (sub, {}) if isinstance(sub, str) else (sub[0], sub[1])
    for name, value in variables.items():
        text = text.replace(f"${{{name}}}", f"${{{_target(value)}}}")
    *_, last = re.finditer(r"\$\{([^}]+)\}", text)
    name = last.group(1).split(".")[0].replace("AWS::StackName", "stack")
    return name + text[last.end() :]


def role_grants(role: dict[str, Any], resources: dict[str, Any] | None = None) -> Grants:
    """The role's grants per resource: its inline policies, and the managed policies of the
    template (``resources``) it attaches."""
    documents = [policy["PolicyDocument"] for policy in role["Properties"].get("Policies", [])]
    for arn in role["Properties"].get("ManagedPolicyArns", []):
        if isinstance(arn, dict) and "Ref" in arn and resources is not None and arn["Ref"] in resources:
            documents.append(resources[arn["Ref"]]["Properties"]["PolicyDocument"])
    grants: Grants = defaultdict(set)
    for document in documents:
        for statement in document["Statement"]:
            assert statement["Effect"] == "Allow"
            actions = statement["Action"]
            resources = statement["Resource"]
            for resource in resources if isinstance(resources, list) else [resources]:
                grants[resource_name(resource)] |= {actions} if isinstance(actions, str) else set(actions)
    return dict(grants)


@pytest.mark.parametrize("principal", EXPECTED)
def test_each_role_grants_exactly_what_its_code_calls(transformed: dict[str, Any], principal: str) -> None:
    # Given the role the transform made for a function (or the session host's task role)
    role = transformed["Resources"][f"{principal}Role"]
    # When its grants (inline, and the template's managed policies it attaches) are read per resource
    # Then they are exactly the calls its code makes
    assert role_grants(role, transformed["Resources"]) == EXPECTED[principal]


def test_the_session_host_reads_no_webhook_user_or_token(transformed: dict[str, Any]) -> None:
    # The finding: the host, which runs every tenant's sessions, could read every webhook secret
    grants = role_grants(transformed["Resources"]["SessionHostTaskRole"])
    assert not {"WebhooksTable", "UsersTable", "TokensTable", "TenantsTable"} & grants.keys()


def test_no_role_may_describe_tables_or_scan_beyond_its_listing(transformed: dict[str, Any]) -> None:
    # PynamoDB 6 never calls DescribeTable; Scan is for GET /tenants and the host's backfill only
    scanning = {
        (principal, resource)
        for principal in EXPECTED
        for resource, actions in role_grants(
            transformed["Resources"][f"{principal}Role"], transformed["Resources"]
        ).items()
        if "dynamodb:Scan" in actions or "dynamodb:DescribeTable" in actions
    }
    assert scanning == {
        ("PlatformFunction", "TenantsTable"),
        ("PlatformFunction", "IdempotencyTable"),  # erasing a tenant's Idempotency-Key records
        ("DevicesFunction", "IdempotencyTable"),  # erasing a device's
        ("SessionHostTask", "DevicesTable"),
    }
