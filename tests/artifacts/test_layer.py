"""The shared layer holds what ``sam build`` puts in it: the layer lock's packages and the
``gateway`` package, whole, under ``python/``, each module with CPython 3.11 bytecode that
Lambda loads without compiling or even reading the source; no test code, local runner or
build files.

The test runs the builder ``sam build`` itself runs for ``BuildMethod: makefile``
(aws-lambda-builders' custom make workflow, called as SAM CLI calls it for a layer: the
template's ``ContentUri`` copied to a scratch directory, ``make build-SharedLayer`` there with
``ARTIFACTS_DIR`` the layer's root). ``LOCKED_SITE`` points the Makefile at a directory holding
exactly the layer lock's distributions (linked from the dev venv, which is the lock), so nothing
is downloaded; everything after the install step is what a deployed build runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_lambda_builders.builder import LambdaBuilder
from build_artifacts import FUNCTION_PACKAGES, REPO_ROOT, SHARED_PACKAGES, module_name, source_modules

import gateway.web.app  # noqa: F401 - writes __pycache__ into the layer's source, which the build must replace
from local_stack.template import load_template

LAYER = "SharedLayer"


@pytest.fixture(scope="module")
def layer(tmp_path_factory: pytest.TempPathFactory, layer_site: Path) -> Path:
    """The layer's root as ``sam build`` leaves it (``python/`` inside), built once for these tests."""
    resource = load_template()["Resources"][LAYER]
    assert resource["Metadata"]["BuildMethod"] == "makefile"
    source = REPO_ROOT / resource["Properties"]["ContentUri"]
    work = tmp_path_factory.mktemp("layer-build")
    with pytest.MonkeyPatch.context() as patch:  # the make workflow hands make os.environ
        patch.setenv("LOCKED_SITE", str(layer_site))
        LambdaBuilder(language="provided", dependency_manager=None, application_framework=None).build(
            str(source),
            str(work / LAYER),
            str(work / "scratch"),
            str(source / "Makefile"),
            runtime="provided",
            architecture="x86_64",
            options={"build_logical_id": LAYER},
            is_building_layer=True,
        )
    return work / LAYER


def _is_test_code(path: Path) -> bool:
    """pytest's own naming: test folders, test modules, conftest."""
    return (
        bool({"tests", "test"} & set(path.parts[:-1]))
        or path.name.startswith("test_")
        or path.name.endswith("_test.py")
        or path.name == "conftest.py"
    )


def test_the_layer_holds_the_locked_packages_and_the_whole_gateway_package(
    layer: Path, layer_site: Path
) -> None:
    # Given the source of the layer, with the caches an import leaves in it
    if not sys.dont_write_bytecode:
        assert list((REPO_ROOT / "layers/gateway/gateway/web").glob("__pycache__/app.*.pyc"))
    # When it is built as `sam build` builds it (the fixture)
    files = {path.relative_to(layer).as_posix() for path in layer.rglob("*") if path.is_file()}
    # Then every module of gateway is under python/, with its data file
    gateway_files = {name for name in files if name.startswith("python/gateway/")}
    modules = {
        module_name("gateway", Path(name).relative_to("python/gateway"))
        for name in gateway_files
        if name.endswith(".py")
    }
    assert modules == source_modules(("gateway",))
    assert "python/gateway/web/openapi.json" in files
    # And beside it exactly the lock's distributions (bytecode of top-level modules aside):
    # no manifest, no Makefile, no local runner
    assert {name.split("/")[1] for name in files} == {entry.name for entry in layer_site.iterdir()} | {
        "gateway",
        "__pycache__",
    }
    assert not [name for name in gateway_files if _is_test_code(Path(name))]


