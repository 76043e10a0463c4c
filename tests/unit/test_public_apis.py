"""Production code uses its dependencies through their public API: no private module or name
imported, no private attribute of a dependency read, no private method of a dependency's class
overridden. A framework upgrade then needs no patch to be rewritten first.

The few exceptions are listed in :data:`KNOWN`, each with why no public way exists; the test
also fails when one of them is gone, so the list stays true.
"""

from __future__ import annotations

import ast
import gc
import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = [
    REPO_ROOT / "layers/gateway/gateway",
    REPO_ROOT / "session_host/session_host",
    *sorted(path for path in (REPO_ROOT / "functions").glob("*/*") if (path / "__init__.py").exists()),
]
FIRST_PARTY = {path.name for path in PRODUCTION}

KNOWN = {
    # PynamoDB has no public way to give a model a connection or a botocore session
    # (pynamodb/PynamoDB#876); without it every model class makes a session of its own.
    ("layers/gateway/gateway/models/base.py", "_get_connection"),
    # The SSRF guard checks the address a connection reached before a byte is sent; urllib3
    # has no public hook between connecting and the TLS handshake.
    ("layers/gateway/gateway/media/fetch.py", "_new_conn"),
    # neonize exposes no public login-status callback (issue 23: the adapter's own refactor).
    ("session_host/session_host/network/neonize/handlers.py", "_NewClient__onLoginStatus"),
}


@dataclass(frozen=True)
class Use:
    path: str
    name: str
    line: int
    why: str


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_dependency(module: str) -> bool:
    top = module.split(".")[0]
    return top not in FIRST_PARTY and top not in sys.stdlib_module_names and top != "__future__"


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for root in PRODUCTION:
        for path in sorted(root.rglob("*.py")):
            name = path.relative_to(REPO_ROOT).as_posix() if path.is_relative_to(REPO_ROOT) else path.name
            yield name, _parse(path)


def _parse(path: Path) -> ast.Module:
    """``ast.parse`` with the garbage collector paused: once in the full suite, CPython 3.11.7
    raised a spurious "AST constructor recursion depth mismatch" here, most likely a collection
    running finalizers while the tree was built (the interpreter's known 3.11 bug)."""
    gc.disable()
    try:
        return ast.parse(path.read_text(), str(path))
    finally:
        gc.enable()


def _is_own(node: ast.expr) -> bool:
    """Whether an attribute is set on the instance or class being defined."""
    return isinstance(node, ast.Name) and node.id in {"self", "cls"}


def _defined_names(trees: list[ast.Module]) -> set[str]:
    """Every private name production code defines itself (functions, classes, attributes it
    sets on ``self`` or ``cls``, variables, parameters): using one of those is using our own."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_own(node.value):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def _dependency_bindings(tree: ast.Module) -> dict[str, str]:
    """Names a module binds to a dependency, with what they are (``module`` or ``module.name``)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_dependency(alias.name):
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and _is_dependency(node.module)
        ):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _stdlib_bindings(tree: ast.Module) -> set[str]:
    """Names a module binds to a module of the standard library."""
    return {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] in sys.stdlib_module_names
    }


def _resolve(dotted: str) -> object | None:
    """The object a dependency binding names, imported."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found
    return None


def _overrides(path: str, tree: ast.Module, bound: dict[str, str]) -> set[Use]:
    """Private methods of a dependency's class that a class of the module overrides."""
    uses: set[Use] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [
            _resolve(bound[base.id]) for base in node.bases if isinstance(base, ast.Name) and base.id in bound
        ]
        for item in node.body:
            if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) or not _is_private(item.name):
                continue
            if any(base is not None and hasattr(base, item.name) for base in bases):
                uses.add(Use(path, item.name, item.lineno, "private method of a dependency overridden"))
    return uses


def _imports(path: str, tree: ast.Module) -> set[Use]:
    """Private modules and names of a dependency that the module imports."""
    uses: set[Use] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and _is_dependency(node.module)
        ):
            if any(_is_private(part) for part in node.module.split(".")):
                uses.add(Use(path, node.module, node.lineno, "private module imported"))
            uses |= {
                Use(path, a.name, node.lineno, "private name imported")
                for a in node.names
                if _is_private(a.name)
            }
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _is_dependency(alias.name) and any(_is_private(part) for part in alias.name.split(".")):
                    uses.add(Use(path, alias.name, node.lineno, "private module imported"))
    return uses


def private_uses() -> set[Use]:
    sources = [(path, tree, _dependency_bindings(tree)) for path, tree in _sources()]
    overrides = set().union(*(_overrides(path, tree, bound) for path, tree, bound in sources))
    # An override is the dependency's name, not ours: calling it is calling the dependency's.
    ours = _defined_names([tree for _, tree, _ in sources]) - {use.name for use in overrides}
    uses = set(overrides)
    for path, tree, bound in sources:
        uses |= _imports(path, tree)
        stdlib = _stdlib_bindings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                named = node.value.id if isinstance(node.value, ast.Name) else None
                if named in stdlib:  # os._exit, sys._getframe: documented, and no dependency
                    continue
                if named in bound or node.attr not in ours:
                    uses.add(Use(path, node.attr, node.lineno, "private attribute of a dependency used"))
    return uses


def test_production_code_uses_no_private_api_of_its_dependencies() -> None:
    # Given every module of the layer, the functions and the session host
    # When their imports, attribute reads and overrides are read
    uses = private_uses()

    # Then each private name of a dependency they use is a known exception, and each known
    # exception is still there
    unknown = sorted(
        f"{use.path}:{use.line} {use.name} ({use.why})" for use in uses if (use.path, use.name) not in KNOWN
    )
    assert not unknown, "\n".join(unknown)
    assert {(use.path, use.name) for use in uses} >= KNOWN


def test_the_check_finds_each_kind_of_private_use(tmp_path: Path) -> None:
    # Given a module doing each thing the check refuses
    source = (
        "import fastapi._compat\n"
        "from fastapi.routing import _extract_endpoint_context\n"
        "from pynamodb.models import Model\n"
        "from botocore.loaders import JSONFileLoader\n"
        "class Loader(JSONFileLoader):\n"
        "    def _load_file(self, path, open_method): ...\n"
        "def connection():\n"
        "    return Model._get_connection()\n"
    )
    tree = ast.parse(source)
    bound = _dependency_bindings(tree)

    # Then the bindings resolve, and the whole check flags the four kinds
    assert bound["JSONFileLoader"] == "botocore.loaders.JSONFileLoader"
    assert _resolve(bound["JSONFileLoader"]) is not None
    module = tmp_path / "probe.py"
    module.write_text(source)
    found = _uses_in(module)
    assert {
        "fastapi._compat",
        "_extract_endpoint_context",
        "_load_file",
        "_get_connection",
    } <= {use.name for use in found}


def _uses_in(module: Path) -> set[Use]:
    """:func:`private_uses` of one extra module, read as if it were production code."""
    original = list(PRODUCTION)
    PRODUCTION[:] = [module.parent]
    try:
        return {use for use in private_uses() if use.path.endswith(module.name)}
    finally:
        PRODUCTION[:] = original
