"""What the adapter keeps on disk for one device under ``data_dir``.

- ``<device_id>.sqlite3``: whatsmeow's store (keys, sessions, contacts), one database per
  device. One file per device matters: without a JID, neonize resumes the *first* device of
  a shared database. The connection string adds WAL, a busy timeout and foreign keys; the
  trailing ``&_x=`` swallows the ``?_foreign_keys=on`` neonize appends to the path.
- ``<device_id>.json``: the sidecar with the paired account JID (device part included, as
  whatsmeow keys its store by it), so a restart resumes with ``NewClient(db, jid=...)``.
  A device is *paired* exactly when the sidecar holds a JID.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from neonize.proto.Neonize_pb2 import JID

from gateway.failures.kinds import ErrorKind

from ..payloads import iso_utc
from ..port import NetworkError
from .jids import full_jid_str, jid_from_dict, jid_str, jid_to_dict

logger = logging.getLogger(__name__)

SQLITE_OPTIONS = "_journal_mode=WAL&_busy_timeout=10000&_foreign_keys=on&_x="
_DEVICE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_DB_SUFFIXES = ("", "-wal", "-shm", "-journal")


@dataclass(frozen=True)
class DeviceStore:
    """Paths and sidecar of one device's credentials."""

    data_dir: Path
    device_id: str

    def __post_init__(self) -> None:
        if not _DEVICE_ID.match(self.device_id) or ".." in self.device_id:
            raise NetworkError(ErrorKind.INVALID, f"unusable device id: {self.device_id!r}")

    @property
    def db_path(self) -> Path:
        return self.data_dir / f"{self.device_id}.sqlite3"

    @property
    def sidecar_path(self) -> Path:
        return self.data_dir / f"{self.device_id}.json"

    @property
    def db_name(self) -> str:
        """The ``name`` given to ``NewClient``: the SQLite path with its options."""
        return f"{self.db_path}?{SQLITE_OPTIONS}"

    def load_jid(self) -> JID | None:
        """The stored account JID, or None when the device is not paired."""
        try:
            raw = self.sidecar_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            return jid_from_dict(json.loads(raw)["jid"])
        except (ValueError, KeyError, TypeError):
            logger.exception("unreadable sidecar %s; the device counts as not paired", self.sidecar_path)
            return None

    def save_jid(self, jid: JID, *, now: float) -> None:
        """Store the paired account JID (atomically: a crash leaves the old file or the new)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        document = {
            "device_id": self.device_id,
            "jid": jid_to_dict(jid),
            "messaging_jid": jid_str(jid),
            "paired_at": iso_utc(now),
        }
        fd, tmp = tempfile.mkstemp(dir=self.data_dir, prefix=f".{self.device_id}.", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(document, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.sidecar_path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def has_device(self, jid: JID) -> bool:
        """Whether whatsmeow's store still holds this device.

        Resuming with a JID the store no longer knows hands whatsmeow a nil device, which
        brings the process down; whatsmeow deletes the row itself on a server-side logout
        that may have happened while this host was not running. An unreadable database
        counts as present: whatsmeow then reports the error itself.
        """
        if not self.db_path.exists():
            return False
        try:
            with contextlib.closing(sqlite3.connect(self.db_path, timeout=10)) as db:
                row = db.execute("SELECT 1 FROM whatsmeow_device WHERE jid = ?", (full_jid_str(jid),))
                return row.fetchone() is not None
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return False
            logger.warning("cannot check stored device in %s: %s", self.db_path, exc)
            return True
        except sqlite3.Error as exc:
            logger.warning("cannot check stored device in %s: %s", self.db_path, exc)
            return True

    def delete_all(self) -> None:
        """Delete the sidecar and the database (with its WAL files)."""
        paths = [self.sidecar_path, *(Path(f"{self.db_path}{suffix}") for suffix in _DB_SUFFIXES)]
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
