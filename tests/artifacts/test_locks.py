"""The locks agree with pyproject.toml and with each other, without the network.

One resolution, three files: the complete lock (layers/requirements-dev.txt, what ``make``
installs), the layer's subset (layers/gateway/requirements.txt, what ``sam build`` bundles) and
the image's (session_host/requirements.txt, what the Dockerfile installs). Each subset pins the
same versions, with the same hashes, as the complete lock, and each file holds exactly the
dependency closure of what it is for: nothing missing, nothing extra. The closure is walked
through the dev venv's installed metadata, which is the locked versions (checked first).
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest
from build_artifacts import COMPLETE_LOCK, IMAGE_LOCK, LAYER_LOCK, PYPROJECT, REPO_ROOT, Pin, read_lock
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PROJECT = PYPROJECT["project"]
RUNTIME = [Requirement(text) for text in PROJECT["dependencies"]]
SESSION_HOST = [Requirement(text) for text in PROJECT["optional-dependencies"]["session-host"]]
DEV = [Requirement(text) for text in PROJECT["optional-dependencies"]["dev"]]

LOCKS = {
    "complete": (COMPLETE_LOCK, RUNTIME + SESSION_HOST + DEV),
    "layer": (LAYER_LOCK, RUNTIME),
    "image": (IMAGE_LOCK, RUNTIME + SESSION_HOST),
}


def _closure(roots: list[Requirement], pins: dict[str, Pin]) -> tuple[set[str], list[str]]:
    """The distributions ``roots`` need on the target platform (this machine's: Linux x86_64,
    CPython 3.11), and every requirement on the way that the pins do not satisfy."""
    environment = default_environment()
    needed: set[str] = set()
    problems: list[str] = []
    expanded: set[tuple[str, str]] = set()
    pending = [(requirement, "pyproject.toml") for requirement in roots]
    while pending:
        requirement, wanted_by = pending.pop()
        name = canonicalize_name(requirement.name)
        pin = pins.get(name)
        if pin is None:
            problems.append(f"{requirement} (wanted by {wanted_by}) is not pinned")
            continue
        if not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement} (wanted by {wanted_by}) is not met by {name}=={pin.version}")
        needed.add(name)
        for extra in {"", *requirement.extras}:
            if (name, extra) in expanded:
                continue
            expanded.add((name, extra))
            for text in importlib.metadata.requires(name) or ():
                dependency = Requirement(text)
                if dependency.marker is None or dependency.marker.evaluate({**environment, "extra": extra}):
                    pending.append((dependency, f"{name}[{extra}]" if extra else name))
    return needed, problems


def test_every_pin_is_exact_and_hashed_and_the_dev_venv_is_the_complete_lock() -> None:
    # Given the three files (read_lock refuses anything but name==version with sha256 hashes)
    complete = read_lock(COMPLETE_LOCK)
    assert read_lock(LAYER_LOCK)
    assert read_lock(IMAGE_LOCK)
    # Then the environment the tests run in is the complete lock (`make` installed it)
    stale = {
        pin.name: importlib.metadata.version(pin.name)
        for pin in complete.values()
        if importlib.metadata.version(pin.name) != pin.version
    }
    assert not stale, f"the dev venv differs from {COMPLETE_LOCK.name}: {stale}; run make"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_each_lock_is_exactly_the_closure_of_what_it_is_for(lock: str) -> None:
    # Given a lock and the direct dependencies it serves
    path, roots = LOCKS[lock]
    pins = read_lock(path)
    # When their dependencies are followed through the locked versions
    needed, problems = _closure(roots, pins)
    # Then every requirement is met by a pin, and every pin is needed
    assert not problems, "\n".join(problems)
    assert set(pins) - needed == set(), f"pinned in {path.name} but not needed"


@pytest.mark.parametrize("subset", [LAYER_LOCK, IMAGE_LOCK], ids=["layer", "image"])
def test_the_subsets_pin_what_the_complete_lock_pins(subset: Path) -> None:
    complete = read_lock(COMPLETE_LOCK)
    differing = {name: pin.version for name, pin in read_lock(subset).items() if pin != complete.get(name)}
    assert not differing, f"not pinned (with the same hashes) as in {COMPLETE_LOCK.name}: {differing}"


def test_the_layer_bundles_boto3_with_its_botocore() -> None:
    # The layer's boto3 and botocore shadow the runtime's, so both come from the lock, as a pair
    # boto3 accepts (checked by the closure), with the urllib3 botocore runs on.
    layer, image = read_lock(LAYER_LOCK), read_lock(IMAGE_LOCK)
    assert {"boto3", "botocore", "s3transfer", "urllib3"} <= set(layer)
    assert {"boto3", "botocore", "urllib3", "neonize"} <= set(image)


def test_the_build_backend_is_the_locked_setuptools() -> None:
    # The wheel and the editable install are built without isolation, by the lock's setuptools.
    (backend,) = [Requirement(text) for text in PYPROJECT["build-system"]["requires"]]
    assert backend.name == "setuptools"
    assert backend.specifier.contains(read_lock(COMPLETE_LOCK)["setuptools"].version)


def test_make_installs_the_complete_lock_with_hashes() -> None:
    # (The image's install steps are checked in tests/unit/session_host/test_host_dockerfile.py.)
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert f"LOCK := {COMPLETE_LOCK.relative_to(REPO_ROOT)}" in makefile
    assert re.search(r"pip install --require-hashes .*-r \$\(LOCK\)", makefile)
