"""Every log of the gateway expires: each function writes to a group of its own (not the
default group Lambda creates with no expiry), and every group keeps its logs the days of one
parameter, the session host's and the API's access log included."""

from __future__ import annotations

from typing import Any

from template_steps import resources_of_type

RETENTION = {"Ref": "LogRetentionDays"}


def test_the_retention_parameter_defaults_to_30_days(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["LogRetentionDays"]
    assert (parameter["Type"], parameter["Default"]) == ("Number", 30)
    assert 30 in parameter["AllowedValues"]
    assert 365 in parameter["AllowedValues"]


def test_every_log_group_keeps_its_logs_the_parameters_days(template: dict[str, Any]) -> None:
    groups = resources_of_type(template, "AWS::Logs::LogGroup")
    assert groups
    assert {
        name: group["Properties"].get("RetentionInDays") for name, group in groups.items()
    } == dict.fromkeys(groups, RETENTION)


def test_every_function_logs_to_a_group_of_the_template(template: dict[str, Any]) -> None:
    # Given every function and the template's log groups
    functions = resources_of_type(template, "AWS::Serverless::Function")
    groups = resources_of_type(template, "AWS::Logs::LogGroup")
    # When each function's log group is read
    used = [
        function["Properties"].get("LoggingConfig", {}).get("LogGroup") for function in functions.values()
    ]
    # Then each names a group of its own that the template makes (and so expires)
    assert all(group is not None and group["Ref"] in groups for group in used), used
    assert len({group["Ref"] for group in used}) == len(functions)


def test_the_host_and_the_api_log_to_groups_of_the_template(template: dict[str, Any]) -> None:
    task = template["Resources"]["SessionHostTaskDefinition"]["Properties"]
    (container,) = task["ContainerDefinitions"]
    assert container["LogConfiguration"]["Options"]["awslogs-group"] == {"Ref": "SessionHostLogGroup"}
    access = template["Resources"]["HttpApi"]["Properties"]["AccessLogSettings"]
    assert "${HttpApiAccessLogGroup}" in access["DestinationArn"]["Fn::Sub"]
    # An access log line says who called which route and how it ended, never a header or body
    assert "$context.requestId" in access["Format"]
    assert "header" not in access["Format"].lower()
    assert "body" not in access["Format"].lower()
