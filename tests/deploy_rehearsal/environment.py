"""Which environment variables each principal's code reads, found in the code itself.

- the gateway's settings (``gateway.config.Settings``), which every function and the session
  host validate whole from the environment at their first use;
- the session host's own (``session_host.config.HostSettings``), the host only;
- ``os.environ`` / ``os.getenv`` reads with a literal name anywhere in a principal's packages
  (the gateway's, its function's, or the session host's);
- Powertools' own variables (``aws_lambda_powertools.shared.constants``), read by the
  Logger, Metrics and Tracer every principal makes.

A variable is *required* when its read has no default: a settings field without one, or an
``os.environ[...]`` subscript.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from aws_lambda_powertools.shared import constants as powertools_constants
from pydantic import BaseModel

from gateway.config import Settings
from local_stack.principals import SESSION_HOST
from session_host.config import HostSettings

LAMBDA_PROVIDED = frozenset(
    {
        "_HANDLER",
        "_X_AMZN_TRACE_ID",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_EXECUTION_ENV",
        "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
        "AWS_LAMBDA_FUNCTION_VERSION",
        "AWS_LAMBDA_INITIALIZATION_TYPE",
        "AWS_LAMBDA_LOG_GROUP_NAME",
        "AWS_LAMBDA_LOG_STREAM_NAME",
        "AWS_LAMBDA_RUNTIME_API",
        "AWS_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "LAMBDA_TASK_ROOT",
        "LAMBDA_RUNTIME_DIR",
    }
)
"""What Lambda sets in every function's environment, and refuses in a template ("reserved
keys", Lambda Developer Guide, "Defined runtime environment variables")."""


@dataclass(frozen=True)
class Read:
    """A variable some code reads, where, and whether it has a default there."""

    variable: str
    where: str
    required: bool


def settings_reads(model: type[BaseModel]) -> list[Read]:
    """The variables of a settings model: its fields' aliases (their names, upper-cased, if none)."""
    return [
        Read(field.alias or name.upper(), f"{model.__module__}.{model.__name__}.{name}", field.is_required())
        for name, field in model.model_fields.items()
    ]


def powertools_reads() -> list[Read]:
    return [
        Read(value, f"aws_lambda_powertools ({name})", required=False)
        for name, value in vars(powertools_constants).items()
        if isinstance(value, str) and value.startswith("POWERTOOLS_")
    ]


def environ_reads(package: str) -> list[Read]:
    """``os.environ.get("X")``, ``os.getenv("X")`` and ``os.environ["X"]`` in ``package``'s modules."""
    spec = importlib.util.find_spec(package)
    assert spec is not None, package
    assert spec.submodule_search_locations, package
    found = []
    for root in spec.submodule_search_locations:
        for path in sorted(Path(root).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                read = _environ_read(node)
                if read is not None:
                    found.append(Read(read[0], f"{path.name}:{node.lineno}", required=read[1]))  # type: ignore[attr-defined]
    return found


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def _environ_read(node: ast.AST) -> tuple[str, bool] | None:
    """(name, required) of a read with a literal name, else None."""
    if isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
        key = node.slice
        return (key.value, True) if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        function = node.func
        getter = isinstance(function, ast.Attribute) and (
            (function.attr == "get" and _is_environ(function.value)) or function.attr == "getenv"
        )
        if getter and isinstance(node.args[0].value, str):
            return node.args[0].value, False
    return None


def reads(principal: str, handler_package: str | None) -> list[Read]:
    """What ``principal``'s code reads: ``handler_package`` is its function's package (None for
    the session host)."""
    found = [*settings_reads(Settings), *powertools_reads(), *environ_reads("gateway")]
    if principal == SESSION_HOST:
        return [*found, *settings_reads(HostSettings), *environ_reads("session_host")]
    assert handler_package is not None, principal
    return [*found, *environ_reads(handler_package)]


def provided(principal: str) -> frozenset[str]:
    """What the platform itself sets for ``principal`` (nothing the template may set)."""
    return frozenset() if principal == SESSION_HOST else LAMBDA_PROVIDED
