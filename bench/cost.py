"""What a device costs: the monthly AWS bill of N connected devices, from measured requests.

    .venv/bin/python -m bench.cost                       # 1,000 devices, the profile below
    .venv/bin/python -m bench.cost --devices 5000 --sent 100 --received 300

The traffic-driven part is measured (``bench/_cost_measure.py``): one send through the
messages function, one message received by the device and each resulting webhook delivery,
run against moto with the real handlers and a real session host, every AWS call billed as
DynamoDB, SQS and S3 bill it, and the functions' durations timed. The periodic part (lease
renewals, takeover passes, the send dispatcher's poll, queue polls) follows from the code's
own intervals, imported here, so the bill changes when the code does. Capacity comes from
the template (task size and count, function memory and batch size).

Every price is a us-east-1 list price (USD), in ``PRICES``; every assumption that is not
measured is in ``Profile`` or ``ASSUMED``, with its reason. docs/cost.md shows one run.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, fields, replace

from bench._cost_bill import Bill
from bench._cost_measure import Measured, measure

MONTH_HOURS = 730.0
MONTH_SECONDS = MONTH_HOURS * 3600
DAYS = 30.4

# us-east-1 list prices, USD (Linux/x86 Fargate; DynamoDB on-demand, standard table class).
PRICES = {
    "fargate_vcpu_hour": 0.04048,
    "fargate_gb_hour": 0.004445,
    "fargate_spot_vcpu_hour": 0.01246,  # Spot prices move; a recent us-east-1 figure
    "fargate_spot_gb_hour": 0.00137,
    "public_ipv4_hour": 0.005,
    "efs_gb_month": 0.30,  # Standard storage
    "efs_write_gb": 0.06,  # Elastic throughput
    "efs_read_gb": 0.03,
    "dynamodb_million_wru": 0.625,
    "dynamodb_million_rru": 0.125,
    "dynamodb_gb_month": 0.25,
    "sqs_million_requests": 0.40,
    "lambda_gb_second": 0.0000166667,
    "lambda_million_requests": 0.20,
    "http_api_million_requests": 1.00,
    "s3_thousand_put": 0.005,
    "s3_thousand_get": 0.0004,
    "s3_gb_month": 0.023,
    "logs_ingest_gb": 0.50,
    "metric_month": 0.30,
    "xray_million_traces": 5.00,
    "transfer_out_gb": 0.09,
}

# Not measurable on this machine (no real network, no AWS): each with its reason.
ASSUMED = {
    # neonize keeps a whatsmeow store per device (keys, sessions, app state): some hundred KB
    # to a few MB for an active account; the simulated network's store is far smaller.
    "session_store_mb_per_device": 2.0,
    # whatsmeow writes ratchet and sender-key state for every message sent or received.
    "session_store_write_kb_per_message": 4.0,
    # The SQS event source mapping keeps about five long polls (20 s) open per queue.
    "esm_pollers": 5,
    # Lambda's own START/END/REPORT lines per invocation, on top of the function's log.
    "lambda_platform_log_bytes": 350,
    # Items kept: devices, tokens, users, webhook configs and 90 days of sends (~1 KB each).
    "dynamodb_gb": 1.0,
    # Container Insights on the hosts' cluster, when enabled: CPU, memory, network, storage and
    # task counts for the cluster, the service and the task family, custom metrics billed per
    # metric. (The delivery function's own outcome counts are counted from the code.)
    "container_insights_metrics": 26,
}


@dataclass
class Profile:
    """A day of one device: what it sends and receives. Events follow from the measurement."""

    devices: int = 1000
    sent_per_day: float = 20.0  # texts sent through POST /send/text
    received_per_day: float = 100.0  # messages other people send to it
    typing_seconds: float = 3.0  # the send's default typingDuration: the request is held for it
    devices_per_host: int = 1000  # bench/hosts measures 1,000 on one host


@dataclass
class Template:
    task_vcpu: float
    task_gb: float
    tasks: int
    function_gb: float
    delivery_gb: float
    delivery_batch: int
    spare_hosts_on_spot: bool
    container_insights: bool


def read_template() -> Template:
    from local_stack.template import load_template

    template = load_template()
    resources = template["Resources"]
    globals_memory = template.get("Globals", {}).get("Function", {}).get("MemorySize", 128)
    task = resources["SessionHostTaskDefinition"]["Properties"]
    service = resources["SessionHostService"]["Properties"]
    delivery = resources["WebhookDeliveryFunction"]["Properties"]
    source = next(iter(delivery["Events"].values()))["Properties"]
    return Template(
        task_vcpu=int(task["Cpu"]) / 1024,
        task_gb=int(task["Memory"]) / 1024,
        tasks=int(service["DesiredCount"]),
        function_gb=globals_memory / 1024,
        delivery_gb=delivery.get("MemorySize", globals_memory) / 1024,
        delivery_batch=int(source["BatchSize"]),
        spare_hosts_on_spot=template["Parameters"]["SpareHostsOnSpot"]["Default"] == "true",
        container_insights=template["Parameters"]["ContainerInsights"]["Default"] == "enabled",
    )


def periodic(devices: int, hosts: int) -> Bill:
    """A month of the session hosts' periodic AWS calls, from the intervals the code uses."""
    from gateway.bus.queues import HEARTBEAT_EVERY_SECONDS
    from session_host.command_queue import MAX_WAIT_SECONDS
    from session_host.config import SEND_POLL_SECONDS, SWEEP_EVERY_SECONDS, HostSettings

    settings = HostSettings()
    per_host = MONTH_SECONDS
    bill = Bill()
    # one conditional UpdateItem of the host's heartbeat per renewal, whatever its devices
    bill.wru += hosts * MONTH_SECONDS / settings.renew_every_seconds
    passes = hosts * MONTH_SECONDS / settings.takeover_every_seconds
    # each pass reads the wanted devices (keys and host queue, ~200 B each) and, in one
    # BatchGetItem, the heartbeats of the other hosts (not each device's lease)
    bill.rru += passes * max(0.5, math.ceil(devices * 200 / 4096) * 0.5)
    bill.rru += passes * (hosts - 1) * 0.5
    bill.rru += devices * MONTH_SECONDS / SEND_POLL_SECONDS * 0.5  # each dispatcher's pending query
    bill.sqs += int(hosts * 2 * per_host / MAX_WAIT_SECONDS)  # host and shared queue long polls
    bill.sqs += int(hosts * per_host / HEARTBEAT_EVERY_SECONDS)  # the host queue's heartbeat tag
    bill.sqs += int(hosts * per_host / SWEEP_EVERY_SECONDS * 2)  # list and check idle queues
    return bill


