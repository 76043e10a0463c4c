"""``make receiver``: a webhook receiver on loopback that prints every delivery it gets.

For trying webhooks locally: point a device's webhook at ``http://127.0.0.1:9000/hooks`` and
watch the events arrive. With ``--secret`` (the webhook's signing secret) each line says
whether the delivery's three signatures check out: the envelope's ``signature`` field and the
``X-Webhook-Signature-256`` header, computed by the same module the gateway signs with, and
the Standard Webhooks headers, verified by the official ``standardwebhooks`` library as any
receiver would (so a replay older than its five minutes' tolerance is reported). Every
request is answered 200, so nothing is retried.
"""

from __future__ import annotations

import argparse
import errno
import hmac
import json
import sys
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TextIO

from standardwebhooks import Webhook, WebhookVerificationError

from gateway.webhooks.delivery.constants import HEADER_SIGNATURE, STANDARD_SIGNATURE
from gateway.webhooks.signing import SIGNATURE_FIELD, body_signature, canonical_json, hmac_sha256, whsec_key

DEFAULT_PORT = 9000


def signature_verdict(body: bytes, headers: Mapping[str, str], secret: str | None) -> str:
    """``verified``, ``BAD SIGNATURE (what failed)``, ``unsigned`` or ``not checked`` (no secret
    given). ``headers`` are the request's, any case."""
    try:
        envelope = json.loads(body)
    except ValueError:
        return "BAD SIGNATURE (body is not JSON)"
    named = {name.lower(): value for name, value in headers.items()}
    header = named.get(HEADER_SIGNATURE.lower())
    signature = envelope.get(SIGNATURE_FIELD) if isinstance(envelope, dict) else None
    if signature is None and header is None and STANDARD_SIGNATURE not in named:
        return "unsigned"
    if not secret:
        return "not checked (start with --secret)"
    failed = []
    if not (
        isinstance(signature, str)
        and hmac.compare_digest(signature, hmac_sha256(secret, canonical_json(envelope)))
    ):
        failed.append(f"{SIGNATURE_FIELD} field")
    if not (header is not None and hmac.compare_digest(header, body_signature(secret, body))):
        failed.append(HEADER_SIGNATURE)
    standard = standard_webhooks_failure(body, named, secret)
    if standard is not None:
        failed.append(f"{STANDARD_SIGNATURE}: {standard}")
    return f"BAD SIGNATURE ({'; '.join(failed)})" if failed else "verified"


def standard_webhooks_failure(body: bytes, headers: Mapping[str, str], secret: str) -> str | None:
    """Why the official Standard Webhooks library refuses the delivery (a wrong signature, a
    missing header, a timestamp more than five minutes off: a replay), or ``None``. It is
    given the secret as the gateway keys it: ``whsec_<base64>`` as the string (the library
    decodes it), any other secret as its UTF-8 bytes."""
    key: str | bytes = secret if whsec_key(secret) is not None else secret.encode("utf-8")
    try:
        Webhook(key).verify(body, dict(headers), json_parse=False)
    except (WebhookVerificationError, ValueError) as refused:  # ValueError: a malformed header
        return str(refused)
    return None


def summary(body: bytes, verdict: str) -> str:
    """One line per delivery: event name, event id, device, verdict, then the data."""
    try:
        envelope: Any = json.loads(body)
    except ValueError:
        return f"(not JSON, {len(body)} bytes) {verdict}"
    if not isinstance(envelope, dict):
        return f"(JSON {type(envelope).__name__}) {verdict}"
    data = json.dumps(envelope.get("data"), separators=(",", ":"), ensure_ascii=False)
    head = f"{envelope.get('event')} id={envelope.get('id')} device={envelope.get('device_id')}"
    return f"{head} [{verdict}] {data}"


def make_server(port: int, secret: str | None, out: TextIO) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0: any free port) writing one line per POST to ``out``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            verdict = signature_verdict(body, dict(self.headers.items()), secret)
            print(summary(body, verdict), file=out, flush=True)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the delivery line says everything."""

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port on 127.0.0.1 (default 9000)")
    parser.add_argument("--secret", help="the webhook's secret, to check the signatures")
    args = parser.parse_args(argv)
    try:
        server = make_server(args.port, args.secret, sys.stdout)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(f"port {args.port} is in use: stop the other process or pass --port", file=sys.stderr)
            return 1
        raise
    print(f"receiving webhooks on http://127.0.0.1:{server.server_port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
