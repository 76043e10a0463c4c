"""What a function's cold start relies on: no AWS client made at import, and one botocore
session for every client of the process (a new session parses the service data again).

Each check runs in a fresh interpreter, as a Lambda cold start does: a test process has
long imported and used everything already. No AWS call is made: making a client calls
nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

API_HANDLERS = (
    "platform_api.handler",
    "users_api.handler",
    "devices_api.handler",
    "webhooks_api.handler",
    "messages_api.handler",
    "groups_api.handler",
)

# Counts every botocore session and client made from here on, then runs the check's body.
_COUNTING = """
import json, botocore.session

made = {"sessions": 0, "clients": []}
client_sessions = []  # the session each client was made from
init, create_client = botocore.session.Session.__init__, botocore.session.Session.create_client

def counting_init(self, *args, **kwargs):
    made["sessions"] += 1
    init(self, *args, **kwargs)

def counting_create_client(self, service_name, *args, **kwargs):
    made["clients"].append(service_name)
    client_sessions.append(id(self))
    return create_client(self, service_name, *args, **kwargs)

botocore.session.Session.__init__ = counting_init
botocore.session.Session.create_client = counting_create_client
"""


def run_fresh(body: str, **env: str) -> dict[str, Any]:
    """``body`` in a new interpreter after ``_COUNTING``; returns what it prints as JSON."""
    completed = subprocess.run(  # noqa: S603 - this interpreter, our own code
        [sys.executable, "-c", _COUNTING + body],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


# Libraries no API function needs before a route that uses them (an HTTP client for fetching
# media, the QR drawing, the X-Ray SDK where nothing is traced, pydantic-settings).
DEFERRED = ("requests", "segno", "aws_xray_sdk", "pydantic_settings")


@pytest.mark.parametrize("module", API_HANDLERS)
def test_importing_a_handler_makes_no_aws_client(module: str) -> None:
    # Given a fresh interpreter, outside Lambda (where Powertools traces nothing)
    # When the function's handler module is imported, as the Lambda runtime does at init
    made = run_fresh(
        f"import sys, {module}\n"
        f"made['loaded'] = [name for name in {DEFERRED!r} if name in sys.modules]\n"
        "print(json.dumps(made))"
    )

    # Then no botocore session or client exists yet, not even the X-Ray SDK's, and the
    # libraries of other routes are not loaded
    assert made == {"sessions": 0, "clients": [], "loaded": []}


def test_in_lambda_the_tracer_traces_and_makes_no_aws_client() -> None:
    # Given the Lambda environment with tracing on (POWERTOOLS_TRACE_DISABLED unset)
    env = {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "false"}

    # When a handler module is imported
    made = run_fresh(
        "import users_api.handler\n"
        "from aws_lambda_powertools import Tracer\n"
        "from gateway.observability import tracer\n"
        "made['tracer'] = isinstance(tracer, Tracer) and not tracer.disabled\n"
        "print(json.dumps(made))",
        **env,
    )

    # Then the tracer is Powertools' own, tracing, and the X-Ray recorder made no client
    assert made == {"sessions": 0, "clients": [], "tracer": True}


@pytest.mark.parametrize(
    "env",
    [
        {"POWERTOOLS_TRACE_DISABLED": "false"},  # outside Lambda
        {"LAMBDA_TASK_ROOT": "/var/task", "AWS_SAM_LOCAL": "true", "POWERTOOLS_TRACE_DISABLED": "false"},
        {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "true"},
    ],
    ids=["outside Lambda", "sam local", "turned off"],
)
def test_where_powertools_traces_nothing_handlers_stay_undecorated(env: dict[str, str]) -> None:
    # Given an environment where Powertools' Tracer traces nothing
    # When the observability module is imported
    made = run_fresh(
        "import sys\n"
        "from gateway.observability import tracer\n"
        "made['traced'] = type(tracer).__name__ != 'Untraced'\n"
        "made['xray'] = 'aws_xray_sdk.core' in sys.modules\n"
        "from aws_lambda_powertools import Tracer\n"
        "made['powertools_traces'] = not Tracer(service='probe').disabled\n"
        "print(json.dumps(made))",
        **env,
    )

    # Then nothing is traced and the X-Ray SDK was not even imported for it; Powertools' own
    # Tracer, made afterwards in the same environment, agrees that nothing is traced there
    assert made["traced"] is False
    assert made["xray"] is False
    assert made["powertools_traces"] is False


def test_every_client_of_a_process_comes_from_one_session() -> None:
    # Given a fresh interpreter with a function loaded, and DynamoDB mocked (moto)
    # When every model, the transactions, the bus, the media store, the idempotency store and
    # the master token's Secrets Manager client are used for the first time
    made = run_fresh(
        "import os\n"
        "for name in [n for n in os.environ if n.startswith('AWS_ENDPOINT_URL')]: del os.environ[name]\n"
        "import messages_api.handler\n"
        "from moto import mock_aws\n"
        "from gateway import aws, models\n"
        "from gateway.bus.queues import sqs_client\n"
        "from gateway.media.store import s3_client\n"
        "from gateway.models.base import GatewayModel, transaction_connection\n"
        "from gateway.web.idempotency import _store\n"
        "classes = [m for m in vars(models).values() if isinstance(m, type) "
        "and issubclass(m, GatewayModel) and m is not GatewayModel]\n"
        "made['models'] = len(classes)\n"
        "with mock_aws():\n"
        "    made['tables'] = sum(m.exists() for m in classes)\n"
        "    transaction_connection()\n"
        "    sqs_client(); s3_client(); _store(); aws.client('secretsmanager')\n"
        "made['client_sessions'] = len(set(client_sessions))\n"
        "print(json.dumps(made))"
    )

    # Then one session made every client: one DynamoDB client for all the models and the
    # transactions (the other is the idempotency store's)
    assert made["models"] >= 8
    assert made["tables"] == 0  # each model asked DynamoDB (moto), which has none of them
    assert made["client_sessions"] == 1
    assert sorted(made["clients"]) == ["dynamodb", "dynamodb", "s3", "secretsmanager", "sqs"]
