"""What the build tests share: the packages the project declares, their modules in the sources,
the wheel built from a copy of the sources, the locks, and a site directory holding exactly one
lock's distributions.

Nothing here uses the network. The wheel is built without build isolation, by the setuptools
the lock installed in the dev venv. A lock's distributions are taken from the dev venv (which
``make`` installed from the complete lock, so they are the locked versions, checked here) as
symbolic links in a directory of their own: a stand-in for ``pip install -r <lock>`` that
holds nothing else, so an import the lock does not cover fails.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aws_lambda_builders.builder import LambdaBuilder
from packaging.utils import canonicalize_name

REPO_ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())

COMPLETE_LOCK = REPO_ROOT / "layers" / "requirements-dev.txt"
LAYER_LOCK = REPO_ROOT / "layers" / "gateway" / "requirements.txt"
IMAGE_LOCK = REPO_ROOT / "session_host" / "requirements.txt"

FUNCTION_PACKAGES = (
    "platform_api",
    "users_api",
    "devices_api",
    "groups_api",
    "webhooks_api",
    "messages_api",
    "webhook_delivery",
)
"""The Lambda functions' packages: they run with the layer's dependencies."""
HOST_PACKAGES = ("session_host",)
"""The session host image's own package: it runs with the image's dependencies."""
SHARED_PACKAGES = ("gateway",)
"""In the layer and in the image."""

_SKIPPED_DIRS = {"__pycache__"}

IMPORT_ENVIRONMENT = {
    "PATH": os.environ.get("PATH", ""),
    "AWS_REGION": "us-east-1",
    "POWERTOOLS_SERVICE_NAME": "gateway",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
}
"""The environment a built module is imported in: what it may need at import in Lambda or the
container, and nothing of the test run's own (its tables, queues and master token)."""


def package_roots() -> dict[str, Path]:
    """Each top-level package the project declares -> its source directory."""
    return {name: REPO_ROOT / path for name, path in PYPROJECT["tool"]["setuptools"]["package-dir"].items()}


def _files(root: Path) -> list[Path]:
    return [
        path
        for path in sorted(root.rglob("*"))
        if path.is_file() and not _SKIPPED_DIRS & set(path.relative_to(root).parts) and path.suffix != ".pyc"
    ]