def hosts_cost(hosts: int, template: Template) -> float:
    """A month of the session host tasks: the first on demand, the others on Spot if chosen."""
    p = PRICES

    def task(kind: str) -> float:
        return MONTH_HOURS * (
            template.task_vcpu * p[f"fargate{kind}_vcpu_hour"]
            + template.task_gb * p[f"fargate{kind}_gb_hour"]
        )

    spare = task("_spot") if template.spare_hosts_on_spot else task("")
    return task("") + (hosts - 1) * spare


def custom_metrics(template: Template) -> int:
    """Custom metrics a deployment publishes: the delivery outcomes, and Container Insights if on."""
    from gateway.webhooks.delivery.service import STATUS_METRICS, UNSUBSCRIBED_METRIC

    delivery = len({*STATUS_METRICS.values(), UNSUBSCRIBED_METRIC})
    return delivery + (ASSUMED["container_insights_metrics"] if template.container_insights else 0)


def bill(profile: Profile, measured: Measured, template: Template) -> dict[str, float]:
    """The month's cost of every line, in USD."""
    p, n = PRICES, profile.devices
    sends = n * profile.sent_per_day * DAYS
    received = n * profile.received_per_day * DAYS
    events = sends * measured.events_per_send + received * measured.events_per_inbound
    batches = events / template.delivery_batch
    hosts = max(template.tasks, math.ceil(n / profile.devices_per_host))
    requests = (
        measured.send_lambda.scaled(sends)
        + measured.send_host.scaled(sends)
        + measured.inbound_host.scaled(received)
        + measured.delivery_lambda.scaled(events)
        + periodic(n, hosts)
    )
    send_seconds = measured.send_ms / 1000 + profile.typing_seconds
    delivery_seconds = measured.delivery_ms_per_event / 1000 * events
    invocations = sends + batches
    log_gb = invocations * ASSUMED["lambda_platform_log_bytes"] / 1e9
    esm_polls = ASSUMED["esm_pollers"] * MONTH_SECONDS / 20
    store_gb = n * ASSUMED["session_store_mb_per_device"] / 1024
    efs_written_gb = (sends + received) * ASSUMED["session_store_write_kb_per_message"] / 1024**2
    return {
        "Fargate session hosts": hosts_cost(hosts, template),
        "Public IPv4 of the hosts": hosts * MONTH_HOURS * p["public_ipv4_hour"],
        "EFS session stores": store_gb * p["efs_gb_month"] + efs_written_gb * p["efs_write_gb"],
        "DynamoDB writes": requests.wru / 1e6 * p["dynamodb_million_wru"],
        "DynamoDB reads": requests.rru / 1e6 * p["dynamodb_million_rru"],
        "DynamoDB storage": ASSUMED["dynamodb_gb"] * p["dynamodb_gb_month"],
        "SQS requests": (requests.sqs + esm_polls) / 1e6 * p["sqs_million_requests"],
        "Lambda GB-seconds": (
            sends * send_seconds * template.function_gb + delivery_seconds * template.delivery_gb
        )
        * p["lambda_gb_second"],
        "Lambda requests": invocations / 1e6 * p["lambda_million_requests"],
        "API Gateway (HTTP API)": sends / 1e6 * p["http_api_million_requests"],
        "CloudWatch Logs": log_gb * p["logs_ingest_gb"],
        "CloudWatch metrics": custom_metrics(template) * p["metric_month"],
        "X-Ray traces (all sampled)": invocations / 1e6 * p["xray_million_traces"],
        "Data transfer out (webhooks)": events
        * measured.webhook_bytes_per_event
        / 1e9
        * p["transfer_out_gb"],
    }


