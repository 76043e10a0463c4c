"""Steps the device panel tests share: a connected device, sign in, open a device, open a panel."""

from __future__ import annotations

import re
from typing import Any

from e2e.device_flows import create_device, new_phone, pair_by_qr
from playwright.sync_api import Locator, Page, expect


def connected_device(api: Any, name: str) -> tuple[str, str]:
    """A new tenant's device called ``name``, paired as a new phone and connected: the
    tenant's admin token and the device's id."""
    token: str = api.register().admin_token
    device_id = create_device(api, token, name)
    pair_by_qr(api, token, device_id, new_phone())
    return token, device_id


def open_device(console: Any, token: str, name: str) -> Page:
    """Sign in with ``token`` and open the device called ``name`` from the list."""
    page = console.sign_in(token)
    page.get_by_role("button", name=re.compile("^" + re.escape(name) + " ")).click()
    expect(page.get_by_role("heading", name=name, level=2)).to_be_visible()
    return page


def panel(page: Page, title: str) -> Locator:
    """The device's panel called ``title`` ("Webhooks", "Groups", "Contacts", "Profile"), opened."""
    section = page.get_by_role("region", name=title, exact=True)
    section.get_by_role("button", name=f"Show {title.lower()}").click()
    hide = section.get_by_role("button", name=f"Hide {title.lower()}")
    expect(hide).to_have_attribute("aria-expanded", "true")
    return section


SHOWN_CONTROLS = """section => [...section.querySelectorAll("button, input, select, textarea")]
    .filter(control => control.getClientRects().length > 0)"""

UNNAMED = """controls => controls
    .filter(control => !(control.getAttribute("aria-label") || control.labels?.length
        || (control.tagName === "BUTTON" && control.textContent.trim())))
    .map(control => control.outerHTML)"""

OUT_OF_WINDOW = """([shown, width]) => shown
    .map(control => [control, control.getBoundingClientRect()])
    .filter(([, box]) => box.left < 0 || box.right > width)
    .map(([control]) => control.outerHTML)"""

TOO_WIDE = """() => [...document.querySelectorAll("*")]
    .filter(node => node.getBoundingClientRect().right > innerWidth)
    .slice(0, 8).map(node => `${node.tagName}.${node.className}`)"""


def assert_usable(section: Locator, width: int) -> None:
    """Every control shown in ``section`` has an accessible name (a label, its text or an
    aria-label) and lies within a window ``width`` px wide, which the page does not exceed."""
    page = section.page
    page.set_viewport_size({"width": width, "height": 740})
    controls = section.evaluate_handle(SHOWN_CONTROLS)
    assert page.evaluate(UNNAMED, controls) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, page.evaluate(TOO_WIDE)
    assert page.evaluate(OUT_OF_WINDOW, [controls, width]) == []
