"""The wheel works as built: it holds every module and data file of every declared package and
nothing else, and every module imports from the wheel's copy alone, next to only the
third-party packages its artifact ships with (the image's for the session host, the layer's for
the functions), never from the editable install."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from build_artifacts import (
    FUNCTION_PACKAGES,
    HOST_PACKAGES,
    IMPORT_ENVIRONMENT,
    SHARED_PACKAGES,
    package_roots,
    source_data_files,
    source_modules,
)

# Runs under `python -I -S`: no site-packages, no .pth hooks (so no editable finder), no
# PYTHONPATH, no working directory on the path. argv: the wheel's copy, the dependencies' site.
_IMPORT_EACH = """
import importlib, json, sys, traceback
sys.path[:0] = sys.argv[1:3]
found = {}
for name in json.load(sys.stdin):
    try:
        found[name] = importlib.import_module(name).__file__ or "FAILED: a namespace package, no __init__.py"
    except BaseException as error:
        found[name] = "FAILED: " + "".join(traceback.format_exception_only(error)).strip()
print(json.dumps(found))
"""


def _import_each(modules: set[str], wheel_copy: Path, site: Path) -> dict[str, str]:
    result = subprocess.run(  # noqa: S603 - this interpreter, our script, no shell
        [sys.executable, "-I", "-S", "-c", _IMPORT_EACH, str(wheel_copy), str(site)],
        input=json.dumps(sorted(modules)),
        capture_output=True,
        text=True,
        env=IMPORT_ENVIRONMENT,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def _importable(packages: tuple[str, ...]) -> set[str]:
    # A package's __main__ runs the program when imported: the installed-venv test runs it.
    return {name for name in source_modules(packages) if not name.endswith(".__main__")}


def _assert_all_from(found: dict[str, str], wheel_copy: Path) -> None:
    failed = {name: outcome for name, outcome in found.items() if outcome.startswith("FAILED")}
    assert not failed, json.dumps(failed, indent=1)
    elsewhere = {name: file for name, file in found.items() if not Path(file).is_relative_to(wheel_copy)}
    assert not elsewhere, f"imported from outside the wheel: {elsewhere}"


def test_the_wheel_holds_every_source_file_of_every_package_and_nothing_else(wheel: Path) -> None:
    # Given the wheel built from the sources
    with zipfile.ZipFile(wheel) as archive:
        names = {name for name in archive.namelist() if ".dist-info/" not in name}
    # Then it holds each package's modules and data files (openapi.json), and no more
    expected = {
        f"{package}/{path.relative_to(root).as_posix()}"
        for package, root in package_roots().items()
        for path in root.rglob("*.py")
        if "__pycache__" not in path.parts
    } | source_data_files()
    assert "gateway/web/openapi.json" in expected
    assert {"gateway/accounts/store.py", "session_host/network/neonize/adapter.py"} <= expected
    assert names - expected == set(), "files in the wheel that are not sources"
    assert expected - names == set(), "sources missing from the wheel"
    # And the local runner is not in it (it needs the checkout and the dev tools)
    assert not any(name.startswith("local_stack/") for name in names)


def test_gateway_and_the_session_host_import_from_the_wheel_with_the_image_dependencies(
    unpacked_wheel: Path, image_site: Path
) -> None:
    # Given every module of the image's packages, the neonize adapter included
    modules = _importable(SHARED_PACKAGES + HOST_PACKAGES)
    assert "session_host.network.neonize.adapter" in modules
    # When each is imported from the wheel, with only the image's locked packages beside it
    found = _import_each(modules, unpacked_wheel, image_site)
    # Then every one imports, and from the wheel
    _assert_all_from(found, unpacked_wheel)


def test_every_function_imports_from_the_wheel_with_the_layer_dependencies(
    unpacked_wheel: Path, layer_site: Path
) -> None:
    # Given every module of the functions and of the layer's package
    modules = _importable(SHARED_PACKAGES + FUNCTION_PACKAGES)
    assert {f"{package}.handler" for package in FUNCTION_PACKAGES if package != "webhook_delivery"} <= modules
    # When each is imported from the wheel, with only the layer's locked packages beside it
    found = _import_each(modules, unpacked_wheel, layer_site)
    # Then every one imports, and from the wheel
    _assert_all_from(found, unpacked_wheel)