def _print_measured(measured: Measured) -> None:
    def line(name: str, value: Bill) -> str:
        return f"  {name:38} {value.rru:6.2f} RRU {value.wru:6.2f} WRU {value.sqs:6.2f} SQS"

    print("measured AWS requests (per unit):")
    print(line("send: messages function", measured.send_lambda))
    print(line("send: session host", measured.send_host))
    print(line("received message: session host", measured.inbound_host))
    print(line("delivered event: delivery function + ESM", measured.delivery_lambda))
    print(
        f"  events per send {measured.events_per_send:.2f}, per received message "
        f"{measured.events_per_inbound:.2f}; send handler {measured.send_ms:.1f} ms (median, no pacing); "
        f"delivery {measured.delivery_ms_per_event:.2f} ms per event; "
        f"{measured.webhook_bytes_per_event:.0f} B per webhook request"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cost", description=__doc__.split("\n\n")[0])
    defaults = Profile()
    for spec in fields(Profile):
        option = "--" + spec.name.removesuffix("_per_day").replace("_", "-")
        parser.add_argument(option, dest=spec.name, type=type(getattr(defaults, spec.name)))
    parser.add_argument("--samples", type=int, default=20, help="sends and received messages measured (20)")
    args = parser.parse_args()
    profile = Profile(**{f.name: getattr(args, f.name) or getattr(defaults, f.name) for f in fields(Profile)})
    template = read_template()
    measured = measure(args.samples, args.samples, template.delivery_batch)
    _print_measured(measured)
    lines = bill(profile, measured, template)
    total = sum(lines.values())
    print(
        f"\nprofile: {profile.devices} devices, {profile.sent_per_day:g} sent and "
        f"{profile.received_per_day:g} received per device and day, typing {profile.typing_seconds:g} s"
    )
    print(
        f"template: SpareHostsOnSpot={_flag(template.spare_hosts_on_spot)}, "
        f"ContainerInsights={_insights(template.container_insights)}"
    )
    print(f"{'line':34} {'USD/month':>10} {'share':>6}")
    for name, cost in sorted(lines.items(), key=lambda item: -item[1]):
        print(f"{name:34} {cost:10.2f} {cost / total:6.1%}")
    print(f"{'total':34} {total:10.2f}")
    alternatives = {
        f"SpareHostsOnSpot={_flag(not template.spare_hosts_on_spot)}": replace(
            template, spare_hosts_on_spot=not template.spare_hosts_on_spot
        ),
        f"ContainerInsights={_insights(not template.container_insights)}": replace(
            template, container_insights=not template.container_insights
        ),
    }
    for name, other in alternatives.items():
        other_total = sum(bill(profile, measured, other).values())
        print(f"with {name}: {other_total:.2f} USD/month (${other_total / profile.devices:.3f} per device)")
    print(
        f"cost: ${total / profile.devices:.3f} per device-month at {profile.devices} devices "
        f"(target <= $0.10), at the template's defaults"
    )


def _flag(value: bool) -> str:
    return str(value).lower()


def _insights(value: bool) -> str:
    return "enabled" if value else "disabled"


if __name__ == "__main__":
    main()
