"""``pip install`` of the wheel into a fresh virtual environment gives a session host that starts,
answers its health check and stops cleanly on SIGTERM, as the container does.

The fresh venv's third-party packages are the image's lock and nothing else: one ``.pth`` line
names a directory of links to exactly those distributions in the dev venv (see
:func:`build_artifacts.link_locked_distributions`). Installing them from the registry instead
would need the network (pip asks the index even when its cache holds every file) and a minute
or more; a plain path line runs no ``.pth`` hook of the dev venv, so its editable install of
the project stays invisible, which the test checks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from local_stack.aws import CREDENTIALS, REGION, create_resources, environment_for, start_moto
from local_stack.template import load_template, local_resources

START_DEADLINE_SECONDS = 90.0
STOP_DEADLINE_SECONDS = 45.0


@pytest.fixture(scope="module")
def fresh_venv(wheel: Path, image_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed by pip and the image's locked packages."""
    venv = tmp_path_factory.mktemp("venv") / "fresh"
    _check([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = Path(_check([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]))
    (site / "locked-image-packages.pth").write_text(f"{image_site}\n")
    pip_install = ["pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index"]
    _check([sys.executable, "-m", *pip_install, str(wheel)])
    return python


def _check(command: list[str]) -> str:
    """Run one of our interpreters (no shell); its output, or the failure with its output."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)  # noqa: S603
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


@pytest.fixture(scope="module")
def moto_stack() -> Iterator[dict[str, str]]:
    """A moto server of its own with the template's tables and queues; yields the host's environment."""
    server, endpoint = start_moto()
    prefix = f"pkg{uuid.uuid4().hex[:6]}"
    resources = local_resources(load_template())
    names = create_resources(endpoint, resources, prefix)
    yield {
        **environment_for(endpoint, resources, names),
        "DYNAMIC_QUEUE_PREFIX": f"{prefix}-dq",
    }
    server.stop()


def _run(python: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [str(python), "-I", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)  # noqa: S603


def test_the_installed_packages_come_from_the_fresh_venv(fresh_venv: Path) -> None:
    # When the fresh venv imports the project
    script = (
        "import json, importlib.util, gateway, session_host.host;"
        "print(json.dumps([gateway.__file__, session_host.host.__file__,"
        " [importlib.util.find_spec(name) is not None for name in ('local_stack', 'moto')]]))"
    )
    result = _run(fresh_venv, ["-c", script], {"PATH": os.environ.get("PATH", "")})
    assert result.returncode == 0, result.stderr
    gateway_file, host_file, dev_only_found = json.loads(result.stdout)
    # Then it is the installed wheel, and neither the dev venv's editable install nor its other
    # packages (moto) are reachable
    venv = fresh_venv.parent.parent
    assert Path(gateway_file).is_relative_to(venv / "lib"), gateway_file
    assert Path(host_file).is_relative_to(venv / "lib"), host_file
    assert dev_only_found == [False, False]


def test_the_installed_session_host_starts_is_healthy_and_stops_cleanly_on_sigterm(
    fresh_venv: Path, moto_stack: dict[str, str], tmp_path: Path
) -> None:
    # Given the host's settings as the container gets them, against the local moto server
    host_id = f"pkg{uuid.uuid4().hex[:8]}"
    liveness_file = tmp_path / "alive"
    env = {
        "PATH": os.environ.get("PATH", ""),
        **moto_stack,
        "NETWORK_ADAPTER": "simulated",
        "SESSION_HOST_ID": host_id,
        "SESSION_DATA_DIR": str(tmp_path / "sessions"),
        "SESSION_HOST_LIVENESS_FILE": str(liveness_file),
        "POWERTOOLS_SERVICE_NAME": "session-host",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }
    sqs = boto3.client(
        "sqs",
        endpoint_url=moto_stack["AWS_ENDPOINT_URL"],
        region_name=REGION,
        aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
    )
    host_queues = {"QueueNamePrefix": f"{moto_stack['DYNAMIC_QUEUE_PREFIX']}-h-{host_id}"}
    log = tmp_path / "host.log"
    # When `python -m session_host` runs from the fresh venv
    with log.open("w") as output:
        command = [str(fresh_venv), "-I", "-m", "session_host"]
        host = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=output, stderr=output)  # noqa: S603
    try:
        # Then its health check passes within the deadline
        deadline = time.monotonic() + START_DEADLINE_SECONDS
        while _run(fresh_venv, ["-m", "session_host.healthcheck"], env).returncode != 0:
            assert host.poll() is None, f"the host exited with {host.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the health check did not pass in time:\n{log.read_text()}"
            time.sleep(0.2)
        assert sqs.list_queues(**host_queues).get("QueueUrls"), "the host has no command queue"
        # And SIGTERM stops it cleanly: exit status 0, its queue deleted, its liveness file gone
        host.send_signal(signal.SIGTERM)
        host.wait(timeout=STOP_DEADLINE_SECONDS)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    output = log.read_text()
    assert host.returncode == 0, output
    assert "Traceback" not in output, output
    assert not sqs.list_queues(**host_queues).get("QueueUrls")
    assert not liveness_file.exists()
    assert _run(fresh_venv, ["-m", "session_host.healthcheck"], env).returncode == 1
