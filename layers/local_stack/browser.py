"""Debian's chromium as the console's browser tests and screenshots launch it.

The flags keep a headless Chromium off the network it would otherwise call at start (this
machine's closed network refuses it, many times over) and runnable as root.
"""

from __future__ import annotations

import os

CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str:
    """The Chromium to launch: ``$CHROMIUM``, else Debian's."""
    return os.environ.get("CHROMIUM", "/usr/bin/chromium")
