"""``make run``: the whole gateway on this machine until Ctrl-C or SIGTERM."""

from __future__ import annotations

import os
import signal
import sys
import threading

from local_stack.server import PortUnavailable, ensure_port_free
from local_stack.stack import LocalStack, persistent_master_token
from session_host.config import WORKER_STOP_SECONDS
from session_host.runtime import arm_deadline, end_process


def main() -> None:
    try:
        port = api_port(os.environ.get("GATEWAY_PORT", "8000"))
    except PortUnavailable as error:
        sys.exit(str(error))  # one line on stderr, exit status 1: nothing has started yet
    master_token = os.environ.get("GATEWAY_MASTER_TOKEN") or persistent_master_token()
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stack = LocalStack(port=port, master_token=master_token).start()
    print(banner(stack, master_token), flush=True)
    stop.wait()
    # As a session host in its container: a clean stop, ended at its deadline whatever the
    # sessions are doing (a native library's threads still dialing cannot hold the process),
    # armed before anything is written (a terminal that does not read can block a write).
    arm_deadline(WORKER_STOP_SECONDS)
    print("stopping...", flush=True)
    stack.stop()
    end_process(0)


def api_port(value: str) -> int:
    """``GATEWAY_PORT``, checked to be a port the API server can bind."""
    try:
        port = int(value)
    except ValueError:
        raise PortUnavailable(f"GATEWAY_PORT={value!r} is not a port number") from None
    ensure_port_free(port)
    return port


def banner(stack: LocalStack, master_token: str) -> str:
    base, auth = stack.base_url, f'-H "Authorization: Bearer {master_token}"'
    hosts = ", ".join(host.host_id for host in stack.hosts)
    network = "simulated" if stack.network is not None else "neonize"
    pairing = (
        f"""
Pair a device on the simulated network (TOKEN is the admin token from /register):
  curl -s -X POST {base}/devices -H "Authorization: Bearer $TOKEN" \\
    -H 'Content-Type: application/json' -d '{{"name":"my phone"}}'
  curl -s -X POST {base}/devices/$DEVICE_ID/connect -H "Authorization: Bearer $TOKEN"
  curl -s {base}/devices/$DEVICE_ID/qr -H "Authorization: Bearer $TOKEN"
  # a phone "scans" the QR code through the simulator's control API (master token):
  curl -s -X POST {base}/_simulator/devices/$DEVICE_ID/scan {auth} \\
    -H 'Content-Type: application/json' -d '{{"phone":"4915112345678"}}'
  curl -s {base}/devices/$DEVICE_ID -H "Authorization: Bearer $TOKEN"   # status: connected
Send the device's events to a receiver (`make receiver` prints each delivery on port 9000):
  curl -s -X POST {base}/webhook -H "Authorization: Bearer $TOKEN" -H "X-Device-Id: $DEVICE_ID" \\
    -H 'Content-Type: application/json' \\
    -d '{{"webhook_url":"http://127.0.0.1:9000/hooks","enabled_events":["message","device.connected"],"secret":"local-webhook-s3cret"}}'
More in docs/devices.md, docs/simulator.md and docs/webhooks.md."""
        if stack.network is not None
        else "\nThe session host runs the real network (neonize): pair with GET /devices/{id}/qr on a phone."
    )
    return f"""
Messaging gateway running locally
  base URL:      {base}
  console:       {base}/console (sign in with a user token or the master token)
  master token:  {master_token}
  AWS (moto):    {stack.endpoint}
  session host:  {hosts} ({network} network)
  webhooks:      the delivery worker reads the events queue and calls the delivery function

Register a tenant:
  curl -s -X POST {base}/register {auth} \\
    -H 'Content-Type: application/json' \\
    -d '{{"tenant_name":"acme","email":"admin@acme.example.com","password":"secret123"}}'
{pairing}

Ctrl-C stops everything (nothing is kept between runs)."""


if __name__ == "__main__":
    main()
