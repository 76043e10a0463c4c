"""Session host settings: defaults, derived timings, environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from session_host.config import HostSettings


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
    ],
)
def test_invalid_values_are_refused(values: dict[str, object]) -> None:
    # Given / When invalid settings are built / Then validation fails at start, not later
    with pytest.raises(ValidationError):
        HostSettings(**values)
