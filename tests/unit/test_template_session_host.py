"""The session host's ECS task in the template: its stop timeout leaves room for the host's
SIGTERM budget, and its worker processes are set and valid."""

from __future__ import annotations

from typing import Any

from session_host.config import SUPERVISOR_KILL_SECONDS, WORKER_STOP_SECONDS, HostSettings

SUPERVISOR_MB = 36
"""The supervisor process's resident memory, measured (docs/session-host.md)."""
DESCRIPTORS_PER_DIALING_SESSION = 3
"""Measured on the real library (bench/README.md, "Real-library sessions")."""
SIGTERM_BUDGET = 20.0
"""The host is gone within this many seconds of SIGTERM (decisions, "Sessions on the real network")."""


def _container(template: dict[str, Any]) -> dict[str, Any]:
    task = template["Resources"]["SessionHostTaskDefinition"]["Properties"]
    (container,) = [c for c in task["ContainerDefinitions"] if c["Name"] == "session-host"]
    return container


def test_the_stop_timeout_leaves_room_for_the_hosts_sigterm_budget(template: dict[str, Any]) -> None:
    # Given the host's own deadlines: a worker's clean stop, then the supervisor's kill
    assert WORKER_STOP_SECONDS < SUPERVISOR_KILL_SECONDS < SIGTERM_BUDGET

    # When the container's stop timeout is read
    stop_timeout = _container(template)["StopTimeout"]

    # Then ECS's SIGKILL comes well after the host is gone, within Fargate's maximum
    assert SIGTERM_BUDGET + 5 <= stop_timeout <= 120


def test_the_host_runs_worker_processes_under_an_init_process(template: dict[str, Any]) -> None:
    # Given the container definition
    container = _container(template)
    environment = {item["Name"]: item["Value"] for item in container["Environment"]}

    # Then neonize runs in more than one worker process, a value the host's settings accept
    assert environment["NETWORK_ADAPTER"] == "neonize"
    settings = HostSettings(session_workers=environment["SESSION_WORKERS"])
    assert settings.workers >= 2
    # And an init process reaps what killed workers leave behind and forwards SIGTERM
    assert container["LinuxParameters"]["InitProcessEnabled"] is True


def test_the_workers_session_and_memory_budgets_fit_the_tasks_memory(template: dict[str, Any]) -> None:
    # Given the task's memory and the container's settings, read as the host reads them
    task = template["Resources"]["SessionHostTaskDefinition"]["Properties"]
    container = _container(template)
    environment = {item["Name"]: item["Value"] for item in container["Environment"]}
    settings = HostSettings(
        session_workers=environment["SESSION_WORKERS"],
        max_sessions=environment["MAX_SESSIONS"],
        memory_budget_mb=environment["SESSION_MEMORY_BUDGET_MB"],
    )

    # Then every worker has a session limit and a memory budget, and all of them at their
    # budget fit in the task beside the supervisor
    assert settings.max_sessions is not None
    assert settings.memory_budget_mb is not None
    assert settings.workers * settings.memory_budget_mb + SUPERVISOR_MB <= int(task["Memory"])
    # And descriptors are not what stops a worker first: the limit is set, and a worker's
    # sessions dialing (about 3 descriptors each) stay far below its recycling budget
    (nofile,) = [limit for limit in container["Ulimits"] if limit["Name"] == "nofile"]
    assert (
        settings.max_sessions * DESCRIPTORS_PER_DIALING_SESSION
        < settings.descriptor_budget * nofile["SoftLimit"]
    )


def test_the_host_follows_the_same_plain_http_setting_as_the_api(template: dict[str, Any]) -> None:
    # Given the functions' environment and the session host container's
    functions_env = template["Globals"]["Function"]["Environment"]["Variables"]
    container_env = {item["Name"]: item["Value"] for item in _container(template)["Environment"]}
    # When the plain-HTTP setting of each is read
    # Then both come from the one parameter: a media url the API takes is one the host fetches
    assert functions_env["ALLOW_HTTP_WEBHOOKS"] == {"Ref": "AllowHttpWebhooks"}
    assert container_env["ALLOW_HTTP_WEBHOOKS"] == {"Ref": "AllowHttpWebhooks"}