def test_every_module_has_bytecode_for_cpython_311_that_lambda_never_checks(layer: Path) -> None:
    # Given every Python source in the built layer
    sources = sorted((layer / "python").rglob("*.py"))
    assert len(sources) > 1000
    wrong: dict[str, str] = {}
    for source in sources:
        # Then its bytecode is where CPython 3.11 looks for it
        cached = source.parent / "__pycache__" / f"{source.stem}.cpython-311.pyc"
        if not cached.is_file():
            wrong[str(source)] = "no bytecode"
            continue
        header = cached.read_bytes()[:16]
        # And it is this interpreter's bytecode (3.11's magic number: Lambda's python3.11)
        if header[:4] != importlib.util.MAGIC_NUMBER:
            wrong[str(source)] = f"magic {header[:4].hex()}"
        # And hash-based, unchecked (flags 0b01): imported without a look at the source
        elif int.from_bytes(header[4:8], "little") != 0b01:
            wrong[str(source)] = f"flags {int.from_bytes(header[4:8], 'little'):#b}"
        # And of this very source, so it is not stale
        elif header[8:16] != importlib.util.source_hash(source.read_bytes()):
            wrong[str(source)] = "compiled from another source"
    assert sys.implementation.cache_tag == "cpython-311"
    assert not wrong, json.dumps(dict(list(wrong.items())[:20]), indent=1)
    # And no bytecode stands without its source (a copied cache of a module since removed)
    orphans = [
        pyc
        for pyc in (layer / "python").rglob("*.pyc")
        if not (pyc.parent.parent / f"{pyc.name.split('.')[0]}.py").is_file()
    ]
    assert not orphans


# Runs under `python -I -S -B` (no bytecode written). It records every source a loader compiles
# or reads (an unchecked-hash .pyc needs neither), then imports each module named on stdin.
_IMPORT_RECORDING_COMPILES = """
import _frozen_importlib_external as external, importlib, json, sys, traceback
sys.path[:0] = sys.argv[1:]
compiled, read = [], []
source_to_code, get_data = external.SourceLoader.source_to_code, external.FileLoader.get_data
def recording_source_to_code(self, data, path, *args, **kwargs):
    compiled.append(path)
    return source_to_code(self, data, path, *args, **kwargs)
def recording_get_data(self, path):
    if path.endswith(".py"):
        read.append(path)
    return get_data(self, path)
external.SourceLoader.source_to_code = recording_source_to_code
external.FileLoader.get_data = recording_get_data
failed, files = {}, {}
for name in json.load(sys.stdin):
    try:
        files[name] = importlib.import_module(name).__file__
    except BaseException as error:
        failed[name] = "".join(traceback.format_exception_only(error)).strip()
print(json.dumps({"failed": failed, "files": files, "compiled": compiled, "read": read}))
"""

_IMPORT_ENVIRONMENT = {
    "PATH": os.environ.get("PATH", ""),
    "AWS_REGION": "us-east-1",
    "POWERTOOLS_SERVICE_NAME": "gateway",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
}


def test_the_functions_import_from_the_layer_without_compiling_any_of_it(layer: Path, tmp_path: Path) -> None:
    # Given every module of gateway and of the functions (whose imports reach the third-party
    # packages a cold start loads), and a control module that has no bytecode
    modules = {
        name for name in source_modules(SHARED_PACKAGES + FUNCTION_PACKAGES) if not name.endswith(".__main__")
    }
    control = tmp_path / "control"
    control.mkdir()
    (control / "uncompiled_control.py").write_text("VALUE = 1\n")
    function_dirs = [str(REPO_ROOT / "functions" / path.name) for path in (REPO_ROOT / "functions").iterdir()]
    # When each is imported with the built layer first on the path, writing no bytecode
    result = subprocess.run(  # noqa: S603 - this interpreter, our script, no shell
        [
            sys.executable,
            "-I",
            "-S",
            "-B",  # -I ignores PYTHONDONTWRITEBYTECODE
            "-c",
            _IMPORT_RECORDING_COMPILES,
            str(layer / "python"),
            *function_dirs,
            str(control),
        ],
        input=json.dumps([*sorted(modules), "uncompiled_control"]),
        capture_output=True,
        text=True,
        env=_IMPORT_ENVIRONMENT,
        timeout=120,
        check=True,
    )
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    # Then every one imports, gateway from the layer
    assert not outcome["failed"], json.dumps(outcome["failed"], indent=1)
    assert all(
        outcome["files"][name].startswith(str(layer)) for name in modules & source_modules(SHARED_PACKAGES)
    )
    # And the recording sees a compile where there is no bytecode
    assert str(control / "uncompiled_control.py") in outcome["compiled"]
    # And nothing of the layer was compiled, or even read as source
    in_layer = str(layer)
    assert not [path for path in outcome["compiled"] if path.startswith(in_layer)]
    assert not [path for path in outcome["read"] if path.startswith(in_layer)]
