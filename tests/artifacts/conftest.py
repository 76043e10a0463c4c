"""Fixtures of the build tests: the wheel (built once per run) and the locks' site directories."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_artifacts import IMAGE_LOCK, LAYER_LOCK, build_wheel, link_locked_distributions, unpack


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, as ``pip install .`` and the image build make it."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def unpacked_wheel(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return unpack(wheel, tmp_path_factory.mktemp("unpacked"))


@pytest.fixture(scope="session")
def image_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session host image's third-party packages (session_host/requirements.txt) and nothing else."""
    return link_locked_distributions(IMAGE_LOCK, tmp_path_factory.mktemp("image") / "site")


@pytest.fixture(scope="session")
def layer_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The layer's third-party packages (layers/gateway/requirements.txt) and nothing else."""
    return link_locked_distributions(LAYER_LOCK, tmp_path_factory.mktemp("layer") / "site")
