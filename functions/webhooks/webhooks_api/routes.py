"""Routes of the webhooks area. They arrive with the webhooks capability; the router exists so the
function, its deployment and the local app are wired from the start."""

from fastapi import APIRouter

router = APIRouter(tags=["webhooks"])
