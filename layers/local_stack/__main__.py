"""``make run``: the whole gateway on this machine until Ctrl-C or SIGTERM."""

from __future__ import annotations

import os
import signal
import threading

from local_stack.stack import LocalStack, persistent_master_token


def main() -> None:
    port = int(os.environ.get("GATEWAY_PORT", "8000"))
    master_token = os.environ.get("GATEWAY_MASTER_TOKEN") or persistent_master_token()
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stack = LocalStack(port=port, master_token=master_token).start()
    print(
        f"""
Messaging gateway running locally
  base URL:      {stack.base_url}
  master token:  {master_token}
  AWS (moto):    {stack.endpoint}

Register a tenant:
  curl -s -X POST {stack.base_url}/register -H "Authorization: Bearer {master_token}" \\
    -H 'Content-Type: application/json' \\
    -d '{{"tenant_name":"acme","email":"admin@acme.example.com","password":"secret123"}}'

Ctrl-C stops everything.""",
        flush=True,
    )
    stop.wait()
    print("stopping...", flush=True)
    stack.stop()


if __name__ == "__main__":
    main()
