"""Paired devices on disk for ``bench.neonize_sessions``, made with the real library.

One real connect of a new device against a refusing network makes whatsmeow create its SQLite
store (schema version and all): that store is the template. Copied once per device, with a
``whatsmeow_device`` row of random keys under a made-up account JID and the adapter's sidecar
naming that JID, it is what a paired device leaves on disk. Resuming it dials the network
exactly as a real paired device does (the keys are only used after the dial).

Runs in the measured process (``bench._neonize_child prepare``): it loads neonize.
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from neonize.proto.Neonize_pb2 import JID

from session_host.network.neonize import NeonizePort
from session_host.network.neonize.jids import full_jid_str
from session_host.network.neonize.store import DeviceStore

FIRST_DIAL_SECONDS = 60.0
"""How long the new device's connect may take to fail (a refusing network fails it at once)."""


def store_template(port: NeonizePort, seed_dir: Path) -> bytes:
    """A new device's whatsmeow store as the library creates it (its connect on ``port``
    creates the store, dials and fails), copied whole."""
    ended = threading.Event()

    async def failed(event: Any) -> None:
        if event.name == "connection.failure":
            ended.set()

    seed = port.open_session("seed", data_dir=seed_dir, sink=failed)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(seed.connect())

    async def until_failed() -> None:
        while not ended.is_set():
            await asyncio.sleep(0.05)

    loop.run_until_complete(asyncio.wait_for(until_failed(), FIRST_DIAL_SECONDS))
    template = seed_dir / "template.sqlite3"
    with sqlite3.connect(seed_dir / "seed.sqlite3", timeout=10) as source, sqlite3.connect(template) as copy:
        source.backup(copy)
    return template.read_bytes()


def write_paired_store(data_dir: Path, device: dict[str, Any], template: bytes) -> None:
    """What ``device`` (``device_id``, ``phone``) leaves in ``data_dir`` once paired: the
    template store with its ``whatsmeow_device`` row, and the adapter's sidecar."""
    store = DeviceStore(data_dir, device["device_id"])
    store.data_dir.mkdir(parents=True, exist_ok=True)
    store.db_path.write_bytes(template)
    jid = JID(User=device["phone"], Server="s.whatsapp.net", Device=7, RawAgent=0, Integrator=0)
    with sqlite3.connect(store.db_path) as db:
        db.execute(
            "INSERT INTO whatsmeow_device (jid, registration_id, noise_key, identity_key,"
            " signed_pre_key, signed_pre_key_id, signed_pre_key_sig, adv_key, adv_details,"
            " adv_account_sig, adv_account_sig_key, adv_device_sig)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                full_jid_str(jid),
                random.randrange(1, 2**31),
                *(os.urandom(32) for _ in range(3)),
                1,
                os.urandom(64),
                os.urandom(32),
                b"",
                os.urandom(64),
                os.urandom(32),
                os.urandom(64),
            ),
        )
    store.save_jid(jid, now=time.time())
