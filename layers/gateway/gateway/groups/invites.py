"""Invite links: ``https://chat.whatsapp.com/<code>``, read the one way everyone reads them."""

from __future__ import annotations

from gateway.groups.codes import INVITE_HOST


def invite_link(code: str) -> str:
    return f"https://{INVITE_HOST}/{code}"


def code_of_link(link: str) -> str | None:
    """The invite code of a link that contains ``chat.whatsapp.com/<code>``, else None.

    The specification's rule is "the URL must contain ``<invite_host>/``"; the code is what
    follows, up to the end (a query or fragment is not part of it) and must not be empty or
    hold another ``/``.
    """
    _, marker, rest = link.partition(f"{INVITE_HOST}/")
    code = rest.split("?", 1)[0].split("#", 1)[0]
    if not marker or not code or "/" in code:
        return None
    return code
