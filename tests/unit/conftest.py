"""Fixtures the SAM template tests share: the template as parsed, and its offline transform
(:mod:`template_steps`), each made once per module that asks for it."""

from __future__ import annotations

from typing import Any

import pytest
from template_steps import StubManagedPolicyLoader, parse_template, transform


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return parse_template()


@pytest.fixture(scope="module")
def managed_policy_loader() -> StubManagedPolicyLoader:
    return StubManagedPolicyLoader()


@pytest.fixture(scope="module")
def transformed(template: dict[str, Any], managed_policy_loader: StubManagedPolicyLoader) -> dict[str, Any]:
    return transform(template, managed_policy_loader)
