"""Steps the Webhooks and Groups panel tests share: sign in, open a device, open a panel."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Locator, Page, expect


def open_device(console: Any, token: str, name: str) -> Page:
    """Sign in with ``token`` and open the device called ``name`` from the list."""
    page = console.sign_in(token)
    page.get_by_role("button", name=re.compile("^" + re.escape(name) + " ")).click()
    expect(page.get_by_role("heading", name=name, level=2)).to_be_visible()
    return page


def panel(page: Page, title: str) -> Locator:
    """The device's panel called ``title`` ("Webhooks", "Groups"), opened."""
    section = page.get_by_role("region", name=title)
    section.get_by_role("button", name=f"Show {title.lower()}").click()
    hide = section.get_by_role("button", name=f"Hide {title.lower()}")
    expect(hide).to_have_attribute("aria-expanded", "true")
    return section
