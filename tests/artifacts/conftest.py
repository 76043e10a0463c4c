"""Fixtures of the build tests: the wheel, the layer and the functions as built (each once per
run), and the locks' site directories."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_artifacts import (
    IMAGE_LOCK,
    LAYER_LOCK,
    build_wheel,
    link_locked_distributions,
    sam_make_build,
    unpack,
)

from local_stack.template import load_template


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


@pytest.fixture(scope="session")
def template_resources() -> dict[str, dict]:
    return load_template()["Resources"]


@pytest.fixture(scope="session")
def layer(
    template_resources: dict[str, dict], layer_site: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """SharedLayer's root as ``sam build`` leaves it (``python/`` inside).

    ``LOCKED_SITE`` points its Makefile at ``layer_site`` instead of the registry, so nothing is
    downloaded; every step after the install is the deployed build's.
    """
    with pytest.MonkeyPatch.context() as patch:  # the make workflow hands make os.environ
        patch.setenv("LOCKED_SITE", str(layer_site))
        workdir = tmp_path_factory.mktemp("layer-build")
        return sam_make_build(template_resources["SharedLayer"], "SharedLayer", workdir)


@pytest.fixture(scope="session")
def function_artifacts(
    template_resources: dict[str, dict], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """Each function's logical id -> its artifacts' root as ``sam build`` leaves it."""
    workdir = tmp_path_factory.mktemp("functions-build")
    return {
        name: sam_make_build(resource, name, workdir)
        for name, resource in template_resources.items()
        if resource["Type"] == "AWS::Serverless::Function"
    }
