"""The rehearsal's verdict on a small template: calls the role denies, resources no variable of
the caller names, grants nothing used and no comment explains, policies no role attaches. The
requests are evaluated by the real evaluator (iam-simulate, installed by `make test`)."""

from __future__ import annotations

import pytest

from deploy_rehearsal.check import Verdict, check, per_container
from deploy_rehearsal.deployment import Deployment
from deploy_rehearsal.recording import Request, Resource

TEMPLATE = """
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
      KeySchema: [{AttributeName: id, KeyType: HASH}]
  Queue:
    Type: AWS::SQS::Queue
  Unattached:
    Type: AWS::IAM::ManagedPolicy
    Properties:
      PolicyDocument:
        Version: "2012-10-17"
        Statement:
          - Effect: Allow
            Action: dynamodb:Scan
            Resource: !GetAtt Table.Arn
  Function:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: src
      Handler: app.handler.handler
      Runtime: python3.11
      Environment:
        Variables:
          TABLE: !Ref Table
          QUEUE_URL: !Ref Queue
      Policies:
        - SQSSendMessagePolicy:
            QueueName: !GetAtt Queue.QueueName
        - Statement:
            - Sid: Reads
              Effect: Allow
              Action: [dynamodb:GetItem, dynamodb:Query]
              Resource:
                - !GetAtt Table.Arn
                - !Sub ${Table.Arn}/index/*  # the nightly report gets items of its indexes
            - Sid: Writes
              Effect: Allow
              Action:
                # the nightly import puts items, which the suite does not run
                - dynamodb:PutItem
                - dynamodb:DeleteItem
              Resource: !GetAtt Table.Arn
"""


def _request(action: str, variable: str, suffix: str = "", kind: str = "table") -> Request:
    return Request("Function", action, Resource(kind, variable, "local-name", suffix), "test")


@pytest.fixture(scope="module")
def verdict() -> Verdict:
    # Given a function that reads by key and by index, sends to its queue, and calls out of bounds
    requests = [
        _request("dynamodb:GetItem", "TABLE"),
        _request("dynamodb:Query", "TABLE", "/index/by_name"),
        _request("sqs:SendMessage", "QUEUE_URL", kind="queue"),
        _request("dynamodb:UpdateItem", "TABLE"),  # not granted
        _request("dynamodb:GetObject", "TABLE"),  # no such action: a call mapped wrongly
        _request("dynamodb:GetItem", "OTHER_TABLE"),  # a variable the template does not set
    ]
    # When the rehearsal judges them against the template, as after a complete run
    return check(requests, Deployment(TEMPLATE), complete=True)


def test_a_call_the_role_does_not_allow_is_denied(verdict: Verdict) -> None:
    assert [line.split(" on ")[0] for line in verdict.denied] == [
        "Function: dynamodb:GetObject",
        "Function: dynamodb:UpdateItem",
    ]
    assert "cannot be evaluated" in verdict.denied[0]  # the evaluator knows DynamoDB's actions
    assert "ImplicitlyDenied" in verdict.denied[1]


def test_a_resource_named_by_a_variable_the_caller_lacks_is_a_finding(verdict: Verdict) -> None:
    assert len(verdict.unnamed) == 1
    assert "OTHER_TABLE" in verdict.unnamed[0]


def test_a_grant_no_call_used_needs_its_comment(verdict: Verdict) -> None:
    # Then PutItem is explained by the comment above it, DeleteItem is not; Query on the table
    # and GetItem on the indexes are grants too, and unused
    unused = "\n".join(verdict.unused)
    assert "dynamodb:DeleteItem on arn:aws:dynamodb" in unused
    assert "dynamodb:PutItem" not in unused
    assert any("dynamodb:PutItem" in line for line in verdict.explained)
    assert (
        "dynamodb:Query on arn:aws:dynamodb:us-east-1:123456789012:table/messaging-gateway-Table-" in unused
    )
    assert "sqs:SendMessage" not in unused  # the policy template's grant was used
    # and a comment on a resource's line explains the unused grants on that resource
    assert any(
        "dynamodb:GetItem on arn:aws:dynamodb" in line and "/index/*" in line for line in verdict.explained
    )
    assert "/index/*" not in unused


def test_a_managed_policy_no_role_attaches_is_a_finding(verdict: Verdict) -> None:
    assert "Unattached: a managed policy no role attaches" in verdict.unused


def test_a_partial_run_judges_calls_but_not_grants() -> None:
    requests = [_request("dynamodb:GetItem", "TABLE")]
    partial = check(requests, Deployment(TEMPLATE), complete=False)
    assert (partial.requests, partial.findings) == (1, [])


def test_a_function_waiting_on_the_shared_reply_queue_is_credited_with_making_it() -> None:
    # Given the local stack's one reply queue, created by the devices function's first command
    queue = Resource("queue", "DYNAMIC_QUEUE_PREFIX", "test-dq", "-r-x")
    made = Request("DevicesFunction", "sqs:CreateQueue", queue, "sqs.CreateQueue")
    waited = [
        Request(principal, "sqs:ReceiveMessage", queue, "sqs.ReceiveMessage")
        for principal in ("DevicesFunction", "GroupsFunction")
    ]
    replied = Request("SessionHostTask", "sqs:SendMessage", queue, "sqs.SendMessage")
    other = Request("UsersFunction", "dynamodb:GetItem", Resource("table", "TABLE", "t"), "dynamodb.GetItem")
    # When the calls are counted per container
    credited = per_container([made, *waited, replied, other])
    # Then the groups function, which waits on it, makes it in its own container; users does not,
    # and the host's reply stays the host's
    assert Request("GroupsFunction", "sqs:CreateQueue", queue, "sqs.CreateQueue") in credited
    assert {r.principal for r in credited if r.resource == queue} == {
        "DevicesFunction",
        "GroupsFunction",
        "SessionHostTask",
    }
    assert {r.action for r in credited if r.principal == "GroupsFunction"} == {
        "sqs:CreateQueue",
        "sqs:ReceiveMessage",
    }
