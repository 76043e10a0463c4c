"""Every environment variable the code reads is set for its function or task in template.yaml,
and nothing set there is unread (the deploy rehearsal's environment half; the resources each
recorded call names are checked per caller at the end of the run, deploy_rehearsal.check)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from deploy_rehearsal.deployment import Deployment
from deploy_rehearsal.environment import LAMBDA_PROVIDED, provided, reads


@pytest.fixture(scope="module")
def deployment() -> Deployment:
    return Deployment()


def _reads(deployment: Deployment, principal: str) -> set[str]:
    return {read.variable for read in reads(principal, deployment.handler_package(principal))}


def test_every_variable_the_template_sets_is_read_by_the_code(deployment: Deployment) -> None:
    # Given each function's and the session host task's environment in the template
    # When the variables its code reads are taken away
    unread = {
        principal: sorted(set(deployment.environment(principal)) - _reads(deployment, principal))
        for principal in deployment.roles
    }
    # Then nothing is left: no variable is set for nothing
    assert not any(unread.values()), unread


def test_every_variable_read_without_a_default_is_set(deployment: Deployment) -> None:
    # Given what each principal's code reads with no default to fall back on
    unset = {
        principal: sorted(
            f"{read.variable} ({read.where})"
            for read in reads(principal, deployment.handler_package(principal))
            if read.required
            and read.variable not in deployment.environment(principal)
            and read.variable not in provided(principal)
        )
        for principal in deployment.roles
    }
    # Then the template (or the platform) sets each for it
    assert not any(unset.values()), unset


def test_no_function_sets_a_variable_lambda_reserves(deployment: Deployment) -> None:
    # Lambda refuses to deploy a function whose environment names one of its own variables
    reserved = {
        principal: sorted(set(deployment.environment(principal)) & LAMBDA_PROVIDED)
        for principal in deployment.roles
        if deployment.handler_package(principal) is not None
    }
    assert not any(reserved.values()), reserved


_OBSERVED = """
import json, logging
from gateway.observability import logger, metrics
print(json.dumps({
    "POWERTOOLS_SERVICE_NAME": [logger.service, metrics.service],
    "POWERTOOLS_METRICS_NAMESPACE": [metrics.namespace],
    "POWERTOOLS_LOG_LEVEL": [logging.getLevelName(logger.log_level)],
}))
"""


def _observed(environment: dict[str, Any]) -> dict[str, list[Any]]:
    """What the Powertools singletons are configured as, in a process with ``environment``."""
    variables = {name: value for name, value in environment.items() if isinstance(value, str)}
    completed = subprocess.run(  # noqa: S603 - this interpreter, on code of this repository
        [sys.executable, "-c", _OBSERVED],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path), **variables},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(completed.stdout)  # type: ignore[no-any-return]


def test_the_powertools_variables_the_template_sets_take_effect(deployment: Deployment) -> None:
    # Given each distinct Powertools configuration the template gives (the functions', the host's)
    configurations = {
        json.dumps(
            {k: v for k, v in deployment.environment(p).items() if k.startswith("POWERTOOLS_")},
            sort_keys=True,
        )
        for p in deployment.roles
    }
    ignored = []
    for configuration in map(json.loads, configurations):
        # When a process starts with it and makes the gateway's Logger and Metrics
        observed = _observed(configuration)
        # Then each variable set is what they use (a value passed in code would win over it)
        ignored += [
            f"{name}={value!r}, but {observed.get(name, 'nothing known to read it')}"
            for name, value in configuration.items()
            if observed.get(name) is None or any(seen != value for seen in observed[name])
        ]
    assert not ignored, ignored
