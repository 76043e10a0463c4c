"""The shared layer holds what ``sam build`` puts in it: the ``gateway`` package, whole, under
``python/``, and no test code, local runner or caches.

The test runs the builder ``sam build`` itself runs for ``BuildMethod: python3.11``
(aws-lambda-builders' python_pip workflow, called as SAM CLI calls it for a layer: the
template's ``ContentUri`` as the source, its ``requirements.txt`` as the manifest, the
artifacts under ``<layer>/python``), with ``download_dependencies=False``: the source part is
then copied exactly as in a real build, and nothing is downloaded. The dependency part is the
layer's lock, checked in test_locks.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aws_lambda_builders.builder import LambdaBuilder
from build_artifacts import REPO_ROOT, module_name, source_modules

import gateway.web.app  # noqa: F401 - writes __pycache__ into the layer's source, which the build must drop
from local_stack.template import load_template

LAYER = "SharedLayer"


def _build_layer(tmp_path: Path) -> Path:
    layer = load_template()["Resources"][LAYER]
    assert layer["Metadata"]["BuildMethod"] == "python3.11"
    source = REPO_ROOT / layer["Properties"]["ContentUri"]
    artifacts = tmp_path / LAYER / "python"
    LambdaBuilder(language="python", dependency_manager="pip", application_framework=None).build(
        str(source),
        str(artifacts),
        str(tmp_path / "scratch"),
        str(source / "requirements.txt"),
        runtime="python3.11",
        architecture="x86_64",
        download_dependencies=False,
    )
    return tmp_path / LAYER


def _is_test_code(path: Path) -> bool:
    """pytest's own naming: test folders, test modules, conftest."""
    return (
        bool({"tests", "test"} & set(path.parts[:-1]))
        or path.name.startswith("test_")
        or path.name.endswith("_test.py")
        or path.name == "conftest.py"
    )


def test_the_layer_holds_the_whole_gateway_package_and_no_test_code(tmp_path: Path) -> None:
    # Given the source of the layer, with the caches an import leaves in it
    if not sys.dont_write_bytecode:
        assert list((REPO_ROOT / "layers/gateway/gateway/web").glob("__pycache__/app.*.pyc"))
    # When it is built as `sam build` builds it
    layer = _build_layer(tmp_path)
    files = {path.relative_to(layer).as_posix() for path in layer.rglob("*") if path.is_file()}
    # Then every module of gateway is under python/, with its data file
    modules = {
        module_name("gateway", Path(name).relative_to("python/gateway"))
        for name in files
        if name.startswith("python/gateway/") and name.endswith(".py")
    }
    assert modules == source_modules(("gateway",))
    assert "python/gateway/web/openapi.json" in files
    # And nothing but the package and its manifest: no tests, no local runner, no caches
    assert {name.split("/")[1] for name in files} == {"gateway", "requirements.txt"}
    assert not [name for name in files if "__pycache__" in name or name.endswith((".pyc", ".pyo"))]
    assert not [name for name in files if _is_test_code(Path(name))]
    assert not [name for name in files if "local_stack" in name or ".egg-info" in name]
