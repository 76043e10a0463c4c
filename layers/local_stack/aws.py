"""An in-process moto server holding the template's tables, queues and buckets."""

from __future__ import annotations

import json
import logging
import socket
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from local_stack.template import LocalResources

REGION = "us-east-1"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_SESSION_TOKEN": "local"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_moto(port: int | None = None) -> tuple[ThreadedMotoServer, str]:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one access line per AWS call is noise
    port = port or free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server, f"http://127.0.0.1:{port}"


def _client(service: str, endpoint: str) -> Any:
    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )


ACCOUNT_ID = "123456789012"  # moto's default account


def bucket_name(prefix: str, logical_id: str) -> str:
    """S3 bucket names are lower case (3-63 characters), unlike table and queue names."""
    return f"{prefix}-{logical_id}".lower()[:63]


def planned_names(endpoint: str, resources: LocalResources, prefix: str) -> dict[str, str]:
    """Table names, queue URLs and bucket names, known before anything starts so settings never go stale."""
    names = {logical_id: f"{prefix}-{logical_id}" for logical_id in resources.tables}
    names.update({q: f"{endpoint}/{ACCOUNT_ID}/{prefix}-{q}" for q in resources.queues})
    names.update({b: bucket_name(prefix, b) for b in resources.buckets})
    return names


_QUEUE_ATTRIBUTES = ("VisibilityTimeout", "MaximumMessageSize")
"""Queue properties of the template that moto applies as they are (it enforces the size)."""


def create_resources(endpoint: str, resources: LocalResources, prefix: str) -> dict[str, str]:
    """Create every declared table, queue (DLQs first, so redrive policies resolve) and bucket."""
    names: dict[str, str] = {}
    dynamodb = _client("dynamodb", endpoint)
    for logical_id, props in resources.tables.items():
        name = f"{prefix}-{logical_id}"
        definition: dict[str, Any] = {
            "TableName": name,
            "KeySchema": props["KeySchema"],
            "AttributeDefinitions": props["AttributeDefinitions"],
            "BillingMode": "PAY_PER_REQUEST",
        }
        if props.get("GlobalSecondaryIndexes"):
            definition["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
        dynamodb.create_table(**definition)
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
        names[logical_id] = name
    sqs = _client("sqs", endpoint)
    for logical_id, props in sorted(resources.queues.items(), key=lambda item: "RedrivePolicy" in item[1]):
        attributes = {name: str(props[name]) for name in _QUEUE_ATTRIBUTES if name in props}
        redrive = props.get("RedrivePolicy")
        if redrive:
            dlq = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
            dlq_arn = sqs.get_queue_attributes(QueueUrl=names[dlq], AttributeNames=["QueueArn"])["Attributes"]
            attributes["RedrivePolicy"] = json.dumps(
                {
                    "deadLetterTargetArn": dlq_arn["QueueArn"],
                    "maxReceiveCount": int(redrive["maxReceiveCount"]),
                }
            )
        names[logical_id] = sqs.create_queue(QueueName=f"{prefix}-{logical_id}", Attributes=attributes)[
            "QueueUrl"
        ]
    names.update(_create_buckets(endpoint, resources, prefix))
    return names


def _create_buckets(endpoint: str, resources: LocalResources, prefix: str) -> dict[str, str]:
    """Each bucket with its lifecycle rules (moto keeps them; it does not run the expiry)."""
    s3 = _client("s3", endpoint)
    names: dict[str, str] = {}
    for logical_id, props in resources.buckets.items():
        name = bucket_name(prefix, logical_id)
        s3.create_bucket(Bucket=name)  # us-east-1: no location constraint
        rules = props.get("LifecycleConfiguration", {}).get("Rules", [])
        if rules:
            s3.put_bucket_lifecycle_configuration(
                Bucket=name,
                LifecycleConfiguration={"Rules": [_lifecycle_rule(rule) for rule in rules]},
            )
        names[logical_id] = name
    return names


def _lifecycle_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A CloudFormation lifecycle rule in the S3 API's shape (the subset the template uses)."""
    converted: dict[str, Any] = {
        "ID": rule.get("Id", "rule"),
        "Status": rule["Status"],
        "Filter": {"Prefix": rule.get("Prefix", "")},
    }
    if "ExpirationInDays" in rule:
        converted["Expiration"] = {"Days": int(rule["ExpirationInDays"])}
    if "AbortIncompleteMultipartUpload" in rule:
        days = int(rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
        converted["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": days}
    return converted


def environment_for(endpoint: str, resources: LocalResources, names: dict[str, str]) -> dict[str, str]:
    """The variables a function or the session host gets, pointing at the local resources."""
    return {
        **CREDENTIALS,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ENDPOINT_URL": endpoint,
        **{variable: names[logical_id] for variable, logical_id in resources.environment.items()},
    }
