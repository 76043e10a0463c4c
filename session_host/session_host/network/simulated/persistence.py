"""Small JSON files written atomically: the network's state and a device's credentials."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json(path: Path, data: Any, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, then rename).

    ``durable`` also flushes the file to disk first (credentials); without it the write
    still survives a crash of the process, which is enough for the network's own state.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, separators=(",", ":"))
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> Any | None:
    """The JSON in ``path``; None when the file does not exist."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def credentials_path(data_dir: Path, device_id: str) -> Path:
    return data_dir / f"{device_id}.json"


def load_credentials(data_dir: Path, device_id: str) -> dict[str, str] | None:
    """The stored ``{jid, device_key}`` of a paired device, or None (unreadable counts as none)."""
    try:
        data = read_json(credentials_path(data_dir, device_id))
    except (OSError, ValueError):
        return None
    if (
        isinstance(data, dict)
        and isinstance(data.get("jid"), str)
        and isinstance(data.get("device_key"), str)
    ):
        return {"jid": data["jid"], "device_key": data["device_key"]}
    return None


def save_credentials(data_dir: Path, device_id: str, credentials: dict[str, str]) -> None:
    write_json(credentials_path(data_dir, device_id), {**credentials, "device_id": device_id})


def delete_credentials(data_dir: Path, device_id: str) -> None:
    credentials_path(data_dir, device_id).unlink(missing_ok=True)
