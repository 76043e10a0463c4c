"""One cold start, in a fresh interpreter started by ``bench.coldstart``.

    python bench/_probe.py bare
    python bench/_probe.py <handler module> '<API Gateway event as JSON>' [--clients]

``bare`` imports only the libraries every function loads; otherwise the function's handler
module is imported and called once with the event, as the Lambda runtime would. Prints one
line, ``MARKER`` followed by a JSON result, to stdout (the function's own log lines may come
before it). Times are ``perf_counter`` differences from the first line of this script;
``cpu_ms`` is the interpreter's CPU time (user + system) from its start to the answer.
With ``--clients`` (a separate, untimed run), the botocore clients created while importing
the handler module and while answering the request are counted and timed too.
"""

import time

STARTED = time.perf_counter()

import importlib  # noqa: E402 - imported after the clock starts, on purpose
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from types import SimpleNamespace  # noqa: E402

MARKER = "@@bench-result@@ "
BARE_IMPORTS = ("fastapi", "mangum", "boto3", "pynamodb", "aws_lambda_powertools")


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _cpu_ms() -> float:
    """CPU time (user + system) of this interpreter since it started."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) * 1000


def _count_clients() -> dict[str, float]:
    """Count and time every botocore client creation from now on."""
    import botocore.session

    totals = {"count": 0, "ms": 0.0}
    create_client = botocore.session.Session.create_client

    def counting(session, *args, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return create_client(session, *args, **kwargs)
        finally:
            totals["count"] += 1
            totals["ms"] += _ms(started)

    botocore.session.Session.create_client = counting  # type: ignore[method-assign]
    return totals


def main() -> None:
    mode = sys.argv[1]
    if mode == "bare":
        for name in BARE_IMPORTS:
            importlib.import_module(name)
        result = {"import_ms": _ms(STARTED), "total_ms": _ms(STARTED), "cpu_ms": _cpu_ms()}
    else:
        event = json.loads(sys.argv[2])
        clients = _count_clients() if "--clients" in sys.argv[3:] else None
        module = importlib.import_module(mode)
        import_ms = _ms(STARTED)
        at_import = dict(clients) if clients is not None else None
        function_name = mode.split("_", 1)[0].capitalize() + "Function"
        context = SimpleNamespace(
            function_name=function_name,
            memory_limit_in_mb=512,
            invoked_function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}",
            aws_request_id="00000000-0000-4000-8000-000000000000",
        )
        response = module.handler(event, context)
        result = {
            "import_ms": import_ms,
            "total_ms": _ms(STARTED),
            "cpu_ms": _cpu_ms(),
            "status": response["statusCode"],
            "body": response["body"][:200],
        }
        if clients is not None and at_import is not None:
            result["import_clients"], result["import_client_ms"] = at_import["count"], at_import["ms"]
            result["request_clients"] = clients["count"] - at_import["count"]
            result["request_client_ms"] = clients["ms"] - at_import["ms"]
    print(MARKER + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
