"""The console's files as the platform function serves them behind API Gateway: every file of
the console folder with its type and a strict Content-Security-Policy, nothing else."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from platform_api.console import CONTENT_TYPES, ROOT


@pytest.fixture(scope="module")
def client() -> TestClient:
    from platform_api.handler import app

    return TestClient(app)


def test_every_console_file_is_served_with_its_type_and_the_policy(client: TestClient) -> None:
    # Given every file of the console folder
    files = [path for path in ROOT.rglob("*") if path.is_file()]
    assert {path.suffix for path in files} <= set(CONTENT_TYPES), "a console file of a type not served"

    for path in files:
        # When the platform function is asked for it
        response = client.get(f"/console/{path.relative_to(ROOT).as_posix()}")

        # Then it answers the file, typed, with a policy that runs this origin's scripts only
        assert response.status_code == 200, path
        assert response.content == path.read_bytes()
        assert response.headers["content-type"] == CONTENT_TYPES[path.suffix]
        policy = response.headers["content-security-policy"]
        assert "script-src 'self';" in policy
        assert "unsafe-inline" not in policy
        assert "unsafe-eval" not in policy


def test_the_page_is_at_console(client: TestClient) -> None:
    response = client.get("/console")
    assert response.status_code == 200
    assert response.content == (ROOT / "index.html").read_bytes()
    assert response.headers["content-security-policy"].startswith("default-src 'self'")


def test_only_the_console_folder_is_served(client: TestClient) -> None:
    # Paths outside the folder, encoded or not, and unknown files are the standard 404
    for path in ("/console/missing.js", "/console/..%2Fconsole.py", "/console/js/..%2F..%2Froutes.py"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error_code"] == "NOT_FOUND"


def test_console_routes_stay_out_of_the_api_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/console")]


@pytest.mark.parametrize("method", ["HEAD", "POST", "PUT", "DELETE"])
@pytest.mark.parametrize("path", ["/console", "/console/js/app.js"])
def test_another_method_on_a_console_page_is_405_naming_get(
    client: TestClient, method: str, path: str
) -> None:
    response = client.request(method, path)

    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
