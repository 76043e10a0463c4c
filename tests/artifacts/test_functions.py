"""Each function's artifact holds what ``sam build`` puts in it: its own package alone, whole, at
the root Lambda puts on ``sys.path``, with CPython 3.11 bytecode; and a cold start, the
function's artifact and the layer on the path, compiles nothing and reads no source.

The functions are built as SAM CLI builds ``BuildMethod: makefile`` functions (``make
build-<LogicalId>`` of the ``ContextPath``'s Makefile, functions/Makefile, in a scratch copy of
the function's own ``CodeUri``), the layer as test_layer.py builds it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from build_artifacts import (
    FUNCTION_PACKAGES,
    IMPORT_ENVIRONMENT,
    SHARED_PACKAGES,
    bytecode_problems,
    module_name,
    source_modules,
)


def _package(template_resources: dict[str, dict], name: str) -> str:
    return template_resources[name]["Properties"]["Handler"].split(".")[0]


def test_each_function_holds_its_own_package_alone_with_its_bytecode(
    template_resources: dict[str, dict], function_artifacts: dict[str, Path]
) -> None:
    # Given every function of the template, as built: one per package (the slow delivery lane
    # is a second function of the delivery package)
    packages = {_package(template_resources, name) for name in function_artifacts}
    assert packages == set(FUNCTION_PACKAGES)
    for name, root in function_artifacts.items():
        package = _package(template_resources, name)
        # Then its artifact holds only the package its Handler names, with the handler module
        assert {entry.name for entry in root.iterdir()} == {package}, name
        handler_module = template_resources[name]["Properties"]["Handler"].rpartition(".")[0]
        assert (root / (handler_module.replace(".", "/") + ".py")).is_file(), name
        # And the whole package, as in the sources
        modules = {
            module_name(package, path.relative_to(root / package)) for path in (root / package).rglob("*.py")
        }
        assert modules == source_modules((package,)), name
        # And each module's bytecode, for CPython 3.11, trusted as is
        problems = bytecode_problems(root)
        assert not problems, f"{name}: {json.dumps(problems, indent=1)}"


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


def test_the_functions_import_from_their_artifacts_and_the_layer_without_compiling_anything(
    layer: Path, function_artifacts: dict[str, Path], tmp_path: Path
) -> None:
    # Given every module of gateway and of the functions (whose imports reach the third-party
    # packages a cold start loads), and a control module that has no bytecode
    modules = {
        name for name in source_modules(SHARED_PACKAGES + FUNCTION_PACKAGES) if not name.endswith(".__main__")
    }
    control = tmp_path / "control"
    control.mkdir()
    (control / "uncompiled_control.py").write_text("VALUE = 1\n")
    # When each is imported with the built layer and the built functions on the path
    paths = [layer / "python", *function_artifacts.values(), control]
    result = subprocess.run(  # noqa: S603 - this interpreter, our script, no shell
        [sys.executable, "-I", "-S", "-B", "-c", _IMPORT_RECORDING_COMPILES, *map(str, paths)],
        input=json.dumps([*sorted(modules), "uncompiled_control"]),
        capture_output=True,
        text=True,
        env=IMPORT_ENVIRONMENT,
        timeout=120,
        check=True,
    )
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    # Then every one imports, from the built artifacts
    assert not outcome["failed"], json.dumps(outcome["failed"], indent=1)
    built = (str(layer), *map(str, function_artifacts.values()))
    assert not [
        name for name, file in outcome["files"].items() if name in modules and not file.startswith(built)
    ]
    # And the recording sees a compile where there is no bytecode
    assert str(control / "uncompiled_control.py") in outcome["compiled"]
    # And nothing built was compiled, or even read as source
    assert not [path for path in outcome["compiled"] if path.startswith(built)]
    assert not [path for path in outcome["read"] if path.startswith(built)]
