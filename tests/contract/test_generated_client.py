"""A client generated from the served document with openapi-python-client is typed, and works.

The client is generated into a temporary directory (post hooks off, so no formatter is needed)
and imported from there: what a user gets by following docs/clients.md.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import requests

PACKAGE = "gateway_client"
CONFIG = f"post_hooks: []\npackage_name_override: {PACKAGE}\n"


@pytest.fixture(scope="module")
def client_package(stack: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package openapi-python-client generates from the running gateway's /openapi.json."""
    workdir = tmp_path_factory.mktemp("generated")
    document = workdir / "openapi.json"
    document.write_bytes(requests.get(f"{stack.base_url}/openapi.json", timeout=30).content)
    (workdir / "config.yaml").write_text(CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    command = [str(generator), "generate", "--path", "openapi.json", "--config", "config.yaml"]
    command += ["--meta", "none", "--output-path", PACKAGE, "--fail-on-warning"]
    run = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=120, check=False)  # noqa: S603
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(workdir))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(workdir))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_generated_client_registers_a_tenant_into_typed_models(
    stack: Any, client_package: ModuleType
) -> None:
    # Given the generated client with the master token, and a registration
    register = _module("api.platform.register")
    models = _module("models")
    master = client_package.AuthenticatedClient(base_url=stack.base_url, token=stack.master_token)
    name = f"client-{uuid.uuid4().hex[:12]}"
    body = models.RegisterRequest(tenant_name=name, email=f"admin@{name}.example.com", password="secret123")

    # When it registers a tenant
    registered = register.sync(client=master, body=body)

    # Then the 201 is parsed into the generated model, its parts typed too
    assert isinstance(registered, models.RegisterResponse)
    assert isinstance(registered.user, models.User)
    assert isinstance(registered.tenant, models.Tenant)
    assert registered.tenant.name == name
    assert registered.user.role == models.Role.ADMIN
    assert isinstance(registered.tenant.created_at, datetime)
    assert isinstance(registered.token, uuid.UUID)

    # And the admin's token works through the client's user scheme
    status = _module("api.users.status")
    admin = client_package.AuthenticatedClient(base_url=stack.base_url, token=str(registered.token))
    me = status.sync(client=admin)
    assert isinstance(me, models.StatusResponse)
    assert me.tenant.id == registered.tenant.id


def test_generated_client_parses_every_error_shape(stack: Any, client_package: ModuleType) -> None:
    # Given the generated client, a registered tenant and a client without a token
    register = _module("api.platform.register")
    status = _module("api.users.status")
    models = _module("models")
    master = client_package.AuthenticatedClient(base_url=stack.base_url, token=stack.master_token)
    anonymous = client_package.Client(base_url=stack.base_url)
    name = f"client-{uuid.uuid4().hex[:12]}"
    body = models.RegisterRequest(tenant_name=name, email=f"admin@{name}.example.com", password="secret123")
    assert isinstance(register.sync(client=master, body=body), models.RegisterResponse)

    # When the master route is called without the master token
    refused = register.sync(client=anonymous, body=body)
    # Then the 401 is the master-token body, typed
    assert isinstance(refused, models.MasterTokenError)
    assert refused.error == models.MasterTokenErrorError.MASTER_TOKEN_REQUIRED

    # When the same tenant is registered again
    conflict = register.sync(client=master, body=body)
    # Then the 409 is the standard envelope, with its code
    assert isinstance(conflict, models.ErrorEnvelope)
    assert conflict.error_code == "TENANT_EXISTS"

    # When a user route is called without a token
    unauthenticated = status.sync(client=anonymous)
    # Then the 401 is the short body, typed
    assert isinstance(unauthenticated, models.InvalidTokenError)
