"""The template's two cost options (docs/cost.md): what each value deploys, and the defaults.

The defaults are what `sam deploy --guided` offers a newcomer, and the bill of docs/cost.md is
computed at them, so they are pinned here.
"""

from __future__ import annotations

from typing import Any

import pytest
from template_steps import deployed


def test_by_default_the_first_host_is_on_demand_and_the_others_on_spot(template: dict[str, Any]) -> None:
    service = deployed(template, "SessionHostService")

    assert "LaunchType" not in service
    assert service["CapacityProviderStrategy"] == [
        {"CapacityProvider": "FARGATE", "Base": 1, "Weight": 0},
        {"CapacityProvider": "FARGATE_SPOT", "Weight": 1},
    ]
    assert service["DesiredCount"] >= 2


def test_spare_hosts_on_spot_false_runs_every_host_on_demand(template: dict[str, Any]) -> None:
    service = deployed(template, "SessionHostService", SpareHostsOnSpot="false")

    assert service["LaunchType"] == "FARGATE"
    assert "CapacityProviderStrategy" not in service


@pytest.mark.parametrize(("value", "expected"), [(None, "disabled"), ("enabled", "enabled")])
def test_container_insights_follows_its_parameter(
    template: dict[str, Any], value: str | None, expected: str
) -> None:
    overrides = {} if value is None else {"ContainerInsights": value}
    cluster = deployed(template, "SessionHostCluster", **overrides)

    assert {"Name": "containerInsights", "Value": expected} in cluster["ClusterSettings"]
    assert {"FARGATE", "FARGATE_SPOT"} <= set(cluster["CapacityProviders"])
