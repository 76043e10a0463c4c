"""A 1 MB image send against a text send, from the request to the recipient's inbox, in one run.

    .venv/bin/python -m bench.media [--rounds N] [--per-round K]

One moto server (the template's tables, queues and media bucket) and one real
``SessionHost`` on the simulated network, with a connected device and a contact, carry:

* **text**: POST /send/text's logic (``sending.send`` with ``delay=0, disablePresence``),
  timed until the contact's inbox shows the message.
* **image**: POST /send/image's logic with 1 MB of JPEG as ``data_base64``: decoded, sniffed,
  put in the media bucket, the send carried to the host, which reads the bytes back from the
  bucket and sends them; timed until the contact's inbox shows the image.

Samples alternate (order shuffled per round, 50 ms of untimed rest after each) so drifts of
a shared machine hit both alike. Prints medians and p90 and the image / text ratio.
"""

from __future__ import annotations

import argparse
import base64
import io
import random
import statistics
import tempfile
from collections.abc import Callable
from typing import Any

from bench._stack import moto_stack
from bench.bus import _wait, p90, sample
from bench.send import TENANT, _connected_device

PREFIX = "benchmedia"
CONTACT_PHONE = "15550007001"
IMAGE_BYTES = 1024 * 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.media", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two (default 5)")
    parser.add_argument("--per-round", type=int, default=10, help="sends per side and round (default 10)")
    args = parser.parse_args(argv)

    with moto_stack(PREFIX):
        run(args.rounds, args.per_round)


def jpeg_of_about(size: int) -> bytes:
    """A real JPEG of about ``size`` bytes (noise compresses badly, so it stays large)."""
    from PIL import Image

    side = 600
    while True:
        image = Image.frombytes("RGB", (side, side), random.randbytes(side * side * 3))
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=95)
        if out.tell() >= size:
            return out.getvalue()
        side += 100


def run(rounds: int, per_round: int) -> None:
    from gateway.bus import get_bus
    from gateway.messages import send_kinds, sending
    from gateway.messages.schemas import SendMediaRequest, SendTextRequest
    from gateway.models import DeviceModel
    from session_host.config import HostSettings
    from session_host.host import SessionHost
    from session_host.host_thread import HostThread
    from session_host.network.simulated import SimulatedNetwork, SimulatedPort

    network = SimulatedNetwork()
    image = base64.b64encode(jpeg_of_about(IMAGE_BYTES)).decode()
    with tempfile.TemporaryDirectory() as data_dir:
        host = HostThread(SessionHost(port=SimulatedPort(network), settings=HostSettings(data_dir=data_dir)))
        host.start()
        bus = get_bus()

        def request(contract: Any, device_id: str = "bench") -> Any:
            reply = bus.request(
                contract, tenant_id=TENANT, device_id=device_id, host_queue_url=host.host.queue_url
            )
            assert reply.ok, reply
            return reply.result

        def delivered(send: Callable[[], Any]) -> Callable[[], None]:
            """``send``, then wait until the contact's inbox has one more message."""

            def timed() -> None:
                before = len(network.inbox(CONTACT_PHONE)["messages"])
                send()
                _wait(lambda: len(network.inbox(CONTACT_PHONE)["messages"]) > before, 30)

            return timed

        try:
            device_id = _connected_device(network, request)
            network.create_account(CONTACT_PHONE)
            record = DeviceModel.get(TENANT, device_id)

            def send_text() -> None:
                body = SendTextRequest(number=CONTACT_PHONE, text="hi", disablePresence=True)
                sending.send_text(record, body, hold_seconds=30)

            def send_image() -> None:
                body = SendMediaRequest(number=CONTACT_PHONE, data_base64=image, disablePresence=True)
                sending.send(record, body, send_kinds.media("image", body), hold_seconds=30)

            sides = {"text": delivered(send_text), "image": delivered(send_image)}
            for side in sides.values():  # warm-up
                sample(side, 2, 0.05)
            results: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(rounds):
                for name in random.sample(list(sides), k=len(sides)):
                    results[name].extend(sample(sides[name], per_round, 0.05))
        finally:
            host.stop()
    report(results)


def report(results: dict[str, list[float]]) -> None:
    medians = {name: statistics.median(values) for name, values in results.items()}
    print(f"sends per side: {len(results['text'])}; image: {IMAGE_BYTES // 1024} KB of JPEG as data_base64")
    print(f"{'':6} {'median ms':>10} {'p90 ms':>8}")
    for name, values in results.items():
        print(f"{name:6} {medians[name]:10.2f} {p90(values):8.2f}")
    print(
        f"media: 1 MB image {medians['image']:.0f} ms, text {medians['text']:.0f} ms, "
        f"request to inbox (medians): {medians['image'] / medians['text']:.2f}x"
    )


if __name__ == "__main__":
    main()
