"""The template as deployed: each principal's role, its statements and its environment, with
every intrinsic resolved to the value CloudFormation would give it.

The roles are read from the SAM transform (``unit.template_steps``, offline): inline statements,
SAM's policy templates expanded, and the template's own managed policies a role attaches. AWS
managed policies (``AWSLambdaBasicExecutionRole``...) are left out: their documents are not in
the template, and they grant logs and traces, which the code never calls through botocore.
Resources get the names CloudFormation generates (``<stack>-<LogicalId>-<SUFFIX>``) in the
parameters ``unit.template_steps`` deploys with; samtranslator's intrinsics resolver substitutes
them (``Fn::GetAtt`` through an action of ours, since the translator never resolves it).

Each statement keeps where it is written in template.yaml (the line of each action), so a grant
no call uses can be checked for the comment that says why it is there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cfnlint.decode import decode_str
from samtranslator.intrinsics.actions import GetAttAction, RefAction, SubAction
from samtranslator.intrinsics.resolver import IntrinsicsResolver
from unit.template_steps import TEMPLATE_PATH, StubManagedPolicyLoader, transform

ACCOUNT = "123456789012"
REGION = "us-east-1"
STACK = "messaging-gateway"
_SUFFIX = "1A2B3C4D5E6F"  # what CloudFormation appends to the names it generates
_PSEUDO = {
    "AWS::AccountId": ACCOUNT,
    "AWS::Region": REGION,
    "AWS::Partition": "aws",
    "AWS::StackName": STACK,
    "AWS::URLSuffix": "amazonaws.com",
}


@dataclass(frozen=True)
class Statement:
    """One statement of a role: ``policy`` names it (``<principal>/<policy>/<index or Sid>``),
    ``document`` is it resolved, ``lines`` maps each of its actions, and ``resource_lines`` each
    of its resources (resolved), to its line in template.yaml (0-based)."""

    principal: str
    policy: str
    document: dict[str, Any]
    lines: dict[str, int]
    resource_lines: dict[str, int]

    @property
    def actions(self) -> list[str]:
        return _as_list(self.document.get("Action"))

    @property
    def resources(self) -> list[str]:
        return _as_list(self.document.get("Resource"))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


class _GetAtt(GetAttAction):
    """``Fn::GetAtt`` resolved from the same values as ``${Logical.Attribute}`` in a Sub."""

    def resolve_parameter_refs(self, input_dict: Any | None, parameters: dict[str, Any]) -> Any | None:
        if not self.can_handle(input_dict):
            return input_dict
        logical_id, attribute = input_dict[self.intrinsic_name]  # type: ignore[index]
        return parameters.get(f"{logical_id}.{attribute}", input_dict)


def _resource_values(resources: dict[str, Any]) -> dict[str, str]:
    """What ``Ref`` and ``Fn::GetAtt`` of each resource the roles and variables name give."""
    values: dict[str, str] = {}
    for logical_id, resource in resources.items():
        kind, name = resource["Type"], f"{STACK}-{logical_id}-{_SUFFIX}"
        if kind == "AWS::DynamoDB::Table":
            values[logical_id] = name
            values[f"{logical_id}.Arn"] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"
        elif kind == "AWS::SQS::Queue":
            values[logical_id] = f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{name}"
            values[f"{logical_id}.Arn"] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"
            values[f"{logical_id}.QueueName"] = name
        elif kind == "AWS::S3::Bucket":
            values[logical_id] = name.lower()
            values[f"{logical_id}.Arn"] = f"arn:aws:s3:::{name.lower()}"
        elif kind == "AWS::SecretsManager::Secret":
            values[logical_id] = f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{logical_id}-AbCdEf"
        elif kind == "AWS::EFS::FileSystem":
            values[logical_id] = "fs-0123456789abcdef0"
            values[f"{logical_id}.Arn"] = (
                f"arn:aws:elasticfilesystem:{REGION}:{ACCOUNT}:file-system/fs-0123456789abcdef0"
            )
        elif kind == "AWS::EFS::AccessPoint":
            values[logical_id] = "fsap-0123456789abcdef0"
            values[f"{logical_id}.Arn"] = (
                f"arn:aws:elasticfilesystem:{REGION}:{ACCOUNT}:access-point/fsap-0123456789abcdef0"
            )
        elif kind in ("AWS::IAM::Role", "AWS::IAM::ManagedPolicy"):
            service = "role" if kind == "AWS::IAM::Role" else "policy"
            values[logical_id] = f"arn:aws:iam::{ACCOUNT}:{service}/{name}"
            values[f"{logical_id}.Arn"] = values[logical_id]
    return values


class Deployment:
    """template.yaml transformed and resolved: principals, their statements and environments."""

    def __init__(self, text: str | None = None) -> None:
        self.text = TEMPLATE_PATH.read_text(encoding="utf-8") if text is None else text
        source, errors = decode_str(self.text)
        assert not errors, f"template.yaml does not parse: {errors}"
        self.source: Any = source  # cfn-lint's nodes: each knows its line (start_mark)
        self.template: dict[str, Any] = json.loads(json.dumps(source))
        self.transformed = transform(self.template, StubManagedPolicyLoader())
        parameters = {
            name: spec.get("Default")
            for name, spec in self.template.get("Parameters", {}).items()
            if "Default" in spec
        }
        values = {**parameters, **_PSEUDO, **_resource_values(self.transformed["Resources"])}
        intrinsics = {"Ref": RefAction(), "Fn::Sub": SubAction(), "Fn::GetAtt": _GetAtt()}
        self._resolver = IntrinsicsResolver(values, intrinsics)

    def resolve(self, value: Any) -> Any:
        return _substituted(self._resolver.resolve_parameter_refs(json.loads(json.dumps(value))))

    @cached_property
    def roles(self) -> dict[str, str]:
        """Principal -> its role's logical id: each function's (``<Function>Role``) and the role
        of each ECS task definition (``SessionHostTask`` for ``SessionHostTaskRole``)."""
        resources = self.transformed["Resources"]
        roles: dict[str, str] = {}
        for name, resource in resources.items():
            if resource["Type"] == "AWS::Lambda::Function":
                roles[name] = resource["Properties"]["Role"]["Fn::GetAtt"][0]
            elif resource["Type"] == "AWS::ECS::TaskDefinition":
                role = resource["Properties"]["TaskRoleArn"]["Fn::GetAtt"][0]
                roles[role.removesuffix("Role")] = role
        return roles

    def handler_package(self, principal: str) -> str | None:
        """The package of a function's handler (``platform_api``...); None for a task."""
        resource = self.template["Resources"].get(principal, {})
        if resource.get("Type") != "AWS::Serverless::Function":
            return None
        return str(resource["Properties"]["Handler"]).split(".")[0]

    def role_arn(self, principal: str) -> str:
        return str(self.resolve({"Fn::GetAtt": [self.roles[principal], "Arn"]}))

    def statements(self, principal: str) -> list[Statement]:
        """The statements of ``principal``'s role, in the order the transform wrote them."""
        role = self.transformed["Resources"][self.roles[principal]]["Properties"]
        origins = self._policy_origins(principal)
        found: list[Statement] = []
        for policy in role.get("Policies", []):
            origin = origins[policy["PolicyName"]]
            found += self._statements_of(principal, policy["PolicyName"], policy["PolicyDocument"], origin)
        for arn in role.get("ManagedPolicyArns", []):
            if isinstance(arn, dict) and arn.get("Ref") in self.transformed["Resources"]:
                logical_id = arn["Ref"]
                document = self.transformed["Resources"][logical_id]["Properties"]["PolicyDocument"]
                origin = self.source["Resources"][logical_id]["Properties"]["PolicyDocument"]
                found += self._statements_of(principal, logical_id, document, origin)
        return found

    def _policy_origins(self, principal: str) -> dict[str, Any]:
        """Each inline policy of the transformed role -> what it was written as in template.yaml:
        a ``PolicyDocument``, or a SAM policy entry (``Statement:`` or a policy template)."""
        role_id = self.roles[principal]
        if role_id in self.source["Resources"]:  # a role of the template's own
            policies = self.source["Resources"][role_id]["Properties"].get("Policies", [])
            return {str(policy["PolicyName"]): policy["PolicyDocument"] for policy in policies}
        # SAM names a function's inline policies after their place in its Policies list
        policies = self.source["Resources"][principal]["Properties"].get("Policies", [])
        return {f"{role_id}Policy{index}": policy for index, policy in enumerate(policies)}

    def _statements_of(
        self, principal: str, policy: str, document: dict[str, Any], origin: Any
    ) -> list[Statement]:
        written = origin.get("Statement") if isinstance(origin, dict) else None
        found = []
        for index, statement in enumerate(document["Statement"]):
            resolved = self.resolve(statement)
            resources = _as_list(resolved.get("Resource"))
            if written is not None:  # written out: each action and resource on its line
                actions, written_resources = (_as_list(written[index][key]) for key in ("Action", "Resource"))
                lines = {str(item): _line(item) for item in actions}
                resource_lines = {
                    r: _line(node) for r, node in zip(resources, written_resources, strict=True)
                }
            else:  # a policy template: its grants are where its name is
                (key,) = [key for key in origin if key != "Statement"]
                lines = {action: _line(key) for action in _as_list(statement["Action"])}
                resource_lines = dict.fromkeys(resources, _line(key))
            name = f"{principal}/{policy}/{statement.get('Sid', index)}"
            found.append(Statement(principal, name, resolved, lines, resource_lines))
        return found

    # --- environment ------------------------------------------------------------------------

    def environment(self, principal: str) -> dict[str, Any]:
        """The variables the template sets for ``principal``, resolved (a function's Globals
        and its own; the container's of a task definition whose role ``principal`` is)."""
        resources = self.template["Resources"]
        if principal in resources and resources[principal]["Type"] == "AWS::Serverless::Function":
            shared = self.template.get("Globals", {}).get("Function", {}).get("Environment", {})
            own = resources[principal]["Properties"].get("Environment", {})
            return self.resolve({**shared.get("Variables", {}), **own.get("Variables", {})})  # type: ignore[no-any-return]
        role = self.roles[principal]
        (task,) = [
            resource["Properties"]
            for resource in resources.values()
            if resource["Type"] == "AWS::ECS::TaskDefinition"
            and resource["Properties"]["TaskRoleArn"] == {"Fn::GetAtt": [role, "Arn"]}
        ]
        (container,) = task["ContainerDefinitions"]
        return self.resolve({item["Name"]: item["Value"] for item in container.get("Environment", [])})  # type: ignore[no-any-return]

    def variables(self) -> set[str]:
        """Every variable the template sets for any principal."""
        return {name for principal in self.roles for name in self.environment(principal)}

    # --- comments -------------------------------------------------------------------------

    def commented(self, line: int) -> bool:
        """Whether the line has a comment, or the line above it is one: what says why a grant
        that no recorded call used is there."""
        lines = self.text.splitlines()
        return _has_comment(lines[line]) or (line > 0 and lines[line - 1].strip().startswith("#"))


def _substituted(node: Any) -> Any:
    """``node`` with each ``Fn::Sub`` whose references are all resolved turned into its string
    (the resolver substitutes into it, but leaves it a Sub, and leaves a Sub's own variables)."""
    if isinstance(node, list):
        return [_substituted(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _substituted(value) for key, value in node.items()}
    if set(node) != {"Fn::Sub"}:
        return node
    text, variables = (node["Fn::Sub"], {}) if isinstance(node["Fn::Sub"], str) else node["Fn::Sub"]
    for name, value in variables.items():
        if isinstance(value, str):
            text = text.replace("${" + name + "}", value)
    return node if "${" in text else text


def _line(node: Any) -> int:
    return int(node.start_mark.line)


def _has_comment(line: str) -> bool:
    quoted = None
    for position, character in enumerate(line):
        if character in "\"'" and quoted in (None, character):
            quoted = None if quoted else character
        elif character == "#" and quoted is None and (position == 0 or line[position - 1].isspace()):
            return True
    return False
