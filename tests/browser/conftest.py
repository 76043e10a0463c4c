"""Fixtures of the browser tests: Debian's chromium driven by Playwright, one browser per test
process (each xdist worker has its own, beside its own local stack), a fresh browser context
per test, and the console's page with every browser console error collected.

Playwright's own browser downloads are never used: the browser is ``/usr/bin/chromium``
(``make test`` installs it when missing), or the one the ``CHROMIUM`` variable names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, expect, sync_playwright

from local_stack.browser import CHROMIUM_ARGS, chromium_path

# The console polls every 2 s by default; the tests ask for a short interval (?poll_ms=).
POLL_MS = 150
WIDE = {"width": 1280, "height": 900}
# Waits are on conditions; the deadline covers a loaded machine (two workers, two cores) and
# the local stack's first /openapi.json, which it builds once (about 3 s) when the console
# first asks whether the simulator is served.
expect.set_options(timeout=15_000)


# Per module, not per session: while Playwright's sync driver lives, its event loop is the
# running loop of the thread, and every later test of the worker that calls asyncio.run()
# (the session host's tests do) would fail. A module's tests run one after another on a worker.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=list(CHROMIUM_ARGS)
    )
    yield browser
    browser.close()


# Chromium logs every API answer of 400 and above as an error of the page ("Failed to load
# resource: the server responded with a status of 401 (Unauthorized)"), even one the console
# expects and shows in words. A test names the statuses its story expects; any other error
# of the browser log fails it.
REFUSED_REQUEST = re.compile(r"^Failed to load resource: the server responded with a status of (\d{3})\b")


@dataclass
class ConsolePage:
    """The console open in a tab, with what the browser reported as errors."""

    page: Page
    url: str
    errors: list[str] = field(default_factory=list)
    expected_statuses: set[int] = field(default_factory=set)

    def expect_refusals(self, *statuses: int) -> None:
        """API answers with these statuses are part of the test's story, not errors."""
        self.expected_statuses.update(statuses)

    def unexpected_errors(self) -> list[str]:
        def expected(error: str) -> bool:
            refused = REFUSED_REQUEST.match(error)
            return refused is not None and int(refused.group(1)) in self.expected_statuses

        return [error for error in self.errors if not expected(error)]

    def open(self) -> Page:
        self.page.goto(self.url)
        return self.page

    def sign_in(self, token: str) -> Page:
        page = self.open()
        page.get_by_label("Token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        return page

    def session_storage(self) -> dict[str, Any]:
        return self.page.evaluate("() => Object.fromEntries(Object.entries(sessionStorage))")


def _console_error(errors: list[str]) -> Any:
    def record(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"{message.text} at {message.location}")

    return record


@pytest.fixture
def console(browser: Browser, stack: Any) -> Iterator[ConsolePage]:
    """The console of this worker's local stack in a new browser context (no storage shared
    with other tests); the test fails if the browser logged any error."""
    context = browser.new_context(viewport=WIDE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    opened = ConsolePage(page, f"{stack.base_url}/console?poll_ms={POLL_MS}")
    page.on("console", _console_error(opened.errors))
    page.on("pageerror", lambda error: opened.errors.append(f"uncaught: {error}"))
    yield opened
    context.close()
    assert opened.unexpected_errors() == [], "the browser logged errors"