def module_name(package: str, relative: Path) -> str:
    """``gateway`` + ``web/app.py`` -> ``gateway.web.app``; a package's ``__init__.py`` is the package."""
    parts = [package, *relative.with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(packages: tuple[str, ...] | None = None) -> set[str]:
    """Every module of the given top-level packages (all declared ones by default), from the sources."""
    roots = package_roots()
    return {
        module_name(package, path.relative_to(roots[package]))
        for package in packages or tuple(roots)
        for path in _files(roots[package])
        if path.suffix == ".py"
    }


def source_data_files() -> set[str]:
    """The non-Python files inside the packages (``gateway/web/openapi.json``), wheel-relative."""
    return {
        f"{package}/{path.relative_to(root).as_posix()}"
        for package, root in package_roots().items()
        for path in _files(root)
        if path.suffix != ".py"
    }


def build_wheel(workdir: Path) -> Path:
    """Build the project's wheel from a copy of what the image build copies, and return it.

    A copy, so the build writes nothing into the checkout and two runs side by side do not share
    a ``build/`` directory.
    """
    source = workdir / "source"
    source.mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "pyproject.toml", source / "pyproject.toml")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for root in package_roots().values():
        shutil.copytree(root, source / root.relative_to(REPO_ROOT), ignore=ignore)
    dist = workdir / "dist"
    pip_wheel = ["pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(  # noqa: S603 - this interpreter's pip on a copy of our sources, no shell
        [sys.executable, "-m", *pip_wheel, "--wheel-dir", str(dist), str(source)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = dist.glob("*.whl")
    return wheel


def unpack(wheel: Path, target: Path) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


@dataclass(frozen=True)
class Pin:
    """One locked distribution: ``name==version`` and the hashes of its files."""

    name: str
    version: str
    hashes: frozenset[str]


def read_lock(path: Path) -> dict[str, Pin]:
    """The pins of a requirements file written by ``make lock``, by canonical name.

    Anything but ``name==version`` with hashes is refused, so a hand edit that loosens a pin
    cannot pass unnoticed.
    """
    pins: dict[str, Pin] = {}
    for line in path.read_text().replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement, *options = line.split()
        name, separator, version = requirement.partition("==")
        hashes = frozenset(option.removeprefix("--hash=") for option in options)
        if not separator or not version or not options or any(not h.startswith("sha256:") for h in hashes):
            raise ValueError(f"{path.name}: not an exact pin with hashes: {line[:120]}")
        pins[canonicalize_name(name)] = Pin(canonicalize_name(name), version, hashes)
    return pins


def link_locked_distributions(lock: Path, target: Path) -> Path:
    """A directory holding exactly ``lock``'s distributions, linked from the dev venv.

    Each distribution's top-level entries (packages, modules, ``.libs`` folders, its
    ``.dist-info``) become symbolic links; ``.pth`` files and scripts are left out.
    """
    target.mkdir(parents=True)
    for pin in read_lock(lock).values():
        try:
            distribution = importlib.metadata.distribution(pin.name)
        except importlib.metadata.PackageNotFoundError:
            raise AssertionError(f"the dev venv has no {pin.name} ({pin.version} locked): run make") from None
        if distribution.version != pin.version:
            raise AssertionError(
                f"the dev venv has {pin.name} {distribution.version}, the lock {pin.version}: run make"
            )
        for file in distribution.files or ():
            top = file.parts[0]
            if top in {"..", "__pycache__"} or top.endswith(".pth"):
                continue
            link = target / top
            if not link.exists():
                link.symlink_to(Path(str(distribution.locate_file(top))).resolve())
    return target


def sam_make_build(resource: dict[str, Any], logical_id: str, workdir: Path) -> Path:
    """``sam build`` of a ``BuildMethod: makefile`` function or layer of the template, run as SAM
    CLI runs it in-process: aws-lambda-builders' custom make workflow copies the resource's
    ``CodeUri`` (a layer's ``ContentUri``) to a scratch directory and runs ``make
    build-<logical_id>`` there with ``ARTIFACTS_DIR``, the Makefile being the one in the
    ``ContextPath`` folder when the metadata names one, else in the code folder. Returns the
    artifacts' root."""
    layer = resource["Type"] == "AWS::Serverless::LayerVersion"
    source = REPO_ROOT / resource["Properties"]["ContentUri" if layer else "CodeUri"]
    makefile = REPO_ROOT / resource["Metadata"].get("ContextPath", source) / "Makefile"
    artifacts = workdir / logical_id
    LambdaBuilder(language="provided", dependency_manager=None, application_framework=None).build(
        str(source),
        str(artifacts),
        str(workdir / f"{logical_id}-scratch"),
        str(makefile),
        runtime="provided",
        architecture="x86_64",
        options={"build_logical_id": logical_id},
        is_building_layer=layer,
    )
    return artifacts


def bytecode_problems(root: Path) -> dict[str, str]:
    """Each source under ``root`` whose bytecode CPython 3.11 would not load as is -> why.

    Loaded as is: in ``__pycache__`` under 3.11's tag, 3.11's magic number, hash-based and
    unchecked (flags 0b01, so the import never reads the source), and the hash of this very
    source (not stale). Bytecode without its source counts too.
    """
    problems: dict[str, str] = {}
    for source in sorted(root.rglob("*.py")):
        cached = source.parent / "__pycache__" / f"{source.stem}.cpython-311.pyc"
        if not cached.is_file():
            problems[str(source)] = "no bytecode"
            continue
        header = cached.read_bytes()[:16]
        flags = int.from_bytes(header[4:8], "little")
        if header[:4] != importlib.util.MAGIC_NUMBER:
            problems[str(source)] = f"magic number {header[:4].hex()}"
        elif flags != 0b01:
            problems[str(source)] = f"flags {flags:#b}"
        elif header[8:16] != importlib.util.source_hash(source.read_bytes()):
            problems[str(source)] = "compiled from another source"
    for cached in root.rglob("*.pyc"):
        if not (cached.parent.parent / f"{cached.name.split('.')[0]}.py").is_file():
            problems[str(cached)] = "bytecode without its source"
    return problems
