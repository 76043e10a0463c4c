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

import json
import subprocess
import sys
from pathlib import Path

from build_artifacts import IMPORT_ENVIRONMENT, REPO_ROOT, bytecode_problems, module_name, source_modules

import gateway.web.app  # noqa: F401 - writes __pycache__ into the layer's source, which the build must replace


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
    # Then everything is under python/, and every module of gateway there, with its document
    assert {name.split("/")[0] for name in files} == {"python"}
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
    # Given the built layer, the third-party packages and gateway
    sources = list((layer / "python").rglob("*.py"))
    assert len(sources) > 1000
    # Then each of its modules has 3.11 bytecode, of its very source, that the import trusts as is
    assert sys.implementation.cache_tag == "cpython-311"
    problems = bytecode_problems(layer / "python")
    assert not problems, json.dumps(dict(list(problems.items())[:20]), indent=1)


def test_the_layer_makes_its_clients_with_its_own_botocore(layer: Path) -> None:
    # Given the built layer alone on the path
    # When its gateway makes a client from the shared session
    result = subprocess.run(  # noqa: S603 - this interpreter, no shell
        [sys.executable, "-I", "-S", "-c", _CLIENT_FROM_LAYER, str(layer / "python")],
        capture_output=True,
        text=True,
        env=IMPORT_ENVIRONMENT,
        timeout=120,
        check=True,
    )
    # Then botocore is the layer's (the version the lock pins), and it resolves the endpoint
    assert json.loads(result.stdout) == {
        "botocore_from_layer": True,
        "endpoint": "https://dynamodb.eu-west-1.amazonaws.com",
    }


_CLIENT_FROM_LAYER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import botocore
from gateway import aws
client = aws.botocore_session().create_client("dynamodb", region_name="eu-west-1")
print(json.dumps({
    "botocore_from_layer": botocore.__file__.startswith(sys.argv[1]),
    "endpoint": client.meta.endpoint_url,
}))
"""
