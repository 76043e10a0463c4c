"""The type check (`make test`, `make lint`: mypy with pyproject.toml's ``[tool.mypy]``) covers
every package the wheel ships and the local runner, so a new function's package cannot be left
out of it unnoticed."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def test_mypy_checks_every_shipped_package_and_the_local_runner() -> None:
    # Given the packages setuptools puts in the wheel, and the local runner's own distribution
    shipped = set(PYPROJECT["tool"]["setuptools"]["package-dir"].values())
    # When mypy's configuration names what it checks
    checked = set(PYPROJECT["tool"]["mypy"]["files"])
    # Then it is exactly those folders, each a package that exists
    assert checked == shipped | {"layers/local_stack"}
    assert all((REPO_ROOT / folder / "__init__.py").is_file() for folder in checked)


def test_mypy_is_strict_with_exceptions_named_per_module() -> None:
    # Given the type check's configuration
    config = PYPROJECT["tool"]["mypy"]
    # Then it is strict everywhere, and untyped dependencies are named, not ignored wholesale
    assert config["strict"] is True
    assert "ignore_missing_imports" not in config
    for override in config.get("overrides", []):
        assert all(module and module != "*" for module in override["module"])
