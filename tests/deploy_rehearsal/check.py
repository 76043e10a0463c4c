"""The rehearsal's verdict: the recorded requests evaluated against the deployed roles.

Findings, each a line a reader can act on:

- a request the principal's role does not allow (evaluated by ``@cloud-copilot/iam-simulate``,
  a real IAM policy evaluator: :mod:`deploy_rehearsal.simulator`), or one it cannot evaluate
  (an action or resource type that does not exist, as a missing call mapping would give);
- a resource named by a variable the template does not set for that principal, or by none;
- with the whole suite run (``complete``): a grant (an action on a resource pattern of a
  statement) no request used, unless its line in template.yaml, or the line above it, is a
  comment saying why it is there; and a managed policy of the template no role attaches.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlparse

from deploy_rehearsal.deployment import ACCOUNT, REGION, Deployment, Statement
from deploy_rehearsal.recording import ANY_RESOURCE, Request, in_order
from deploy_rehearsal.simulator import Evaluation, simulate

Grant = tuple[str, str, str]  # (statement, action pattern, resource pattern)


@dataclass
class Verdict:
    requests: int = 0
    denied: list[str] = field(default_factory=list)
    unnamed: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    explained: list[str] = field(default_factory=list)  # unused, with the comment saying why

    @property
    def findings(self) -> list[str]:
        return [*self.denied, *self.unnamed, *self.unused]


def arn_of(request: Request, deployment: Deployment) -> str:
    """The ARN the request's resource has when deployed, from the variable that named it in
    the principal's environment; raises :class:`Unnamed` when the template does not set it."""
    resource = request.resource
    if resource.kind == ANY_RESOURCE:
        return ANY_RESOURCE
    if resource.variable is None:
        raise Unnamed(f"{resource.kind} {resource.name!r}: no variable the template sets names it")
    value = deployment.environment(request.principal).get(resource.variable)
    if not isinstance(value, str):
        raise Unnamed(f"{resource.variable} (names {resource.kind} {resource.name!r}) is not set for it")
    if resource.kind == "table":
        return f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{value}{resource.suffix}"
    if resource.kind == "queue":
        name = urlparse(value).path.rsplit("/", 1)[-1] if "://" in value else value
        return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}{resource.suffix}"
    if resource.kind in ("bucket", "object"):
        return f"arn:aws:s3:::{value}{resource.suffix}"
    return value  # a secret: its variable holds its ARN


class Unnamed(Exception):
    """A request's resource has no deployed name in its principal's environment."""


def _describe(request: Request, arn: str) -> str:
    return f"{request.principal}: {request.action} on {arn} ({request.operation})"


REPLY_QUEUES = "-r-"
"""What follows the dynamic queue prefix in the name of an API process's reply queue."""


def per_container(requests: Iterable[Request]) -> set[Request]:
    """``requests``, and the calls each function makes once per container on its own reply queue.

    Deployed, every function that sends commands creates (and marks) a reply queue of its own
    on its first command, and receives its replies there. The local stack's functions share one
    process, so one reply queue, which whichever function sent the first command created: each
    function that receives from it is credited with what any of them did to it (the session
    hosts' calls on it, their replies and sweeps, stay theirs).
    """
    requests = set(requests)
    reply_queues = [
        r for r in requests if r.resource.kind == "queue" and r.resource.suffix.startswith(REPLY_QUEUES)
    ]
    owners = {(r.principal, r.resource) for r in reply_queues if r.action == "sqs:ReceiveMessage"}
    by_owners = [r for r in reply_queues if (r.principal, r.resource) in owners]
    return requests | {
        Request(principal, r.action, r.resource, r.operation)
        for principal, resource in owners
        for r in by_owners
        if r.resource == resource
    }


def check(requests: Iterable[Request], deployment: Deployment, *, complete: bool) -> Verdict:
    verdict = Verdict()
    named: list[tuple[Request, str]] = []
    for request in in_order(per_container(requests)):
        if request.principal not in deployment.roles:
            verdict.unnamed.append(f"{request.principal}: not a principal of the template")
            continue
        try:
            named.append((request, arn_of(request, deployment)))
        except Unnamed as error:
            verdict.unnamed.append(f"{request.principal}: {request.operation}: {error}")
    verdict.requests = len(named)
    statements = {p: deployment.statements(p) for p in deployment.roles}
    evaluations = simulate(deployment, statements, [(r.principal, r.action, arn) for r, arn in named])
    used: set[Grant] = set()
    for (request, arn), evaluation in zip(named, evaluations, strict=True):
        if evaluation.result != "Allowed":
            verdict.denied.append(f"{_describe(request, arn)}: {_why(evaluation)}")
        used |= {
            (grant.policy, action, resource)
            for grant in evaluation.grants
            for action in grant.actions
            for resource in grant.resources
        }
    if complete:
        for principal_statements in statements.values():
            _unused(principal_statements, used, deployment, verdict)
        verdict.unused += _unattached_policies(deployment)
    return verdict


def _why(evaluation: Evaluation) -> str:
    if evaluation.result == "Error":
        return f"cannot be evaluated: {evaluation.errors}"
    return f"{evaluation.result} by the role"


def _unused(statements: list[Statement], used: set[Grant], deployment: Deployment, verdict: Verdict) -> None:
    """Each grant no request used, under its action's line: explained when its action's line
    or its resource's line says why (a comment on it, or right above it)."""
    unused: dict[tuple[str, int, bool], list[str]] = defaultdict(list)
    for statement in statements:
        for action in statement.actions:
            for resource in statement.resources:
                if (statement.policy, action, resource) in used:
                    continue
                line = statement.lines[action]
                explained = deployment.commented(line) or deployment.commented(
                    statement.resource_lines[resource]
                )
                unused[(statement.policy, line, explained)].append(f"{action} on {resource}")
    for (policy, line, explained), grants in unused.items():
        text = f"{policy} (template.yaml line {line + 1}): no call used {', '.join(grants)}"
        (verdict.explained if explained else verdict.unused).append(text)


def _unattached_policies(deployment: Deployment) -> list[str]:
    resources = deployment.transformed["Resources"]
    attached = {
        arn["Ref"]
        for resource in resources.values()
        if resource["Type"] == "AWS::IAM::Role"
        for arn in resource["Properties"].get("ManagedPolicyArns", [])
        if isinstance(arn, dict) and "Ref" in arn
    }
    return [
        f"{name}: a managed policy no role attaches"
        for name, resource in resources.items()
        if resource["Type"] == "AWS::IAM::ManagedPolicy" and name not in attached
    ]
