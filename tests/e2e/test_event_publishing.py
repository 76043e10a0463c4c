"""A burst of thousands of events, one of them too large for a queue message, goes through the
session host's publisher, the events queue and the delivery worker to the receiver: every
event, the large one whole (decisions, "Hostile conditions": an event never blocks the host's
publishing)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from device_flows import create_device, new_phone, pair_by_qr, simulator, subscribe, wait_for_status
from webhook_receiver import Receiver

pytestmark = pytest.mark.e2e

BURST = 2_000
EMOJI = "\U0001f600"  # 4 bytes in UTF-8, 12 in the queue's escaped JSON
LARGE_TEXT = "long read " + EMOJI * 65_526  # the network's longest text: 786 KB as queued JSON


def test_a_burst_of_thousands_of_messages_with_one_over_256_kib_all_reach_the_receiver(
    api: Any, receiver: Receiver
) -> None:
    # Given a paired device subscribed to received messages, and a contact
    tenant = api.register()
    token = tenant.admin_token
    device_id = create_device(api, token)
    jid = pair_by_qr(api, token, device_id, new_phone())["messaging_jid"]
    path = receiver.path()
    subscribe(api, token, device_id, receiver.url(path), ["message.received"])
    contact = new_phone()
    simulator(api, "POST", "/accounts", phone=contact)

    # And the device went offline while the contact wrote 2,000 messages, one of them the
    # longest text the network carries, all emoji: they wait on the network for it
    response = api.request("POST", f"/devices/{device_id}/disconnect", token)
    assert response.status_code == 200, response.text
    texts = [f"message {number}" for number in range(BURST)]
    texts[BURST // 2] = LARGE_TEXT

    def write(text: str) -> str:
        return simulator(api, "POST", f"/accounts/{contact}/messages", to=jid, text=text)["message_id"]

    with ThreadPoolExecutor(8) as pool:
        sent = dict(zip(pool.map(write, texts), texts, strict=True))

    # When it connects again, and they all arrive at once
    started = time.monotonic()
    assert api.request("POST", f"/devices/{device_id}/connect", token).status_code == 202
    wait_for_status(api, token, device_id, "connected")

    # Then the receiver gets every one of them, the large one whole
    requests = receiver.wait_for(
        path,
        lambda found: len({r.body for r in found if r.ok}) >= BURST,
        timeout=180,
        expected=f"{BURST} messages delivered",
    )
    took = time.monotonic() - started
    delivered = {}
    for request in requests:
        data = request.envelope["data"]
        delivered[data["message_id"]] = data["content"]
    assert delivered == sent
    (large,) = [r.envelope for r in requests if r.envelope["data"]["content"] == LARGE_TEXT]
    print(f"{BURST} messages (one of {len(LARGE_TEXT.encode())} bytes) delivered in {took:.1f} s")

    # And redelivery sends the large one whole again (the log kept its claim check)
    response = api.request(
        "POST", f"/webhook/deliveries/{large['id']}/redeliver", token, headers={"X-Device-Id": device_id}
    )
    assert response.status_code == 202, response.text
    again = receiver.wait_for(path, lambda found: sum(r.envelope["id"] == large["id"] for r in found) >= 2)
    assert [r.envelope for r in again if r.envelope["id"] == large["id"]][-1] == large

    # And once its envelope is no longer kept (expired), redelivery says the event is not found
    # rather than queue what cannot be delivered
    from gateway.config import get_settings
    from gateway.media.store import s3_client

    key = f"events/{tenant.id}/{device_id}/{large['id']}"
    s3_client().delete_object(Bucket=get_settings().media_bucket, Key=key)
    response = api.request(
        "POST", f"/webhook/deliveries/{large['id']}/redeliver", token, headers={"X-Device-Id": device_id}
    )
    assert response.status_code == 404, response.text
    assert response.json()["error_code"] == "EVENT_NOT_FOUND"
