"""Reads ``template.yaml``: local tables, queues, buckets and environment have one source of truth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_PATH = REPO_ROOT / "template.yaml"


class _CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that keeps CloudFormation short tags as ``{"Fn::X": value}`` / ``{"Ref": x}``."""


def _intrinsic(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        assert isinstance(node, yaml.MappingNode)  # YAML has no fourth kind of node
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{tag_suffix}": value}


_CloudFormationLoader.add_multi_constructor("!", _intrinsic)


def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    template: dict[str, Any] = yaml.load(path.read_text(), Loader=_CloudFormationLoader)  # noqa: S506 - SafeLoader
    return template


@dataclass(frozen=True)
class LocalResources:
    """What the local stack must create, named after the template's logical ids."""

    tables: dict[str, dict[str, Any]]  # logical id -> table properties
    queues: dict[str, dict[str, Any]]  # logical id -> queue properties
    buckets: dict[str, dict[str, Any]]  # logical id -> bucket properties
    environment: dict[str, str]  # variable -> logical id it references


def local_resources(template: dict[str, Any]) -> LocalResources:
    resources = template["Resources"]
    tables = {
        name: r.get("Properties", {}) for name, r in resources.items() if r["Type"] == "AWS::DynamoDB::Table"
    }
    queues = {
        name: r.get("Properties", {}) for name, r in resources.items() if r["Type"] == "AWS::SQS::Queue"
    }
    buckets = {
        name: r.get("Properties", {}) for name, r in resources.items() if r["Type"] == "AWS::S3::Bucket"
    }
    # The functions' shared variables, and those one function sets for itself (one process
    # runs them all locally).
    shared = template.get("Globals", {}).get("Function", {}).get("Environment", {})
    variables = dict(shared.get("Variables", {}))
    for resource in resources.values():
        if resource["Type"] == "AWS::Serverless::Function":
            variables.update(resource["Properties"].get("Environment", {}).get("Variables", {}))
    environment = {
        key: value["Ref"]
        for key, value in variables.items()
        if isinstance(value, dict) and value.get("Ref") in tables.keys() | queues.keys() | buckets.keys()
    }
    return LocalResources(tables=tables, queues=queues, buckets=buckets, environment=environment)


@dataclass(frozen=True)
class SqsEventSource:
    """A function's SQS event source mapping, as the template declares it."""

    batch_size: int
    batching_window_seconds: float
    report_batch_item_failures: bool


def sqs_event_source(template: dict[str, Any], function: str) -> SqsEventSource:
    """The (one) SQS event source of ``function``."""
    events = template["Resources"][function]["Properties"]["Events"].values()
    (props,) = [event["Properties"] for event in events if event["Type"] == "SQS"]
    return SqsEventSource(
        batch_size=int(props.get("BatchSize", 10)),
        batching_window_seconds=float(props.get("MaximumBatchingWindowInSeconds", 0)),
        report_batch_item_failures="ReportBatchItemFailures" in props.get("FunctionResponseTypes", []),
    )


def reserved_concurrency(template: dict[str, Any], function: str) -> int | None:
    """The function's reserved concurrency where it is a number or a parameter's default;
    None where it is conditional or unset (no cap)."""
    value = template["Resources"][function]["Properties"].get("ReservedConcurrentExecutions")
    if isinstance(value, dict) and "Ref" in value:
        value = template.get("Parameters", {}).get(value["Ref"], {}).get("Default")
    return int(value) if isinstance(value, int | str) else None
