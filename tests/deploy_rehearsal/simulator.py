"""IAM requests evaluated by ``@cloud-copilot/iam-simulate`` (npm, run with node).

A real evaluator of identity policies (wildcards, conditions, the actions and resource types
each service has, from AWS's Service Authorization Reference), rather than one written here.
``make test`` installs it from ``iam/package-lock.json`` (``npm ci``); :func:`simulate` runs all
requests in one node process (``iam/simulate.mjs``). Each statement is given to it as a policy
of its own, so the statements that allowed a request name exactly the grants it used.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deploy_rehearsal.deployment import ACCOUNT, Deployment, Statement

IAM_DIR = Path(__file__).parent / "iam"
INSTALL_HINT = (
    "`make test` installs it (npm ci --prefix tests/deploy_rehearsal/iam; node from Debian's nodejs)"
)


class EvaluatorMissing(RuntimeError):
    """node or the evaluator's package is not installed."""


@dataclass(frozen=True)
class Grant:
    """A statement that allowed a request, with the action and resource patterns that matched."""

    policy: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]


@dataclass(frozen=True)
class Evaluation:
    result: str  # Allowed, ImplicitlyDenied, ExplicitlyDenied, or Error
    errors: Any
    grants: tuple[Grant, ...]


def simulate(
    deployment: Deployment,
    statements: dict[str, list[Statement]],
    requests: list[tuple[str, str, str]],
) -> list[Evaluation]:
    """Each (principal, action, resource ARN) evaluated against the principal's statements."""
    node = shutil.which("node")
    if node is None or not (IAM_DIR / "node_modules" / "@cloud-copilot" / "iam-simulate").is_dir():
        raise EvaluatorMissing(f"the IAM evaluator is not installed: {INSTALL_HINT}")
    policies = {
        statement.policy: {"Version": "2012-10-17", "Statement": [statement.document]}
        for principal_statements in statements.values()
        for statement in principal_statements
    }
    payload = {
        "account": ACCOUNT,
        "roles": {principal: deployment.role_arn(principal) for principal in statements},
        "policies": policies,
        "grants": {
            p: [s.policy for s in principal_statements] for p, principal_statements in statements.items()
        },
        "requests": [{"principal": p, "action": a, "resource": r} for p, a, r in requests],
    }
    completed = subprocess.run(  # noqa: S603 - node and a script of this repository
        [node, str(IAM_DIR / "simulate.mjs")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=IAM_DIR,
        timeout=300,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"the IAM evaluator failed: {completed.stderr.strip()[-2000:]}")
    return [
        Evaluation(
            item["result"],
            item["errors"],
            tuple(Grant(g["policy"], tuple(g["actions"]), tuple(g["resources"])) for g in item["grants"]),
        )
        for item in json.loads(completed.stdout)
    ]
