"""The template's two cost options (docs/cost.md): what each value deploys, and the defaults.

The defaults are what `sam deploy --guided` offers a newcomer, and the bill of docs/cost.md is
computed at them, so they are pinned here.
"""

from __future__ import annotations

from typing import Any

import pytest


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
    if set(node) == {"Fn::Equals"}:
        left, right = (_resolve(side, parameters, conditions) for side in node["Fn::Equals"])
        return left == right
    resolved = {key: _resolve(value, parameters, conditions) for key, value in node.items()}
    return {key: value for key, value in resolved.items() if value is not _NO_VALUE}


_NO_VALUE = object()


def _deployed(template: dict[str, Any], resource: str, **overrides: str) -> dict[str, Any]:
    parameters = {name: spec.get("Default") for name, spec in template["Parameters"].items()}
    parameters.update(overrides)
    properties = template["Resources"][resource]["Properties"]
    return _resolve(properties, parameters, template.get("Conditions", {}))


def test_by_default_the_first_host_is_on_demand_and_the_others_on_spot(template: dict[str, Any]) -> None:
    service = _deployed(template, "SessionHostService")

    assert "LaunchType" not in service
    assert service["CapacityProviderStrategy"] == [
        {"CapacityProvider": "FARGATE", "Base": 1, "Weight": 0},
        {"CapacityProvider": "FARGATE_SPOT", "Weight": 1},
    ]
    assert service["DesiredCount"] >= 2


def test_spare_hosts_on_spot_false_runs_every_host_on_demand(template: dict[str, Any]) -> None:
    service = _deployed(template, "SessionHostService", SpareHostsOnSpot="false")

    assert service["LaunchType"] == "FARGATE"
    assert "CapacityProviderStrategy" not in service


@pytest.mark.parametrize(("value", "expected"), [(None, "disabled"), ("enabled", "enabled")])
def test_container_insights_follows_its_parameter(
    template: dict[str, Any], value: str | None, expected: str
) -> None:
    overrides = {} if value is None else {"ContainerInsights": value}
    cluster = _deployed(template, "SessionHostCluster", **overrides)

    assert {"Name": "containerInsights", "Value": expected} in cluster["ClusterSettings"]
    assert {"FARGATE", "FARGATE_SPOT"} <= set(cluster["CapacityProviders"])
