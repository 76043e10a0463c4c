"""The template's grants for deleting a device's or a tenant's data (gateway/devices/erasure.py):
the two functions that delete them get exactly what the erasure calls, nothing wider."""

from __future__ import annotations

from typing import Any

import pytest


def _actions(statement: dict[str, Any]) -> set[str]:
    actions = statement["Action"]
    return {actions} if isinstance(actions, str) else set(actions)


def test_the_erasure_policy_deletes_only_what_is_keyed_by_a_device(template: dict[str, Any]) -> None:
    document = template["Resources"]["DataErasurePolicy"]["Properties"]["PolicyDocument"]
    grants = {str(statement["Resource"]): _actions(statement) for statement in document["Statement"]}
    assert grants == {
        str({"Fn::GetAtt": ["SendsTable", "Arn"]}): {"dynamodb:Query", "dynamodb:BatchWriteItem"},
        str({"Fn::GetAtt": ["ChatsTable", "Arn"]}): {"dynamodb:Query", "dynamodb:BatchWriteItem"},
        str({"Fn::GetAtt": ["LeasesTable", "Arn"]}): {"dynamodb:DeleteItem"},
        str({"Fn::GetAtt": ["IdempotencyTable", "Arn"]}): {"dynamodb:Scan", "dynamodb:BatchWriteItem"},
        str({"Fn::GetAtt": ["MediaBucket", "Arn"]}): {"s3:ListBucket"},
        str({"Fn::Sub": "${MediaBucket.Arn}/*"}): {"s3:DeleteObject"},
    }
    assert all(statement["Effect"] == "Allow" for statement in document["Statement"])


@pytest.mark.parametrize("function", ["DevicesFunction", "PlatformFunction"])
def test_the_functions_that_delete_devices_have_it(template: dict[str, Any], function: str) -> None:
    policies = template["Resources"][function]["Properties"]["Policies"]
    assert {"Ref": "DataErasurePolicy"} in policies
