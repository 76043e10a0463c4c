"""``make screenshots``: pictures of the console's main screens for docs/console.md.

Starts a local stack of its own (simulated network) and a webhook receiver on loopback, makes
a tenant with a paired device (a webhook with deliveries, a group with a join request, calls
rejected through a proxy, a sending policy, sends planned and canceled, a profile, a blocked
contact), a device waiting to pair and a new
one, and photographs each main screen in Debian's chromium at 1280 px and 360 px wide, as the
browser tests drive it. The PNGs are reduced to a small palette so the repository stays light.
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from PIL import Image, ImageDraw
from playwright.sync_api import Locator, Page, expect, sync_playwright

from local_stack.browser import CHROMIUM_ARGS, chromium_path
from local_stack.receiver import make_server
from local_stack.stack import LocalStack

WIDTHS = {1280: 860, 360: 780}  # width: height of the window
PHONE, CONTACT, REQUESTER = "4915112345678", "4917000000001", "4917000000002"
NOBODY = "4917000000099"  # no account on the network


class Gateway:
    """The few API calls that set the scene."""

    def __init__(self, stack: LocalStack) -> None:
        self.base = stack.base_url
        self.master = stack.master_token

    def call(
        self, method: str, path: str, token: str, body: Any = None, device: str | None = None
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}", **({"X-Device-Id": device} if device else {})}
        response = requests.request(method, self.base + path, json=body, headers=headers, timeout=30)
        assert response.ok, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def wait_for(self, token: str, device_id: str, status: str) -> None:
        deadline = time.monotonic() + 15
        while self.call("GET", f"/devices/{device_id}", token)["device"]["status"] != status:
            assert time.monotonic() < deadline, f"device {device_id} never became {status}"
            time.sleep(0.1)

    def scene(self, hooks_url: str) -> str:
        """A tenant with three devices (connected, pairing, new); its admin token."""
        token: str = self.call(
            "POST",
            "/register",
            self.master,
            {"tenant_name": "acme", "email": "admin@acme.example.com", "password": "secret123"},
        )["token"]
        front = self.call("POST", "/devices", token, {"name": "Front desk"})["device"]["id"]
        self.call("POST", f"/devices/{front}/connect", token)
        self.wait_for(token, front, "pairing")
        self.call("POST", f"/_simulator/devices/{front}/scan", self.master, {"phone": PHONE})
        self.wait_for(token, front, "connected")
        self.call("POST", "/_simulator/accounts", self.master, {"phone": CONTACT, "name": "Ana"})
        self.panels(token, front, hooks_url)
        self.people(token, front)
        self.sending(token, front)
        warehouse = self.call("POST", "/devices", token, {"name": "Warehouse"})["device"]["id"]
        self.call("POST", f"/devices/{warehouse}/connect", token)
        self.wait_for(token, warehouse, "pairing")
        self.call("POST", "/devices", token, {"name": "Spare phone"})
        self.call(
            "POST",
            "/register",
            self.master,
            {"tenant_name": "globex", "email": "admin@globex.example.com", "password": "secret123"},
        )
        return token

    def panels(self, token: str, device: str, hooks_url: str) -> None:
        """What the Webhooks and Groups panels show: a signed webhook with a delivery (Ana
        writes), and a group that needs approval, with Ben asking to join."""
        webhook = {
            "webhook_url": hooks_url,
            "enabled_events": ["message.received", "message.sent", "group.joined"],
            "secret": "local-webhook-s3cret",
            "headers": {"Authorization": "Bearer receiver-token"},
        }
        self.call("POST", "/webhook", token, webhook, device=device)
        hello = {"to": PHONE, "text": "Hi! Is my order ready?"}
        self.call("POST", f"/_simulator/accounts/{CONTACT}/messages", self.master, hello)
        group = {"name": "Orders", "participants": [CONTACT], "options": {"join_approval": True}}
        jid = self.call("POST", "/groups", token, group, device=device)["group"]["jid"]
        link = self.call("GET", f"/groups/{jid}/invite", token, device=device)["invite_link"]
        self.call("POST", "/_simulator/accounts", self.master, {"phone": REQUESTER, "name": "Ben"})
        self.call("POST", f"/_simulator/accounts/{REQUESTER}/groups/join", self.master, {"link": link})

    def people(self, token: str, device: str) -> None:
        """What the settings, Contacts and Profile panels show: calls rejected with a text
        through a proxy, Ana's About text, Ben blocked, and the device's own profile."""
        settings = {
            "reject_calls": True,
            "reject_calls_message": "Calls are not answered here; please write.",
            "proxy_url": "socks5://frontdesk:s3cret@203.0.113.7:1080",
        }
        self.call("PATCH", f"/devices/{device}", token, settings)
        self.call("PATCH", f"/_simulator/accounts/{CONTACT}", self.master, {"about": "Out for lunch"})
        self.call("PUT", f"/contacts/{REQUESTER}/block", token, device=device)
        profile = {"name": "Acme front desk", "about": "Open 9 to 5, Monday to Friday"}
        self.call("PATCH", "/profile", token, profile, device=device)
        self.call("PUT", "/profile/picture", token, {"image_base64": logo()}, device=device)

    def sending(self, token: str, device: str) -> None:
        """What the Sending policy and Outbox panels show: limits with a warm-up, two sends
        planned for tomorrow morning (one canceled) and one gone out."""
        policy = {
            "daily_send_limit": 200,
            "new_chat_daily_limit": 20,
            "warmup_days": 14,
            "send_jitter_seconds": 5,
        }
        self.call("PATCH", f"/devices/{device}", token, policy)
        self.call(
            "POST", "/send/text", token, {"number": CONTACT, "text": "Thanks, on its way"}, device=device
        )
        morning = (datetime.now(UTC) + timedelta(days=1)).replace(hour=9, minute=0, second=0, microsecond=0)
        _, reminder = (
            self.call(
                "POST",
                "/send/text",
                token,
                {"number": CONTACT, "text": text, "send_at": morning.isoformat()},
                device=device,
            )["message_id"]
            for text in ("Your order is ready for pickup", "Reminder: pickup until 6 pm")
        )
        self.call("DELETE", f"/sends/{reminder}", token, device=device)


def logo() -> str:
    """A small JPEG for the device's profile picture, in base64."""
    image = Image.new("RGB", (640, 640), (10, 91, 211))
    ImageDraw.Draw(image).ellipse((160, 160, 480, 480), fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, format="JPEG")
    return base64.b64encode(out.getvalue()).decode()


