"""Session host settings: defaults, derived timings, environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from session_host.config import HostSettings, WorkerShare, default_workers


def test_defaults_follow_the_lease_ttl(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given no host variable in the environment
    for name in ("SESSION_HOST_ID", "SESSION_DATA_DIR", "LEASE_TTL_SECONDS", "TAKEOVER_INTERVAL_SECONDS"):
        monkeypatch.delenv(name, raising=False)

    # When the settings are read
    settings = HostSettings()

    # Then every knob has its documented default, and renewal and takeover run at a third of the TTL
    assert len(settings.host_id) == 16
    int(settings.host_id, 16)
    assert settings.data_dir == Path("/data/sessions")
    assert settings.lease_ttl_seconds == 30
    assert settings.renew_every_seconds == 10
    assert settings.takeover_every_seconds == 10
    assert (settings.restore_concurrency, settings.restore_jitter_seconds) == (8, 2.0)
    assert settings.event_batch_linger_seconds == 0.05
    assert settings.network_adapter in {"simulated", "neonize"}


def test_each_host_gets_its_own_id_by_default() -> None:
    # Given / When two hosts read their settings / Then their ids differ
    assert HostSettings().host_id != HostSettings().host_id


def test_environment_variables_set_the_values(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Given the host's variables in the environment
    monkeypatch.setenv("SESSION_HOST_ID", "host-a")
    monkeypatch.setenv("SESSION_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LEASE_TTL_SECONDS", "12")
    monkeypatch.setenv("TAKEOVER_INTERVAL_SECONDS", "7")
    monkeypatch.setenv("RESTORE_CONCURRENCY", "3")
    monkeypatch.setenv("SESSION_HOST_LIVENESS_FILE", str(tmp_path / "alive"))

    # When the settings are read
    settings = HostSettings()

    # Then they are used, the takeover interval overriding its default
    assert (settings.host_id, settings.data_dir, settings.restore_concurrency) == ("host-a", tmp_path, 3)
    assert (settings.renew_every_seconds, settings.takeover_every_seconds) == (4, 7)
    assert settings.liveness_file == tmp_path / "alive"


@pytest.mark.parametrize(
    "values",
    [
        {"host_id": "has spaces"},
        {"host_id": "x" * 17},  # the queue name would exceed what SQS allows
        {"lease_ttl_seconds": 0},
        {"restore_concurrency": 0},
        {"restore_jitter_seconds": -1},
        {"worker_share": "2/2"},
        {"worker_share": "1"},
    ],
)
def test_invalid_values_are_refused(values: dict[str, object]) -> None:
    # Given / When invalid settings are built / Then validation fails at start, not later
    with pytest.raises(ValidationError):
        HostSettings(**values)


def test_worker_processes_default_by_adapter_and_follow_session_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given / When no SESSION_WORKERS is set / Then neonize runs two workers, the simulated network one
    assert (default_workers("neonize"), default_workers("simulated")) == (2, 1)
    monkeypatch.delenv("SESSION_WORKERS", raising=False)
    assert HostSettings().workers == default_workers(HostSettings().network_adapter)

    # When SESSION_WORKERS and the descriptor budget are set / Then they are used
    monkeypatch.setenv("SESSION_WORKERS", "4")
    monkeypatch.setenv("SESSION_DESCRIPTOR_BUDGET", "0.5")
    settings = HostSettings()
    assert (settings.workers, settings.descriptor_budget) == (4, 0.5)


@pytest.mark.parametrize(
    "values",
    [
        {"session_workers": 0},
        {"session_workers": 17},  # one hex digit in a worker's id
        {"descriptor_budget": 0},
        {"descriptor_budget": 1.5},
        # A worker's id is the first 8 characters of the host id and its own suffix: a longer
        # id chosen on purpose would be cut (two tasks could then share worker ids)
        {"session_workers": 2, "host_id": "x" * 9},
    ],
)
def test_invalid_worker_settings_are_refused(values: dict[str, object]) -> None:
    # Given / When / Then
    with pytest.raises(ValidationError):
        HostSettings(**values)


def test_a_random_host_id_serves_as_the_base_of_worker_ids() -> None:
    # Given / When several workers with the default (random, 16 characters) id / Then it is valid
    assert len(HostSettings(session_workers=2).host_id) == 16
    assert HostSettings(session_workers=2, host_id="task0001").workers == 2


def test_a_worker_share_is_read_from_the_supervisors_variable_and_splits_devices_evenly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the share the supervisor gives its second of three workers
    monkeypatch.setenv("SESSION_WORKER_SHARE", "1/3")

    # When the settings are read / Then it is that share
    share = HostSettings().worker_share
    assert share == WorkerShare(1, 3)

    # And the three shares hold every device exactly once, about a third each
    devices = [f"device-{n}" for n in range(3000)]
    holders = [[WorkerShare(i, 3).holds(device) for i in range(3)].count(True) for device in devices]
    assert set(holders) == {1}
    assert 900 < sum(share.holds(device) for device in devices) < 1100
