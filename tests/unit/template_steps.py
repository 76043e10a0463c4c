"""What the SAM template tests share: the template as parsed, and its offline SAM transform.

The template tests are split by what they check (functions, API routes, tables and queues,
the media bucket); this module reads the template and runs the translator for all of them,
with a stub for the managed-policy lookup so nothing calls AWS.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
from cfnlint.decode import decode_str
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

FAKE_MANAGED_POLICIES = {
    name: f"arn:aws:iam::aws:policy/{name}"
    for name in (
        "AmazonECSTaskExecutionRolePolicy",
        "AWSLambdaBasicExecutionRole",
        "AWSXrayWriteOnlyAccess",
        "AWSLambdaSQSQueueExecutionRole",
    )
}


class StubManagedPolicyLoader:
    """Answers the translator's managed-policy lookup without calling IAM."""

    def __init__(self) -> None:
        self.calls = 0

    def load(self) -> dict[str, str]:
        self.calls += 1
        return dict(FAKE_MANAGED_POLICIES)


def parse_template() -> dict[str, Any]:
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


def resources_of_type(template: dict[str, Any], resource_type: str) -> dict[str, Any]:
    return {name: res for name, res in template["Resources"].items() if res["Type"] == resource_type}


def transform(template: dict[str, Any], managed_policy_loader: StubManagedPolicyLoader) -> dict[str, Any]:
    """The CloudFormation the SAM transform produces from ``template``, computed offline."""
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


def _resolve(node: Any, parameters: dict[str, str], conditions: dict[str, Any]) -> Any:
    """``node`` with Ref to parameters, Fn::If and Fn::Equals evaluated; AWS::NoValue dropped."""
    if isinstance(node, list):
        items = [_resolve(item, parameters, conditions) for item in node]
        return [item for item in items if item is not _NO_VALUE]
    if not isinstance(node, dict):
        return node
    if set(node) == {"Ref"}:
        name = node["Ref"]
        return _NO_VALUE if name == "AWS::NoValue" else parameters.get(name, node)
    if set(node) == {"Fn::If"}:
        condition, when_true, when_false = node["Fn::If"]
        chosen = when_true if _resolve(conditions[condition], parameters, conditions) else when_false
        return _resolve(chosen, parameters, conditions)
    if set(node) == {"Fn::Not"}:
        (condition,) = node["Fn::Not"]
        return not _resolve(condition, parameters, conditions)
    if set(node) == {"Fn::Equals"}:
        left, right = (_resolve(side, parameters, conditions) for side in node["Fn::Equals"])
        return left == right
    resolved = {key: _resolve(value, parameters, conditions) for key, value in node.items()}
    return {key: value for key, value in resolved.items() if value is not _NO_VALUE}


_NO_VALUE = object()


def deployed(template: dict[str, Any], resource: str, **overrides: str) -> dict[str, Any]:
    """``resource``'s properties as deployed with the parameters' defaults and ``overrides``
    (as CloudFormation gives them: strings)."""
    parameters = {name: str(spec.get("Default")) for name, spec in template["Parameters"].items()}
    parameters.update(overrides)
    properties = template["Resources"][resource]["Properties"]
    return _resolve(properties, parameters, template.get("Conditions", {}))
