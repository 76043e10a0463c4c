"""The template's limits (docs/security.md, "Limits"): the HTTP API's throttling, and the
concurrency caps that keep held sends and webhook deliveries from taking the account's Lambda
concurrency from everything else; each set by a parameter, with defaults pinned here."""

from __future__ import annotations

from typing import Any

import pytest
from template_steps import deployed


def test_the_http_api_is_throttled_by_its_parameters(template: dict[str, Any]) -> None:
    api = deployed(template, "HttpApi", ApiThrottlingRateLimit="50", ApiThrottlingBurstLimit="75")
    assert api["DefaultRouteSettings"] == {"ThrottlingRateLimit": "50", "ThrottlingBurstLimit": "75"}
    defaults = deployed(template, "HttpApi")["DefaultRouteSettings"]
    assert (defaults["ThrottlingRateLimit"], defaults["ThrottlingBurstLimit"]) == ("1000", "2000")


def test_held_sends_have_a_reserved_concurrency_of_their_own(template: dict[str, Any]) -> None:
    assert deployed(template, "MessagesFunction")["ReservedConcurrentExecutions"] == "200"
    assert (
        deployed(template, "MessagesFunction", MessagesConcurrency="40")["ReservedConcurrentExecutions"]
        == "40"
    )
    assert "ReservedConcurrentExecutions" not in deployed(
        template, "MessagesFunction", MessagesConcurrency="0"
    )


@pytest.mark.parametrize("cap", ["20", "5"])
def test_the_delivery_function_is_capped_as_much_as_its_event_source_feeds_it(
    template: dict[str, Any], cap: str
) -> None:
    overrides = {} if cap == "20" else {"DeliveryConcurrency": cap}
    function = deployed(template, "WebhookDeliveryFunction", **overrides)
    assert function["ReservedConcurrentExecutions"] == cap
    (source,) = function["Events"].values()
    assert source["Properties"]["ScalingConfig"] == {"MaximumConcurrency": cap}


def test_a_delivery_cap_of_zero_caps_nothing(template: dict[str, Any]) -> None:
    function = deployed(template, "WebhookDeliveryFunction", DeliveryConcurrency="0")
    assert "ReservedConcurrentExecutions" not in function
    (source,) = function["Events"].values()
    assert "ScalingConfig" not in source["Properties"]


def test_the_cap_reaches_the_deployed_event_source_mapping(transformed: dict[str, Any]) -> None:
    (mapping,) = [
        resource["Properties"]
        for resource in transformed["Resources"].values()
        if resource["Type"] == "AWS::Lambda::EventSourceMapping"
        and resource["Properties"]["FunctionName"] == {"Ref": "WebhookDeliveryFunction"}
    ]
    assert mapping["ScalingConfig"] == {
        "Fn::If": [
            "CapDeliveryConcurrency",
            {"MaximumConcurrency": {"Ref": "DeliveryConcurrency"}},
            {"Ref": "AWS::NoValue"},
        ]
    }


@pytest.mark.parametrize("cap", ["5", "2"])
def test_the_slow_lane_has_instances_of_its_own(template: dict[str, Any], cap: str) -> None:
    # Given the slow lane's function, deployed with its default cap or another
    overrides = {} if cap == "5" else {"SlowDeliveryConcurrency": cap}
    function = deployed(template, "SlowWebhookDeliveryFunction", **overrides)
    # Then its reserved concurrency and its event source (the slow events queue) both take it,
    # so slow receivers hold these instances and never the main delivery function's
    assert function["ReservedConcurrentExecutions"] == cap
    (source,) = function["Events"].values()
    assert source["Properties"]["Queue"] == {"Fn::GetAtt": ["SlowEventsQueue", "Arn"]}
    assert source["Properties"]["ScalingConfig"] == {"MaximumConcurrency": cap}
    assert function["Handler"] == deployed(template, "WebhookDeliveryFunction")["Handler"]
