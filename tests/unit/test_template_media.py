"""The media bucket of the SAM template: protected at rest and in transit, kept 30 days, and
reachable only by the components that need it (decisions, "Sending and status").

Kept apart from test_template.py; it reads the template as the other template modules do
(:mod:`template_steps`).
"""

from __future__ import annotations

from typing import Any

from gateway.webhooks import events_queue
from gateway.webhooks.delivery.constants import RETENTION_SECONDS

OBJECTS = {"Fn::Sub": "${MediaBucket.Arn}/*"}


def _bucket(template: dict[str, Any]) -> dict[str, Any]:
    return template["Resources"]["MediaBucket"]["Properties"]


def _statements_on_media(policies: list[Any]) -> list[dict[str, Any]]:
    """The inline statements of a SAM function's Policies that name the bucket's objects."""
    statements = [s for p in policies if isinstance(p, dict) for s in p.get("Statement", [])]
    return [s for s in statements if s.get("Resource") == OBJECTS]


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def test_media_bucket_is_encrypted_at_rest(template: dict[str, Any]) -> None:
    # Given the media bucket
    # When its default encryption is read
    (rule,) = _bucket(template)["BucketEncryption"]["ServerSideEncryptionConfiguration"]

    # Then every object is encrypted server-side (S3- or KMS-managed keys)
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in {"AES256", "aws:kms"}


def test_media_bucket_blocks_public_access_and_acls(template: dict[str, Any]) -> None:
    # Given the media bucket
    bucket = _bucket(template)

    # When its public access block and ownership are read
    block = bucket["PublicAccessBlockConfiguration"]

    # Then all four guards are on and ACLs are disabled (the bucket owner owns every object)
    assert block == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]


def test_media_bucket_policy_denies_requests_without_tls(template: dict[str, Any]) -> None:
    # Given the policy of the media bucket
    policy = template["Resources"]["MediaBucketPolicy"]["Properties"]
    assert policy["Bucket"] == {"Ref": "MediaBucket"}

    # When its deny statements are read
    denies = [s for s in policy["PolicyDocument"]["Statement"] if s["Effect"] == "Deny"]

    # Then any request without TLS, to the bucket or an object, by anyone, is denied
    assert any(
        s["Principal"] == "*"
        and s["Action"] == "s3:*"
        and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        and {"Fn::GetAtt": ["MediaBucket", "Arn"]} in s["Resource"]
        and OBJECTS in s["Resource"]
        for s in denies
    )


def test_media_objects_expire_after_30_days(template: dict[str, Any]) -> None:
    # Given the lifecycle of the media bucket
    rules = _bucket(template)["LifecycleConfiguration"]["Rules"]

    # When its enabled expiry rules for every object (no prefix or tag filter) are picked out
    expiring = [
        r
        for r in rules
        if r["Status"] == "Enabled"
        and "ExpirationInDays" in r
        and "Prefix" not in r
        and "TagFilters" not in r
    ]

    # Then every object expires after 30 days
    assert [r["ExpirationInDays"] for r in expiring] == [30]


def test_claimed_envelopes_expire_with_the_delivery_log_that_redelivers_them(
    template: dict[str, Any],
) -> None:
    # Given the lifecycle of the media bucket
    rules = _bucket(template)["LifecycleConfiguration"]["Rules"]

    # When the rule of the claim checks' prefix is picked out
    (rule,) = [r for r in rules if r.get("Prefix") == events_queue.KEY_PREFIX]

    # Then they expire as the delivery log does (and outlive the dead-letter queue's retention)
    assert rule["Status"] == "Enabled"
    assert rule["ExpirationInDays"] * 86400 == RETENTION_SECONDS
    dlq_retention = template["Resources"]["EventsDLQ"]["Properties"]["MessageRetentionPeriod"]
    assert rule["ExpirationInDays"] * 86400 >= dlq_retention


def test_claimed_envelopes_are_put_by_the_host_and_read_by_delivery_and_redelivery(
    template: dict[str, Any],
) -> None:
    # Given the statements that name the claim checks' prefix
    prefix = {"Fn::Sub": "${MediaBucket.Arn}/" + events_queue.KEY_PREFIX + "*"}
    resources = template["Resources"]
    (host_policy,) = resources["SessionHostTaskRole"]["Properties"]["Policies"]
    every_object = {"Fn::Sub": "${MediaBucket.Arn}/*"}
    host = [s for s in host_policy["PolicyDocument"]["Statement"] if s["Resource"] in (prefix, every_object)]

    def function_grants(name: str) -> set[str]:
        policies = resources[name]["Properties"]["Policies"]
        statements = [s for p in policies if isinstance(p, dict) for s in p.get("Statement", [])]
        return {a for s in statements if s.get("Resource") == prefix for a in _actions(s)}

    # When their actions are read / Then the host puts (its grant on every media object covers
    # the prefix), the delivery function and redelivery read
    assert "s3:PutObject" in {a for s in host for a in _actions(s)}
    assert function_grants("WebhookDeliveryFunction") == {"s3:GetObject"}
    assert function_grants("WebhooksFunction") == {"s3:GetObject"}


def test_messages_function_may_put_and_get_media_objects_only(template: dict[str, Any]) -> None:
    # Given the messages function, which stores the media of sends and signs their URLs
    policies = template["Resources"]["MessagesFunction"]["Properties"]["Policies"]

    # When its statements on the bucket's objects are read
    statements = _statements_on_media(policies)

    # Then it may put and get objects, and nothing else (no delete, no listing)
    assert {a for s in statements for a in _actions(s)} == {"s3:PutObject", "s3:GetObject"}
    assert all(s["Effect"] == "Allow" for s in statements)


def test_session_host_may_get_and_put_media_objects(template: dict[str, Any]) -> None:
    # Given the session host's task role
    (policy,) = template["Resources"]["SessionHostTaskRole"]["Properties"]["Policies"]

    # When its statements on the bucket's objects are read
    statements = [s for s in policy["PolicyDocument"]["Statement"] if s["Resource"] == OBJECTS]

    # Then it reads outbound media and stores received media (in parts, aborted on failure), nothing else
    assert {a for s in statements for a in _actions(s)} == {
        "s3:GetObject",
        "s3:PutObject",
        "s3:AbortMultipartUpload",
    }
