"""Helpers of the control API's group route tests: the master token, requests, the envelope."""

from __future__ import annotations

from typing import Any

import httpx
from fakes_simulated import CONTACT, PHONE, THIRD
from fastapi import Request
from fastapi.testclient import TestClient

from gateway.errors import master_token_required

MASTER = {"Authorization": "Bearer master"}
MISSING_GROUP = "120363999999999999@g.us"


def fake_master(request: Request) -> None:
    """Stands in for ``require_master``: the test's token or the specification's 401 body."""
    if request.headers.get("authorization") != MASTER["Authorization"]:
        raise master_token_required()


def make_accounts(client: TestClient) -> dict[str, str]:
    """Three accounts: PHONE, CONTACT and THIRD; by phone their LIDs."""
    made = [
        client.post("/_simulator/accounts", json={"phone": p}, headers=MASTER)
        for p in (PHONE, CONTACT, THIRD)
    ]
    return {answer.json()["phone"]: answer.json()["lid"] for answer in made}


def post(client: TestClient, path: str, body: dict[str, Any]) -> httpx.Response:
    return client.post(f"/_simulator{path}", json=body, headers=MASTER)


def create(client: TestClient, phone: str, participants: list[str], **options: Any) -> str:
    answer = post(
        client,
        f"/accounts/{phone}/groups",
        {"name": "Team", "participants": participants, "options": options},
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["jid"])


def record(client: TestClient, jid: str) -> dict[str, Any]:
    answer = client.get(f"/_simulator/groups/{jid}", headers=MASTER)
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["group"])


def assert_refused(response: httpx.Response, status: int, code: str) -> None:
    """The lowercase group envelope."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body == {"success": False, "error": {"code": code, "message": body["error"]["message"]}}


def person(jid: str, status: str = "ok", *, admin: bool = False, super_admin: bool = False) -> dict[str, Any]:
    return {"jid": jid, "is_admin": admin or super_admin, "is_super_admin": super_admin, "status": status}
