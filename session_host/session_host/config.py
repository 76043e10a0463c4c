"""Settings of the session host, read from the environment and validated once.

The gateway's own settings (tables, queue URLs, ``NETWORK_ADAPTER``) stay in
:mod:`gateway.config`; this model adds what only the host needs. The module-level constants
are the host's fixed timings and bounds, gathered here so they are found in one place.
"""

from __future__ import annotations

import secrets
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, Field, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from gateway.config import get_settings
from session_host.supervision import Backoff, SupervisionSettings

READY_WAIT_SECONDS = 5.0
"""How long ``qr``, ``pair_phone`` and ``logout`` wait for a session that is just starting."""
STATE_POLL_SECONDS = 0.1
"""While waiting for a session state, it is re-checked at least this often (not every change is an event)."""
COMMAND_CONCURRENCY = 64
"""Commands executed at once per command queue; the poller waits for a free slot beyond that."""
EVENT_BUFFER_SIZE = 1000
"""Envelopes waiting to be published; a full buffer makes the sessions' sinks wait."""
EVENT_SENDERS = 4
"""SendMessageBatch calls in flight at once."""
EVENT_FLUSH_SECONDS = 30.0
"""How long a clean stop waits for the last envelopes to be published."""
AWS_THREADS = 32
"""Threads for the host's blocking AWS calls (long polls have their own)."""
DEFAULT_EXECUTOR_THREADS = 64
"""The loop's default executor under ``python -m session_host``: adapters run blocking calls there."""
SWEEP_EVERY_SECONDS = 300.0
"""How often the host deletes the bus queues of owners that are gone (``SWEEP_INTERVAL_SECONDS``)."""
LIVENESS_EVERY_SECONDS = 5.0
"""How often the host rewrites its liveness file."""
LIVENESS_MAX_AGE_SECONDS = 30.0
"""The health check fails once the liveness file is older than this."""
STOP_GRACE_SECONDS = 10.0
"""How long a clean stop lets commands under way finish before it closes the sessions."""
SEND_POLL_SECONDS = 30.0
"""A device's send dispatcher re-reads its outbox at least this often (a send enqueued
without a SEND_TEXT command reaching the host is found then)."""
EXPIRY_MARGIN_SECONDS = 1.0
"""A session is closed this long before its lease expires unrenewed (clock skew between hosts)."""
WORKER_STOP_SECONDS = 15.0
"""SIGTERM budget of one host process (a worker, or the host without a supervisor): its clean
stop gets this long, then the process ends (``os._exit``) whatever its sessions still do."""
SUPERVISOR_KILL_SECONDS = 18.0
"""After SIGTERM, the supervisor SIGKILLs the workers still running at this point (a worker
stuck in native code never reaches its own deadline); it is gone well within 20 s."""
RECYCLE_EXIT_CODE = 75
"""A worker that stopped cleanly to be replaced (over its descriptor or memory budget) exits with this
(``EX_TEMPFAIL``); the supervisor starts a fresh one at once."""
BUDGET_CHECK_SECONDS = 5.0
"""How often a host process counts its open descriptors and memory against their budgets."""
WORKER_RESTART_BACKOFF_SECONDS = (1.0, 60.0)
"""A worker that keeps dying is restarted after 1 s, doubling up to 60 s; the first restart
after a stable run is immediate."""
WORKER_STABLE_SECONDS = 60.0
"""A worker that ran this long counts as stable: its next restart is immediate."""
WORKER_START_GRACE_SECONDS = 120.0
"""A worker's liveness file may be missing or stale this long after its start (the host is
starting); after it, a stale file means a stuck worker, which the supervisor kills."""
MAX_WORKERS = 16
"""Worker processes per task at most (one hex digit in the worker's host id)."""


def _new_host_id() -> str:
    return secrets.token_hex(8)


def default_workers(adapter: str) -> int:
    """Worker processes when ``SESSION_WORKERS`` is unset: 2 on neonize (a crash of its native
    library costs half the devices), 1 on the simulated network (nothing native to crash; and
    each process's simulated network is its own)."""
    return 2 if adapter == "neonize" else 1


@dataclass(frozen=True)
class WorkerShare:
    """A worker's share of its task's devices: those whose stable hash modulo ``workers`` is
    ``index`` (CRC-32: the same in every process, unlike ``hash``)."""

    index: int
    workers: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.workers:
            raise ValueError(f"a worker share is <index>/<workers> with 0 <= index < workers, not {self}")

    def __str__(self) -> str:
        return f"{self.index}/{self.workers}"

    def holds(self, device_id: str) -> bool:
        return zlib.crc32(device_id.encode()) % self.workers == self.index

    @classmethod
    def parse(cls, value: object) -> object:
        """``"<index>/<workers>"`` as the supervisor writes it; anything else is left to fail."""
        if isinstance(value, str) and value.count("/") == 1:
            index, workers = value.split("/")
            if index.isdigit() and workers.isdigit():
                return cls(int(index), int(workers))
        return value


def _default_liveness_file() -> Path:
    # Container-local on purpose: SESSION_DATA_DIR is shared by every host (EFS), so a file
    # there could be kept fresh by another host while this one is dead.
    return Path(tempfile.gettempdir()) / "session-host.alive"


