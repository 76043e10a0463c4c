"""The session host image: read from its Dockerfile (no Docker engine is needed to check it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

DOCKERFILE = Path(__file__).resolve().parents[3] / "session_host" / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), " ".join(rest.split())))
    return pairs


def arguments(keyword: str) -> list[str]:
    return [rest for name, rest in instructions() if name == keyword]


def test_the_image_is_python_3_11_slim() -> None:
    # Given the Dockerfile / When its base image is read / Then it is the slim Python 3.11 image
    assert arguments("FROM") == [arguments("FROM")[0]]
    assert arguments("FROM")[0].startswith("python:3.11-slim")


def test_libmagic_and_ffmpeg_are_installed_without_recommends_and_lists_are_cleaned() -> None:
    # Given the RUN steps / When the apt one is found
    apt = next(run for run in arguments("RUN") if "apt-get install" in run)

    # Then it installs libmagic and ffmpeg, lean, and leaves no package lists behind
    assert "--no-install-recommends" in apt
    assert re.search(r"\blibmagic1\b", apt)
    assert re.search(r"\bffmpeg\b", apt)
    assert "rm -rf /var/lib/apt/lists/*" in apt


def test_the_locked_dependencies_then_the_project_without_dependencies_are_installed() -> None:
    # Given the RUN steps / When the pip ones are found
    runs = arguments("RUN")
    install_lock = "pip install --require-hashes -r session_host/requirements.txt"
    locked = [i for i, run in enumerate(runs) if install_lock in run]
    project = [i for i, run in enumerate(runs) if re.search(r"pip install --no-deps \.( |$)", run)]

    # Then the image's lock (runtime + neonize, with hashes) goes in first, then the project's
    # wheel alone, so the image runs exactly the locked versions
    assert len(locked) == 1, runs
    assert len(project) == 1, runs
    assert locked[0] < project[0]
    assert not [run for run in runs if "pip install" in run and "[session-host]" in run]


def test_it_runs_as_a_non_root_user_owning_the_sessions_directory() -> None:
    # Given the Dockerfile / When the user it runs as is read
    users = arguments("USER")
    setup = next(run for run in arguments("RUN") if "useradd" in run)

    # Then the last USER is uid 10001 (not root), created with that uid and owning /data/sessions
    assert users[-1] in {"10001", "10001:10001", "sessionhost"}
    assert "--uid 10001" in setup
    assert "chown -R 10001:10001 /data/sessions" in setup


def test_health_check_and_command_run_the_host_modules() -> None:
    # Given the Dockerfile / When HEALTHCHECK and CMD are read
    (healthcheck,) = arguments("HEALTHCHECK")
    (command,) = arguments("CMD")

    # Then the health check runs the liveness check and the container runs the host
    assert json.loads(healthcheck.split("CMD", 1)[1]) == ["python", "-m", "session_host.healthcheck"]
    assert json.loads(command) == ["python", "-m", "session_host"]