def save(page: Page, path: Path) -> None:
    page.screenshot(path=path)
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)
    print(f"{path} ({path.stat().st_size // 1024} KiB)")


def scroll_to(heading: Locator) -> None:
    heading.evaluate("element => element.scrollIntoView({block: 'start'})")


def photograph(page: Page, url: str, token: str, master: str, width: int, out: Path) -> None:
    page.goto(url)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    save(page, out / f"signin-{width}.png")

    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Warehouse pairing").click()
    expect(page.get_by_role("img", name="QR code to scan with the phone")).to_be_visible()
    page.wait_for_function("() => document.querySelector('img.qr').naturalWidth > 0")
    save(page, out / f"pairing-{width}.png")

    page.get_by_role("button", name="Front desk connected").click()
    expect(page.get_by_test_id("device-status")).to_have_text("connected")
    page.get_by_label("Recipient (phone digits or JID)").fill(CONTACT)
    page.get_by_label("Text to send").fill("Your order shipped")
    page.get_by_role("button", name="Send test message").click()
    expect(page.get_by_text("Sent (sent)")).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Send a test message"))
    save(page, out / f"send-{width}.png")
    scroll_to(page.get_by_role("heading", name="Settings", exact=True))
    save(page, out / f"settings-{width}.png")
    scroll_to(page.get_by_role("heading", name="Sending policy"))
    save(page, out / f"policy-{width}.png")

    page.get_by_role("button", name="Show outbox").click()
    expect(page.get_by_role("cell", name="canceled", exact=True)).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Outbox", exact=True))
    save(page, out / f"outbox-{width}.png")
    page.get_by_role("button", name="Hide outbox").click()

    page.get_by_label("Master token").fill(master)
    page.get_by_role("button", name="Use master token").click()
    expect(page.get_by_role("button", name="Scan QR code")).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Simulator"))
    save(page, out / f"simulator-{width}.png")

    page.get_by_role("button", name="Show webhooks").click()
    expect(page.get_by_role("cell", name="message.received", exact=True).first).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Webhooks", exact=True))
    save(page, out / f"webhooks-{width}.png")
    scroll_to(page.get_by_role("heading", name="Delivery log"))
    save(page, out / f"deliveries-{width}.png")
    page.get_by_role("button", name="Hide webhooks").click()

    page.get_by_role("button", name="Show groups").click()
    page.get_by_role("button", name="Orders, 2 members").click()
    expect(page.get_by_role("button", name=f"Approve {REQUESTER}@s.whatsapp.net")).to_be_visible()
    page.get_by_role("button", name="Show invite link").click()
    expect(page.get_by_label("Invite link of Orders")).to_have_value(re.compile("^https://"))
    scroll_to(page.get_by_role("heading", name="Groups", exact=True))
    save(page, out / f"groups-{width}.png")
    page.get_by_role("button", name="Hide groups").click()

    page.get_by_role("button", name="Show contacts").click()
    page.get_by_label("Phone numbers to check").fill(f"{CONTACT}, {NOBODY}")
    page.get_by_role("button", name="Check numbers").click()
    page.get_by_role("button", name=f"Look up {CONTACT}").click()
    expect(page.get_by_text("Out for lunch")).to_be_visible()
    expect(page.get_by_role("button", name=f"Unblock {REQUESTER}@s.whatsapp.net")).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Contacts", exact=True))
    save(page, out / f"contacts-{width}.png")
    page.get_by_role("button", name="Hide contacts").click()

    page.get_by_role("button", name="Show profile").click()
    expect(page.get_by_role("link", name="Open the profile picture")).to_be_visible()
    scroll_to(page.get_by_role("heading", name="Profile", exact=True))
    save(page, out / f"profile-{width}.png")

    page.get_by_role("button", name="Sign out").click()
    page.get_by_label("Token").fill(master)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("cell", name="globex")).to_be_visible()
    save(page, out / f"tenants-{width}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=Path("docs/console"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    expect.set_options(timeout=15_000)
    stack = LocalStack(prefix="shots").start()
    receiver = make_server(0, None, io.StringIO())  # answers 200 to every delivery
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        gateway = Gateway(stack)
        token = gateway.scene(f"http://127.0.0.1:{receiver.server_port}/hooks")
        with sync_playwright() as driver:
            browser = driver.chromium.launch(
                executable_path=chromium_path(), args=[*CHROMIUM_ARGS, "--hide-scrollbars"]
            )
            for width, height in WIDTHS.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.set_default_timeout(15_000)
                photograph(page, f"{stack.base_url}/console", token, stack.master_token, width, args.out)
                context.close()
            browser.close()
    finally:
        receiver.shutdown()
        receiver.server_close()
        stack.stop()


if __name__ == "__main__":
    main()