class HostSettings(BaseSettings):
    """The host's settings. Aliases are the environment variables; tests pass field names."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    # Names the host's own command queue (``<prefix>-h-<host_id>``), its heartbeat and its
    # leases. A host restarted with a fixed id after a crash waits for its previous heartbeat
    # to expire before taking devices; the id must not be reused within 60 s of a clean stop
    # (SQS refuses a deleted queue's name for that long).
    host_id: str = Field(
        default_factory=_new_host_id, alias="SESSION_HOST_ID", pattern=r"^[A-Za-z0-9_-]{1,16}$"
    )
    data_dir: Path = Field(default=Path("/data/sessions"), alias="SESSION_DATA_DIR")
    lease_ttl_seconds: float = Field(default=30.0, alias="LEASE_TTL_SECONDS", gt=0)
    restore_concurrency: int = Field(default=8, alias="RESTORE_CONCURRENCY", ge=1)
    restore_jitter_seconds: float = Field(default=2.0, alias="RESTORE_JITTER_SECONDS", ge=0)
    # Unset: a third of the lease TTL (see ``takeover_every_seconds``).
    takeover_interval_seconds: float | None = Field(default=None, alias="TAKEOVER_INTERVAL_SECONDS", gt=0)
    # How often the host sweeps the bus queues of owners that are gone; the tests' stack sweeps
    # every few seconds, so every run sees it work.
    sweep_interval_seconds: float = Field(default=SWEEP_EVERY_SECONDS, alias="SWEEP_INTERVAL_SECONDS", gt=0)
    event_batch_linger_seconds: float = Field(default=0.05, alias="EVENT_BATCH_LINGER_SECONDS", ge=0)
    liveness_file: Path = Field(default_factory=_default_liveness_file, alias="SESSION_HOST_LIVENESS_FILE")
    # Supervised sessions (decisions, "Sessions on the real network"): the first retry after
    # a failed attempt, the longest wait, and how long an attempt may go unanswered.
    reconnect_initial_seconds: float = Field(default=2.0, alias="RECONNECT_INITIAL_SECONDS", gt=0)
    reconnect_max_seconds: float = Field(default=300.0, alias="RECONNECT_MAX_SECONDS", gt=0)
    dial_timeout_seconds: float = Field(default=90.0, alias="DIAL_TIMEOUT_SECONDS", gt=0)
    # Worker processes, each a complete host (see session_host.workers); unset: see
    # default_workers.
    session_workers: int | None = Field(default=None, alias="SESSION_WORKERS", ge=1, le=MAX_WORKERS)
    # Sessions this host process runs at most (each worker of a task has its own limit);
    # beyond it, connects are refused (503, another host may have room) and restore passes
    # leave devices to other hosts. Unset: no limit. The template sets it from the measured
    # memory per session (bench/README.md, "Real-library sessions").
    max_sessions: int | None = Field(default=None, alias="MAX_SESSIONS", ge=1)
    # Set by the supervisor for each worker, "<index>/<workers>": the worker's share of the
    # task's devices, which its restore passes take first (see session_host.restore).
    worker_share: Annotated[WorkerShare | None, NoDecode, BeforeValidator(WorkerShare.parse)] = Field(
        default=None, alias="SESSION_WORKER_SHARE"
    )
    # A host process whose open descriptors pass this fraction of its RLIMIT_NOFILE stops
    # cleanly and exits to be replaced by a fresh one (neonize leaks descriptors per connect).
    descriptor_budget: float = Field(default=0.8, alias="SESSION_DESCRIPTOR_BUDGET", gt=0, le=1)
    # The same for memory (neonize leaks ~0.2 MB per connect attempt): MiB resident past which
    # the process is replaced; past 80 % of it, it takes no more devices. Unset: no budget.
    memory_budget_mb: float | None = Field(default=None, alias="SESSION_MEMORY_BUDGET_MB", ge=64)
    # The simulated network's state file for ``python -m session_host``: its accounts and
    # device links are loaded at start and saved on change, so paired devices survive a
    # restart. Each process's network is its own (workers only start from the same file).
    simulated_network_state: Path | None = Field(default=None, alias="SIMULATED_NETWORK_STATE")

    @model_validator(mode="after")
    def _worker_ids_fit(self) -> HostSettings:
        # A worker's id is "<first 8 of host_id>-w<i>-<generation>": a longer id chosen on
        # purpose would be cut, and two tasks could then share worker ids.
        if "host_id" in self.model_fields_set and len(self.host_id) > 8 and self.workers > 1:
            raise ValueError("SESSION_HOST_ID has at most 8 characters when SESSION_WORKERS > 1")
        return self

    @property
    def workers(self) -> int:
        """Worker processes to run: ``SESSION_WORKERS``, else 2 on neonize and 1 otherwise."""
        if self.session_workers is not None:
            return self.session_workers
        return default_workers(self.network_adapter)

    @property
    def supervision(self) -> SupervisionSettings:
        backoff = Backoff(initial=self.reconnect_initial_seconds, maximum=self.reconnect_max_seconds)
        return SupervisionSettings(backoff=backoff, dial_timeout=self.dial_timeout_seconds)

    @property
    def renew_every_seconds(self) -> float:
        """The heartbeat is renewed three times per TTL, so one failed renewal never loses a device."""
        return self.lease_ttl_seconds / 3

    @property
    def takeover_every_seconds(self) -> float:
        if self.takeover_interval_seconds is not None:
            return self.takeover_interval_seconds
        return self.lease_ttl_seconds / 3

    @property
    def network_adapter(self) -> str:
        """``simulated`` or ``neonize``: the gateway's ``NETWORK_ADAPTER``."""
        return get_settings().network_adapter
